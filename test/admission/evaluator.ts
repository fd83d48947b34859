/**
 * Evaluates exported admission policies the way the API server does, with a real CEL
 * implementation (@bufbuild/cel 0.6.1 and its strings extension): matchConstraints by kind,
 * matchConditions, variables in order, then validations (VAP) or JSON patches (MAP).
 *
 * Differences from the API server, kept as small as possible:
 * - objects are given as the API server decodes them: JSON integers are CEL ints, other numbers
 *   doubles, and nulls are absent (a typed decode drops them);
 * - `JSONPatch{op: ..., path: ..., value: ...}` is read as a map literal (@bufbuild/cel has no
 *   JSONPatch type); the patch semantics (RFC 6902 add) are applied here.
 */
import { celEnv, celList, celMap, isCelError, isCelList, isCelMap, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { FixEdit } from '../../lib/engine/types';
import { Json, JsonObject } from '../../lib/model/types';

const env = celEnv({ funcs: strings });

/**
 * @bufbuild/cel compiles the pattern of `matches` on every call (std/logic.js: RE2JS.compile(pattern)),
 * which the API server does not (cel-go compiles a constant pattern once, when the program is built).
 * The compiled expressions are kept here (a compiled RE2JS is immutable for matching, and a pattern
 * that does not compile throws again each time): the same regular expressions, compiled once.
 */
const re2 = require(require.resolve('@bufbuild/re2', { paths: [require.resolve('@bufbuild/cel')] })) as { RE2JS: { compile(pattern: string, flags?: number): unknown } };
const compileRegex = re2.RE2JS.compile.bind(re2.RE2JS);
const compiledRegexes = new Map<string, unknown>();
re2.RE2JS.compile = (pattern: string, flags = 0): unknown => {
  const key = `${flags} ${pattern}`;
  let r = compiledRegexes.get(key);
  if (r === undefined) compiledRegexes.set(key, (r = compileRegex(pattern, flags)));
  return r;
};
type Program = (ctx: Record<string, unknown>) => unknown;
const cache = new Map<string, Program>();

export function compile(expr: string): Program {
  let p = cache.get(expr);
  if (!p) {
    const text = expr.replace(/JSONPatch\{op:/g, "{'op':").replace(/, path:/g, ", 'path':").replace(/, value:/g, ", 'value':");
    p = plan(env, parse(text)) as unknown as Program;
    cache.set(expr, p);
  }
  return p;
}

/**
 * A JSON object as the API server hands it to CEL. Lists and maps are built as CEL values at once
 * (celList, celMap: what @bufbuild/cel would otherwise wrap the arrays and Maps in on every access).
 */
export function toCel(v: Json): unknown {
  if (Array.isArray(v)) return celList(v.filter((x) => x !== null).map(toCel) as Parameters<typeof celList>[0]);
  if (v !== null && typeof v === 'object') {
    const m = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v)) if (x !== null) m.set(k, toCel(x));
    return celMap(m as Parameters<typeof celMap>[0]);
  }
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return v;
}

/** A CEL value back to JSON (for patch values and messages). */
export function fromCel(v: unknown): Json {
  if (typeof v === 'bigint') return Number(v);
  if (isCelList(v)) return [...(v as Iterable<unknown>)].map(fromCel);
  if (isCelMap(v)) {
    const o: JsonObject = {};
    const m = v as unknown as { entries(): Iterable<[unknown, unknown]> };
    for (const [k, x] of m.entries()) o[String(fromCel(k))] = fromCel(x);
    return o;
  }
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  throw new Error(`unexpected CEL value ${String(v)}`);
}

export class CelEvalError extends Error {}

function evalExpr(expr: string, ctx: Record<string, unknown>, what: string): unknown {
  const r = compile(expr)(ctx);
  if (isCelError(r)) throw new CelEvalError(`${what}: ${(r as Error).message}`);
  return r;
}

interface PolicyLike {
  kind: string;
  spec: {
    matchConditions?: { name: string; expression: string }[];
    variables?: { name: string; expression: string }[];
    validations?: { expression: string; messageExpression: string }[];
    mutations?: { patchType: string; jsonPatch: { expression: string } }[];
  };
}

/**
 * What the policies evaluated on one object have in common, so that it is computed once per object
 * and not once per policy (the exported policies share most of their variables: 360 variable
 * definitions in 27 policies, 81 distinct). CEL evaluation is deterministic and its values are
 * immutable, so a matchCondition or a variable evaluated on the same object to the same inputs has
 * the same value in every policy: a variable is reused only when its expression and, recursively,
 * the definitions of the variables it reads are the same (see variableKeys). Keyed by the object's
 * JSON text (a caller may change an object and evaluate it again); the last few objects are kept.
 */
interface ObjectMemo {
  object: unknown;
  conditions: Map<string, unknown>;
  variables: Map<string, unknown>;
}
const objectMemos = new Map<string, ObjectMemo>();
const OBJECT_MEMOS = 8;

function memoFor(obj: JsonObject): ObjectMemo {
  const text = JSON.stringify(obj);
  let m = objectMemos.get(text);
  if (m) {
    objectMemos.delete(text);
  } else {
    m = { object: toCel(obj), conditions: new Map(), variables: new Map() };
    if (objectMemos.size >= OBJECT_MEMOS) objectMemos.delete(objectMemos.keys().next().value as string);
  }
  objectMemos.set(text, m);
  return m;
}

const interned = new Map<string, number>();
const intern = (s: string): number => {
  let n = interned.get(s);
  if (n === undefined) interned.set(s, (n = interned.size));
  return n;
};

/**
 * For each variable of a policy, a key that is equal for two variables exactly when their values are
 * equal on every object: the expression, and the keys of the variables it reads (`variables.NAME`, as
 * defined earlier in the same policy). An expression that reads `variables` in any other way is keyed
 * with every definition before it.
 */
const policyKeys = new WeakMap<object, string[]>();
function variableKeys(vars: { name: string; expression: string }[]): string[] {
  const byName = new Map<string, string>();
  const all: string[] = [];
  return vars.map((v) => {
    const other = v.expression.replace(/\bvariables\.[A-Za-z_][A-Za-z0-9_]*/g, '').match(/\bvariables\b/);
    const reads = other ? all : [...new Set([...v.expression.matchAll(/\bvariables\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((x) => x[1]))].sort().map((n) => `${n}=${byName.get(n) ?? '?'}`);
    const key = `${intern(v.expression)}(${reads.join(',')})`;
    byName.set(v.name, key);
    all.push(`${v.name}=${key}`);
    return key;
  });
}

function prepare(policy: JsonObject, obj: JsonObject): { ctx: Record<string, unknown>; matched: boolean } {
  const p = policy as unknown as PolicyLike;
  const memo = memoFor(obj);
  const base = { object: memo.object, oldObject: null, request: new Map(), params: null };
  for (const c of p.spec.matchConditions ?? []) {
    let r = memo.conditions.get(c.expression);
    if (r === undefined) memo.conditions.set(c.expression, (r = evalExpr(c.expression, base, `matchCondition ${c.name}`)));
    if (typeof r !== 'boolean') throw new CelEvalError(`matchCondition ${c.name} is not a bool`);
    if (!r) return { ctx: base, matched: false };
  }
  const variables = new Map<string, unknown>();
  const ctx = { ...base, variables };
  const defs = p.spec.variables ?? [];
  let keys = policyKeys.get(policy);
  if (!keys) policyKeys.set(policy, (keys = variableKeys(defs)));
  defs.forEach((v, i) => {
    let value = memo.variables.get(keys[i]);
    if (value === undefined && !memo.variables.has(keys[i])) memo.variables.set(keys[i], (value = evalExpr(v.expression, ctx, `variable ${v.name}`)));
    variables.set(v.name, value);
  });
  return { ctx, matched: true };
}

/** Runs a ValidatingAdmissionPolicy (kinds already matched): undefined when it admits, else the messages. */
export function validate(policy: JsonObject, obj: JsonObject): string[] | undefined {
  const { ctx, matched } = prepare(policy, obj);
  if (!matched) return undefined;
  const messages: string[] = [];
  for (const v of (policy as unknown as PolicyLike).spec.validations ?? []) {
    const ok = evalExpr(v.expression, ctx, 'validation');
    if (typeof ok !== 'boolean') throw new CelEvalError('validation is not a bool');
    if (ok) continue;
    const m = evalExpr(v.messageExpression, ctx, 'messageExpression');
    if (typeof m !== 'string') throw new CelEvalError('messageExpression is not a string');
    messages.push(m);
  }
  return messages.length ? messages : undefined;
}

export interface Patch {
  op: string;
  path: string;
  value: Json;
}

/** Runs a MutatingAdmissionPolicy (kinds already matched): the JSON patches it returns. */
export function mutate(policy: JsonObject, obj: JsonObject): Patch[] {
  const { ctx, matched } = prepare(policy, obj);
  if (!matched) return [];
  const out: Patch[] = [];
  for (const m of (policy as unknown as PolicyLike).spec.mutations ?? []) {
    const r = fromCel(evalExpr(m.jsonPatch.expression, ctx, 'jsonPatch'));
    if (!Array.isArray(r)) throw new CelEvalError('jsonPatch expression is not a list');
    for (const p of r) out.push(p as unknown as Patch);
  }
  return out;
}

/** RFC 6902 "add" (the only op the repairs use): the parent must exist; an object member is replaced, `-` appends to an array. */
export function applyPatches(obj: JsonObject, patches: Patch[]): JsonObject {
  const out = JSON.parse(JSON.stringify(obj)) as JsonObject;
  for (const p of patches) {
    if (p.op !== 'add') throw new Error(`unsupported op ${p.op}`);
    const segs = p.path.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let cur: Json = out;
    for (const s of segs.slice(0, -1)) {
      const next: Json | undefined = Array.isArray(cur) ? cur[Number(s)] : cur !== null && typeof cur === 'object' ? cur[s] : undefined;
      if (next === undefined) throw new Error(`patch path ${p.path}: parent does not exist`);
      cur = next;
    }
    const last = segs[segs.length - 1];
    const value = JSON.parse(JSON.stringify(p.value)) as Json;
    if (Array.isArray(cur)) {
      if (last === '-') cur.push(value);
      else cur.splice(Number(last), 0, value);
    } else if (cur !== null && typeof cur === 'object') cur[last] = value;
    else throw new Error(`patch path ${p.path}: parent is not an object or array`);
  }
  return out;
}

/** The linter's FixEdits (set, append, remove; pointers relative to the object) applied to a copy of the JSON. */
export function applyEdits(obj: JsonObject, edits: FixEdit[]): JsonObject {
  const out = JSON.parse(JSON.stringify(obj)) as JsonObject;
  for (const e of edits) {
    if (e.op === 'add-object') throw new Error('add-object is not a single-object repair');
    const segs = e.pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let cur: Json = out;
    for (const s of segs.slice(0, -1)) {
      const o = cur as JsonObject & Json[];
      let next: Json | undefined = Array.isArray(o) ? o[Number(s)] : o[s];
      if (next === undefined || next === null) {
        if (e.op === 'remove') return out;
        next = {};
        (o as JsonObject)[s] = next;
      }
      cur = next;
    }
    const last = segs[segs.length - 1];
    const parent = cur as JsonObject;
    const value = 'value' in e ? (JSON.parse(JSON.stringify(e.value)) as Json) : null;
    if (e.op === 'set') parent[last] = value;
    else if (e.op === 'remove') delete parent[last];
    else {
      const seq = parent[last];
      if (Array.isArray(seq)) seq.push(value);
      else parent[last] = [value];
    }
  }
  return out;
}
