/**
 * Reading back only what --fix edited. A file is a sequence of slices, one per document (each
 * runs from the end of the previous one, so `---`, leading comments and blank lines go with the
 * document they precede). When the stream has no `...` end markers but right before a `---` line
 * or at the end, no `%` directives, no lone CR line breaks and no document with errors, every document starts at a `---` at the start of a
 * line (the first may have none) and yaml reads each slice as it reads it inside the whole file:
 * nothing carries over a `---`. Then a fixed file is validated and re-read by parsing its edited
 * and added slices alone, and the unchanged documents are kept (their offsets moved), instead of
 * parsing the whole file again. Anything outside these conditions is read back whole.
 */
import { Document, isAlias, isMap, isPair, isScalar, isSeq, LineCounter } from 'yaml';
import { lineFeeds } from '../model/lines';
import { JsonObject, KObject, Position } from '../model/types';
import { lineMapping } from './format';

/** `---` (or `...`) at the start of a line: a document marker (parse.ts's DOC_MARKER). */
const MARKER = /^---(?=[ \t\r\n]|$)/m;
/** What makes a stream depend on more than its `---` lines: `%` directives, lone CRs (and `...`, below). */
export const NOT_PIECEWISE = /^%|\r(?!\n)/m;

/**
 * Whether a text may take part in piecewise reading (see the module comment). A `...` end marker
 * is allowed where a `---` line or the end of the text follows it, blank lines apart (`...` then
 * `---`, as helm charts such as kiali's write): yaml ends the document's range after the `...`, so each
 * `---` slice still holds one document, ending with its marker, and reads alone as in the whole
 * stream. A `...` followed by anything else (a document without `---`, a comment) is read back whole.
 */
export function piecewiseText(text: string): boolean {
  // NOT_PIECEWISE's test by native searches: a lone CR, or `%` where a multi-line `^` matches (the
  // start, or after \n, \r, \u2028 or \u2029; after \r it follows a lone CR).
  for (let i = text.indexOf('\r'); i >= 0; i = text.indexOf('\r', i + 1)) if (text.charCodeAt(i + 1) !== 0x0a) return false;
  if (text.startsWith('%') || text.includes('\n%') || text.includes('\u2028%') || text.includes('\u2029%')) return false;
  for (let i = text.indexOf('...'); i >= 0; i = text.indexOf('...', i + 3)) {
    if (i > 0 && text.charCodeAt(i - 1) !== 0x0a) continue;
    let j = i + 3;
    const c = text.charCodeAt(j);
    // Not a marker: `....`, `...x` (a plain scalar at column 0 cannot start with `...` either way).
    if (j < text.length && c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) continue;
    while (text.charCodeAt(j) === 0x20 || text.charCodeAt(j) === 0x09) j++;
    if (text.charCodeAt(j) === 0x0d) j++;
    if (j >= text.length) continue;
    if (text.charCodeAt(j) !== 0x0a) return false; // a comment after the marker
    j++;
    // Blank lines may follow (they stay in the slice of the document the marker ends).
    for (let k = j; ; ) {
      while (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09) k++;
      if (text.charCodeAt(k) === 0x0d) k++;
      if (text.charCodeAt(k) !== 0x0a) break;
      j = ++k;
    }
    if (j >= text.length) continue;
    const d = text.charCodeAt(j + 3);
    if (!text.startsWith('---', j) || (j + 3 < text.length && d !== 0x20 && d !== 0x09 && d !== 0x0d && d !== 0x0a)) return false;
  }
  return true;
}

/** Where each document's slice starts, as the fixer slices a file (the last one runs to the end). */
export function sliceStarts(text: string, docs: Document.Parsed[]): number[] {
  const starts: number[] = [];
  let start = 0;
  for (let i = 0; i < docs.length; i++) {
    starts.push(start);
    start = i === docs.length - 1 ? text.length : Math.max(start, docs[i].range[2]);
  }
  return starts;
}

/** Offsets of line starts (0 first), as yaml's LineCounter records them for a well-formed text. */
export function lineStarts(text: string): number[] {
  const s = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) s.push(i + 1);
  return s;
}

export function lineCounterOf(starts: number[]): LineCounter {
  const lc = new LineCounter();
  // A loop, not push(...starts): a large file has more line starts than a call may take arguments.
  for (const x of starts) lc.lineStarts.push(x);
  return lc;
}


type Ranged = { range?: [number, number, number] | null };

function shiftRange(n: Ranged, delta: number): void {
  const r = n.range;
  if (r) {
    r[0] += delta;
    r[1] += delta;
    r[2] += delta;
  }
}

function shiftNode(node: unknown, delta: number): void {
  if (!node || typeof node !== 'object') return;
  if (isScalar(node) || isAlias(node)) return shiftRange(node as Ranged, delta);
  if (isMap(node) || isSeq(node)) {
    shiftRange(node as Ranged, delta);
    for (const it of node.items as unknown[]) {
      if (isPair(it)) {
        shiftNode(it.key, delta);
        shiftNode(it.value, delta);
      } else shiftNode(it, delta);
    }
  }
}

/**
 * Moves every offset of a document (its nodes and errors) by `delta`, in place (yaml's clone()
 * copies range arrays, so no clone shares them).
 */
export function shiftDocument(doc: Document.Parsed, delta: number): void {
  if (delta === 0) return;
  shiftRange(doc as unknown as Ranged, delta);
  shiftNode(doc.contents, delta);
  for (const e of [...doc.errors, ...doc.warnings]) e.pos = [e.pos[0] + delta, e.pos[1] + delta];
}

/**
 * The slices of a text that may be read piecewise: one per `---` line, the part before the first
 * marker joining the first document unless it has content (as yaml and fast-yaml.ts count
 * documents). The text must pass piecewiseText.
 */
export function markerSlices(text: string, slice: (a: number, b: number) => string = (a, b) => text.slice(a, b)): number[] {
  const starts = [0];
  const re = new RegExp(MARKER.source, 'gm');
  for (let m = re.exec(text); m; m = re.exec(text)) if (m.index > 0) starts.push(m.index);
  // Comments and blank lines before the first marker belong to the document it starts. (`slice`:
  // the text of a range, for a Latin-1 reading, where \s must be tested on the decoded text.)
  if (starts.length > 1 && !MARKER.test(text.slice(0, 4)) && !/^[ \t]*[^\s#]/m.test(slice(0, starts[1]))) starts.splice(1, 1);
  return starts;
}

/**
 * A file's text as --fix holds it between passes: the pieces the last pass wrote (one per
 * document), joined only when something needs the whole text. A pass that edits a few documents
 * of a large file then reads and writes those documents' pieces only, and the file is joined once,
 * at the end, instead of once per pass (65 MB of two-byte text per join at 10k corpus objects).
 */
export class FileText {
  private joined?: string;
  private slices: string[];
  private len?: number;
  /** A UTF-8 text's Latin-1 reading (one character a byte) and its decoding, for FileText.fromLatin1. */
  private latin1?: { l: string; decode: () => string };
  constructor(parts: string[] | string) {
    this.slices = typeof parts === 'string' ? [parts] : parts;
    if (this.slices.length === 1) this.joined = this.slices[0];
  }
  /**
   * A UTF-8 text known by its bytes' Latin-1 reading `l` (sources.ts's latin1Of), decoded whole
   * (`decode`) only when something needs the whole text: its documents are decoded one by one
   * instead (latin1Documents), so that a large file with a few characters outside ASCII is not
   * made again as one two-byte string.
   */
  static fromLatin1(l: string, decode: () => string): FileText {
    const t = new FileText([]);
    t.latin1 = { l, decode };
    return t;
  }
  /** The length of the text in UTF-16 code units. */
  get length(): number {
    if (this.len === undefined) {
      if (this.joined !== undefined) this.len = this.joined.length;
      else if (this.latin1) this.len = utf16Length(this.latin1.l);
      else {
        let n = 0;
        for (const p of this.slices) n += p.length;
        this.len = n;
      }
    }
    return this.len;
  }
  /** The whole text (joined on first use). */
  get value(): string {
    if (this.joined === undefined) {
      this.joined = this.latin1 ? this.latin1.decode() : this.slices.join('');
      this.slices = [this.joined];
      this.latin1 = undefined;
    }
    return this.joined;
  }
  /** The text as consecutive slices (without joining it). */
  parts(): readonly string[] {
    return this.joined !== undefined ? [this.joined] : this.latin1 ? [this.value] : this.slices;
  }
  /** Whether the text ends with a line feed (without joining it). */
  endsWithLineFeed(): boolean {
    if (this.latin1 && this.joined === undefined) return this.latin1.l.endsWith('\n');
    for (let i = this.slices.length - 1; i >= 0; i--) if (this.slices[i].length) return this.slices[i].endsWith('\n');
    return false;
  }
  /**
   * For a text made by fromLatin1 and not yet decoded whole: markerSlices' slices of the text,
   * with their starts in the text (UTF-16 offsets), each decoded alone, where the text passes
   * piecewiseText; undefined otherwise (the caller reads the whole text). The slices are cut at
   * `---` lines, so each is whole UTF-8 and their decodings joined are the text's. A text with
   * U+2028 or U+2029 (a line terminator to `^` in the decoded text, not in its Latin-1 reading)
   * is left to the whole text.
   */
  latin1Documents(): { starts: number[]; texts: string[] } | undefined {
    if (!this.latin1 || this.joined !== undefined) return undefined;
    const l = this.latin1.l;
    if (l.includes('\xe2\x80\xa8') || l.includes('\xe2\x80\xa9') || !piecewiseText(l)) return undefined;
    const cuts = markerSlices(l, (a, b) => decodeLatin1(l.slice(a, b)));
    const texts: string[] = [];
    const starts: number[] = [];
    const wide = /[\x80-\xff]/g;
    let nextWide = -2;
    let at = 0;
    for (let i = 0; i < cuts.length; i++) {
      const a = cuts[i];
      const b = i + 1 < cuts.length ? cuts[i + 1] : l.length;
      // The first byte outside ASCII at or after a (found again only once passed).
      if (nextWide !== -1 && nextWide < a) {
        wide.lastIndex = a;
        nextWide = wide.exec(l)?.index ?? -1;
      }
      const t = nextWide >= 0 && nextWide < b ? decodeLatin1(l.slice(a, b)) : l.slice(a, b);
      starts.push(at);
      texts.push(t);
      at += t.length;
    }
    this.len = at;
    return { starts, texts };
  }
}

/** The UTF-8 decoding of bytes given as their Latin-1 reading. */
function decodeLatin1(l: string): string {
  return Buffer.from(l, 'latin1').toString('utf8');
}

/** The UTF-16 length of the UTF-8 text whose bytes' Latin-1 reading is `l` (valid UTF-8). */
function utf16Length(l: string): number {
  let n = l.length;
  const re = /[\x80-\xff]+/g;
  for (let m = re.exec(l); m; m = re.exec(l)) {
    // A lead byte of 2 or 3 bytes is one unit, of 4 bytes two; continuation bytes none.
    for (let i = 0; i < m[0].length; i++) {
      const c = m[0].charCodeAt(i);
      if (c < 0xc0) n--;
      else if (c >= 0xf0) n++;
    }
  }
  return n;
}

/** One slice of a fixed file: an unchanged document (parsed or not), or new text read back alone. */
export type Piece =
  | { kind: 'kept'; text: string; doc?: Document.Parsed; oldStart: number; oldIndex: number }
  | { kind: 'new'; text: string; doc?: Document.Parsed; objects?: KObject[]; oldStart?: number; oldText?: string; oldIndex?: number };

/**
 * Where the lines of a text held as slices (a file's documents) start: `first[i]` is the 0-based
 * line slice i starts on, and the last entry (one past the slices) is the number of line feeds in
 * the whole text. Every slice but the first starts at the start of a line, so the slices' lines
 * are told apart without a table of every line start (a million entries at 10k corpus objects,
 * built again at every pass).
 */
export type SliceLines = number[];

export interface PiecewiseFile {
  text: FileText;
  /** The line each piece starts on, and the text's line feeds (SliceLines). */
  sliceLines: SliceLines;
  /** The documents, offsets in `text` (unparsed kept documents stay undefined). */
  docs: (Document.Parsed | undefined)[];
  starts: number[];
  lineCounter: LineCounter;
  /** Lines of the text before the fix to lines of the fixed text (as format.ts's lineMapping). */
  lines: (line: number) => number;
  /**
   * For each kept piece (by new index): how many lines it moved down; for each new piece read
   * without a document (objects read from its text alone): the lines before it.
   */
  moved: Map<number, number>;
}

/**
 * The fixed file from its pieces, or undefined when its documents could not be told apart by
 * their slices alone (then the caller reads the whole file back). New pieces must each be exactly
 * one document read back alone (the caller checked their values); every piece but the first must
 * start at the start of a line and hold a document that starts with `---`. `oldLines`: the line
 * each document of the old text starts on, when the previous pass assembled it (else counted).
 */
export function assemblePieces(pieces: Piece[], oldLines?: SliceLines): PiecewiseFile | undefined {
  const text = new FileText(pieces.map((p) => p.text));
  const starts: number[] = [];
  let at = 0;
  for (const p of pieces) {
    starts.push(at);
    at += p.text.length;
  }
  for (let k = 0; k < pieces.length; k++) {
    const p = pieces[k];
    if (p.kind === 'new' && !piecewiseText(p.text)) return undefined;
    if (k === 0) continue;
    // (The text before the piece ends with a line feed: the last non-empty piece before it does.)
    let before = k - 1;
    while (before > 0 && !pieces[before].text.length) before--;
    if (!pieces[before].text.endsWith('\n')) return undefined;
    if (p.doc ? !p.doc.directives.docStart : MARKER.exec(p.text)?.index !== 0) return undefined;
  }
  // Offsets: kept documents move with the text before them; new ones were read from offset 0.
  pieces.forEach((p, k) => p.doc && shiftDocument(p.doc, starts[k] - (p.kind === 'kept' ? p.oldStart : 0)));
  // The pieces read from the old text, in its order (added documents have no old text): they tile it.
  const old = pieces.flatMap((p, k) => (p.oldStart === undefined ? [] : [k]));
  const oldPos = new Map(old.map((k, at) => [k, at]));
  const oldTextOf = (p: Piece) => (p.kind === 'kept' ? p.text : p.oldText!);
  // The old text's slice lines: the previous pass's (by old index), else counted here once.
  let oldFirst: (k: number) => number;
  let oldTotal: number;
  if (oldLines && old.every((k) => pieces[k].oldIndex !== undefined) && old.length + 1 === oldLines.length) {
    oldFirst = (k) => oldLines[pieces[k].oldIndex!];
    oldTotal = oldLines[oldLines.length - 1];
  } else {
    const firsts = new Map<number, number>();
    let n = 0;
    for (const k of old) {
      firsts.set(k, n);
      n += lineFeeds(oldTextOf(pieces[k]));
    }
    oldFirst = (k) => firsts.get(k)!;
    oldTotal = n;
  }
  // The new text's: a kept piece has its old line feeds, a new one is counted.
  const newFirst: SliceLines = [];
  let total = 0;
  for (let k = 0; k < pieces.length; k++) {
    newFirst.push(total);
    const p = pieces[k];
    total += p.kind === 'kept' ? keptFeeds(k) : lineFeeds(p.text);
  }
  newFirst.push(total);
  /** A kept piece's line feeds: the lines to the next old piece's start (or the old text's end). */
  function keptFeeds(k: number): number {
    const at = oldPos.get(k)!;
    return (at + 1 < old.length ? oldFirst(old[at + 1]) : oldTotal) - oldFirst(k);
  }
  const moved = new Map<number, number>();
  pieces.forEach((p, k) => {
    if (p.kind === 'kept') moved.set(k, newFirst[k] - oldFirst(k));
    else if (!p.doc) moved.set(k, newFirst[k]);
  });
  const last = Math.max(1, total + 1 - (text.endsWithLineFeed() ? 1 : 0));
  const local = new Map<number, { newLines: number; map: (line: number) => number }>();
  const lines = (line: number): number => {
    // The old line's 0-based index (past the end: the last line).
    const at = Math.min(Math.max(line, 1), oldTotal + 1) - 1;
    // The piece holding it: the last one starting at or before it (they tile the old text, each
    // but the first at the start of a line).
    let lo = 0;
    let hi = old.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (oldFirst(old[mid]) <= at) lo = mid;
      else hi = mid - 1;
    }
    const k = old.length && oldFirst(old[lo]) <= at ? old[lo] : -1;
    const p = pieces[k];
    if (p?.oldStart !== undefined) {
      // The line starts the old piece holds: one per line feed, and one after the last unless it ends the piece.
      const t = oldTextOf(p);
      const held = lo + 1 < old.length ? oldFirst(old[lo + 1]) - oldFirst(k) : oldTotal - oldFirst(k) + (t.length && !t.endsWith('\n') ? 1 : 0);
      // Past the old text's end, only the last piece takes a line.
      if (at < oldFirst(k) + held || k === pieces.length - 1) {
        if (p.kind === 'kept') return Math.min(last, newFirst[k] + (at - oldFirst(k)) + 1);
        // An edited document: its own lines mapped as the whole-text mapping would.
        let m = local.get(k);
        if (!m) local.set(k, (m = { newLines: lineFeeds(p.text) + 1, map: lineMapping(p.oldText!, p.text) }));
        const to = m.map(at - oldFirst(k) + 1);
        return Math.min(last, newFirst[k] + Math.min(to, m.newLines));
      }
    }
    return Math.min(last, line);
  };
  let lc: LineCounter | undefined;
  return {
    text,
    docs: pieces.map((p) => p.doc),
    starts,
    sliceLines: newFirst,
    // Only documents read by yaml need it (rare): made when first asked for, from the pieces' texts.
    get lineCounter() {
      if (!lc) {
        const all = [0];
        pieces.forEach((p, k) => {
          const t = p.text;
          for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) all.push(starts[k] + i + 1);
        });
        lc = lineCounterOf(all);
      }
      return lc;
    },
    lines,
    moved,
  };
}

/**
 * An object of a document the fix kept but moved: `lines` further down the file and at another
 * document index (its slice of text is the same, so its columns are too).
 */
export class MovedObject implements KObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly raw: JsonObject;
  readonly file: string;
  readonly basePointer: string;
  readonly uid: string;
  private readonly base: KObject;
  private readonly lines: number;
  constructor(
    base: KObject,
    readonly docIndex: number,
    lines: number,
  ) {
    const inner = base instanceof MovedObject ? base.base : base;
    this.base = inner;
    this.lines = lines + (base instanceof MovedObject ? base.lines : 0);
    this.apiVersion = base.apiVersion;
    this.kind = base.kind;
    this.name = base.name;
    if (base.namespace !== undefined) this.namespace = base.namespace;
    this.raw = base.raw;
    this.file = base.file;
    this.basePointer = base.basePointer;
    this.uid = `${base.file}#${docIndex}${base.basePointer}`;
  }
  get line(): number {
    return this.base.line + this.lines;
  }
  get column(): number {
    return this.base.column;
  }
  locate(pointer: string): Position {
    const p = this.base.locate(pointer);
    return { line: p.line + this.lines, column: p.column };
  }
}
