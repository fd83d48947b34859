import { builtinCatalog, Catalog, CatalogError, CatalogOverride, parseCatalogOverride } from '../catalog';
import type Ajv from 'ajv';
import type { ErrorObject, Options as AjvOptions, ValidateFunction } from 'ajv';
import * as fs from 'fs';
import * as path from 'path';
import { locateInDocument, parseText } from '../model/parse';
import { isObject, Json, JsonObject, Position } from '../model/types';
import { packageRoot, PolicyError, PolicyProblem } from './package-root';
import { AJV_OPTIONS, PRECOMPILED_SCHEMAS, schemaFingerprint } from './schema-options';
import { didYouMean } from './suggest';
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
  /**
   * The catalog of well-known workloads with the policy's `spec.catalog` overrides (and those of
   * the policies it extends) applied; absent when no policy in the chain overrides it (the
   * built-in catalog then applies).
   */
  catalog?: Catalog;
}

export { packageRoot, PolicyError };
export type { PolicyProblem };

export const BUILTIN_POLICIES = ['recommended', 'strict'];

// ajv is loaded only when something must be compiled at run time (custom rules, rule params, a
// schema without a current precompiled validator): compiling costs more than the whole lint of a
// small file.
function newAjv(opts: AjvOptions): Ajv {
  const A = (require('ajv') as typeof import('ajv')).default;
  return new A(opts);
}
let customAjv: Ajv | undefined;
/** For custom rules' schemas (users' JSON Schemas matched against objects). */
function ajv(): Ajv {
  return (customAjv ??= newAjv({ allErrors: true, strict: false }));
}
let schemaAjv: Ajv | undefined;
/** For our own schemas: policies/*.schema.json and rule params. */
function verboseAjv(): Ajv {
  return (schemaAjv ??= newAjv({ ...AJV_OPTIONS }));
}

/** The ajv standalone validator of a policies/ schema, if one was generated from its current text. */
function precompiled(file: string, text: string): ValidateFunction | undefined {
  const name = Object.keys(PRECOMPILED_SCHEMAS).find((n) => PRECOMPILED_SCHEMAS[n] === file);
  if (!name) return undefined;
  const gen = require('./schema-validators.generated') as { SCHEMA_SOURCES: Record<string, string> } & Record<string, unknown>;
  if (gen.SCHEMA_SOURCES[file] !== schemaFingerprint(text)) return undefined;
  return gen[name] as ValidateFunction;
}

const compiled = new Map<string, ValidateFunction>();
/** The validator of a schema file under policies/ (precompiled when current, else compiled now). */
export function schemaValidator(file: string): ValidateFunction {
  let v = compiled.get(file);
  if (!v) {
    const text = fs.readFileSync(path.join(packageRoot(), 'policies', file), 'utf8');
    v = precompiled(file, text) ?? verboseAjv().compile(JSON.parse(text));
    compiled.set(file, v);
  }
  return v;
}

const paramValidators = new Map<Rule, ValidateFunction>();
function paramsValidator(rule: Rule): ValidateFunction {
  let v = paramValidators.get(rule);
  if (!v) paramValidators.set(rule, (v = verboseAjv().compile(rule.meta.paramsSchema!)));
  return v;
}

/** One schema violation, ready to report: the field, where to point, and what is wrong. */
export interface SchemaProblem {
  /** JSON pointer of the field the message is about. */
  pointer: string;
  /** JSON pointer to locate (the unknown key itself for an unknown field). */
  at: string;
  message: string;
}

function isUnder(p: string, base: string): boolean {
  return p === base || p.startsWith(`${base}/`);
}

/**
 * Every ajv error as a problem a person can act on: branch noise of oneOf/anyOf removed (a string
 * that is not a severity is not also told "must be object"), one message per field, enum values
 * listed, and "did you mean" for misspelled fields and values. Errors about names in a `rules`
 * map are left out: unknown rule IDs are reported by the rule check, with a suggestion.
 */
export function describeAllAjvErrors(errors: ErrorObject[] | null | undefined): SchemaProblem[] {
  const list = errors ?? [];
  const drop = new Set<ErrorObject>();
  const out: SchemaProblem[] = [];
  list.forEach((e, i) => {
    if (e.keyword !== 'oneOf' && e.keyword !== 'anyOf') return;
    drop.add(e);
    const at = e.instancePath;
    // ajv pushes a oneOf's branch errors right before the oneOf error itself.
    const branch: ErrorObject[] = [];
    for (let j = i - 1; j >= 0 && isUnder(list[j].instancePath, at); j--) if (!drop.has(list[j])) branch.unshift(list[j]);
    const wrongType = (b: ErrorObject) => b.instancePath === at && (b.keyword === 'type' || (b.keyword === 'enum' && typeof e.data === 'object'));
    const keep = branch.filter((b) => !wrongType(b));
    for (const b of branch) if (!keep.includes(b)) drop.add(b);
    if (!keep.length) {
      const types = [...new Set(branch.filter((b) => b.keyword === 'type').map((b) => String((b.params as { type: unknown }).type)))];
      out.push({ pointer: at, at, message: types.length ? `must be ${types.join(' or ')}` : (e.message ?? 'invalid') });
    }
  });
  const best = new Map<string, ErrorObject>();
  const rank = (k: string) => (k === 'enum' || k === 'const' ? 0 : k === 'type' ? 2 : 1);
  for (const e of list) {
    if (drop.has(e) || e.keyword === 'if') continue;
    const params = e.params as { additionalProperty?: string; missingProperty?: string; propertyName?: string };
    const propertyName = params.propertyName ?? (e as { propertyName?: string }).propertyName;
    if (propertyName !== undefined && /\/rules$/.test(e.instancePath)) continue;
    if (e.keyword === 'propertyNames') continue; // its 'pattern' error (with propertyName) says more
    const key = `${e.instancePath}\0${params.additionalProperty ?? params.missingProperty ?? propertyName ?? ''}`;
    const cur = best.get(key);
    if (!cur || rank(e.keyword) < rank(cur.keyword)) best.set(key, e);
  }
  for (const e of best.values()) {
    const params = e.params as Record<string, unknown>;
    let message = e.message ?? 'invalid';
    let at = e.instancePath;
    const propertyName = (params.propertyName ?? (e as { propertyName?: string }).propertyName) as string | undefined;
    if (e.keyword === 'enum') {
      const allowed = (params.allowedValues as unknown[]).map(String);
      message += `: ${allowed.join(', ')}`;
      if (typeof e.data === 'string') message += didYouMean(e.data, allowed);
    } else if (e.keyword === 'additionalProperties') {
      const name = String(params.additionalProperty);
      at = `${e.instancePath}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const known = Object.keys(((e.parentSchema as { properties?: object } | undefined)?.properties ?? {}) as object);
      message = `unknown field "${name}"${didYouMean(name, known)}`;
      // `extends` is a policy file's (spec.extends); a config chooses one policy.
      if (name === 'extends' && known.includes('policy') && !known.includes('extends')) message += '; a config file chooses its policy with `policy: NAME` (recommended, strict or a policy file); a policy file extends others in spec.extends';
    } else if (e.keyword === 'const') {
      message += ` ${JSON.stringify(params.allowedValue)}`;
    } else if (propertyName !== undefined) {
      at = `${e.instancePath}/${propertyName.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      message = `invalid name "${propertyName}": ${message}`;
    }
    out.push({ pointer: e.instancePath, at, message });
  }
  return out;
}

/** Reads one YAML document (policy or config) with positions, for located errors. */
export interface Locator {
  locate(pointer: string): Position;
}

export function readYamlObject(file: string, what: string): { raw: JsonObject; obj: Locator; text: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new PolicyError(`${file}: cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, [
      { file, line: 1, column: 1, pointer: '', message: `cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` },
    ]);
  }
  const parsed = parseText(file, text);
  if (parsed.errors.length) {
    const e = parsed.errors[0];
    throw new PolicyError(`${file}:${e.line}:${e.column}: ${what}: ${e.message}`, [{ file, line: e.line, column: e.column, pointer: '', message: `${what}: ${e.message}` }]);
  }
  const doc = parsed.docs.find((d) => d.contents !== null);
  const raw = doc?.toJS() as Json;
  if (!isObject(raw)) throw new PolicyError(`${file}:1:1: ${what} must be a YAML mapping`, [{ file, line: 1, column: 1, pointer: '', message: `${what} must be a YAML mapping` }]);
  return { raw, obj: { locate: (p: string) => locateInDocument(doc!, parsed.lineCounter, p) }, text };
}

/** Problems of one file, collected so that all of them are reported at once. */
class Problems {
  readonly list: PolicyProblem[] = [];
  /** Whether a schema violation is among them (the message then points at the schema). */
  schema = false;
  constructor(
    readonly file: string,
    private readonly obj: Locator,
  ) {}
  add(pointer: string, message: string, at = pointer): void {
    const p = this.obj.locate(at);
    this.list.push({ file: this.file, line: p.line, column: p.column, pointer, message });
  }
  addSchema(ps: SchemaProblem[]): void {
    for (const p of ps) this.add(p.pointer, p.message, p.at);
    if (ps.length) this.schema = true;
  }
  /** Takes over the problems of a policy this one extends. */
  absorb(e: PolicyError): void {
    this.list.push(...e.problems);
    if (!e.problems.length) this.list.push({ file: this.file, line: 1, column: 1, pointer: '', message: e.message });
  }
  throwIfAny(what: 'policy' | 'config'): void {
    if (!this.list.length) return;
    this.list.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column);
    const schemaNote = this.schema ? `${what} rejected; see policies/${what}.schema.json` : '';
    throw new PolicyError(formatProblems(what, this.list, schemaNote), this.list);
  }
}

/**
 * `file:line:col: /pointer: message` for one problem; a count and one such line per problem
 * (in file and position order) for several.
 */
export function formatProblems(what: string, problems: PolicyProblem[], note = ''): string {
  const sorted = [...problems].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column);
  const line = (p: PolicyProblem) => `${p.file}:${p.line}:${p.column}: ${p.pointer || '/'}: ${p.message}`;
  if (sorted.length === 1) return `${line(sorted[0])}${note ? ` (${note})` : ''}`;
  const files = [...new Set(sorted.map((p) => p.file))];
  return `${sorted.length} problems in ${what} ${files.length === 1 ? 'file' : 'files'} ${files.join(', ')}${note ? ` (${note})` : ''}:\n${sorted.map((p) => `  ${line(p)}`).join('\n')}`;
}

/** "policy "x" not found" with a suggestion among the built-in policies and the policy files next to it. */
function policyNotFound(name: string, resolved: string): string {
  const candidates = [...BUILTIN_POLICIES];
  try {
    const dir = path.dirname(resolved);
    for (const f of fs.readdirSync(dir)) if (/\.ya?ml$/.test(f)) candidates.push(path.join(path.dirname(name), f).split(path.sep).join('/'));
  } catch {
    // no directory: only the built-in names
  }
  return `policy "${name}" not found: it is neither a built-in policy (${BUILTIN_POLICIES.join(', ')}) nor a file (${resolved})${didYouMean(name, candidates)}`;
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

/** Checks rule IDs and params against the known rules; every problem is added, with suggestions. */
function checkRuleSettings(settings: JsonObject, rules: Rule[], problems: Problems, base: string): void {
  const byId = new Map(rules.map((r) => [r.meta.id, r]));
  for (const [id, v] of Object.entries(settings)) {
    const rule = byId.get(id);
    const at = `${base}/${id.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!rule) {
      problems.add(at, `unknown rule "${id}"${didYouMean(id, byId.keys())}; run \`kubegrace rules\` for the list`);
      continue;
    }
    const params = isObject(v) ? v.params : undefined;
    if (params !== undefined && rule.meta.paramsSchema) {
      const validate = paramsValidator(rule);
      if (!validate(params)) {
        for (const d of describeAllAjvErrors(validate.errors)) problems.add(`${at}/params${d.pointer}`, d.message, `${at}/params${d.at}`);
      }
    }
  }
}

/** The one most useful schema violation (the deepest), e.g. for a custom rule's finding. */
export function describeAjvErrors(errors: ErrorObject[] | null | undefined): SchemaProblem {
  const all = describeAllAjvErrors(errors);
  return all.sort((a, b) => b.pointer.length - a.pointer.length)[0] ?? { pointer: '', at: '', message: 'invalid' };
}

/** A Polaris-style custom rule: objects of the given kinds must satisfy the JSON Schema. */
function customRule(def: JsonObject, file: string, problems: Problems, pointer: string): Rule | undefined {
  let validate: ValidateFunction;
  try {
    validate = ajv().compile(def.schema as object);
  } catch (e) {
    problems.add(`${pointer}/schema`, `the custom rule's schema does not compile: ${(e as Error).message}`);
    return undefined;
  }
  const kinds = new Set(Array.isArray(def.kinds) ? def.kinds.map(String) : []);
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

/** The override that turns catalog `a` into `b` (for merging the catalogs of several extended policies). */
function diffCatalog(a: Catalog, b: Catalog): CatalogOverride {
  const inB = new Set(b.entries.map((e) => e.id));
  const inA = new Set(a.entries.map((e) => e.id));
  return { disable: [...inA].filter((id) => !inB.has(id)), add: b.entries.filter((e) => !inA.has(e.id)) };
}

function builtinPolicyFile(name: string): string {
  return path.join(packageRoot(), 'policies', `${name}.yaml`);
}

/**
 * Loads a policy by built-in name or file path, with its `extends` chain, validated against
 * policies/policy.schema.json. A bad policy is rejected with every problem found in it and in the
 * policies it extends, each located, with "did you mean" for misspelled names.
 */
export function loadPolicy(nameOrFile: string, rules: Rule[], cwd = process.cwd(), seen: string[] = []): ResolvedPolicy {
  const builtin = BUILTIN_POLICIES.includes(nameOrFile);
  const file = builtin ? builtinPolicyFile(nameOrFile) : path.resolve(cwd, nameOrFile);
  if (!builtin && !fs.existsSync(file)) throw new PolicyError(policyNotFound(nameOrFile, file));
  const { raw, obj } = readYamlObject(file, 'policy');
  const problems = new Problems(file, obj);
  const validate = schemaValidator('policy.schema.json');
  if (!validate(raw)) problems.addSchema(describeAllAjvErrors(validate.errors));
  const spec = isObject(raw.spec) ? raw.spec : {};
  const metadata = isObject(raw.metadata) ? raw.metadata : {};
  const result: ResolvedPolicy = { name: String(metadata.name ?? path.basename(file)), rules: new Map(), customRules: [] };
  const parents = Array.isArray(spec.extends) ? spec.extends : [];
  parents.forEach((parent, i) => {
    if (typeof parent !== 'string' || parent === '') return; // the schema check reported it
    const at = `/spec/extends/${i}`;
    const parentBuiltin = BUILTIN_POLICIES.includes(parent);
    const parentFile = parentBuiltin ? builtinPolicyFile(parent) : path.resolve(path.dirname(file), parent);
    if (!parentBuiltin && !fs.existsSync(parentFile)) return problems.add(at, policyNotFound(parent, parentFile));
    if (parentFile === file || seen.includes(parentFile)) return problems.add(at, `policy extends itself (${[...seen, file, parentFile].join(' -> ')}); remove this entry`);
    try {
      const p = loadPolicy(parent, rules, path.dirname(file), [...seen, file]);
      for (const [id, s] of p.rules) result.rules.set(id, s);
      result.customRules.push(...p.customRules);
      if (p.catalog) result.catalog = result.catalog ? result.catalog.withOverride(diffCatalog(result.catalog, p.catalog)) : p.catalog;
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
      problems.absorb(e);
    }
  });
  if (isObject(spec.remap)) {
    const remap = spec.remap as Partial<Record<Severity, Severity>>;
    for (const r of rules) {
      const cur = result.rules.get(r.meta.id);
      if (cur?.severity) continue;
      result.rules.set(r.meta.id, { ...cur, remap: { ...(cur?.remap ?? {}), ...remap } });
    }
  }
  const ruleSettings = isObject(spec.rules) ? spec.rules : {};
  const custom = Array.isArray(spec.customRules) ? spec.customRules : [];
  const customRules: Rule[] = [];
  const known = new Set(rules.map((r) => r.meta.id));
  custom.forEach((c, i) => {
    if (!isObject(c) || !isObject(c.schema) || typeof c.id !== 'string') return; // the schema check reported it
    if (known.has(c.id)) return problems.add(`/spec/customRules/${i}/id`, `custom rule "${c.id}" reuses a built-in rule ID; give it its own ID`);
    const r = customRule(c, file, problems, `/spec/customRules/${i}`);
    if (r) customRules.push(r);
  });
  checkRuleSettings(ruleSettings, [...rules, ...result.customRules, ...customRules], problems, '/spec/rules');
  if (spec.catalog !== undefined) {
    try {
      result.catalog = (result.catalog ?? builtinCatalog()).withOverride(parseCatalogOverride(spec.catalog));
    } catch (e) {
      if (!(e instanceof CatalogError)) throw e;
      problems.add(`/spec/catalog${e.pointer}`, `${e.message} (see lib/catalog/catalog.schema.json and docs/catalog.md)`);
    }
  }
  problems.throwIfAny('policy');
  for (const [id, v] of Object.entries(ruleSettings)) result.rules.set(id, mergeSetting(result.rules.get(id), ruleSetting(v)));
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

/** What YAML made of an unquoted version, e.g. `1.30` -> the number 1.3: the text as written. */
function writtenScalar(text: string, line: number, key: string): string | undefined {
  const m = new RegExp(`${key}\\s*:\\s*([^\\s#]+)`).exec(text.split(/\r?\n/)[line - 1] ?? '');
  return m?.[1];
}

/**
 * Loads .kubegrace.yaml, validated against policies/config.schema.json; every problem is
 * reported at once, with suggestions.
 */
export function loadConfig(file: string, rules: Rule[]): Config {
  const { raw, obj, text } = readYamlObject(file, 'config');
  const problems = new Problems(file, obj);
  const validate = schemaValidator('config.schema.json');
  const version: Json = raw.kubernetesVersion;
  if (!validate(raw)) {
    const found = describeAllAjvErrors(validate.errors).map((p) => {
      if (p.pointer !== '/kubernetesVersion' || typeof version !== 'number') return p;
      const written = writtenScalar(text, obj.locate('/kubernetesVersion').line, 'kubernetesVersion') ?? String(version);
      return {
        ...p,
        message: `must be a string, but YAML reads the unquoted ${written} as the number ${version}; quote it: kubernetesVersion: "${written}"`,
      };
    });
    problems.addSchema(found);
  }
  if (isObject(raw.rules)) checkRuleSettings(raw.rules, rules, problems, '/rules');
  if (typeof raw.policy === 'string' && raw.policy !== '' && !BUILTIN_POLICIES.includes(raw.policy)) {
    const resolved = path.resolve(path.dirname(file), raw.policy);
    if (!fs.existsSync(resolved)) problems.add('/policy', policyNotFound(raw.policy, resolved));
  }
  problems.throwIfAny('config');
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
