/**
 * The values Kubernetes sees in a YAML document.
 *
 * kubectl and the API server read YAML with sigs.k8s.io/yaml, which decodes with go-yaml v2
 * (go.yaml.in/yaml/v2, YAML 1.1 resolution) into Go values and then converts them to JSON. The
 * `yaml` package only gives us the syntax tree here (positions, comments, --fix); the values are
 * computed from that tree by the rules below, which follow go-yaml v2 `resolve.go` and
 * `decode.go` (v2.4.2) and sigs.k8s.io/yaml `convertToJSONableObject` step by step:
 *
 * - plain scalars resolve by their first character: `yYnNtTfFoO~` look up the table of
 *   booleans (y Y yes Yes YES true True TRUE on On ON, n N no No NO false False FALSE off Off OFF)
 *   and nulls ("" ~ null Null NULL); `.` may start a float (`.5`, `.inf`, `.nan`); a digit or
 *   sign is an int (underscores removed, Go base prefixes 0x 0X 0o 0O 0b 0B, a leading 0 is
 *   octal: `010` is 8, `0o17` is 15), else a float (`1e3`, `09`, `1.`), else a string;
 *   sexagesimal (`1:30`) and timestamps stay strings; anything else is a string;
 * - quoted and block scalars are strings unless explicitly tagged; `!!int "010"` is 8,
 *   `!!float 1` is 1, `!!str 010` is "010", `!!binary` is base64-decoded, a tag that does not
 *   fit the value (`!!int abc`) fails the document, other tags leave the text as a string;
 * - merge keys (`<<`, plain or `!!merge`) take a mapping, an alias of one, or a sequence of
 *   them; keys are set in document order and the later setting wins, so an explicit key
 *   *after* `<<` overrides the merged value while one *before* it is overridden, and within a
 *   merge sequence the earlier mapping wins;
 * - keys become JSON strings: ints in decimal (`010: x` is "8"), booleans as "true"/"false"
 *   (`on: x` is "true"), floats in Go's float32 %g form; null, huge and collection keys fail;
 * - `.inf`, `-.inf` and `.nan` have no JSON form: the conversion fails;
 * - aliases expand; the document fails with "excessive aliasing" by go-yaml's ratio rule (more
 *   than 100 alias-driven decodes, more than 1000 decodes in all, and an alias share above 99 %
 *   falling to 10 % between 400,000 and 4,000,000 decodes), and an alias inside its own
 *   anchor fails.
 */
import { Alias, Document, isAlias, isMap, isPair, isScalar, isSeq, Node, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { Json, JsonObject } from './types';

const TAG = 'tag:yaml.org,2002:';
const STR = TAG + 'str';
const BOOL = TAG + 'bool';
const INT = TAG + 'int';
const FLOAT = TAG + 'float';
const NULL = TAG + 'null';
const TIMESTAMP = TAG + 'timestamp';
const BINARY = TAG + 'binary';
const MERGE = TAG + 'merge';

/** A Go value as go-yaml v2 produces it (before the conversion to JSON). */
export type GoValue =
  | { t: 'null' }
  | { t: 'bool'; v: boolean }
  /** int/int64 (fits in int64) */
  | { t: 'int'; v: bigint }
  /** uint64 (2^63 .. 2^64-1) */
  | { t: 'uint'; v: bigint }
  /** *big.Int (beyond 64 bits) */
  | { t: 'big'; v: bigint }
  | { t: 'float'; v: number }
  | { t: 'str'; v: string };

const TABLE = new Map<string, GoValue>();
for (const s of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) TABLE.set(s, { t: 'bool', v: true });
for (const s of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) TABLE.set(s, { t: 'bool', v: false });
for (const s of ['', '~', 'null', 'Null', 'NULL']) TABLE.set(s, { t: 'null' });
for (const s of ['.nan', '.NaN', '.NAN']) TABLE.set(s, { t: 'float', v: NaN });
for (const s of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) TABLE.set(s, { t: 'float', v: Infinity });
for (const s of ['-.inf', '-.Inf', '-.INF']) TABLE.set(s, { t: 'float', v: -Infinity });
/** `<<` resolves to the merge tag; as a value it is the string "<<". */
TABLE.set('<<', { t: 'str', v: '<<' });

function hintOf(s: string): 'M' | '.' | 'D' | 'S' | 'N' | 0 {
  if (s === '') return 'N';
  const c = s.charCodeAt(0);
  if (c >= 0x30 && c <= 0x39) return 'D';
  if (c === 0x2b || c === 0x2d) return 'S';
  if (c === 0x2e) return '.';
  // go-yaml indexes its table by the first byte; a non-ASCII first character has no hint.
  if ('yYnNtTfFoO~'.includes(s[0]) && c < 0x80) return 'M';
  return 0;
}

const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;
const DIGITS: Record<number, RegExp> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ };
const PREFIX: Record<number, string> = { 2: '0b', 8: '0o', 10: '', 16: '0x' };

/** Go's strconv.ParseUint(s, 0, 64) without underscores: the magnitude, or why it failed. */
function goParseUintBase0(s: string): { v?: bigint; err?: 'syntax' | 'range' } {
  if (s === '') return { err: 'syntax' };
  let base = 10;
  let digits = s;
  if (s[0] === '0') {
    const p = s.length >= 3 ? s[1].toLowerCase() : '';
    if (p === 'b') (base = 2), (digits = s.slice(2));
    else if (p === 'o') (base = 8), (digits = s.slice(2));
    else if (p === 'x') (base = 16), (digits = s.slice(2));
    else (base = 8), (digits = s.slice(1));
    if (digits === '' && base === 8) return { v: 0n };
  }
  if (!DIGITS[base].test(digits)) return { err: 'syntax' };
  const v = base === 10 ? BigInt(digits) : BigInt(PREFIX[base] === '0o' ? '0o' + digits : PREFIX[base] + digits);
  if (v > UINT64_MAX) return { err: 'range' };
  return { v };
}

/** Go's strconv.ParseInt(s, 0, 64). */
function goParseIntBase0(s: string): { v?: bigint; err?: 'syntax' | 'range' } {
  let neg = false;
  let rest = s;
  if (s[0] === '+' || s[0] === '-') {
    neg = s[0] === '-';
    rest = s.slice(1);
  }
  const u = goParseUintBase0(rest);
  if (u.err === 'syntax' || (u.err && rest === '')) return { err: 'syntax' };
  if (u.err === 'range') return { err: 'range' };
  const v = neg ? -u.v! : u.v!;
  if (!neg && v > INT64_MAX) return { err: 'range' };
  if (neg && -v > INT64_MAX + 1n) return { err: 'range' };
  return { v };
}

/** math/big SetString(s, 0) for the magnitudes that reach it (no underscores, optional sign). */
function bigSetString(s: string): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return undefined;
  let body = m[2];
  if (/^0[0-7]+$/.test(body)) body = '0o' + body.slice(1);
  const v = BigInt(body.replace(/^0X/, '0x').replace(/^0B/, '0b').replace(/^0O/, '0o'));
  return m[1] === '-' ? -v : v;
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;

/** Go's strconv.ParseFloat(s, 64) for the decimal forms the callers pass; undefined on error. */
function goParseFloat(s: string): number | undefined {
  const v = Number(s);
  return Number.isFinite(v) ? v : undefined;
}

/** Timestamp forms go-yaml v2 accepts (only consulted for an explicit !!timestamp tag). */
function isTimestamp(s: string): boolean {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]| )(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?)?$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(y, mo, 0)).getUTCDate()) return false;
  if (m[4] !== undefined) {
    if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return false;
    // "T" forms need a zone, the space form has none.
    const sep = s.charAt(10 + (m[2].length - 2) + (m[3].length - 2));
    if (sep === ' ' ? m[7] !== undefined : m[7] === undefined) return false;
  }
  return true;
}

/** go-yaml v2 resolve() for an untagged plain scalar or an explicitly tagged one. */
function resolveImplicit(tag: string, s: string): { tag: string; v: GoValue } {
  const hint = hintOf(s);
  if (hint !== 0 && tag !== STR && tag !== BINARY) {
    const item = TABLE.get(s);
    if (item) {
      if (s === '<<') return { tag: MERGE, v: item };
      return { tag: item.t === 'bool' ? BOOL : item.t === 'null' ? NULL : FLOAT, v: item };
    }
    if (hint === '.') {
      if (DOT_FLOAT.test(s)) {
        const f = goParseFloat(s);
        if (f !== undefined) return { tag: FLOAT, v: { t: 'float', v: f } };
      }
    } else if (hint === 'D' || hint === 'S') {
      if ((tag === '' || tag === TIMESTAMP) && /^\d{4}-/.test(s) && isTimestamp(s)) return { tag: TIMESTAMP, v: { t: 'str', v: s } };
      const plain = s.replace(/_/g, '');
      const i = goParseIntBase0(plain);
      if (i.v !== undefined) return { tag: INT, v: { t: 'int', v: i.v } };
      const u = /^[+-]/.test(plain) ? { err: 'syntax' as const } : goParseUintBase0(plain);
      if (u.v !== undefined) return { tag: INT, v: { t: 'uint', v: u.v } };
      if (YAML_STYLE_FLOAT.test(plain)) {
        const f = goParseFloat(plain);
        if (f !== undefined) return { tag: FLOAT, v: { t: 'float', v: f } };
      }
      // (go-yaml's explicit 0b branches are covered by ParseInt's base prefixes.)
      if (u.err === 'range') {
        const b = bigSetString(plain);
        if (b !== undefined) return { tag: INT, v: { t: 'big', v: b } };
      }
    }
  }
  return { tag: STR, v: { t: 'str', v: s } };
}

const RESOLVABLE = new Set(['', STR, BOOL, INT, FLOAT, NULL, TIMESTAMP]);

export class DecodeError extends Error {
  constructor(message: string, readonly node?: unknown) {
    super(message);
  }
}

function shortTag(t: string): string {
  return t.startsWith(TAG) ? '!!' + t.slice(TAG.length) : t;
}

/**
 * The Go value of one scalar: `source` is its text after YAML escapes and folding, `plain`
 * whether it was written unquoted (not a block scalar), `tag` its explicit tag in long form.
 */
export function resolveScalar(source: string, plain: boolean, tag: string | undefined, node?: unknown): GoValue {
  const t = tag ?? '';
  if (t === '' && !plain) return { t: 'str', v: source };
  if (t === BINARY) return { t: 'str', v: decodeBinary(source, node) };
  if (!RESOLVABLE.has(t)) return { t: 'str', v: source };
  const r = resolveImplicit(t, source);
  if (t === '' || t === r.tag || t === STR) return r.v;
  if (t === FLOAT && r.tag === INT && r.v.t === 'int') return { t: 'float', v: Number(r.v.v) };
  throw new DecodeError(`cannot decode ${shortTag(r.tag)} \`${source}\` as a ${shortTag(t)}`, node);
}

function decodeBinary(s: string, node: unknown): string {
  const b = s.replace(/[\r\n]/g, '');
  if (b.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b)) throw new DecodeError('!!binary value contains invalid base64 data', node);
  return Buffer.from(b, 'base64').toString('utf8');
}

/** Go's strconv.FormatFloat(f, 'g', -1, 32), the form sigs.k8s.io/yaml gives float keys. */
export function formatFloat32g(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  const x = Math.fround(f);
  if (x === Infinity) return '.inf';
  if (x === -Infinity) return '-.inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let digits = '';
  let exp = 0;
  for (let p = 1; p <= 9; p++) {
    const s = Math.abs(x).toExponential(p - 1);
    if (Math.fround(Number(s)) === Math.abs(x)) {
      const [mant, e] = s.split('e');
      digits = mant.replace('.', '').replace(/0+$/, '') || '0';
      exp = Number(e);
      break;
    }
  }
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ae = Math.abs(exp);
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${intPart}${frac ? '.' + frac : ''}`;
}

/** The JSON key sigs.k8s.io/yaml makes of a Go map key, or why it cannot. */
function jsonKey(k: GoValue, node: unknown): string {
  switch (k.t) {
    case 'str':
      return k.v;
    case 'int':
      return k.v.toString();
    case 'bool':
      return k.v ? 'true' : 'false';
    case 'float':
      return formatFloat32g(k.v);
    case 'null':
      throw new DecodeError('a null map key has no JSON form (Kubernetes refuses the document); quote the key or give it a name', node);
    default:
      throw new DecodeError(`the map key ${k.v} is too large for a Go int (Kubernetes refuses the document); quote the key`, node);
  }
}

/** Identity of a Go map key (go-yaml's map[interface{}]interface{} keeps 1 and "1" apart). */
function goKeyId(k: GoValue): string {
  switch (k.t) {
    case 'null':
      return 'n';
    case 'float':
      return 'f' + String(k.v);
    case 'str':
      return 's' + k.v;
    default:
      return k.t[0] + String(k.v);
  }
}

function toJson(v: GoValue, node: unknown): Json {
  switch (v.t) {
    case 'null':
      return null;
    case 'bool':
    case 'str':
      return v.v;
    case 'float':
      if (!Number.isFinite(v.v)) throw new DecodeError(`${Number.isNaN(v.v) ? '.nan' : v.v > 0 ? '.inf' : '-.inf'} has no JSON form, so Kubernetes refuses the document; quote it if it is meant as text`, node);
      return v.v;
    default:
      // int64/uint64/big.Int: exact in JSON; JavaScript numbers keep 53 bits.
      return Number(v.v);
  }
}

/**
 * The JSON value of an untagged plain scalar (its text after folding), as Kubernetes reads it;
 * throws a DecodeError for the values with no JSON form (`.inf`, `.nan`).
 */
export function plainScalarJson(source: string): Json {
  // Most plain scalars are strings at a glance (resolveImplicit returns them as they are when
  // their first character gives no hint, or a table word's does but the word is not one).
  const hint = hintOf(source);
  if (hint === 0 || (hint === 'M' && !TABLE.has(source))) return source;
  return toJson(resolveScalar(source, true, undefined), undefined);
}

export interface DecodeLimits {
  /** Decodes per document (go-yaml counts every node it visits, aliases expanded). */
  maxNodes: number;
  /** Nesting depth of the decoded value. */
  maxDepth: number;
}

export class NodeLimitError extends DecodeError {}
export class DepthLimitError extends DecodeError {}
export class AliasError extends DecodeError {}

interface MapEntry {
  key: string;
  value: Json;
  node: unknown;
}

/** A duplicate explicit key in one mapping: go-yaml keeps the last; strict readers refuse. */
export interface DuplicateKey {
  key: string;
  node: unknown;
  first: unknown;
}

function isMergeKey(k: unknown): boolean {
  return isScalar(k) && (k as Scalar).source === '<<' && (((k as Scalar).type === 'PLAIN' && !(k as Scalar).tag) || (k as Scalar).tag === MERGE);
}

/** Scalar text, quoting, and tag as go-yaml's node would carry them. */
function scalarGo(n: Scalar): GoValue {
  if (typeof n.source !== 'string') {
    // A node built in memory (by --fix) holds its value itself, not text to resolve.
    const v = n.value;
    if (v === null || v === undefined) return { t: 'null' };
    if (typeof v === 'boolean') return { t: 'bool', v };
    if (typeof v === 'number') return Number.isInteger(v) ? { t: 'int', v: BigInt(v) } : { t: 'float', v };
    if (typeof v === 'bigint') return { t: 'int', v };
    return { t: 'str', v: String(v) };
  }
  const src = typeof n.source === 'string' ? n.source : n.value === null || n.value === undefined ? '' : String(n.value);
  return resolveScalar(src, n.type === 'PLAIN' || n.type === undefined, n.tag, n);
}

class Decoder {
  decodeCount = 0;
  aliasCount = 0;
  aliasDepth = 0;
  private readonly active = new Set<Alias>();
  readonly duplicates: DuplicateKey[] = [];
  constructor(private readonly anchors: Map<Alias, Node | undefined>, private readonly limits: DecodeLimits) {}

  private count(node: unknown): void {
    this.decodeCount++;
    if (this.aliasDepth > 0) this.aliasCount++;
    if (this.aliasCount > 100 && this.decodeCount > 1000 && this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)) {
      throw new AliasError('document contains excessive aliasing (the same limit as Kubernetes\' YAML reader): this looks like an alias bomb ("billion laughs"); expand the aliases by hand if the document is genuine', node);
    }
    if (this.decodeCount > this.limits.maxNodes) {
      throw new NodeLimitError(`document has more than ${this.limits.maxNodes} YAML nodes (aliases expanded); split it into smaller documents (a List into one document per object)`, node);
    }
  }

  private target(a: Alias): Node {
    const t = this.anchors.get(a);
    if (!t) throw new AliasError(`unknown anchor '${a.source}' referenced: define \`&${a.source}\` before this alias`, a);
    return t;
  }

  /** Decodes a node to a Go value; collections come back already as JSON. */
  decode(node: unknown, depth: number): GoValue | { t: 'json'; v: Json } {
    if (depth > this.limits.maxDepth) throw new DepthLimitError(`document nests deeper than ${this.limits.maxDepth} levels; Kubernetes objects never nest this deep, so check that this is the file you meant`, node);
    this.count(node);
    if (node === null || node === undefined) return { t: 'null' };
    if (isAlias(node)) return this.alias(node, (t) => this.decode(t, depth + 1));
    if (isScalar(node)) return scalarGo(node);
    if (isMap(node)) {
      const entries = new Map<string, MapEntry>();
      this.mapping(node, entries, depth);
      const obj: JsonObject = {};
      for (const e of entries.values()) {
        // Different Go keys that become one JSON key (`1` and "1"): Go's map order decides which
        // one Kubernetes keeps, so the document has no definite value.
        if (Object.prototype.hasOwnProperty.call(obj, e.key)) {
          throw new DecodeError(`two different keys both become "${e.key}" in JSON, and which one Kubernetes keeps is unspecified; quote the key or remove one`, e.node);
        }
        setKey(obj, e.key, e.value);
      }
      return { t: 'json', v: obj };
    }
    if (isSeq(node)) {
      const arr: Json[] = [];
      for (const item of (node as YAMLSeq).items) arr.push(this.json(item, depth + 1));
      return { t: 'json', v: arr };
    }
    return { t: 'null' };
  }

  json(node: unknown, depth: number): Json {
    const g = this.decode(node, depth);
    return g.t === 'json' ? g.v : toJson(g, node);
  }

  private alias<T>(a: Alias, f: (target: Node) => T): T {
    if (this.active.has(a)) throw new AliasError(`anchor '${a.source}' value contains itself`, a);
    const t = this.target(a);
    this.active.add(a);
    this.aliasDepth++;
    try {
      return f(t);
    } finally {
      this.aliasDepth--;
      this.active.delete(a);
    }
  }

  /** go-yaml's mapping(): keys in document order, the later setting wins, `<<` merges in place. */
  private mapping(node: YAMLMap, out: Map<string, MapEntry>, depth: number): void {
    const explicit = new Map<string, unknown>();
    for (const pair of node.items as Pair[]) {
      if (!isPair(pair)) continue;
      if (isMergeKey(pair.key)) {
        this.merge(pair.value, out, depth);
        continue;
      }
      const k = this.decode(pair.key, depth + 1);
      if (k.t === 'json') throw new DecodeError('invalid map key: a mapping or sequence cannot be a key', pair.key);
      const id = goKeyId(k);
      const key = jsonKey(k, pair.key);
      const value = this.json(pair.value, depth + 1);
      const first = explicit.get(id);
      if (first !== undefined) this.duplicates.push({ key, node: pair.key, first });
      else explicit.set(id, pair.key);
      out.set(id, { key, value, node: pair.key });
    }
  }

  private merge(value: unknown, out: Map<string, MapEntry>, depth: number): void {
    const want = () => new DecodeError('map merge requires map or sequence of maps as the value', value);
    const mergeOne = (n: unknown): void => {
      this.count(n);
      if (isAlias(n)) {
        this.alias(n, (t) => {
          if (!isMap(t)) throw want();
          this.count(t);
          this.mapping(t, out, depth + 1);
        });
      } else if (isMap(n)) this.mapping(n, out, depth + 1);
      else throw want();
    };
    if (isSeq(value)) {
      const items = (value as YAMLSeq).items;
      for (const it of items) {
        if (!(isMap(it) || (isAlias(it) && isMap(this.target(it))))) throw want();
      }
      // Step backwards: earlier mappings take precedence.
      for (let i = items.length - 1; i >= 0; i--) mergeOne(items[i]);
    } else if (isMap(value) || isAlias(value)) mergeOne(value);
    else throw want();
  }
}

function setKey(obj: JsonObject, key: string, value: Json): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= 400000) return 0.99;
  if (decodeCount >= 4000000) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - 400000) / 3600000);
}

/** Anchors in document order: each alias refers to the latest anchor of its name before it. */
function collectAnchors(root: unknown): Map<Alias, Node | undefined> {
  const latest = new Map<string, Node>();
  const out = new Map<Alias, Node | undefined>();
  const stack: unknown[] = [root];
  while (stack.length) {
    const n = stack.pop();
    if (n === null || n === undefined) continue;
    if (isAlias(n)) {
      out.set(n, latest.get(n.source));
      continue;
    }
    if (isPair(n)) {
      stack.push(n.value, n.key);
      continue;
    }
    const anchor = (n as { anchor?: string }).anchor;
    if (anchor) latest.set(anchor, n as Node);
    if (isMap(n) || isSeq(n)) {
      const items = (n as YAMLMap | YAMLSeq).items as unknown[];
      for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]);
    }
  }
  return out;
}

export interface K8sValue {
  value?: Json;
  /** Why the document has no value for Kubernetes (the API server would refuse it). */
  error?: DecodeError;
  duplicates: DuplicateKey[];
}

export const DEFAULT_DECODE_LIMITS: DecodeLimits = { maxNodes: 5_000_000, maxDepth: 128 };

/** The JSON value Kubernetes reads from one parsed YAML document (see the file comment). */
export function k8sValue(doc: Document | Document.Parsed, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): K8sValue {
  const d = new Decoder(collectAnchors(doc.contents), limits);
  try {
    d.decodeCount++; // the document node
    const value = d.json(doc.contents, 1);
    return { value, duplicates: d.duplicates };
  } catch (e) {
    if (e instanceof DecodeError) return { error: e, duplicates: d.duplicates };
    if (e instanceof RangeError) return { error: new DepthLimitError(`document nests too deeply to read (limit ${limits.maxDepth} levels)`), duplicates: d.duplicates };
    throw e;
  }
}

/** The JSON key a scalar map key becomes, or undefined (for locating fields). */
export function scalarKeyString(n: unknown): string | undefined {
  if (!isScalar(n)) return undefined;
  try {
    return jsonKey(scalarGo(n), n);
  } catch {
    return undefined;
  }
}

export { isMergeKey };
