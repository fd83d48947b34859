/**
 * The fast path for JSON input (`kubectl get -A -o json`, a `kind: List` of 100k objects): the
 * values come from JSON.parse, and source positions are computed only for what is reported, by
 * scanning the JSON text of that one object. The `yaml` document tree of the position-keeping
 * path (parse.ts) costs about 40 times the memory of the values and ran out of memory at 100k
 * objects.
 *
 * Exactness: parse.ts reads JSON as YAML 1.1 the way Kubernetes does. For JSON those rules give
 * the same values as JSON.parse except in corner cases, and this path declines (returns undefined,
 * so the caller uses parse.ts) whenever one of them could occur: duplicate keys (reported as
 * errors by parse.ts), the integer `-0`, numbers out of float range (strings in go-yaml), keys
 * longer than YAML's 1024-character implicit-key limit, nesting deeper than MAX_DEPTH, a lone CR
 * line break, anything JSON.parse refuses. test/model/fast-path.test.ts checks that both paths
 * agree on every value, position and finding over the corpus and generated inputs.
 */
import { lineFeeds, lineIndex } from './lines';
import { escapeSegment, isKubernetesObject, MAX_DEPTH, ObjectView, pointerSegments } from './parse';
import { isAscii } from 'buffer';
import * as fs from 'fs';
import { InputError, Json, JsonObject, KObject, Position } from './types';
import { LIST_DECLINED_MAX, LIST_PARTS_MAX, ListPart, listPartsError } from './list-error';
import { isList, itemError, listItem, notAnObject } from './not-an-object';

/** What the lint needs from a parsed file (the fixer needs parse.ts's documents too). */
export interface ParsedObjects {
  file: string;
  objects: KObject[];
  errors: InputError[];
  /** Number of non-empty documents. */
  documents: number;
  /** Namespaced objects that name no namespace, taken to be in the one namespace the file's others name (engine/run.ts applySourceNamespace). */
  inferredNamespace?: { namespace: string; objects: number };
}

const WS = new Uint8Array(128);
for (const c of [0x20, 0x0a, 0x0d, 0x09]) WS[c] = 1;


/** Offsets of line starts, for offset -> line:column (1-based, UTF-16 columns like yaml's LineCounter). */
class Lines {
  private starts?: number[];
  constructor(private readonly text: string) {}
  pos(offset: number): Position {
    if (!this.starts) {
      const s = [0];
      for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) s.push(i + 1);
      this.starts = s;
    }
    const s = this.starts;
    const lo = lineIndex(s, offset);
    return { line: lo + 1, column: offset - s[lo] + 1 };
  }
}

/** A JSON text walker over valid JSON (JSON.parse has accepted it). */
class Scanner {
  constructor(readonly text: string) {}
  ws(i: number): number {
    const t = this.text;
    while (i < t.length) {
      const c = t.charCodeAt(i);
      if (c < 128 && WS[c]) i++;
      else break;
    }
    return i;
  }
  /** Index just after the string starting at i (t[i] === '"'). */
  stringEnd(i: number): number {
    const t = this.text;
    for (let j = i + 1; ; ) {
      const q = t.indexOf('"', j);
      let k = q - 1;
      while (t.charCodeAt(k) === 0x5c) k--;
      if ((q - 1 - k) % 2 === 0) return q + 1;
      j = q + 1;
    }
  }
  /** Index just after the value starting at i. */
  skip(i: number): number {
    const t = this.text;
    const c = t.charCodeAt(i);
    if (c === 0x22) return this.stringEnd(i);
    if (c !== 0x7b && c !== 0x5b) {
      let j = i;
      while (j < t.length) {
        const d = t.charCodeAt(j);
        if (d === 0x2c || d === 0x7d || d === 0x5d || (d < 128 && WS[d])) break;
        j++;
      }
      return j;
    }
    // From bracket to bracket, skipping strings: the next of each character found with indexOf
    // (memchr) and kept until passed, rather than a look at every character (in indented JSON
    // most of them are blanks).
    let depth = 0;
    for (let j = i; ; ) {
      const q = this.nextOf(0, '"', j);
      const a = this.nextOf(1, '{', j);
      const b = this.nextOf(2, '[', j);
      const c = this.nextOf(3, '}', j);
      const d = this.nextOf(4, ']', j);
      const open = a < b ? a : b;
      const close = c < d ? c : d;
      if (q < open && q < close) j = this.stringEnd(q);
      else if (open < close) {
        depth++;
        j = open + 1;
      } else {
        if (close >= t.length) return t.length;
        if (--depth === 0) return close + 1;
        j = close + 1;
      }
    }
  }
  /** Where each of `"{[}]` was last looked for (from) and found (at; the text's length if nowhere). */
  private readonly from = new Int32Array(5).fill(0x7fffffff);
  private readonly at = new Int32Array(5);
  /** Index of the first `ch` (slot: its index in `"{[}]`) at or after j, or the text's length. */
  private nextOf(slot: number, ch: string, j: number): number {
    // Found before from a point at or before j, and not passed: no `ch` lies in between.
    if (this.from[slot] <= j && j <= this.at[slot]) return this.at[slot];
    const k = this.text.indexOf(ch, j);
    this.from[slot] = j;
    return (this.at[slot] = k < 0 ? this.text.length : k);
  }
  key(start: number, end: number): string {
    const raw = this.text.slice(start + 1, end - 1);
    return raw.includes('\\') ? (JSON.parse(this.text.slice(start, end)) as string) : raw;
  }
  /**
   * Whether the string [start, end) (quotes included) reads as `key`, without making it a string:
   * written without a backslash, it is its characters; with one, it reads shorter than written
   * (every escape is), so only a string written longer than `key` is decoded, if it has one.
   */
  keyIs(start: number, end: number, key: string, keyHasBackslash: boolean): boolean {
    const t = this.text;
    const written = end - start - 2;
    if (written === key.length) return !keyHasBackslash && t.startsWith(key, start + 1);
    if (written < key.length) return false;
    for (let k = start + 1; k < end - 1; k++) if (t.charCodeAt(k) === 0x5c) return this.key(start, end) === key;
    return false;
  }
  /** Start of the member value named `key` in the object at i, and the key's own offset. */
  member(i: number, key: string): { keyAt: number; valueAt: number } | undefined {
    const keyHasBackslash = key.includes('\\');
    let j = this.ws(i + 1);
    while (this.text.charCodeAt(j) === 0x22) {
      const end = this.stringEnd(j);
      const v = this.ws(this.ws(end) + 1);
      if (this.keyIs(j, end, key, keyHasBackslash)) return { keyAt: j, valueAt: v };
      j = this.ws(this.skip(v));
      if (this.text.charCodeAt(j) === 0x2c) j = this.ws(j + 1);
    }
    return undefined;
  }
  /** Start of element n of the array at i. */
  element(i: number, n: number): number | undefined {
    let j = this.ws(i + 1);
    if (this.text.charCodeAt(j) === 0x5d) return undefined;
    for (let k = 0; ; k++) {
      if (k === n) return j;
      j = this.ws(this.skip(j));
      if (this.text.charCodeAt(j) !== 0x2c) return undefined;
      j = this.ws(j + 1);
    }
  }
  /**
   * The keys of the text: how many there are, or -1 when one is longer than YAML's
   * 1024-character implicit-key limit. Jumps from quote to quote (indexOf), so its cost grows
   * with the number of strings, not of characters.
   */
  countKeys(): number {
    const t = this.text;
    let n = 0;
    for (let i = t.indexOf('"'); i !== -1; ) {
      const end = this.stringEnd(i);
      let j = end;
      let c = t.charCodeAt(j);
      while (c < 128 && WS[c]) c = t.charCodeAt(++j);
      if (c === 0x3a) {
        if (end - i > 1024) return -1;
        n++;
      }
      i = t.indexOf('"', end);
    }
    return n;
  }
}

/**
 * Parsed keys at most this long are written in at most 6 * 170 + 2 = 1022 characters with their
 * quotes (an escape `\uXXXX` is the longest writing of one UTF-16 unit), so within YAML's
 * 1024-character implicit-key limit without measuring them in the text.
 */
const SHORT_KEY = 170;

/**
 * An upper bound of the number of keys written in text[from, to): the colons whose last
 * character before them, white space apart, is a quote not escaped (not after an odd run of
 * backslashes). Every key is counted: a key is a string, so its closing quote is unescaped, and
 * only white space lies between it and its colon; each colon is counted at most once. A colon may
 * be counted that follows no key (a string that starts with a colon: `": x"`): the bound is then
 * too high, never too low. One indexOf per colon, where the exact count (Scanner.countKeys) walks
 * every string, quote by quote.
 */
export function keyBound(t: string, from: number, to: number): number {
  let n = 0;
  for (let c = t.indexOf(':', from); c !== -1 && c < to; c = t.indexOf(':', c + 1)) {
    let q = c - 1;
    let d = t.charCodeAt(q);
    while (d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) d = t.charCodeAt(--q);
    if (d !== 0x22) continue;
    let k = q - 1;
    while (t.charCodeAt(k) === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) n++;
  }
  return n;
}

/** The number of keys written in a JSON text (JSON.parse has accepted it), or -1 over the key-length limit: the exact count. */
export function textKeyCount(t: string): number {
  return new Scanner(t).countKeys();
}

/** What the walk of a parsed value found (module state: the walk is synchronous and not reentrant). */
let walkKeys = 0;
let walkLongestKey = 0;
let walkNegativeZero = false;

/** Counts the keys of v (and the longest); false at a non-finite number or deeper than maxDepth. */
function walk(v: unknown, depth: number, maxDepth: number): boolean {
  if (typeof v === 'number') {
    if (Object.is(v, -0)) walkNegativeZero = true;
    return Number.isFinite(v);
  }
  if (typeof v !== 'object' || v === null) return true;
  if (depth > maxDepth) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!walk(v[i], depth + 1, maxDepth)) return false;
    return true;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    walkKeys++;
    if (k.length > walkLongestKey) walkLongestKey = k.length;
    if (!walk(o[k], depth + 1, maxDepth)) return false;
  }
  return true;
}

/**
 * Checks what JSON.parse does not: no duplicate key (JSON.parse keeps the last, so the parsed
 * value has fewer keys than the text), no key longer than YAML's 1024-character implicit-key
 * limit, no nesting deeper than `maxDepth`, no number go-yaml reads otherwise (the integer -0 is
 * 0 there, and an out-of-range float a string: both are declined). `text` is the value's text.
 *
 * Keys: the value has V keys, the text K >= V (one or more written per key kept), and
 * keyBound gives B >= K. B === V proves K === V (no duplicate), and keys no longer than SHORT_KEY
 * prove the limit; otherwise the exact count decides (countKeys: K, or -1 over the limit).
 */
function plainValue(value: unknown, text: string, maxDepth: number, startDepth = 1): boolean {
  walkKeys = 0;
  walkLongestKey = 0;
  walkNegativeZero = false;
  if (!walk(value, startDepth, maxDepth)) return false;
  const keys = walkKeys;
  if (walkLongestKey > SHORT_KEY || keyBound(text, 0, text.length) !== keys) {
    if (textKeyCount(text) !== keys) return false;
  }
  // -0.0 is -0 in both readers; the integer -0 is 0 in go-yaml (a -0 token, maybe in a string:
  // declining is always safe).
  return !walkNegativeZero || !/[\s:[,]-0(?![.\deE])/.test(text);
}

/** Offsets of the objects' `{` in the text, found when the first position is asked for. */
type Offsets = () => number[];

class JsonObjectView extends ObjectView {
  private pos?: Position;
  constructor(
    raw: JsonObject,
    file: string,
    basePointer: string,
    private readonly scanner: Scanner,
    private readonly lines: Lines,
    private readonly offsets: Offsets,
    /** Index of the object's `{` in offsets(). */
    private readonly index: number,
  ) {
    super(raw, file, 0, basePointer);
  }
  private get at(): number {
    return this.offsets()[this.index];
  }
  // Positions are computed when asked for (a report): most objects of a large input never are.
  get line(): number {
    return (this.pos ??= this.lines.pos(this.at)).line;
  }
  get column(): number {
    return (this.pos ??= this.lines.pos(this.at)).column;
  }
  /** As parse.ts: the key of the deepest member found along the pointer, or the deepest element. */
  locate(pointer: string): Position {
    return this.lines.pos(walkPointer(this.scanner, this.at, pointer));
  }
}

/**
 * Offset of the key of the deepest member found along the pointer from the value at `at`, or of
 * the deepest element. `memo` (per text and start) keeps where each pointer prefix led: the
 * findings of one object often share a prefix (/spec/template/spec/containers/0), and the members
 * skipped on the way are scanned once.
 */
function walkPointer(s: Scanner, at: number, pointer: string, memo?: Map<string, [at: number, best: number]>): number {
  let best = at;
  const segs = pointerSegments(pointer);
  let i = 0;
  /** keys[n]: the prefix of segs[0..n] as a pointer (segments escaped again: one key per path). */
  let keys: string[] | undefined;
  if (memo) {
    keys = new Array<string>(segs.length);
    let k = '';
    for (let n = 0; n < segs.length; n++) {
      const seg = segs[n];
      keys[n] = k = `${k}/${seg.includes('~') || seg.includes('/') ? escapeSegment(seg) : seg}`;
    }
    for (let n = segs.length; n > 0; n--) {
      const m = memo.get(keys[n - 1]);
      if (m) {
        [at, best] = m;
        i = n;
        break;
      }
    }
  }
  for (; i < segs.length; i++) {
    const seg = segs[i];
    const c = s.text.charCodeAt(at);
    if (c === 0x7b) {
      const m = s.member(at, seg);
      if (!m) break;
      best = m.keyAt;
      at = m.valueAt;
    } else if (c === 0x5b) {
      const idx = Number(seg);
      if (!Number.isInteger(idx) || idx < 0) break;
      const e = s.element(at, idx);
      if (e === undefined) break;
      best = at = e;
    } else break;
    // (Only prefixes walked to the end: where a member is missing, the walk stops there.)
    if (keys) memo!.set(keys[i], [at, best]);
  }
  return best;
}

/**
 * Parses a JSON file (one document: an object, a `kind: List`, or an array) into objects, or returns
 * undefined when the text is not plain JSON this path reads exactly as parse.ts does.
 */
export function parseJsonFast(file: string, text: string): ParsedObjects | undefined {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const scanner = new Scanner(text);
  const start = scanner.ws(0);
  // (An array: no object, and an error when it holds objects; see not-an-object.ts.)
  if (text.charCodeAt(start) !== 0x7b && text.charCodeAt(start) !== 0x5b) return undefined;
  if (text.includes('\r') && /\r(?!\n)/.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!plainValue(value, text, MAX_DEPTH)) return undefined;
  const out: ParsedObjects = { file, objects: [], errors: [], documents: 1 };
  const lines = new Lines(text);
  if (!isKubernetesObject(value)) {
    // (Not an object: skipped, unless it reads like one written wrong.)
    const message = notAnObject(value);
    if (message) {
      const at = new JsonObjectView(value as JsonObject, file, '', scanner, lines, () => [start], 0);
      out.errors.push({ file, line: at.line, column: at.column, message });
    }
    return out;
  }
  if (isList(value)) {
    const items = value.items;
    let offsets: number[] | undefined;
    // One pass over the items for all their offsets (element(i) per item would be quadratic).
    const itemOffsets: Offsets = () => {
      if (offsets) return offsets;
      offsets = [];
      let j = scanner.ws(scanner.member(start, 'items')!.valueAt + 1);
      for (let i = 0; i < items.length; i++) {
        offsets.push(j);
        j = scanner.ws(scanner.skip(j));
        if (text.charCodeAt(j) === 0x2c) j = scanner.ws(j + 1);
      }
      return offsets;
    };
    for (let i = 0; i < items.length; i++) {
      const item = listItem(value, items[i]);
      // (A List inside the List, rare: parse.ts reads its items.)
      if (isList(item)) return undefined;
      if (isKubernetesObject(item)) out.objects.push(new JsonObjectView(item, file, `/items/${i}`, scanner, lines, itemOffsets, i));
      else itemError(out.errors, item, i, () => new JsonObjectView(item as unknown as JsonObject, file, `/items/${i}`, scanner, lines, itemOffsets, i));
    }
    return out;
  }
  const only = [start];
  out.objects.push(new JsonObjectView(value, file, '', scanner, lines, () => only, 0));
  return out;
}

// ---------------------------------------------------------------------------------------------
// A `kind: List` read item by item from the file's bytes (`kubectl get -A -o json`, 100k objects)
// ---------------------------------------------------------------------------------------------

function wsAt(b: Uint8Array, i: number): number {
  while (i < b.length) {
    const c = b[i];
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else break;
  }
  return i;
}

/** Index just after the string starting at i (b[i] is a quote), or -1. */
function stringEndAt(b: Buffer, i: number): number {
  for (let j = i + 1; ; ) {
    const q = b.indexOf(0x22, j);
    if (q < 0) return -1;
    let k = q - 1;
    while (b[k] === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** Index just after the value starting at i, or -1 when the text ends first. */
function skipAt(b: Buffer, i: number): number {
  const c = b[i];
  if (c === 0x22) return stringEndAt(b, i);
  if (c !== 0x7b && c !== 0x5b) {
    let j = i;
    while (j < b.length) {
      const d = b[j];
      if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
      j++;
    }
    return j;
  }
  let depth = 0;
  for (let j = i; j < b.length; j++) {
    const d = b[j];
    if (d === 0x22) {
      j = stringEndAt(b, j) - 1;
      if (j < 0) return -1;
    } else if (d === 0x7b || d === 0x5b) depth++;
    else if (d === 0x7d || d === 0x5d) {
      if (--depth === 0) return j + 1;
    }
  }
  return -1;
}

/**
 * Offset of the first line feed + `lead`'s indentation + `}` after `from` (`lead` is the line
 * feed and the indentation), or -1. Found from the `}` (memchr) back: faster than a search for the
 * whole pattern, whose blanks are everywhere in indented JSON.
 */
function closeAt(b: Buffer, from: number, lead: Buffer): number {
  const n = lead.length;
  for (let i = b.indexOf(0x7d, from + n); i !== -1; i = b.indexOf(0x7d, i + 1)) {
    let k = 0;
    while (k < n && b[i - n + k] === lead[k]) k++;
    if (k === n) return i - n;
  }
  return -1;
}

/** The text of bytes [start, end): one-byte (fast) when they are ASCII, else decoded as UTF-8. */
export function textOf(b: Buffer, start: number, end: number): string {
  return isAscii(b.subarray(start, end)) ? b.toString('latin1', start, end) : b.toString('utf8', start, end);
}


/** Reads the bytes [start, end) of the file again, or undefined if it changed since it was read. */
export type ReadAgain = (start: number, end: number) => Buffer | undefined;

/** An item's text read again: its scanner, line starts, and where pointers led (walkPointer). */
interface ItemText {
  scanner: Scanner;
  /** Offsets of the line starts after the line feeds before `scanned` (found as far as asked for). */
  starts: number[];
  scanned: number;
  memo: Map<string, [at: number, best: number]>;
}

/** The 0-based line of offset `at` in the item's text, finding its line starts up to `at` first. */
function lineOf(item: ItemText, at: number): number {
  const t = item.scanner.text;
  while (item.scanned < at) {
    const i = t.indexOf('\n', item.scanned);
    if (i < 0 || i >= at) {
      // No line feed before `at`: the next one (if any) is looked for from here again.
      item.scanned = i < 0 ? t.length : i;
      break;
    }
    item.starts.push(i + 1);
    item.scanned = i + 1;
  }
  return lineIndex(item.starts, at);
}

/**
 * The items' byte ranges, and the file's line of each item's `{`. An item's text is decoded again
 * when a position inside it is asked for: from the bytes, or from the file (a List read in chunks
 * keeps no bytes).
 */
class ItemTable {
  /** The last item whose text was read: positions are asked for object by object. */
  private cached?: { k: number; at?: ItemText };
  /** The bytes read again last: READ_AGAIN_BYTES at least, from an item's start. */
  private block?: { start: number; bytes: Buffer };
  constructor(
    private readonly bytes: Buffer | ReadAgain,
    readonly starts: Float64Array,
    readonly ends: Float64Array,
    /** The file's line of each item's `{`. */
    private readonly lines: Int32Array,
    /** Column of every item's `{` (they all follow a line feed and the same indentation). */
    readonly column: number,
  ) {}
  line(k: number): number {
    return this.lines[k];
  }
  /**
   * Item k's text (decoded again: not kept for every item, as the texts together are as large as
   * the file) and its line starts; undefined if the file changed since it was read.
   */
  text(k: number): ItemText | undefined {
    if (this.cached?.k !== k) {
      const b = this.bytes;
      let t: string | undefined;
      if (typeof b === 'function') {
        const block = this.readBlock(b, k);
        if (block) t = textOf(block.bytes, this.starts[k] - block.start, this.ends[k] - block.start);
      } else t = textOf(b, this.starts[k], this.ends[k]);
      let at: ItemText | undefined;
      if (t !== undefined) at = { scanner: new Scanner(t), starts: [0], scanned: 0, memo: new Map() };
      this.cached = { k, at };
    }
    return this.cached.at;
  }
  /**
   * Bytes of the file holding item k, read again in blocks: positions are asked for in input
   * order, so one read (and one check that the file is unchanged) serves the items of a block,
   * where a read per item cost an open, a stat, a read and a close for each.
   */
  private readBlock(again: ReadAgain, k: number): { start: number; bytes: Buffer } | undefined {
    const [start, end] = [this.starts[k], this.ends[k]];
    const b = this.block;
    if (b && start >= b.start && end <= b.start + b.bytes.length) return b;
    // (The last item's end is within the file.)
    const bytes = again(start, Math.max(end, Math.min(start + READ_AGAIN_BYTES, this.ends[this.ends.length - 1])));
    this.block = bytes && { start, bytes };
    return this.block;
  }
}

/** Bytes read at a time for positions inside the items of a List read in chunks. */
const READ_AGAIN_BYTES = 64 * 1024;

class JsonItemView extends ObjectView {
  constructor(
    raw: JsonObject,
    file: string,
    private readonly table: ItemTable,
    private readonly index: number,
  ) {
    super(raw, file, 0, `/items/${index}`);
  }
  get line(): number {
    return this.table.line(this.index);
  }
  get column(): number {
    return this.table.column;
  }
  locate(pointer: string): Position {
    const item = this.table.text(this.index);
    // The file changed since it was read: the item's own position is all that is known.
    if (!item) return { line: this.line, column: this.column };
    const at = walkPointer(item.scanner, 0, pointer, item.memo);
    const lo = lineOf(item, at);
    return { line: this.line + lo, column: lo === 0 ? this.column + at : at - item.starts[lo] + 1 };
  }
}

/**
 * Offset of the `[` of the top-level "items" member of the object whose `{` is at `i`, found
 * over the members before it (kubectl writes apiVersion first, then items), or -1.
 */
function itemsOpen(b: Buffer, i: number): number {
  i = wsAt(b, i + 1);
  while (b[i] === 0x22) {
    const keyEnd = stringEndAt(b, i);
    if (keyEnd < 0) return -1;
    const colon = wsAt(b, keyEnd);
    if (b[colon] !== 0x3a) return -1;
    const v = wsAt(b, colon + 1);
    if (keyEnd - i === 7 && b.toString('latin1', i, keyEnd) === '"items"' && b[v] === 0x5b) return v;
    const after = skipAt(b, v);
    if (after < 0) return -1;
    i = wsAt(b, after);
    if (b[i] !== 0x2c) return -1;
    i = wsAt(b, i + 1);
  }
  return -1;
}

const DECLINE = Symbol('decline');

/** An item's value from its text alone, with parseJsonFast's checks at an item's depth; DECLINE where they fail. */
function itemValue(t: string): unknown {
  const v = JSON.parse(t) as unknown;
  // An item is at depth 3 (the List, its items, the item), as in parseJsonFast's walk.
  return plainValue(v, t, MAX_DEPTH, 3) ? v : DECLINE;
}

/** An item that is no JSON (a syntax error in it). */
const BROKEN = Symbol('broken');

/** itemValue, or BROKEN where JSON.parse throws. */
function itemOrBroken(t: string): unknown {
  try {
    return itemValue(t);
  } catch {
    return BROKEN;
  }
}

/** The List from the text around its items (`"items": []`), with the same checks; undefined where they fail. */
function listValue(rest: string): JsonObject | undefined {
  const list = JSON.parse(rest) as unknown;
  if (!plainValue(list, rest, MAX_DEPTH)) return undefined;
  if (!isKubernetesObject(list) || !Array.isArray(list.items) || list.items.length !== 0) return undefined;
  const kind = list.kind as string;
  return kind === 'List' || kind.endsWith('List') ? list : undefined;
}

/**
 * A pretty-printed `kind: List` (kubectl, jq, JSON.stringify with an indent), read from its bytes
 * item by item: every item starts with `{` after a line feed and the same indentation, and ends
 * at the first following line feed, indentation and `}`. Each item is decoded and parsed alone
 * (one-byte text when it is ASCII), so the file's text is never made as one string: at 100k
 * objects that string is ~1 GB (two bytes a character once one character is outside Latin-1).
 *
 * Exactness: a line feed cannot occur inside a JSON string, so every cut is outside strings; an
 * item's text parses alone only if the cut closes exactly the brackets the item opened, so when
 * every item and the rest of the file (the List with `"items": []`) parse, and only commas and
 * white space lie between the items, they are exactly JSON.parse's reading of the whole text.
 * Each piece then gets parseJsonFast's checks (duplicate keys, -0, depth, key lengths), with the
 * same depths. Anything else (compact JSON, a CR, an item of another layout, a List that is not
 * an object's only `items` array) returns undefined: the caller reads the whole text instead.
 * `bytes` must be valid UTF-8 without NUL bytes (sources.ts has checked it).
 */
export function parseJsonListBytes(file: string, bytes: Buffer): ParsedObjects | undefined {
  const b = bytes;
  let i = b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  i = wsAt(b, i);
  if (b[i] !== 0x7b || b.includes(0x0d)) return undefined;
  const open = itemsOpen(b, i);
  if (open < 0) return undefined;
  const first = wsAt(b, open + 1);
  const starts: number[] = [];
  const ends: number[] = [];
  let close: number;
  let indent = '';
  /** Offset of the `{` of an item the text ends inside. */
  let cutAt = -1;
  if (b[first] === 0x5d) close = first;
  else {
    if (b[first] !== 0x7b) return undefined;
    const nl = b.lastIndexOf(0x0a, first);
    if (nl <= open) return undefined;
    indent = b.toString('latin1', nl + 1, first);
    if (!/^[ \t]*$/.test(indent)) return undefined;
    const lead = Buffer.from(`\n${indent}`, 'latin1');
    let s = first;
    for (;;) {
      const c = closeAt(b, s, lead);
      if (c < 0) {
        // The text ends inside the item (cut short, say): its syntax error, from its lines.
        cutAt = s;
        close = b.length;
        break;
      }
      starts.push(s);
      ends.push(c + lead.length + 1);
      let j = wsAt(b, c + lead.length + 1);
      if (b[j] === 0x5d) {
        close = j;
        break;
      }
      if (b[j] !== 0x2c) return undefined;
      j = wsAt(b, j + 1);
      if (b[j] !== 0x7b || !b.subarray(j - lead.length, j).equals(lead)) return undefined;
      s = j;
    }
  }
  let list: JsonObject | undefined;
  const items: unknown[] = new Array(starts.length);
  // The line of each item's `{`, counted from the texts decoded for JSON.parse (and the bytes
  // between them), rather than by decoding every item again when the first position is asked for.
  const itemLines = new Int32Array(starts.length);
  try {
    list = cutAt < 0 ? listValue(`${textOf(b, 0, open + 1).replace(/^\ufeff/, '')}]${textOf(b, close + 1, b.length)}`) : undefined;
    if (!list && cutAt < 0) return undefined;
    let line = 1;
    /** Items that are no JSON (JSON.parse threw). */
    const broken: number[] = [];
    for (let k = 0; k < starts.length; k++) {
      for (let j = k === 0 ? 0 : ends[k - 1]; j < starts[k]; j++) if (b[j] === 0x0a) line++;
      itemLines[k] = line;
      const t = textOf(b, starts[k], ends[k]);
      const v = itemOrBroken(t);
      if (v === DECLINE) return undefined;
      if (v === BROKEN) {
        if (broken.push(k) > LIST_DECLINED_MAX) return undefined;
      } else items[k] = v;
      line += lineFeeds(t);
    }
    if (broken.length || cutAt >= 0) {
      // The syntax error that makes the whole List unreadable (list-error.ts): the lines before
      // the items, each broken item with the one after it, and the lines from the `]` on (or the
      // item the text ends inside).
      const lineEnd = (at: number) => b.indexOf(0x0a, at) + 1;
      const first = cutAt >= 0 && !starts.length ? cutAt : starts[0];
      const parts: ListPart[] = [{ text: textOf(b, 0, first - indent.length).replace(/^\ufeff/, ''), line: 1 }];
      const kept = new Set(broken.flatMap((k) => (k + 1 < starts.length ? [k, k + 1] : [k])));
      for (const k of [...kept].sort((x, y) => x - y)) parts.push({ text: textOf(b, starts[k] - indent.length, lineEnd(ends[k])), line: itemLines[k] });
      if (cutAt >= 0) {
        for (let j = starts.length ? ends[ends.length - 1] : 0; j < cutAt; j++) if (b[j] === 0x0a) line++;
        parts.push({ text: textOf(b, cutAt - indent.length, b.length), line });
      } else {
        const closeLine = b.lastIndexOf(0x0a, close) + 1;
        if (closeLine <= ends[ends.length - 1]) return undefined;
        parts.push({ text: textOf(b, closeLine, b.length), line: line + lineFeeds(textOf(b, ends[ends.length - 1], closeLine)) });
      }
      const error = listPartsError(file, parts, 0);
      return error ? { file, objects: [], errors: [error], documents: 1 } : undefined;
    }
    if (!list) return undefined;
  } catch {
    return undefined;
  }
  list.items = items as Json[];
  const table = new ItemTable(b, Float64Array.from(starts), Float64Array.from(ends), itemLines, indent.length + 1);
  const out: ParsedObjects = { file, objects: [], errors: [], documents: 1 };
  for (let k = 0; k < items.length; k++) {
    const item = listItem(list, items[k]);
    if (isList(item)) return undefined;
    if (isKubernetesObject(item)) out.objects.push(new JsonItemView(item, file, table, k));
    else itemError(out.errors, item, k, () => new JsonItemView(item as JsonObject, file, table, k));
  }
  return out;
}

/** Bytes read at a time by parseJsonListFile. */
export const CHUNK_BYTES = 8 * 1024 * 1024;
/** The members before "items" must lie in this many bytes (else the whole text is read). */
const MAX_PREFIX_BYTES = 64 * 1024 * 1024;

/** What parseJsonListFile needs to know of the file: where, and how it was when checked. */
export interface FileStamp {
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * parseJsonListBytes over a file read in chunks of CHUNK_BYTES, keeping only the item being cut:
 * the file is never held whole (at 100k objects a `kubectl get -A -o json` is ~0.5 GB, as much
 * as the values read from it). The same cuts and checks as parseJsonListBytes (the chunks only
 * change where the bytes are looked at), and the same result, or undefined. Positions inside an
 * item are read from the file again when asked for; if the file's size or modification time
 * changed meanwhile, an item's own position is given instead. sources.ts has checked the whole
 * file is UTF-8 without NUL bytes (and that it did not change before this read: `stamp`).
 * chunkBytes is for tests.
 */
export function parseJsonListFile(file: string, stamp: FileStamp, chunkBytes = CHUNK_BYTES, onItems?: (items: number, fraction: number) => void): ParsedObjects | undefined {
  return withStampedFile(stamp, (fd) => readList(file, stamp, fd, chunkBytes, onItems));
}

/**
 * `read` over the file open, if it still has the size and modification time of `stamp`; else
 * (or if it cannot be opened, or `read` throws) undefined.
 */
export function withStampedFile<T>(stamp: FileStamp, read: (fd: number) => T | undefined): T | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(stamp.path, 'r');
    const st = fs.fstatSync(fd);
    if (st.size !== stamp.size || st.mtimeMs !== stamp.mtimeMs) return undefined;
    return read(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The bytes of a file from offset `base`, read chunk by chunk into one buffer that is reused: a
 * new buffer per chunk (and Buffer.concat of the bytes kept) cost a copy and fresh pages, i.e.
 * page faults, at every chunk. (Decoding each chunk once as a Latin-1 string, to slice the items'
 * texts from it, was measured slower: the 16 MiB strings are large objects that only a full GC
 * frees, and the full GCs ran 3 times as long.)
 */
export class ChunkWindow {
  private buf: Buffer;
  /** The bytes read, from file offset `base`. */
  view: Buffer;
  base = 0;
  /** File offset before which bytes are dropped at the next read. */
  keep = 0;
  /** Whether all the bytes read are ASCII (then no item needs its own check). */
  ascii = true;
  private eof = false;
  constructor(
    private readonly fd: number,
    private readonly chunkBytes: number,
  ) {
    this.buf = Buffer.allocUnsafe(2 * chunkBytes);
    this.view = this.buf.subarray(0, 0);
  }
  /** Reads the next chunk (dropping the bytes before `keep`); false at the end; throws on a CR. */
  more(): boolean {
    if (this.eof) return false;
    let len = this.view.length;
    const drop = this.keep - this.base;
    if (drop > 0) {
      this.buf.copyWithin(0, drop, len);
      len -= drop;
      this.base = this.keep;
    }
    let want = this.chunkBytes;
    if (len + want > this.buf.length) {
      // A long item (or prefix): the buffer doubles, and the read fills it, so that a long item
      // costs a few reads, and its searches a few passes, not one per chunk.
      const grown = Buffer.allocUnsafe(Math.max(2 * this.buf.length, len + want));
      this.buf.copy(grown, 0, 0, len);
      this.buf = grown;
      want = grown.length - len;
    }
    const n = fs.readSync(this.fd, this.buf, len, want, this.base + len);
    if (n === 0) this.eof = true;
    else if (this.buf.subarray(len, len + n).includes(0x0d)) throw new Error('CR');
    // (Also when only bytes were dropped: offsets into the view are from `base`.)
    this.view = this.buf.subarray(0, len + n);
    this.ascii = isAscii(this.view);
    return n > 0;
  }
}

/** A UTF-8 byte-order mark. */
export const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function readList(file: string, stamp: FileStamp, fd: number, chunkBytes: number, onItems?: (items: number, fraction: number) => void): ParsedObjects | undefined {
  const w = new ChunkWindow(fd, chunkBytes);
  try {
    // The members before "items", whole in the first chunks.
    let open = -1;
    while (w.more()) {
      const win = w.view;
      // (A byte-order mark cut by the first chunk: read on.)
      if (win.length < 3 && win.equals(BOM.subarray(0, win.length))) continue;
      let i = win[0] === 0xef && win[1] === 0xbb && win[2] === 0xbf ? 3 : 0;
      i = wsAt(win, i);
      if (i < win.length && win[i] !== 0x7b) return undefined;
      open = i < win.length ? itemsOpen(win, i) : -1;
      // Not found: the prefix may go on past the bytes read so far.
      if (open >= 0 && wsAt(win, open + 1) < win.length) break;
      open = -1;
      if (win.length > MAX_PREFIX_BYTES) return undefined;
    }
    if (open < 0) return undefined;
    // (w.base is 0 until an item is cut.)
    let win = w.view;
    const prefix = textOf(win, 0, open + 1).replace(/^\ufeff/, '');
    let lines = 1 + lineFeeds(win.toString('latin1', 0, open + 1));
    const starts: number[] = [];
    const ends: number[] = [];
    const itemLines: number[] = [];
    const items: unknown[] = [];
    let indent = '';
    let close: number; // file offset of the `]`
    let closeLine = -1; // file offset of the line of the `]`, when nothing else is on the line before it
    const first = wsAt(win, open + 1);
    // Broken items (JSON.parse threw) and the item after each, as parts for listPartsError.
    const parts: ListPart[] = [];
    let broken = 0;
    let partBytes = 0;
    let afterBroken = false;
    /** The lines before the first item (then in the window). */
    let head: string | undefined;
    for (let k = open + 1; k < first; k++) if (win[k] === 0x0a) lines++;
    if (win[first] === 0x5d) close = first;
    else {
      if (win[first] !== 0x7b) return undefined;
      const nl = win.lastIndexOf(0x0a, first);
      if (nl <= open) return undefined;
      indent = win.toString('latin1', nl + 1, first);
      if (!/^[ \t]*$/.test(indent)) return undefined;
      head = textOf(win, 0, nl + 1).replace(/^\ufeff/, '');
      const lead = Buffer.from(`\n${indent}`, 'latin1');
      let s = first; // file offset of the item's `{`
      for (;;) {
        w.keep = s;
        let c = closeAt(w.view, s - w.base, lead);
        while (c < 0) {
          // (A long item: search on from where the last search ended, not from its start again.)
          const searched = w.base + w.view.length - lead.length - 1;
          if (!w.more()) {
            // The file ends inside the item (cut short, say): its syntax error, from its lines.
            if (!head) return undefined;
            parts.push({ text: indent + textOf(w.view, s - w.base, w.view.length), line: lines });
            const error = listPartsError(file, [{ text: head, line: 1 }, ...parts], 0);
            return error ? { file, objects: [], errors: [error], documents: 1 } : undefined;
          }
          c = closeAt(w.view, Math.max(s, searched) - w.base, lead);
        }
        win = w.view;
        const e = w.base + c + lead.length + 1; // file offset after the `}`
        const t = w.ascii ? win.toString('latin1', s - w.base, e - w.base) : textOf(win, s - w.base, e - w.base);
        const v = itemOrBroken(t);
        if (v === DECLINE) return undefined;
        // A broken item, or the one after a broken one: its lines are a part (see parseJsonListBytes).
        const part = v === BROKEN || afterBroken;
        afterBroken = v === BROKEN;
        if (v === BROKEN && ++broken > LIST_DECLINED_MAX) return undefined;
        const partLine = lines;
        starts.push(s);
        ends.push(e);
        itemLines.push(lines);
        items.push(v);
        if (onItems && (items.length & 1023) === 0) onItems(items.length, e / stamp.size);
        lines += lineFeeds(t);
        // The separator: blanks, a comma and the next item's line feed and indentation, or the `]`.
        w.keep = e;
        while (w.base + w.view.length - e < lead.length + 64 && w.more());
        win = w.view;
        if (part) {
          const nl = win.indexOf(0x0a, e - w.base);
          if (nl < 0) return undefined;
          parts.push({ text: indent + t + textOf(win, e - w.base, nl + 1), line: partLine });
          if ((partBytes += t.length) > LIST_PARTS_MAX) return undefined;
        }
        const x = wsAt(win, e - w.base);
        if (x >= win.length) return undefined;
        for (let y = e - w.base; y < x; y++) if (win[y] === 0x0a) lines++;
        if (win[x] === 0x5d) {
          close = w.base + x;
          closeLine = w.base + win.lastIndexOf(0x0a, x) + 1;
          if (closeLine <= e) closeLine = -1;
          break;
        }
        if (win[x] !== 0x2c) return undefined;
        const next = wsAt(win, x + 1);
        if (next >= win.length || win[next] !== 0x7b || next - lead.length < x || !win.subarray(next - lead.length, next).equals(lead)) return undefined;
        for (let y = x; y < next; y++) if (win[y] === 0x0a) lines++;
        s = w.base + next;
      }
    }
    // The rest of the file, after the `]` (from its line, for a broken item's error).
    w.keep = broken && closeLine >= 0 ? closeLine : close;
    while (w.more());
    const list = listValue(`${prefix}]${textOf(w.view, close - w.base + 1, w.view.length)}`);
    if (!list) return undefined;
    if (broken) {
      if (closeLine < 0 || !head) return undefined;
      parts.push({ text: textOf(w.view, closeLine - w.base, w.view.length), line: lines });
      const error = listPartsError(file, [{ text: head, line: 1 }, ...parts], 0);
      return error ? { file, objects: [], errors: [error], documents: 1 } : undefined;
    }
    list.items = items as Json[];
    const table = new ItemTable(readAgainFrom(stamp), Float64Array.from(starts), Float64Array.from(ends), Int32Array.from(itemLines), indent.length + 1);
    const out: ParsedObjects = { file, objects: [], errors: [], documents: 1 };
    for (let k = 0; k < items.length; k++) {
      const item = listItem(list, items[k]);
      if (isList(item)) return undefined;
      if (isKubernetesObject(item)) out.objects.push(new JsonItemView(item, file, table, k));
      else itemError(out.errors, item, k, () => new JsonItemView(item as JsonObject, file, table, k));
    }
    return out;
  } catch {
    // A CR, a JSON.parse error, a read error: the whole text decides.
    return undefined;
  }
}

/** Reads bytes of the file again, if it has the size and modification time it was read with. */
export function readAgainFrom(stamp: FileStamp): ReadAgain {
  return (start, end) =>
    withStampedFile(stamp, (fd) => {
      // (Unsafe: a read that does not fill it is not used.)
      const buf = Buffer.allocUnsafe(end - start);
      return fs.readSync(fd, buf, 0, buf.length, start) === buf.length ? buf : undefined;
    });
}
