import { Document, isAlias, isMap, isPair, isSeq, LineCounter, Node, parseAllDocuments, visit, YAMLError, YAMLParseError } from 'yaml';
import { isList, listItem, notAnObject } from './not-an-object';
import { InputError, isObject, JsonObject, KObject, Position } from './types';
import { AliasError, DecodeLimits, isMergeKey, K8sValue, k8sValue, scalarKeyString } from './yaml11';

/** Nesting deeper than this is refused: no Kubernetes object comes close (pod specs reach ~15). */
export const MAX_DEPTH = 128;
/** YAML nodes decoded per document (aliases expanded) before the document is refused. */
export const MAX_NODES = 5_000_000;

export interface ParsedFile {
  file: string;
  objects: KObject[];
  errors: InputError[];
  /** Number of non-empty YAML documents (Kubernetes or not). */
  documents: number;
  /** The parsed documents, kept for --fix (index = docIndex). */
  docs: Document.Parsed[];
  lineCounter: LineCounter;
}

/**
 * Runs a `yaml` parse with no stack traces captured: the parser makes a YAMLError (an Error) for
 * every syntax error and warning, and V8 captures the stack of each; we report message and
 * position only. On a broken file (thousands of errors) that capture was half the parse time.
 * Error.stackTraceLimit is restored before returning; nothing else runs in between. A parse that
 * throws (a bug: the parser reports syntax errors, it does not throw them) is run once more with
 * stack traces, so that the internal-error report carries one.
 */
export function withoutStacks<T>(parse: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let result: T;
  try {
    result = parse();
  } catch {
    Error.stackTraceLimit = limit;
    return parse();
  } finally {
    Error.stackTraceLimit = limit;
  }
  return result;
}

/** Kinds without a namespace; everything else defaults to `default`. */
const CLUSTER_SCOPED = new Set([
  'Namespace', 'Node', 'PersistentVolume', 'ClusterRole', 'ClusterRoleBinding', 'StorageClass',
  'CustomResourceDefinition', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'PriorityClass', 'APIService',
  'IngressClass', 'RuntimeClass', 'PodSecurityPolicy', 'CSIDriver', 'CSINode', 'VolumeAttachment',
  'CertificateSigningRequest', 'FlowSchema', 'PriorityLevelConfiguration', 'ClusterIssuer',
]);

export function isClusterScoped(kind: string): boolean {
  return CLUSTER_SCOPED.has(kind);
}

/**
 * What names an object in reports: apiVersion and kind, the name (`generateName*` or `<unnamed>`
 * without one), and the namespace (`default` when unset, none for cluster-scoped kinds).
 */
export function objectIdentity(raw: JsonObject): { apiVersion: string; kind: string; name: string; namespace?: string } {
  const kind = raw.kind as string;
  const meta = isObject(raw.metadata) ? raw.metadata : {};
  const name = typeof meta.name === 'string' ? meta.name : typeof meta.generateName === 'string' ? `${meta.generateName}*` : '<unnamed>';
  const id: { apiVersion: string; kind: string; name: string; namespace?: string } = { apiVersion: raw.apiVersion as string, kind, name };
  if (!isClusterScoped(kind)) id.namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : 'default';
  return id;
}

/** Splits a JSON pointer into unescaped segments. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  const segs = pointer.slice(1).split('/');
  return pointer.includes('~') ? segs.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')) : segs;
}

export function escapeSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Follows an alias to its anchored node (the latest anchor of that name before the alias). */
function deref(node: unknown, doc: Document | undefined): unknown {
  let n = node;
  for (let i = 0; i < 64 && isAlias(n) && doc; i++) {
    try {
      n = n.resolve(doc);
    } catch {
      return undefined;
    }
  }
  return n;
}

/**
 * The pair that gives `key` its value in a mapping, as go-yaml decides it: keys in document
 * order, the later setting wins, `<<` merges in place and within a merge list the earlier
 * mapping wins.
 */
function findPair(map: unknown, key: string, doc: Document | undefined, depth = 0): { key: unknown; value: unknown } | undefined {
  const m = deref(map, doc);
  if (!isMap(m) || depth > 32) return undefined;
  let found: { key: unknown; value: unknown } | undefined;
  for (const p of m.items) {
    if (!isPair(p)) continue;
    if (isMergeKey(p.key)) {
      const src = deref(p.value, doc);
      const list = isSeq(src) ? [...src.items].reverse() : [src];
      for (const s of list) found = findPair(s, key, doc, depth + 1) ?? found;
    } else if (scalarKeyString(deref(p.key, doc)) === key) {
      found = { key: p.key, value: p.value };
    }
  }
  return found;
}

/** Walks a yaml node along pointer segments; returns the deepest node position reached. */
export function locateNode(root: Node | null | undefined, segments: string[], lc: LineCounter, fallback: Position, doc?: Document): Position {
  let node: unknown = root;
  let best: Position = nodePos(node, lc) ?? fallback;
  for (const seg of segments) {
    node = deref(node, doc);
    if (isMap(node)) {
      const pair = findPair(node, seg, doc);
      if (!pair) break;
      best = nodePos(pair.key, lc) ?? best;
      node = pair.value;
    } else if (isSeq(node)) {
      const idx = Number(seg);
      if (!Number.isInteger(idx) || idx < 0 || idx >= node.items.length) break;
      node = node.items[idx];
      best = nodePos(node, lc) ?? best;
    } else {
      break;
    }
  }
  return best;
}

export function nodePos(node: unknown, lc: LineCounter): Position | undefined {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  if (!range) return undefined;
  const p = lc.linePos(range[0]);
  return { line: p.line, column: p.col };
}

function errorPos(e: YAMLError, lc: LineCounter): Position {
  if (e.linePos && e.linePos[0]) return { line: e.linePos[0].line, column: e.linePos[0].col };
  const p = lc.linePos(e.pos[0]);
  return { line: p.line, column: p.col };
}

function yamlErrorMessage(e: YAMLError): string {
  let first = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  // yaml quotes the token it could not place, whole: a quote left open runs to the end of the
  // text (megabytes, other documents). Its first line is enough (at most 60 characters).
  const token = /^(Unexpected [a-z-]+ token in YAML (?:document|stream): )(".*")$/.exec(first);
  if (token) {
    try {
      const src = JSON.parse(token[2]) as string;
      const line = src.split('\n')[0];
      first = token[1] + JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line === src ? line : `${line}…`);
    } catch {
      // (Not yaml's quoting: left as it is.)
    }
  }
  if (/Maximum call stack/.test(first)) {
    return `document nests too deeply to parse (limit ${MAX_DEPTH} levels); Kubernetes objects never nest this deep, so check that this is the file you meant`;
  }
  return `YAML syntax error: ${first}; fix the syntax at this position (the other documents are still linted)`;
}

/**
 * An object as every reader gives it (parse.ts, fast-json.ts, fast-yaml.ts): its value, where it
 * is, and the identity reports name it by. Readers differ in how they find positions.
 */
export abstract class ObjectView implements KObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly uid: string;
  abstract readonly line: number;
  abstract readonly column: number;
  constructor(
    readonly raw: JsonObject,
    readonly file: string,
    readonly docIndex: number,
    readonly basePointer: string,
  ) {
    const id = objectIdentity(raw);
    this.apiVersion = id.apiVersion;
    this.kind = id.kind;
    this.name = id.name;
    if (id.namespace !== undefined) this.namespace = id.namespace;
    this.uid = `${file}#${docIndex}${basePointer}`;
  }
  abstract locate(pointer: string): Position;
}

class ParsedObject extends ObjectView {
  readonly line: number;
  readonly column: number;
  constructor(
    raw: JsonObject,
    file: string,
    docIndex: number,
    basePointer: string,
    private readonly root: Node | null | undefined,
    private readonly lc: LineCounter,
    pos: Position,
    private readonly doc?: Document,
  ) {
    super(raw, file, docIndex, basePointer);
    this.line = pos.line;
    this.column = pos.column;
  }
  locate(pointer: string): Position {
    return locateNode(this.root, pointerSegments(this.basePointer + pointer), this.lc, { line: this.line, column: this.column }, this.doc);
  }
}

/** A mapping with a non-empty apiVersion and kind: an object to lint. */
export function isKubernetesObject(v: unknown): v is JsonObject {
  return isObject(v) && typeof v.apiVersion === 'string' && typeof v.kind === 'string' && v.apiVersion !== '' && v.kind !== '';
}

/** Parser options of every reading of manifests (here and the fixer's read-backs of what it edited). */
export const PARSE_OPTIONS = { prettyErrors: false, keepSourceTokens: false, uniqueKeys: false } as const;
/** A line that starts a document (`---`) or ends one (`...`): YAML forbids it inside any node. */
const DOC_MARKER = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;

/** Offset of a quote that starts a quoted scalar in [from, to) and is not closed before `to`, or -1. */
function unterminatedQuote(text: string, from: number, to: number): number {
  let i = from;
  while (i < to) {
    const c = text[i];
    if (c === '#' && (i === from || /\s/.test(text[i - 1]))) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 || nl > to ? to : nl;
      continue;
    }
    if ((c === '"' || c === "'") && (i === from || /[\s:,[{\-]/.test(text[i - 1]))) {
      let j = i + 1;
      for (; j < to; j++) {
        if (c === '"' && text[j] === '\\') j++;
        else if (text[j] === c) {
          if (c === "'" && text[j + 1] === "'") j++;
          else break;
        }
      }
      if (j >= to) return i;
      i = j + 1;
      continue;
    }
    if (/[^\s:,[\]{}\-]/.test(c)) {
      // A plain scalar: quotes inside it are text; skip to the next separator (past its first
      // character, which may be a `#` that starts no comment: `a#b`).
      i++;
      while (i < to && !/[\n,\]}#]/.test(text[i]) && !(text[i] === ':' && /\s/.test(text[i + 1] ?? ' '))) i++;
      continue;
    }
    i++;
  }
  return -1;
}

/**
 * `docs` with each error in the document it lies in. yaml's composer gives an error its parser
 * reports before a document has a node (a stray `]` right after `---` or `...`) to the document
 * before it, which then has an error and no objects, while the document it lies in may have
 * none: such an error moves to the last document that starts at or before it, first among that
 * document's errors (where yaml puts it for a stream's first document).
 */
function ownErrors(docs: Document.Parsed[]): Document.Parsed[] {
  for (let i = 0; i + 1 < docs.length; i++) {
    const d = docs[i];
    const next = docs[i + 1].range[0];
    // (The document's own errors may stand where the next one's `---` starts: "Flow map must end
    // with a }", the parser's "Unexpected flow-error-end token" where a flow collection is cut
    // short. A document after a `...` has no `---`: its first token is where it starts.)
    const after = !docs[i + 1].directives.docStart;
    const theirs = (e: YAMLError) => (e.pos[0] > next || (e.pos[0] === next && after)) && PARSER_TOKEN_ERROR.test(e.message);
    if (!d.errors.some(theirs)) continue;
    docs[i + 1].errors = [...d.errors.filter(theirs), ...docs[i + 1].errors];
    d.errors = d.errors.filter((e) => !theirs(e));
  }
  return docs;
}
/** The errors yaml's parser reports of a token it cannot place (yaml's parser.ts). */
const PARSER_TOKEN_ERROR = /^Unexpected [a-z-]+ token in YAML (?:document|stream)/;

/**
 * All documents of a text. A syntax error that runs on past a document marker (an unterminated
 * quote in document 2 would swallow document 3, inside the document's node or after it) is cut
 * at the first marker after its start, and
 * the rest is read again, so later documents are not lost. Offsets and lines stay those of
 * `text` (the part before the marker is blanked to spaces, newlines kept). (fast-yaml.ts reads a
 * document it declines with this, alone: see readAlone there.)
 */
export function readDocuments(text: string, lineCounter: LineCounter): Document.Parsed[] {
  // parseAllDocuments returns an EmptyStream (array-like) for empty input.
  const docs = ownErrors(withoutStacks(() => Array.from(parseAllDocuments(text, { ...PARSE_OPTIONS, lineCounter }) as Iterable<Document.Parsed>)));
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i];
    if (!d.errors.length) continue;
    const start = d.range[0];
    // The text the document's tokens took, up to the next document: a quoted scalar that runs on
    // (to the end of the text, when no quote closes it) may lie past the document's range (after
    // its node, as an error of it or as nothing at all), and every `---` line it took.
    const end = i + 1 < docs.length ? docs[i + 1].range[0] : text.length;
    DOC_MARKER.lastIndex = start + 1;
    let m: RegExpExecArray | null;
    let cut = -1;
    while ((m = DOC_MARKER.exec(text)) && m.index < end) {
      if (m.index > start && text.slice(start, m.index).trim() !== '') {
        cut = m.index;
        break;
      }
    }
    if (cut < 0) continue;
    const masked = text.slice(0, cut).replace(/[^\n]/g, ' ') + text.slice(cut);
    const rest = ownErrors(withoutStacks(() => Array.from(parseAllDocuments(masked, PARSE_OPTIONS) as Iterable<Document.Parsed>))).filter((x) => x.range[0] >= cut);
    d.range = [start, Math.min(d.range[1], cut), cut];
    // Errors past the cut belong to the documents read again.
    d.errors = d.errors.filter((e) => e.pos[0] < cut);
    if (!d.errors.length) {
      const q = unterminatedQuote(text, start, cut);
      d.errors.push(
        q >= 0
          ? new YAMLParseError([q, q + 1], 'MISSING_CHAR', `the quote opened here is never closed (the document ends at line ${lineCounter.linePos(cut).line})`)
          : new YAMLParseError([start, cut], 'UNEXPECTED_TOKEN', 'this document ends inside an unterminated node (a quote or bracket opened in it is never closed)'),
      );
    }
    docs.splice(i + 1, docs.length, ...rest);
  }
  return docs;
}

/** yaml's error for a quoted scalar it cut short (lexer.ts parseQuotedScalar): the quote is the 16th character. */
const MISSING_QUOTE = /^Missing closing ["']quote/;

/** yaml's error for a flow collection in a block collection that it cut short at a line indented too little (compose/resolve-flow-collection.ts). */
const FLOW_CUT = /^Flow (?:sequence|map) in block collection must be sufficiently indented/;

/** What indentContinuations padded. */
export interface Continuations {
  text: string;
  /** Lines (1-based) padded, in order. */
  lines: number[];
  /** Spaces added at the start of each padded line (1-based line: count). */
  pads: Map<number, number>;
  /** The padded lines of quoted scalars, and of flow collections. */
  quoted: number[];
  flow: number[];
}

/**
 * `text` with the continuation lines of its quoted scalars and flow collections indented under
 * their opening quote or bracket, where some were indented less than yaml accepts, or undefined
 * when none was (or the file has no such error). Kubernetes reads them; YAML 1.2 does not.
 * - A quoted scalar: YAML 1.2 wants its later lines indented more than the node it is in;
 *   libyaml, and go-yaml after it (sigs.k8s.io/yaml: kubectl, helm, the API server), look only for
 *   the closing quote and a document marker, so charts render, and clusters take, `value:
 *   "-Xms1g \` followed by lines at column 1 (Sonatype's nxrm-ha).
 * - A flow collection (`command: [ "/bin/sh",` with its later items on lines indented like the
 *   key: helm/charts' stable/minio): YAML 1.2 wants its lines indented more than the block
 *   collection it is in (yaml: "Flow sequence in block collection must be sufficiently
 *   indented"); go-yaml's scanner tracks indentation only outside flow collections
 *   (go.yaml.in/yaml/v2 v2.4.2, yaml/go-yaml@246a95c2 scannerc.go:934-938 and 968-972,
 *   yaml_parser_roll_indent and yaml_parser_unroll_indent: "In the flow context, do nothing.";
 *   a plain scalar ends at a line indented less only "if parser.flow_level == 0", :2692).
 * Both fold a line break in a quoted scalar, a plain scalar or between flow entries, and drop the
 * white space that starts the next line (no block scalar can stand in a flow collection), so the
 * padding changes no value; lines and every other line's columns stay as they were (`pads` says
 * by how much the padded lines' columns moved). A line that starts with a document marker ends
 * the node in go-yaml too (an error): it is left alone.
 */
export function indentContinuations(text: string): Continuations | undefined {
  let cur = text;
  const pads = new Map<number, number>();
  const quoted = new Set<number>();
  const flow = new Set<number>();
  // Each round pads the nodes yaml cut short; a node behind one of them is found in the next.
  for (let round = 0; round < 16; round++) {
    const docs = withoutStacks(() => Array.from(parseAllDocuments(cur, PARSE_OPTIONS) as Iterable<Document.Parsed>));
    const quotePads = new Map<number, number>();
    const flowPads = new Map<number, number>();
    for (const d of docs) {
      const cuts = new Map<number, string>();
      const flowCuts = new Set<number>();
      for (const e of d.errors) {
        if (e.code === 'MISSING_CHAR' && MISSING_QUOTE.test(e.message)) cuts.set(e.pos[0], e.message[16]);
        else if (e.code === 'BAD_INDENT' && FLOW_CUT.test(e.message)) flowCuts.add(e.pos[0]);
      }
      if (!cuts.size && !flowCuts.size) continue;
      // The scalar yaml cut short ends where its error stands, and starts at its opening quote;
      // a flow collection likewise, at its opening bracket.
      const opens: number[] = [];
      const brackets: number[] = [];
      visit(d, {
        Scalar(_, n) {
          if ((n.type === 'QUOTE_DOUBLE' || n.type === 'QUOTE_SINGLE') && n.range && cuts.get(n.range[1]) === cur[n.range[0]]) opens.push(n.range[0]);
        },
        Seq(_, n) {
          if (n.flow && n.range && flowCuts.has(n.range[1]) && cur[n.range[0]] === '[') brackets.push(n.range[0]);
        },
        Map(_, n) {
          if (n.flow && n.range && flowCuts.has(n.range[1]) && cur[n.range[0]] === '{') brackets.push(n.range[0]);
        },
      });
      for (const open of opens) padContinuations(cur, open, closingQuote(cur, open), quotePads);
      for (const open of brackets) padContinuations(cur, open, closingBracket(cur, open), flowPads);
    }
    if (!quotePads.size && !flowPads.size) break;
    const lc = textLineCounter(cur);
    const roundPads = new Map<number, number>();
    for (const [ls, n] of quotePads) {
      roundPads.set(ls, n);
      quoted.add(lc.linePos(ls).line);
    }
    for (const [ls, n] of flowPads) {
      roundPads.set(ls, Math.max(n, roundPads.get(ls) ?? 0));
      flow.add(lc.linePos(ls).line);
    }
    const at = [...roundPads.keys()].sort((a, b) => a - b);
    let out = '';
    let from = 0;
    for (const ls of at) {
      const n = roundPads.get(ls)!;
      out += cur.slice(from, ls) + ' '.repeat(n);
      from = ls;
      const line = lc.linePos(ls).line;
      pads.set(line, (pads.get(line) ?? 0) + n);
    }
    out += cur.slice(from);
    cur = out;
  }
  if (cur === text) return undefined;
  const sorted = (s: Set<number> | Iterable<number>) => [...s].sort((a, b) => a - b);
  return { text: cur, lines: sorted(pads.keys()), pads, quoted: sorted(quoted), flow: sorted(flow) };
}

/**
 * Pads, in `pads` (line start: spaces), the lines of the node opened at `open` (a quote or a
 * bracket) and closed at `close` that are indented less than its opening character; nothing when
 * it is not closed (-1) or a line within starts with a document marker.
 */
function padContinuations(cur: string, open: number, close: number, pads: Map<number, number>): void {
  if (close < 0) return;
  const want = open - (cur.lastIndexOf('\n', open - 1) + 1);
  const mine = new Map<number, number>();
  for (let nl = cur.indexOf('\n', open); nl >= 0 && nl < close; nl = cur.indexOf('\n', nl + 1)) {
    const ls = nl + 1;
    if (DOC_MARKER_AT.test(cur.slice(ls, ls + 4))) return;
    let n = 0;
    while (cur[ls + n] === ' ') n++;
    if (cur[ls + n] === '\n' || (cur[ls + n] === '\r' && cur[ls + n + 1] === '\n')) continue;
    if (n < want) mine.set(ls, want - n);
  }
  for (const [ls, n] of mine) pads.set(ls, Math.max(n, pads.get(ls) ?? 0));
}
/** A line that starts with a document marker. */
const DOC_MARKER_AT = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/;

/** The offset of the quote that closes the quoted scalar opened at `open`, found as yaml's lexer finds it; -1 when none does. */
function closingQuote(text: string, open: number): number {
  const quote = text[open];
  let end = text.indexOf(quote, open + 1);
  if (quote === "'") {
    while (end !== -1 && text[end + 1] === "'") end = text.indexOf("'", end + 2);
  } else {
    while (end !== -1) {
      let n = 0;
      while (text[end - 1 - n] === '\\') n++;
      if (n % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
  }
  return end;
}

/**
 * The offset of the bracket that closes the flow collection opened at `open` (`[` or `{`), read
 * as a flow collection is read: quoted scalars (a quote after an indicator or at the start of an
 * entry) and comments (`#` after white space) skipped, nested collections counted; -1 when none
 * closes it.
 */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  let prev = '';
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
    if (c === '#' && /[ \t\r\n]/.test(text[i - 1])) {
      const nl = text.indexOf('\n', i);
      if (nl < 0) return -1;
      i = nl - 1;
      continue;
    }
    if ((c === '"' || c === "'") && /^[[{,:?]$/.test(prev)) {
      const end = closingQuote(text, i);
      if (end < 0) return -1;
      i = end;
      prev = c;
      continue;
    }
    if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      if (--depth === 0) return i;
    }
    prev = c;
  }
  return -1;
}

/**
 * A LineCounter of every line of `text` (a line starts after each line feed, as yaml counts
 * lines), for yaml's parser to take instead of recording the lines it meets: it records those
 * inside a scalar only when the scalar becomes a node, so after a scalar that is a syntax error
 * (`Unexpected scalar token in YAML stream: "a\n b"`) every later position of the text, in the
 * documents after it too, would be reported on a line before its own.
 */
export function textLineCounter(text: string): LineCounter {
  const lc = new LineCounter();
  const starts = lc.lineStarts;
  starts.push(0);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  lc.addNewLine = () => starts.length;
  return lc;
}

/**
 * Parses one file's text (YAML, multi-document, or JSON) into Kubernetes objects with positions.
 * A bad document yields an error and never hides the objects of the other documents.
 */
export function parseText(file: string, text: string, limits: DecodeLimits = { maxNodes: MAX_NODES, maxDepth: MAX_DEPTH }, decoded?: WeakMap<Document, K8sValue>): ParsedFile {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lineCounter = textLineCounter(text);
  let docs: Document.Parsed[];
  try {
    docs = readDocuments(text, lineCounter);
  } catch (e) {
    return { file, objects: [], errors: [{ file, line: 1, column: 1, message: `cannot parse: ${(e as Error).message}` }], documents: 0, docs: [], lineCounter };
  }
  return parsedFromDocuments(file, docs, lineCounter, limits, decoded);
}

/**
 * The objects and errors of already-parsed documents (their node offsets and `lineCounter` are
 * those of one text): what parseText returns after reading. The fixer uses it to rebuild a file
 * whose edited documents it read back alone, without parsing the whole file again; `decoded`
 * holds values already read from documents it kept (never mutated), and receives the new ones.
 */
export function parsedFromDocuments(
  file: string,
  docs: Document.Parsed[],
  lineCounter: LineCounter,
  limits: DecodeLimits = { maxNodes: MAX_NODES, maxDepth: MAX_DEPTH },
  decoded?: WeakMap<Document, K8sValue>,
  /** Index of the first of `docs` in its file. */
  firstIndex = 0,
): ParsedFile {
  const out: ParsedFile = { file, objects: [], errors: [], documents: 0, docs, lineCounter };
  docs.forEach((doc, k) => {
    const docIndex = firstIndex + k;
    if (doc.contents === null && doc.errors.length === 0) return; // empty document or `---` run
    out.documents++;
    if (doc.errors.length) {
      // The first error is the cause; later ones in the same document are its echoes.
      const e = doc.errors[0];
      out.errors.push({ file, ...errorPos(e, lineCounter), message: yamlErrorMessage(e) });
      return;
    }
    const docPos = nodePos(doc.contents, lineCounter) ?? { line: 1, column: 1 };
    let r = decoded?.get(doc);
    if (!r) {
      r = k8sValue(doc, limits);
      decoded?.set(doc, r);
    }
    for (const d of r.duplicates) {
      const first = nodePos(d.first, lineCounter);
      out.errors.push({
        file,
        ...(nodePos(d.node, lineCounter) ?? docPos),
        message: `duplicate key "${d.key}"${first ? ` (first at line ${first.line})` : ''}: Kubernetes' YAML reader keeps the last value and strict readers (kustomize) refuse the file; remove one of them`,
      });
    }
    if (r.error) {
      const pos = nodePos(r.error.node, lineCounter) ?? docPos;
      const msg = r.error instanceof AliasError || /nests|nodes/.test(r.error.message) ? r.error.message : `${r.error.message} (as Kubernetes reads YAML: YAML 1.1 via sigs.k8s.io/yaml)`;
      out.errors.push({ file, ...pos, message: msg });
      return;
    }
    const value: unknown = r.value;
    if (!isKubernetesObject(value)) {
      // Values files, kustomizations without kind, etc. are skipped; an object written wrong is not.
      const message = notAnObject(value);
      if (message) out.errors.push({ file, ...docPos, message });
      return;
    }
    const root = doc.contents as Node;
    if (isList(value)) {
      // (A List inside a List: its items, at any depth, as kubectl applies them.)
      const items = (list: JsonObject & { items: unknown[] }, segs: string[], path: number[]): void =>
        list.items.forEach((written, i) => {
          const item = listItem(list, written);
          const at = [...segs, 'items', String(i)];
          if (isList(item)) return items(item, at, [...path, i]);
          const half = isKubernetesObject(item) ? undefined : notAnObject(item, { item: path.length ? [...path, i] : i });
          if (!half && !isKubernetesObject(item)) return;
          const pos = locateNode(root, at, lineCounter, docPos, doc);
          if (!isKubernetesObject(item)) return void out.errors.push({ file, ...pos, message: half! });
          out.objects.push(new ParsedObject(item, file, docIndex, `/${at.join('/')}`, root, lineCounter, pos, doc));
        });
      items(value, [], []);
      return;
    }
    out.objects.push(new ParsedObject(value, file, docIndex, '', root, lineCounter, docPos, doc));
  });
  return out;
}

/** Position of `pointer` inside a parsed document (for errors in config and policy files). */
export function locateInDocument(doc: Document.Parsed, lc: LineCounter, pointer: string): Position {
  return locateNode(doc.contents as Node, pointerSegments(pointer), lc, { line: 1, column: 1 }, doc);
}
