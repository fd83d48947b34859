import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import * as fs from 'fs';
import * as path from 'path';
import { locateInDocument, parseText } from '../model/parse';
import { isObject, Json, JsonObject, Position } from '../model/types';
import { Rule, Severity } from './types';

export interface RuleSetting {
  off?: boolean;
  /** Replaces every severity the rule reports. */
  severity?: Severity;
  /** Maps reported severities (applied when `severity` is not set). */
  remap?: Partial<Record<Severity, Severity>>;
  params?: Record<string, unknown>;
}

export interface ResolvedPolicy {
  name: string;
  rules: Map<string, RuleSetting>;
  customRules: Rule[];
}

/** A policy or config that cannot be used; the message names the file, position and field. */
export class PolicyError extends Error {}

/** The package root: the nearest ancestor holding policies/policy.schema.json. */
export function packageRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'policies', 'policy.schema.json'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('kubegrace: cannot find the policies/ directory of the package');
    dir = up;
  }
}

export const BUILTIN_POLICIES = ['recommended', 'strict'];

let ajvInstance: Ajv | undefined;
function ajv(): Ajv {
  if (!ajvInstance) ajvInstance = new Ajv({ allErrors: true, strict: false });
  return ajvInstance;
}
const compiled = new Map<string, ValidateFunction>();
export function schemaValidator(file: string): ValidateFunction {
  let v = compiled.get(file);
  if (!v) {
    v = ajv().compile(JSON.parse(fs.readFileSync(path.join(packageRoot(), 'policies', file), 'utf8')));
    compiled.set(file, v);
  }
  return v;
}

/** Formats the most useful ajv error: the JSON path of the bad field and what is wrong with it. */
export function describeAjvErrors(errors: ErrorObject[] | null | undefined): { pointer: string; message: string } {
  const list = errors ?? [];
  // Prefer the deepest error; for oneOf failures the branch errors say more than "must match".
  const rank = (k: string) => (k === 'enum' || k === 'const' ? 0 : k === 'oneOf' || k === 'anyOf' ? 2 : 1);
  const best = [...list].sort((a, b) => b.instancePath.length - a.instancePath.length || rank(a.keyword) - rank(b.keyword))[0];
  if (!best) return { pointer: '', message: 'invalid' };
  let message = best.message ?? 'invalid';
  if (best.keyword === 'enum') message += `: ${(best.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
  if (best.keyword === 'additionalProperties') message = `unknown field "${(best.params as { additionalProperty: string }).additionalProperty}"`;
  if (best.keyword === 'const') message += ` ${JSON.stringify((best.params as { allowedValue: unknown }).allowedValue)}`;
  return { pointer: best.instancePath, message };
}

/** Reads one YAML document (policy or config) with positions, for located errors. */
export interface Locator {
  locate(pointer: string): Position;
}

export function readYamlObject(file: string, what: string): { raw: JsonObject; obj: Locator } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new PolicyError(`${file}: cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const parsed = parseText(file, text);
  if (parsed.errors.length) {
    const e = parsed.errors[0];
    throw new PolicyError(`${file}:${e.line}:${e.column}: ${what}: ${e.message}`);
  }
  const doc = parsed.docs.find((d) => d.contents !== null);
  const raw = doc?.toJS() as Json;
  if (!isObject(raw)) throw new PolicyError(`${file}:1:1: ${what} must be a YAML mapping`);
  return { raw, obj: { locate: (p: string) => locateInDocument(doc!, parsed.lineCounter, p) } };
}

function located(file: string, obj: Locator, pointer: string): string {
  const p = obj.locate(pointer);
  return `${file}:${p.line}:${p.column}: ${pointer || '/'}`;
}

/** Turns a `rules:` entry into a setting. */
export function ruleSetting(v: unknown): RuleSetting {
  if (typeof v === 'string') return v === 'off' ? { off: true } : { severity: v as Severity };
  const o = v as { enabled?: boolean; severity?: Severity; remap?: Partial<Record<Severity, Severity>>; params?: Record<string, unknown> };
  return { off: o.enabled === false ? true : undefined, severity: o.severity, remap: o.remap, params: o.params };
}

function mergeSetting(base: RuleSetting | undefined, over: RuleSetting): RuleSetting {
  return {
    off: over.off ?? (over.severity || over.remap || over.params ? false : base?.off),
    severity: over.severity ?? (over.remap ? undefined : base?.severity),
    remap: over.remap ?? base?.remap,
    params: { ...(base?.params ?? {}), ...(over.params ?? {}) },
  };
}

/** Validates rule IDs and params against the known rules; throws with the located field. */
function checkRuleSettings(settings: JsonObject, rules: Rule[], file: string, obj: Locator, base: string): void {
  const byId = new Map(rules.map((r) => [r.meta.id, r]));
  for (const [id, v] of Object.entries(settings)) {
    const rule = byId.get(id);
    if (!rule) throw new PolicyError(`${located(file, obj, `${base}/${id}`)}: unknown rule "${id}"; run \`kubegrace rules\` for the list`);
    const params = isObject(v) ? v.params : undefined;
    if (params !== undefined && rule.meta.paramsSchema) {
      const validate = ajv().compile(rule.meta.paramsSchema);
      if (!validate(params)) {
        const d = describeAjvErrors(validate.errors);
        throw new PolicyError(`${located(file, obj, `${base}/${id}/params${d.pointer}`)}: ${d.message}`);
      }
    }
  }
}

/** A Polaris-style custom rule: objects of the given kinds must satisfy the JSON Schema. */
function customRule(def: JsonObject, file: string, obj: Locator, pointer: string): Rule {
  let validate: ValidateFunction;
  try {
    validate = ajv().compile(def.schema as object);
  } catch (e) {
    throw new PolicyError(`${located(file, obj, `${pointer}/schema`)}: the custom rule's schema does not compile: ${(e as Error).message}`);
  }
  const kinds = new Set((def.kinds as string[]) ?? []);
  const severity = (def.severity as Severity | undefined) ?? 'warning';
  const target = typeof def.pointer === 'string' ? def.pointer : '';
  return {
    meta: {
      id: def.id as string,
      spec: 'custom',
      defaultSeverity: severity,
      severities: [severity],
      description: (def.description as string | undefined) ?? (def.message as string),
      doc: `Custom rule from policy ${file}: objects of kind ${[...kinds].join(', ')} must match a JSON Schema.`,
      fixable: false,
    },
    check(ctx) {
      for (const o of ctx.graph.objects) {
        if (!kinds.has(o.kind) && !kinds.has('*')) continue;
        if (!validate(o.raw)) {
          const d = describeAjvErrors(validate.errors);
          ctx.report({ object: o, pointer: target || d.pointer, message: `${def.message as string} (${d.pointer || '/'} ${d.message})` });
        }
      }
    },
  };
}

/**
 * Loads a policy by built-in name or file path, with its `extends` chain, validated with ajv
 * against policies/policy.schema.json.
 */
export function loadPolicy(nameOrFile: string, rules: Rule[], cwd = process.cwd(), seen: string[] = []): ResolvedPolicy {
  const file = BUILTIN_POLICIES.includes(nameOrFile) ? path.join(packageRoot(), 'policies', `${nameOrFile}.yaml`) : path.resolve(cwd, nameOrFile);
  if (seen.includes(file)) throw new PolicyError(`${file}: policy extends itself (${[...seen, file].join(' -> ')})`);
  const { raw, obj } = readYamlObject(file, 'policy');
  const validate = schemaValidator('policy.schema.json');
  if (!validate(raw)) {
    const d = describeAjvErrors(validate.errors);
    throw new PolicyError(`${located(file, obj, d.pointer)}: ${d.message} (policy rejected; see policies/policy.schema.json)`);
  }
  const spec = (raw.spec ?? {}) as JsonObject;
  const result: ResolvedPolicy = { name: String((raw.metadata as JsonObject).name), rules: new Map(), customRules: [] };
  for (const parent of (spec.extends as string[] | undefined) ?? []) {
    const p = loadPolicy(parent, rules, path.dirname(file), [...seen, file]);
    for (const [id, s] of p.rules) result.rules.set(id, s);
    result.customRules.push(...p.customRules);
  }
  if (isObject(spec.remap)) {
    const remap = spec.remap as Partial<Record<Severity, Severity>>;
    for (const r of rules) {
      const cur = result.rules.get(r.meta.id);
      if (cur?.severity) continue;
      result.rules.set(r.meta.id, { ...cur, remap: { ...(cur?.remap ?? {}), ...remap } });
    }
  }
  const ruleSettings = (spec.rules ?? {}) as JsonObject;
  const custom = (spec.customRules ?? []) as JsonObject[];
  const customRules = custom.map((c, i) => customRule(c, file, obj, `/spec/customRules/${i}`));
  checkRuleSettings(ruleSettings, [...rules, ...result.customRules, ...customRules], file, obj, '/spec/rules');
  for (const [id, v] of Object.entries(ruleSettings)) result.rules.set(id, mergeSetting(result.rules.get(id), ruleSetting(v)));
  const known = new Set(rules.map((r) => r.meta.id));
  for (const c of customRules) {
    if (known.has(c.meta.id)) throw new PolicyError(`${located(file, obj, '/spec/customRules')}: custom rule "${c.meta.id}" reuses a built-in rule ID`);
  }
  result.customRules.push(...customRules);
  return result;
}

export interface Config {
  file?: string;
  policy?: string;
  kubernetesVersion?: string;
  failOn?: Severity | 'never';
  rules?: JsonObject;
}

export const CONFIG_NAME = '.kubegrace.yaml';

/** Finds .kubegrace.yaml in the working directory or its ancestors. */
export function discoverConfig(cwd: string): string | undefined {
  let dir = path.resolve(cwd);
  for (;;) {
    const f = path.join(dir, CONFIG_NAME);
    if (fs.existsSync(f)) return f;
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export function loadConfig(file: string, rules: Rule[]): Config {
  const { raw, obj } = readYamlObject(file, 'config');
  const validate = schemaValidator('config.schema.json');
  if (!validate(raw)) {
    const d = describeAjvErrors(validate.errors);
    throw new PolicyError(`${located(file, obj, d.pointer)}: ${d.message} (config rejected; see policies/config.schema.json)`);
  }
  if (isObject(raw.rules)) checkRuleSettings(raw.rules, rules, file, obj, '/rules');
  const cfg = raw as unknown as Config;
  cfg.file = file;
  if (cfg.policy && !BUILTIN_POLICIES.includes(cfg.policy)) cfg.policy = path.resolve(path.dirname(file), cfg.policy);
  return cfg;
}

/** Applies a config's rule overrides on top of a policy. */
export function withOverrides(policy: ResolvedPolicy, overrides: JsonObject | undefined): ResolvedPolicy {
  if (!overrides) return policy;
  const rules = new Map(policy.rules);
  for (const [id, v] of Object.entries(overrides)) rules.set(id, mergeSetting(rules.get(id), ruleSetting(v)));
  return { ...policy, rules };
}
