import { Document, isAlias, isMap, isPair, isScalar, isSeq, Node, Pair, Scalar, ToStringOptions, YAMLMap, YAMLSeq } from 'yaml';
import { Json } from '../model/types';

/** New text is written with YAML 1.1 quoting, so Kubernetes reads strings like `yes` or `010` back as strings. */
const K8S_YAML = { version: '1.1' as const };

/** An edit in document coordinates. */
export interface DocEdit {
  op: 'set' | 'append' | 'remove';
  segs: string[];
  value?: Json;
}

interface TextOp {
  start: number;
  end: number;
  text: string;
  order: number;
  /** Column of inserted lines: at one position, deeper insertions go first (they end the inner collection). */
  col: number;
}

function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** Where a line that follows the node ending at `end` starts (after the rest of its last line). */
function afterLine(text: string, end: number): { pos: number; needsBreak: boolean } {
  if (end > 0 && text[end - 1] === '\n') return { pos: end, needsBreak: false };
  const j = text.indexOf('\n', end);
  return j < 0 ? { pos: text.length, needsBreak: true } : { pos: j + 1, needsBreak: false };
}

/** yaml's rendering of new text, remembered: --fix writes the same few snippets many times over. */
const rendered = new Map<string, string>();
function render(value: Json, style: ToStringOptions): string {
  const key = JSON.stringify([value, style]);
  let t = rendered.get(key);
  if (t === undefined) {
    t = new Document(value, K8S_YAML).toString(style);
    if (rendered.size > 10000) rendered.clear();
    rendered.set(key, t);
  }
  return t;
}

function indentLines(snippet: string, col: number, eol: string): string {
  const pad = ' '.repeat(col);
  return snippet
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => pad + l + eol)
    .join('');
}

/** A scalar's new text in the style of the one it replaces (quotes kept when they still fit). */
function scalarText(oldType: string | undefined, value: Json, style: ToStringOptions): string | undefined {
  if (value !== null && typeof value === 'object') return undefined;
  if (typeof value === 'string') {
    if (/[\n\r]/.test(value)) return undefined;
    if (oldType === 'QUOTE_DOUBLE') return JSON.stringify(value);
    if (oldType === 'QUOTE_SINGLE') return `'${value.replace(/'/g, "''")}'`;
  }
  const t = render(value, style).replace(/\n$/, '');
  return t.includes('\n') ? undefined : t;
}

/**
 * What surgicalEdit reads of a document: its nodes' kinds, members, items and offsets in the
 * whole text. Two readings provide it: yaml's Document (yamlTree) and, without building one, the
 * text itself (splice.ts's textTree); both must give the same answers where the second answers
 * at all (test/fix/splice.test.ts compares them), so an edit comes out byte for byte the same.
 * A method answering undefined makes the edit decline.
 */
export interface EditTree<N> {
  root(): N | null | undefined;
  kind(n: N | null | undefined): 'map' | 'seq' | 'scalar' | 'alias' | 'other';
  /** A collection in flow style. */
  flow(n: N): boolean;
  /** Whether a mapping has an entry with this key. */
  hasKey(n: N, key: string): boolean;
  /** The value of a mapping's first entry with this key (null: an entry without a node), undefined when there is none. */
  member(n: N, key: string): N | null | undefined;
  /** A collection's number of entries or items. */
  size(n: N): number;
  item(n: N, i: number): N | null | undefined;
  /** A scalar's range (start and end of its text), undefined when unknown. */
  range(n: N): [number, number] | undefined;
  /** A scalar's yaml type (PLAIN, QUOTE_DOUBLE, ...). */
  scalarType(n: N): string | undefined;
  /** Start of a mapping's first key, or of a sequence's first item's node. */
  firstStart(n: N): number | undefined;
  /** End of a collection's last entry (its value, else its key) or item. */
  lastEnd(n: N): number | undefined;
  /**
   * A mapping entry whose value is null or an empty mapping, written on the key's line (or
   * absent): the offsets of its key and its `:`; undefined for any other entry.
   */
  emptyEntry(n: N, key: string): { key: number; colon: number } | undefined;
}

function keyText(p: Pair<unknown, unknown>): string | undefined {
  const k = p.key;
  if (isScalar(k)) return k.value === null ? undefined : String(k.value);
  return typeof k === 'string' ? k : undefined;
}

function nodeEnd(n: unknown): number | undefined {
  const r = (n as { range?: [number, number, number] } | null)?.range;
  return r ? r[1] : undefined;
}

function nodeRangeStart(n: unknown): number | undefined {
  return (n as Node | null)?.range?.[0];
}

/** The tree of a parsed yaml Document (offsets as its ranges give them) of `text`. */
export function yamlTree(doc: Document.Parsed, text: string): EditTree<unknown> {
  return {
    emptyEntry: (n, key) => {
      const pair = (n as YAMLMap<unknown, unknown>).items.find((p) => keyText(p) === key);
      const k = (pair?.key as Node | undefined)?.range;
      const v = pair?.value as Node | undefined;
      if (!k || !v?.range || !((isScalar(v) && v.value === null) || (isMap(v) && v.flow && !v.items.length))) return undefined;
      const colon = text.indexOf(':', k[1]);
      if (colon < 0 || text.slice(k[1], colon).trim() !== '' || text.slice(colon, v.range[0]).includes('\n')) return undefined;
      return { key: k[0], colon };
    },
    root: () => doc.contents,
    kind: (n) => (isMap(n) ? 'map' : isSeq(n) ? 'seq' : isScalar(n) ? 'scalar' : isAlias(n) ? 'alias' : 'other'),
    flow: (n) => !!(n as YAMLMap | YAMLSeq).flow,
    hasKey: (n, key) => (n as YAMLMap<unknown, unknown>).items.some((p) => keyText(p) === key),
    member: (n, key) => (n as YAMLMap<unknown, unknown>).items.find((p) => keyText(p) === key)?.value as unknown,
    size: (n) => (n as YAMLMap | YAMLSeq).items.length,
    item: (n, i) => (n as YAMLSeq<unknown>).items[i],
    range: (n) => {
      const r = (n as Scalar).range;
      return r ? [r[0], r[1]] : undefined;
    },
    scalarType: (n) => (n as Scalar).type,
    firstStart: (n) => (isMap(n) ? nodeRangeStart(n.items[0]?.key) : nodeRangeStart((n as YAMLSeq).items[0])),
    lastEnd: (n) => {
      const c = n as YAMLMap<unknown, unknown> | YAMLSeq<unknown>;
      const last = c.items[c.items.length - 1];
      if (last === undefined) return undefined;
      if (isPair(last)) return nodeEnd(last.value) ?? nodeEnd(last.key);
      return nodeEnd(last);
    },
  };
}

/**
 * Applies the edits as text operations on the original document: a changed scalar is replaced
 * where it stands; new keys and sequence items are rendered on their own and inserted after the
 * last entry of their block collection, at its column. Everything else stays byte for byte.
 * Returns the new text of `text.slice(from, to)`, or undefined for edits this cannot express
 * (removals, flow collections, replaced collections); the caller then merges yaml's rendering.
 */
export function surgicalEdit(text: string, from: number, to: number, doc: Document.Parsed, edits: DocEdit[], style: ToStringOptions, eol: string): string | undefined {
  return treeEdit(yamlTree(doc, text), text, from, to, edits, style, eol);
}

/** surgicalEdit over any reading of the document (EditTree). */
export function treeEdit<N>(tree: EditTree<N>, text: string, from: number, to: number, edits: DocEdit[], style: ToStringOptions, eol: string): string | undefined {
  const ops: TextOp[] = [];
  for (const e of edits) {
    if (e.op === 'remove') return undefined;
    // Walk the original document as far as the path exists.
    let node: N | null | undefined = tree.root();
    let depth = 0;
    let empty: { key: number; colon: number } | undefined;
    for (; depth < e.segs.length; depth++) {
      const seg = e.segs[depth];
      let next: N | null | undefined;
      const kind = tree.kind(node);
      if (kind === 'map') {
        if (tree.hasKey(node!, '<<')) return undefined;
        next = tree.member(node!, seg);
        if (next === undefined) break;
        // The path goes on through a null or `{}` entry: it becomes the block mapping below.
        if (depth < e.segs.length - 1 && (empty = tree.emptyEntry(node!, seg))) break;
      } else if (kind === 'seq') {
        const i = /^\d+$/.test(seg) ? Number(seg) : -1;
        if (i < 0 || i >= tree.size(node!)) return undefined;
        next = tree.item(node!, i);
      } else return undefined;
      if (tree.kind(next) === 'alias') return undefined;
      node = next;
    }
    const order = ops.length;
    if (empty) {
      // `key:`, `key: null`, `key: ~` or `key: {}` (nothing else on the line) holding the rest
      // of the path: the value goes on the lines below the key, one indentation step deeper.
      const nl = text.indexOf('\n', empty.colon);
      let lineEnd = nl < 0 || nl > to ? to : nl;
      if (lineEnd > empty.colon && text[lineEnd - 1] === '\r') lineEnd--;
      if (!/^[ \t]*(?:null|Null|NULL|~|\{[ \t]*\})?[ \t]*$/.test(text.slice(empty.colon + 1, lineEnd))) return undefined;
      let value: Json = e.op === 'append' ? [e.value ?? null] : (e.value ?? null);
      for (let i = e.segs.length - 1; i > depth + 1; i--) value = { [e.segs[i]]: value };
      const col = empty.key - lineStart(text, empty.key) + (style.indent ?? 2);
      const lines = indentLines(render({ [e.segs[depth + 1]]: value }, style), col, eol);
      ops.push({ start: empty.colon + 1, end: lineEnd, text: eol + lines.slice(0, lines.length - eol.length), order, col });
      continue;
    }
    const kind = tree.kind(node);
    if (depth === e.segs.length) {
      // The whole path exists.
      if (e.op === 'set') {
        const range = kind === 'scalar' ? tree.range(node!) : undefined;
        if (!range) return undefined;
        const t = scalarText(tree.scalarType(node!), e.value ?? null, style);
        if (t === undefined) return undefined;
        ops.push({ start: range[0], end: range[1], text: t, order, col: 0 });
        continue;
      }
      // append to an existing block sequence: a new item at the items' dash column.
      if (kind !== 'seq' || tree.flow(node!) || !tree.size(node!)) return undefined;
      const first = tree.firstStart(node!);
      const end = tree.lastEnd(node!);
      if (first === undefined || end === undefined) return undefined;
      const ls = lineStart(text, first);
      const dash = text.lastIndexOf('-', first - 1);
      if (dash < ls || text.slice(ls, dash).trim() !== '' || text.slice(dash + 1, first).trim() !== '') return undefined;
      const at = afterLine(text, end);
      ops.push({ start: at.pos, end: at.pos, text: (at.needsBreak ? eol : '') + indentLines(render([e.value ?? null], style), dash - ls, eol), order, col: dash - ls });
      continue;
    }
    // A missing key under an existing block mapping: insert it, with any missing parents.
    if (kind !== 'map' || tree.flow(node!) || !tree.size(node!)) return undefined;
    let value: Json = e.op === 'append' ? [e.value ?? null] : (e.value ?? null);
    for (let i = e.segs.length - 1; i > depth; i--) value = { [e.segs[i]]: value };
    const firstKey = tree.firstStart(node!);
    const end = tree.lastEnd(node!);
    if (firstKey === undefined || end === undefined) return undefined;
    const col = firstKey - lineStart(text, firstKey);
    const at = afterLine(text, end);
    const snippet = render({ [e.segs[depth]]: value }, style);
    ops.push({ start: at.pos, end: at.pos, text: (at.needsBreak ? eol : '') + indentLines(snippet, col, eol), order, col });
  }
  ops.sort((a, b) => a.start - b.start || b.col - a.col || a.order - b.order);
  // Only the first insertion at the end of the text may need to start a new line.
  for (let i = 1; i < ops.length; i++) if (ops[i].start === ops[i - 1].start && ops[i].text.startsWith(eol) && ops[i - 1].text.startsWith(eol)) ops[i].text = ops[i].text.slice(eol.length);
  for (let i = 1; i < ops.length; i++) if (ops[i].start < ops[i - 1].end) return undefined;
  if (ops.some((o) => o.start < from || o.end > to)) return undefined;
  let out = '';
  let at = from;
  for (const o of ops) {
    out += text.slice(at, o.start) + o.text;
    at = o.end;
  }
  return out + text.slice(at, to);
}
