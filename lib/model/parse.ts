import { Document, isMap, isPair, isScalar, isSeq, LineCounter, Node, parseAllDocuments, YAMLError } from 'yaml';
import { InputError, isObject, Json, JsonObject, KObject, Position } from './types';

/** Nesting deeper than this is refused: no Kubernetes object comes close (pod specs reach ~15). */
export const MAX_DEPTH = 128;
/** Aliases expanded per document before we call it an alias bomb (yaml's own guard). */
export const MAX_ALIASES = 100;

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

/** Splits a JSON pointer into unescaped segments. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function escapeSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Walks a yaml node along pointer segments; returns the deepest node position reached. */
function locateNode(root: Node | null | undefined, segments: string[], lc: LineCounter, fallback: Position): Position {
  let node: unknown = root;
  let best: Position = nodePos(node, lc) ?? fallback;
  for (const seg of segments) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === seg);
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

function nodePos(node: unknown, lc: LineCounter): Position | undefined {
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
  const first = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  if (/Maximum call stack/.test(first)) {
    return `document nests too deeply to parse (limit ${MAX_DEPTH} levels); Kubernetes objects never nest this deep, so check that this is the file you meant`;
  }
  return `YAML syntax error: ${first}; fix the syntax at this position (the other documents are still linted)`;
}

/** Depth of a JSON value, iteratively (so a deep value cannot overflow the stack here). */
export function depthExceeds(value: Json, limit: number): boolean {
  const stack: Array<[Json, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > limit) return true;
    if (Array.isArray(v)) for (const x of v) stack.push([x, d + 1]);
    else if (isObject(v)) for (const k in v) stack.push([v[k], d + 1]);
  }
  return false;
}

class ParsedObject implements KObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly line: number;
  readonly column: number;
  readonly uid: string;
  constructor(
    readonly raw: JsonObject,
    readonly file: string,
    readonly docIndex: number,
    readonly basePointer: string,
    private readonly root: Node | null | undefined,
    private readonly lc: LineCounter,
    pos: Position,
  ) {
    this.apiVersion = raw.apiVersion as string;
    this.kind = raw.kind as string;
    const meta = isObject(raw.metadata) ? raw.metadata : {};
    this.name = typeof meta.name === 'string' ? meta.name : typeof meta.generateName === 'string' ? `${meta.generateName}*` : '<unnamed>';
    if (!isClusterScoped(this.kind)) {
      this.namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : 'default';
    }
    this.line = pos.line;
    this.column = pos.column;
    this.uid = `${file}#${docIndex}${basePointer}`;
  }
  locate(pointer: string): Position {
    return locateNode(this.root, pointerSegments(this.basePointer + pointer), this.lc, { line: this.line, column: this.column });
  }
}

function isKubernetesObject(v: unknown): v is JsonObject {
  return isObject(v) && typeof v.apiVersion === 'string' && typeof v.kind === 'string' && v.apiVersion !== '' && v.kind !== '';
}

/**
 * Parses one file's text (YAML, multi-document, or JSON) into Kubernetes objects with positions.
 * A bad document yields an error and never hides the objects of the other documents.
 */
export function parseText(file: string, text: string): ParsedFile {
  const lineCounter = new LineCounter();
  const out: ParsedFile = { file, objects: [], errors: [], documents: 0, docs: [], lineCounter };
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let docs: Document.Parsed[];
  try {
    const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: false, keepSourceTokens: false });
    // parseAllDocuments returns an EmptyStream (array-like) for empty input.
    docs = Array.from(parsed as Iterable<Document.Parsed>);
  } catch (e) {
    out.errors.push({ file, line: 1, column: 1, message: `cannot parse: ${(e as Error).message}` });
    return out;
  }
  out.docs = docs;
  docs.forEach((doc, docIndex) => {
    if (doc.contents === null && doc.errors.length === 0) return; // empty document or `---` run
    out.documents++;
    if (doc.errors.length) {
      // The first error is the cause; later ones in the same document are its echoes.
      const e = doc.errors[0];
      out.errors.push({ file, ...errorPos(e, lineCounter), message: yamlErrorMessage(e) });
      return;
    }
    let value: unknown;
    const docPos = nodePos(doc.contents, lineCounter) ?? { line: 1, column: 1 };
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIASES });
    } catch (e) {
      const msg = /alias/i.test((e as Error).message)
        ? `too many YAML alias expansions (limit ${MAX_ALIASES}): this looks like an alias bomb ("billion laughs"); expand the aliases by hand if the document is genuine`
        : `cannot read document: ${(e as Error).message}`;
      out.errors.push({ file, ...docPos, message: msg });
      return;
    }
    if (value !== null && typeof value === 'object' && depthExceeds(value as Json, MAX_DEPTH)) {
      out.errors.push({ file, ...docPos, message: `document nests deeper than ${MAX_DEPTH} levels; Kubernetes objects never nest this deep, so check that this is the file you meant` });
      return;
    }
    if (!isKubernetesObject(value)) return; // values files, kustomizations without kind, etc.
    const root = doc.contents as Node;
    const kind = value.kind as string;
    const isList = kind === 'List' || (kind.endsWith('List') && Array.isArray(value.items));
    if (isList && Array.isArray(value.items)) {
      value.items.forEach((item, i) => {
        if (!isKubernetesObject(item)) return;
        const base = `/items/${i}`;
        const pos = locateNode(root, ['items', String(i)], lineCounter, docPos);
        out.objects.push(new ParsedObject(item, file, docIndex, base, root, lineCounter, pos));
      });
      return;
    }
    out.objects.push(new ParsedObject(value, file, docIndex, '', root, lineCounter, docPos));
  });
  return out;
}

/** Position of `pointer` inside a parsed document (for errors in config and policy files). */
export function locateInDocument(doc: Document.Parsed, lc: LineCounter, pointer: string): Position {
  return locateNode(doc.contents as Node, pointerSegments(pointer), lc, { line: 1, column: 1 });
}
