/**
 * The values of a generated chart as one tree: every knob has its default, its JSON Schema and
 * its description, and values.yaml (helm-docs `# --` comments), values.schema.json and the
 * README table are all rendered from it, so they cannot disagree.
 */
import { stringify } from 'yaml';
import { isObject, Json, JsonObject } from '../model/types';
import { escapeControlKeepNewlines } from '../report/escape';
import { needsYamlEscape, yamlJson } from './emit';

export interface ValueLeaf {
  kind: 'leaf';
  key: string;
  description: string;
  default: Json;
  schema: JsonObject;
  /** Required unless null is a meaningful value (then the key may also be removed). */
  optional?: boolean;
}

export interface ValueGroup {
  kind: 'group';
  key: string;
  description: string;
  children: ValueNode[];
  /** Reject unknown keys (typos) below this group. Default true. */
  closed?: boolean;
}

export type ValueNode = ValueLeaf | ValueGroup;

export function leaf(key: string, description: string, def: Json, schema: JsonObject, optional = false): ValueLeaf {
  return optional ? { kind: 'leaf', key, description, default: def, schema, optional } : { kind: 'leaf', key, description, default: def, schema };
}

export function group(key: string, description: string, children: ValueNode[]): ValueGroup {
  return { kind: 'group', key, description, children };
}

// ---------------------------------------------------------------------------------------------
// Schemas of the knob types

export const INT32_MAX = 2147483647;

export function intSchema(minimum: number, maximum = INT32_MAX): JsonObject {
  return { type: 'integer', minimum, maximum };
}

/** An IntOrString that must be an integer or a percentage (`"25%"`); `maxPercent` bounds the latter. */
export function intOrPercentSchema(opts: { nullable?: boolean; maxPercent100?: boolean } = {}): JsonObject {
  const pattern = opts.maxPercent100 ? '^(100|[1-9]?[0-9])%$' : '^[0-9]+%$';
  return {
    type: opts.nullable ? ['integer', 'string', 'null'] : ['integer', 'string'],
    minimum: 0,
    maximum: INT32_MAX,
    pattern,
  };
}

export function enumSchema(values: string[]): JsonObject {
  return { type: 'string', enum: values };
}

const QUANTITY = '^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+|[KMGTPE]i?|[mkMGTPE]|[munpfa])?$';

/** core/v1 ResourceRequirements: limits and requests of quantities (numbers or strings). */
export function resourcesSchema(): JsonObject {
  const quantities = { type: 'object', additionalProperties: { type: ['string', 'number'], pattern: QUANTITY } };
  return {
    type: 'object',
    properties: { limits: quantities, requests: quantities, claims: { type: 'array', items: { type: 'object' } } },
    additionalProperties: false,
  };
}

// ---------------------------------------------------------------------------------------------
// Rendering

/** The default values as a plain object. */
export function defaultsOf(nodes: ValueNode[]): JsonObject {
  const out: JsonObject = {};
  for (const n of nodes) out[n.key] = n.kind === 'leaf' ? n.default : defaultsOf(n.children);
  return out;
}

/** values.schema.json (draft-07, what helm 3's gojsonschema validates). */
export function valuesSchema(nodes: ValueNode[], title: string): JsonObject {
  return { $schema: 'http://json-schema.org/draft-07/schema#', title, ...objectSchema(nodes, true) };
}

function objectSchema(nodes: ValueNode[], closed: boolean): JsonObject {
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const n of nodes) {
    if (n.kind === 'leaf') {
      properties[n.key] = { description: n.description, ...n.schema };
      if (!n.optional) required.push(n.key);
    } else {
      properties[n.key] = { description: n.description, ...objectSchema(n.children, n.closed !== false) };
      required.push(n.key);
    }
  }
  const s: JsonObject = { type: 'object', properties };
  if (required.length) s.required = required;
  // Unknown keys are almost always typos of a knob: refuse them rather than ignore them.
  if (closed) s.additionalProperties = false;
  return s;
}

/** Whether a value holds a string (or key) that the yaml package would write with characters go-yaml refuses. */
function hasUnsafeText(v: Json): boolean {
  if (typeof v === 'string') return needsYamlEscape(v);
  if (Array.isArray(v)) return v.some(hasUnsafeText);
  if (isObject(v)) return Object.entries(v).some(([k, x]) => needsYamlEscape(k) || hasUnsafeText(x));
  return false;
}

function yamlText(v: Json): string {
  // helm reads values.yaml with go-yaml: controls and line-break characters only as \u escapes (JSON is YAML).
  if (hasUnsafeText(v)) return yamlJson(v);
  // A scalar is written after `key: ` on one line: a multi-line string as a block would lose its indentation.
  if (typeof v === 'string' && v.includes('\n')) return yamlJson(v);
  return stringify(v, { version: '1.1', lineWidth: 0, indent: 2 }).replace(/\n$/, '');
}

function commentLines(text: string, pad: string): string[] {
  // Names from the manifests reach descriptions: no control or line-break character may end the comment.
  const lines = escapeControlKeepNewlines(text).replace(/\r/g, '\\u000d').replace(/[\ufeff\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`).split('\n');
  return [`${pad}# -- ${lines[0]}`, ...lines.slice(1).map((l) => `${pad}# ${l}`)];
}

/** values.yaml: each key preceded by its `# --` description (helm-docs style). */
export function valuesYaml(nodes: ValueNode[], header: string[]): string {
  const out: string[] = header.map((h) => (h ? `# ${h}` : '#'));
  if (out.length) out.push('');
  emitNodes(nodes, 0, out, true);
  return out.join('\n').replace(/\n+$/, '') + '\n';
}

function emitNodes(nodes: ValueNode[], indent: number, out: string[], top: boolean): void {
  const pad = ' '.repeat(indent);
  nodes.forEach((n, i) => {
    if (top && i > 0) out.push('');
    out.push(...commentLines(n.description, pad));
    const key = yamlText(n.key);
    if (n.kind === 'group') {
      if (n.children.length === 0) {
        out.push(`${pad}${key}: {}`);
        return;
      }
      out.push(`${pad}${key}:`);
      emitNodes(n.children, indent + 2, out, false);
      return;
    }
    const v = n.default;
    const empty = (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
    if (v === null || typeof v !== 'object' || empty) {
      out.push(`${pad}${key}: ${empty ? (Array.isArray(v) ? '[]' : '{}') : yamlText(v)}`);
      return;
    }
    out.push(`${pad}${key}:`);
    for (const line of yamlText(v).split('\n')) out.push(`${pad}  ${line}`);
  });
}

export interface ValueRow {
  key: string;
  type: string;
  default: Json;
  description: string;
}

/** Every leaf with its full dotted key, in values.yaml order. */
export function valueRows(nodes: ValueNode[], prefix = ''): ValueRow[] {
  const rows: ValueRow[] = [];
  for (const n of nodes) {
    const key = prefix ? `${prefix}.${n.key}` : n.key;
    if (n.kind === 'group') {
      if (n.children.length === 0) rows.push({ key, type: 'object', default: {}, description: n.description });
      rows.push(...valueRows(n.children, key));
    } else rows.push({ key, type: typeName(n.schema), default: n.default, description: n.description });
  }
  return rows;
}

function typeName(s: JsonObject): string {
  const t = s.type;
  const types = Array.isArray(t) ? t.map(String) : typeof t === 'string' ? [t] : [];
  if (types.includes('integer') && types.includes('string')) return types.includes('null') ? 'int or percent, or null' : 'int or percent';
  if (Array.isArray(s.enum)) return `string (${s.enum.map((x) => (x === '' ? '""' : String(x))).join(' \\| ')})`;
  if (types.includes('array')) return 'list';
  return types.join(' or ') || 'any';
}

/** A markdown table of the values: key, type, default, description. */
export function valuesTable(nodes: ValueNode[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = ['| Key | Type | Default | Description |', '|-----|------|---------|-------------|'];
  for (const r of valueRows(nodes)) {
    const def = `\`${JSON.stringify(r.default).replace(/\|/g, '\\|')}\``;
    lines.push(`| \`${r.key}\` | ${r.type.includes('\\|') ? r.type : cell(r.type)} | ${def} | ${cell(r.description)} |`);
  }
  return lines.join('\n') + '\n';
}
