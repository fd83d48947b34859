/**
 * The syntax error of a large `kind: List` document (a `kubectl get -o yaml` dump someone edited)
 * found without reading the whole document with yaml. A syntax error anywhere in the document
 * makes Kubernetes' reader (and parse.ts) refuse all of it, so the fast paths leave a document
 * they decline to parse.ts whole: for a 38 MB List that was 28 s and 2.2 GB, to report one line.
 *
 * Here the document is read as parts, each a run of its whole lines: the lines before the items
 * (up to and including `items:`), every item the fast reader declined with the clean item after
 * it, and the lines after the sequence. (A line that would end the sequence, at its column or
 * left of it, with an item after it, is taken with the lines up to that item as part of the item
 * before it, which quick-yaml then declines: a line someone moved left in an item.) parse.ts reads the parts joined, which is the document
 * without the other items. Its first error is the document's, at the same line (mapped back) and
 * column with the same message, because:
 * - the items left out are clean block sequence entries at the sequence's column (quick-yaml read
 *   them, and it reads no anchors, so no alias kept in can refer to one left out), and yaml's
 *   lexer, parser and composer start every such entry in the same state, whatever came before;
 * - no token runs across the start of a part and no flow collection is open there (checked with
 *   yaml's Lexer): an unterminated quote or bracket, which takes in what follows it, is the one
 *   way the text after a part could change what is read inside it. Then this returns undefined
 *   and the caller reads the whole document;
 * - an error yaml can only notice at the next entry's first token finds the same entry there,
 *   since the clean item after a declined one is kept.
 * A List cut short (a dump interrupted) is read the same way: its last item runs to the end of the
 * file, the last part, after which nothing follows in either text.
 * A pretty-printed JSON List (fast-json.ts) is read the same way, its parts the lines of the items
 * JSON.parse refuses (JSON is YAML's flow style; the parts start after a `,` at the items' depth).
 * The differential tests (test/model/list-error.test.ts) compare it with parse.ts's reading of
 * the whole text over randomly broken Lists, YAML and JSON.
 */
import { Lexer, LineCounter, parseAllDocuments } from 'yaml';
import { InputError } from './types';
import { lineIndex } from './lines';
import { PARSE_OPTIONS, parsedFromDocuments, readDocuments, textLineCounter, withoutStacks } from './parse';

/** A run of whole lines of a document: its text (ending with a line feed) and the line it starts on in the file. */
export interface ListPart {
  text: string;
  line: number;
}

/** Parts whose joined text is at most this long (a List with many broken items is read whole). */
export const LIST_PARTS_MAX = 4 * 1024 * 1024;
/** At most this many declined items (each with the clean item after it; the parts' size bounds them too). */
export const LIST_DECLINED_MAX = 1024;

/**
 * Whether items the fast reader declined, followed by the clean item after them (their text, as
 * in the document), have a syntax error when read as the items of a List alone. Only a guide:
 * without one they are most likely well-formed YAML quick-yaml does not read (an anchor, a tab),
 * and the List is then read whole at once rather than after all its items; what is reported
 * comes from listPartsError.
 */
export function itemsBroken(items: string): boolean {
  try {
    return withoutStacks(() => Array.from(parseAllDocuments(`items:\n${items}`, PARSE_OPTIONS) as Iterable<{ errors: unknown[] }>)).some((d) => d.errors.length > 0);
  } catch {
    return true;
  }
}

/**
 * The parts a List reader collects as it reads its items in order: each item the fast reader
 * declined, and the clean item after each run of them (see the module comment). Both methods
 * return false when the reader should give up (the document is then read whole): too many
 * declined items or bytes, or declined items that read without a syntax error (itemsBroken).
 */
export class BrokenItems {
  readonly parts: ListPart[] = [];
  declined = 0;
  private run = '';
  private bytes = 0;

  declinedItem(text: string, line: number): boolean {
    if (++this.declined > LIST_DECLINED_MAX || (this.bytes += text.length) > LIST_PARTS_MAX) return false;
    this.parts.push({ text, line });
    this.run += text;
    return true;
  }

  cleanItem(text: string, line: number): boolean {
    if (!this.run) return true;
    if ((this.bytes += text.length) > LIST_PARTS_MAX) return false;
    this.parts.push({ text, line });
    const broken = itemsBroken(this.run + text);
    this.run = '';
    return broken;
  }
}

/**
 * Whether yaml's lexer reads each part of `text` (starting at `starts`, after the first) from a
 * line start outside any token, at the flow depth the first item starts at (none in a YAML List,
 * two in a JSON one: the List's `{` and its items' `[`).
 */
function partsApart(text: string, starts: number[]): boolean {
  let k = 1;
  let at = 0;
  let flow = 0;
  let depth = 0;
  for (const tok of new Lexer().lex(text)) {
    // The control characters the lexer emits are no source text (a byte-order mark is); a flow
    // collection's forced end resets the depth.
    if (tok.length === 1 && (tok === '\x02' || tok === '\x18' || tok === '\x1f')) {
      if (tok === '\x18') flow = 0;
      continue;
    }
    const end = at + tok.length;
    while (k < starts.length && starts[k] <= at) {
      // Every part starts at the flow depth the first item does: none in a YAML List, the List's
      // `{` and its items' `[` in a JSON one.
      if (starts[k] === at) {
        if (k === 1) depth = flow;
        else if (flow !== depth) return false;
      }
      k++;
    }
    if (k < starts.length && starts[k] < end) return false;
    if (tok === '[' || tok === '{') flow++;
    else if ((tok === ']' || tok === '}') && flow > 0) flow--;
    at = end;
  }
  return true;
}

/**
 * The syntax error of the document made of `parts` (numbered `docIndex` in its file), as parse.ts
 * reports it for the whole document, or undefined: the parts read without a syntax error (then a
 * part quick-yaml declined is well-formed, and the caller reads the whole document as before), or
 * they cannot be read apart (see the module comment).
 */
export function listPartsError(file: string, parts: ListPart[], docIndex: number): InputError | undefined {
  const text = parts.map((p) => p.text).join('');
  if (text.length > LIST_PARTS_MAX) return undefined;
  const starts: number[] = [];
  let at = 0;
  for (const [i, p] of parts.entries()) {
    // (Every part but the last ends its last line: JSON often has no line feed at its end.)
    if (i + 1 < parts.length && !p.text.endsWith('\n')) return undefined;
    starts.push(at);
    at += p.text.length;
  }
  if (!partsApart(text, starts)) return undefined;
  const lc = mappedLineCounter(text, starts, parts);
  let docs;
  try {
    docs = readDocuments(text, lc);
  } catch {
    return undefined;
  }
  if (docs.length !== 1 || !docs[0].errors.length) return undefined;
  const p = parsedFromDocuments(file, docs, lc, undefined, undefined, docIndex);
  return p.errors[0];
}

/** A LineCounter of `text` that gives the line a position has in the file (its part's line, moved). */
function mappedLineCounter(text: string, starts: number[], parts: ListPart[]): LineCounter {
  const lc = textLineCounter(text);
  const own = lc.linePos.bind(lc);
  // The line each part starts on in `text`.
  const first = starts.map((s) => own(s).line);
  lc.linePos = (offset) => {
    const p = own(offset);
    const k = lineIndex(starts, offset);
    return { line: parts[k].line + p.line - first[k], col: p.col };
  };
  return lc;
}

/** How a List document's text divides: see splitList. */
export interface ListLayout {
  /** The lines before the items, up to and including the `items:` line (offsets into the document). */
  head: number;
  /** Offset of the `items:` line. */
  itemsLine: number;
  /** The sequence's column. */
  column: number;
  /** Each item: its lines' offsets and how many lines it has. */
  items: { start: number; end: number; lines: number }[];
  /** Offset of the first line after the sequence (the document's length when none follows). */
  rest: number;
}

const SP = 0x20;
const LF = 0x0a;

/** Offset of the first item line (a `- ` at `column`) from the line at `from` on; -1 if none. */
function itemAfter(doc: string, from: number, column: number): number {
  const at = `\n${' '.repeat(column)}-`;
  if (from === 0) return -1;
  for (let i = doc.indexOf(at, from - 1); i >= 0; i = doc.indexOf(at, i + 1)) {
    const c = doc.charCodeAt(i + at.length);
    if (c === SP || c === LF) return i + 1;
  }
  return -1;
}

/**
 * A List document's items as fast-yaml.ts's List reader cuts them (`kind` and `metadata` may come
 * before or after the items, as js-yaml and kubectl write them): an `items:` line at column 0 in
 * the first 64 KiB, then a block sequence whose items are the lines from a `- ` at its column to
 * the next. Undefined for anything else: a CR, a comment or a line at the sequence's column that
 * is no item, a document marker. (A last item whose last line has no line feed runs to the end.)
 */
export function splitList(doc: string): ListLayout | undefined {
  if (doc.includes('\r')) return undefined;
  let itemsLine = -1;
  for (let at = 0; at < 64 * 1024; ) {
    const nl = doc.indexOf('\n', at);
    if (nl < 0) return undefined;
    if (doc.charCodeAt(at) === 0x69 && doc.slice(at, nl).replace(/ +$/, '') === 'items:') {
      itemsLine = at;
      break;
    }
    at = nl + 1;
  }
  if (itemsLine < 0) return undefined;
  const head = doc.indexOf('\n', itemsLine) + 1;
  // (A marker after the first line: another document.)
  if (/\n(?:---|\.\.\.)(?:[ \t\n]|$)/.test(doc.slice(0, head))) return undefined;
  let first = head;
  let column = -1;
  for (;;) {
    let k = first;
    while (doc.charCodeAt(k) === SP) k++;
    if (doc.charCodeAt(k) === LF) {
      first = k + 1;
      continue;
    }
    const c1 = doc.charCodeAt(k + 1);
    if (doc.charCodeAt(k) !== 0x2d || (c1 !== SP && c1 !== LF)) return undefined;
    column = k - first;
    break;
  }
  const items: ListLayout['items'] = [];
  let s = first;
  let rest = -1;
  while (rest < 0) {
    let lines = 0;
    let e: number;
    for (let f = s; ; ) {
      const nl = doc.indexOf('\n', f);
      lines++;
      if (nl < 0) {
        // A last line without a line feed (a text cut short): the item runs to the end.
        e = rest = doc.length;
        break;
      }
      const next = nl + 1;
      let k = next;
      while (k - next <= column && doc.charCodeAt(k) === SP) k++;
      if (k - next > column) {
        f = next;
        continue;
      }
      let b = k;
      while (doc.charCodeAt(b) === SP) b++;
      if (b >= doc.length) {
        if (b > next) return undefined;
        e = rest = next;
        break;
      }
      const c = doc.charCodeAt(b);
      if (c === LF) {
        f = next;
        continue;
      }
      const d = doc.charCodeAt(k + 1);
      if (k - next === column && c === 0x2d && b === k && (d === SP || d === LF)) {
        e = next;
        break;
      }
      if (c === 0x23 || (column > 0 && k - next === column)) return undefined;
      // A line that would end the sequence, with an item after it: a broken item's.
      const later = itemAfter(doc, next, column);
      if (later < 0) {
        e = rest = next;
        break;
      }
      for (let i = doc.indexOf('\n', next); i >= 0 && i < later; i = doc.indexOf('\n', i + 1)) lines++;
      e = later;
      break;
    }
    items.push({ start: s, end: e, lines });
    s = e;
  }
  if (/^(?:---|\.\.\.)(?:[ \t\n]|$)/m.test(doc.slice(rest))) return undefined;
  return { head, itemsLine, column, items, rest };
}
