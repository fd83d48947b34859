/**
 * A small block-style YAML emitter for Helm templates: plain JSON values are written as YAML
 * (with `{{` escaped, so content that looks like a Go template survives rendering verbatim), and
 * template nodes insert actions: inline scalars, `toYaml` blocks, conditional entries and items,
 * and `range` loops. Output is deterministic: map entries keep their insertion order.
 */
import { stringify } from 'yaml';
import { isObject, Json } from '../model/types';

/** Raw template text that renders to one YAML flow scalar, e.g. `{{ int $w.replicas }}`. */
export class TExpr {
  constructor(readonly text: string) {}
}

/** A map or list value rendered with `toYaml <value> | nindent N` (the value is a template expression). */
export class TBlock {
  constructor(readonly value: string) {}
}

export interface TEntry {
  key: string;
  value: TNode;
  /** Go template condition: the entry is written only when it holds. */
  when?: string;
}

/** Template text that renders to map lines, inserted with `| nindent N` (e.g. an `include` of labels). */
export interface TRawEntry {
  raw: string;
  /** `raw` is a map expression: its entries are written (`with` + `toYaml`), nothing when it is empty. */
  with?: boolean;
}

/** An editable map; entries keep their order. Classes (not plain objects) so manifest content can never pose as a node. */
export class TMap {
  constructor(readonly entries: (TEntry | TRawEntry)[] = []) {}
}

export interface TItem {
  value: TNode;
  when?: string;
  /** `range` clause (e.g. `$key := $w.spread.topologyKeys`): the item is written once per element. */
  range?: string;
}

export class TSeq {
  constructor(readonly items: TItem[] = []) {}
}

export type TNode = Json | TExpr | TBlock | TMap | TSeq;

export function expr(text: string): TExpr {
  return new TExpr(text);
}

export function block(value: string): TBlock {
  return new TBlock(value);
}

/** Converts plain JSON into template nodes (maps and sequences become editable TMap/TSeq). */
export function toT(v: Json): TNode {
  if (Array.isArray(v)) return new TSeq(v.map((x) => ({ value: toT(x) })));
  if (isObject(v)) return new TMap(Object.entries(v).map(([key, value]) => ({ key, value: toT(value) })));
  return v;
}

/** A deep copy of a node: maps and sequences are new (expressions and blocks are immutable and shared). */
export function cloneT(v: TNode): TNode {
  if (v instanceof TMap) return new TMap(v.entries.map((e) => ('raw' in e ? { ...e } : { ...e, value: cloneT(e.value) })));
  if (v instanceof TSeq) return new TSeq(v.items.map((i) => ({ ...i, value: cloneT(i.value) })));
  if (v instanceof TExpr || v instanceof TBlock) return v;
  return v === null || typeof v !== 'object' ? v : (JSON.parse(JSON.stringify(v)) as Json);
}

export function isTMap(v: TNode | undefined): v is TMap {
  return v instanceof TMap;
}

export function isTSeq(v: TNode | undefined): v is TSeq {
  return v instanceof TSeq;
}

/** The entry of a map by key. */
export function entryOf(m: TMap, key: string): TEntry | undefined {
  return m.entries.find((e): e is TEntry => 'key' in e && e.key === key);
}

/** Navigates maps (by key) and sequences (by index); undefined when the path does not exist. */
export function nodeAt(root: TNode, path: (string | number)[]): TNode | undefined {
  let cur: TNode | undefined = root;
  for (const seg of path) {
    if (typeof seg === 'number') {
      if (!isTSeq(cur)) return undefined;
      cur = cur.items[seg]?.value;
    } else {
      if (!isTMap(cur)) return undefined;
      cur = entryOf(cur, seg)?.value;
    }
  }
  return cur;
}

/** The entry at a path (its last segment a key), or undefined. */
export function entryAt(root: TNode, path: (string | number)[]): TEntry | undefined {
  const parent = nodeAt(root, path.slice(0, -1));
  const last = path[path.length - 1];
  return isTMap(parent) && typeof last === 'string' ? entryOf(parent, last) : undefined;
}

/** Sets (or appends) the value of a map entry at a path whose parent exists. */
export function setAt(root: TNode, path: (string | number)[], value: TNode, when?: string): void {
  const parent = nodeAt(root, path.slice(0, -1));
  const key = path[path.length - 1];
  if (!isTMap(parent) || typeof key !== 'string') throw new Error(`internal error: no map at ${path.slice(0, -1).join('.')}`);
  const e = entryOf(parent, key);
  if (e) {
    e.value = value;
    if (when !== undefined) e.when = when;
  } else parent.entries.push(when === undefined ? { key, value } : { key, value, when });
}

/** Removes a map entry at a path, if present. */
export function deleteAt(root: TNode, path: (string | number)[]): void {
  const parent = nodeAt(root, path.slice(0, -1));
  const key = path[path.length - 1];
  if (!isTMap(parent)) return;
  const i = parent.entries.findIndex((e) => 'key' in e && e.key === key);
  if (i >= 0) parent.entries.splice(i, 1);
}

// ---------------------------------------------------------------------------------------------
// Escaping

/** Text with every `{{` replaced by an action printing it, so Go templates leave it as written. */
export function escapeTemplate(s: string): string {
  return s.replace(/\{\{/g, '{{ "{{" }}');
}

/** A Go string literal (JSON's escapes are a subset Go accepts). */
export function goString(s: string): string {
  return JSON.stringify(s);
}

/**
 * Characters helm's YAML reader (go-yaml) refuses anywhere in a file (DEL, C1 controls, a BOM past
 * the start, U+FFFE/U+FFFF) or reads as a line break (U+0085, U+2028, U+2029): only a `\u` escape
 * in a double-quoted scalar carries them. (JSON.stringify escapes C0 controls only.)
 */
const YAML_UNSAFE = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g;
const NEEDS_DOUBLE_QUOTES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;

/** A double-quoted YAML scalar (JSON) that go-yaml reads back as `s`. */
export function yamlQuoted(s: string): string {
  return JSON.stringify(s).replace(YAML_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON text as YAML flow that go-yaml reads back as the same value (see yamlQuoted). */
export function yamlJson(v: Json): string {
  return JSON.stringify(v).replace(YAML_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whether a string holds a character only yamlQuoted can write. */
export function needsYamlEscape(s: string): boolean {
  return NEEDS_DOUBLE_QUOTES.test(s);
}

/**
 * One YAML scalar on one line: plain when both YAML 1.1 (Helm, kubectl) and 1.2 read it back as
 * the same string, else double-quoted.
 */
export function scalarText(v: string | number | boolean | null): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
  if (typeof v === 'boolean') return String(v);
  if (v.includes('\n') || NEEDS_DOUBLE_QUOTES.test(v)) return escapeTemplate(yamlQuoted(v));
  const a = stringify(v, { lineWidth: 0, version: '1.1' }).replace(/\n$/, '');
  const b = stringify(v, { lineWidth: 0, version: '1.2' }).replace(/\n$/, '');
  const text = a === v && b === v ? v : yamlQuoted(v);
  return escapeTemplate(text);
}

/** A multi-line string as a literal block (`|` or `|-`) when that keeps it exact, else undefined. */
function literalBlock(s: string, indent: number): string[] | undefined {
  if (!s.includes('\n') || NEEDS_DOUBLE_QUOTES.test(s) || s.includes('\r')) return undefined;
  let chomp: string;
  let body: string;
  if (s.endsWith('\n\n')) return undefined; // keep (`|+`): a following `{{-` would trim it
  if (s.endsWith('\n')) {
    chomp = '|';
    body = s.slice(0, -1);
  } else {
    chomp = '|-';
    body = s;
  }
  const lines = body.split('\n');
  // The indentation of a block is taken from its first non-empty line: that line must not start with blanks.
  const first = lines.find((l) => l !== '');
  if (first === undefined || /^[ \t]/.test(first) || lines.some((l) => l.length > 0 && /^[ \t]*$/.test(l)) || lines[lines.length - 1] === '') return undefined;
  // Blanks ending the last line would be trimmed by a following `{{-` (the next entry may be one).
  if (/[ \t]$/.test(lines[lines.length - 1])) return undefined;
  const pad = ' '.repeat(indent);
  return [chomp, ...lines.map((l) => (l === '' ? '' : escapeTemplate(pad + l)))];
}

// ---------------------------------------------------------------------------------------------
// Emitting

function keyText(k: string): string {
  // A plain `<<` key is a merge key to helm's YAML reader (go-yaml): quoted, it is the key itself.
  return k === '<<' ? JSON.stringify(k) : scalarText(k);
}

/** Whether a node is written on the line of its key (scalars, inline expressions, empty collections). */
function inline(v: TNode): string | undefined {
  if (v instanceof TExpr) return v.text;
  if (v instanceof TMap) return v.entries.length === 0 ? '{}' : undefined;
  if (v instanceof TSeq) return v.items.length === 0 ? '[]' : undefined;
  if (v instanceof TBlock) return undefined;
  if (v === null || typeof v !== 'object') return scalarText(v);
  return undefined;
}

/** Plain JSON collections become TMap/TSeq, so there is one emitting path. */
function normalize(v: TNode): TNode {
  if (v instanceof TExpr || v instanceof TBlock || v instanceof TMap || v instanceof TSeq) return v;
  if (Array.isArray(v) || isObject(v)) return toT(v);
  return v;
}

function control(indent: number, text: string): string {
  return `${' '.repeat(indent)}{{- ${text} }}`;
}

function emitValueAfterKey(prefix: string, value: TNode, indent: number, out: string[]): void {
  const v = normalize(value);
  const lit = typeof v === 'string' ? literalBlock(v, indent + 2) : undefined;
  if (lit) {
    out.push(`${prefix} ${lit[0]}`, ...lit.slice(1));
    return;
  }
  const one = inline(v);
  if (one !== undefined) {
    out.push(`${prefix} ${one}`);
    return;
  }
  out.push(prefix);
  if (isTMap(v)) emitMap(v, indent + 2, out);
  else if (isTSeq(v)) emitSeq(v, indent + 2, out);
  else if (v instanceof TBlock) out.push(control(indent + 2, `toYaml ${v.value} | nindent ${indent + 2}`));
  else throw new Error('internal error: cannot emit value');
}

export function emitMap(m: TMap, indent: number, out: string[]): void {
  const pad = ' '.repeat(indent);
  for (const e of m.entries) {
    if ('raw' in e) {
      out.push(e.with ? `${control(indent, `with ${e.raw}`)}{{ toYaml . | nindent ${indent} }}{{- end }}` : control(indent, `${e.raw} | nindent ${indent}`));
      continue;
    }
    if (e.when) out.push(control(indent, `if ${e.when}`));
    emitValueAfterKey(`${pad}${keyText(e.key)}:`, e.value, indent, out);
    if (e.when) out.push(control(indent, 'end'));
  }
}

export function emitSeq(s: TSeq, indent: number, out: string[]): void {
  const pad = ' '.repeat(indent);
  for (const item of s.items) {
    if (item.when) out.push(control(indent, `if ${item.when}`));
    if (item.range) out.push(control(indent, `range ${item.range}`));
    const v = normalize(item.value);
    const lit = typeof v === 'string' ? literalBlock(v, indent + 2) : undefined;
    const one = lit ? undefined : inline(v);
    if (lit) out.push(`${pad}- ${lit[0]}`, ...lit.slice(1));
    else if (one !== undefined) out.push(`${pad}- ${one}`);
    else if (isTMap(v)) {
      const sub: string[] = [];
      emitMap(v, indent + 2, sub);
      // The first entry shares the dash's line, unless it is a template action.
      if (sub.length && !sub[0].trimStart().startsWith('{{-')) out.push(`${pad}- ${sub[0].trimStart()}`, ...sub.slice(1));
      else out.push(`${pad}-`, ...sub);
    } else if (isTSeq(v)) {
      out.push(`${pad}-`);
      emitSeq(v, indent + 2, out);
    } else if (v instanceof TBlock) {
      out.push(`${pad}-`, control(indent + 2, `toYaml ${v.value} | nindent ${indent + 2}`));
    }
    if (item.range) out.push(control(indent, 'end'));
    if (item.when) out.push(control(indent, 'end'));
  }
}

/** A whole document (a map at the top level), ending with a newline. */
export function emitDocument(root: TNode): string {
  const out: string[] = [];
  const v = normalize(root);
  if (!isTMap(v)) throw new Error('internal error: a document must be a map');
  emitMap(v, 0, out);
  return out.join('\n') + '\n';
}
