import { ArrayChange, diffArrays } from 'diff';
import { Chunked, lineChunks } from './chunks';
import { Lexer, ToStringOptions } from 'yaml';

/** One line of text and the line break that ended it ('' for a last line without one). */
export interface Line {
  text: string;
  eol: string;
}

export function splitLines(t: string): Line[] {
  const out: Line[] = [];
  let i = 0;
  while (i < t.length) {
    const j = t.indexOf('\n', i);
    if (j < 0) {
      out.push({ text: t.slice(i), eol: '' });
      break;
    }
    const crlf = j > i && t[j - 1] === '\r';
    out.push({ text: t.slice(i, crlf ? j - 1 : j), eol: crlf ? '\r\n' : '\n' });
    i = j + 1;
  }
  return out;
}

/** The texts of splitLines(t), without making Line objects. */
export function lineTexts(t: string): string[] {
  const split = t.split('\n');
  if (split[split.length - 1] === '') split.pop();
  const n = t.endsWith('\n') ? split.length : split.length - 1;
  for (let i = 0; i < n; i++) if (split[i].endsWith('\r')) split[i] = split[i].slice(0, -1);
  return split;
}

export function joinLines(lines: Line[]): string {
  return lines.map((l) => l.text + l.eol).join('');
}

/** The line break most lines of `t` use (CRLF only when it dominates). */
export function dominantEol(t: string): string {
  if (!t.includes('\r\n')) return '\n';
  let crlf = 0;
  let lf = 0;
  for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) {
    if (i > 0 && t.charCodeAt(i - 1) === 0x0d) crlf++;
    else lf++;
  }
  return crlf > lf ? '\r\n' : '\n';
}

const KEY_WITH_BLOCK_VALUE = /^(\s*)(?:-\s+)?[^\s#'"][^#]*?:\s*(?:#.*)?$|^(\s*)(?:-\s+)?(['"]).*\3:\s*(?:#.*)?$/;

function indentOf(s: string): number {
  return s.length - s.trimStart().length;
}

/**
 * Whether a line counts for detectStyle: not blank, not a comment line, no `---` or `...` marker,
 * no `%` directive. Decided from the first non-blank character when it is ASCII and not white
 * space (none of trim's white space is), else by the plain reading.
 */
function styleLine(l: string): boolean {
  let i = 0;
  while (l.charCodeAt(i) === 0x20) i++;
  const c = l.charCodeAt(i);
  if (c > 0x20 && c < 0x7f) {
    if (c === 0x23) return false;
    if (i > 0) return true;
    if (c === 0x25) return false;
    return !((c === 0x2d || c === 0x2e) && /^(---|\.\.\.)(\s|$)/.test(l));
  }
  return l.trim() !== '' && !l.trimStart().startsWith('#') && !/^(---|\.\.\.)(\s|$)/.test(l) && !l.startsWith('%');
}

/** A flow collection opened with padding (`{ a`), or without (`{a`); a quoted scalar after `: ` or `- `. */
export const PADDED = /[{[] [^\s]/g;
export const TIGHT = /[{[][^\s\]}]/g;
export const SINGLE = /(?::|-)\s+'/g;
export const DOUBLE = /(?::|-)\s+"/g;

/** Whether c is a character of the regular expression class \s. */
function jsSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x80 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff));
}

/**
 * `(t.match(re) ?? []).length` for the four patterns above, found from the occurrences of their
 * rare characters (brackets, quotes) rather than by trying the pattern at every position: a
 * detectStyle of each document --fix edits. Matches do not overlap, as with a global match.
 */
export function matchCount(t: string, re: RegExp): number {
  let n = 0;
  if (re === SINGLE || re === DOUBLE) {
    // Each match ends at its quote, after a maximal run of blanks that follows `:` or `-`.
    const q = re === SINGLE ? "'" : '"';
    for (let i = t.indexOf(q); i >= 0; i = t.indexOf(q, i + 1)) {
      let j = i - 1;
      while (j >= 0 && jsSpace(t.charCodeAt(j))) j--;
      if (j >= 0 && j < i - 1 && (t.charCodeAt(j) === 0x3a || t.charCodeAt(j) === 0x2d)) n++;
    }
    return n;
  }
  if (re !== PADDED && re !== TIGHT) return (t.match(re) ?? []).length;
  let brace = t.indexOf('{');
  let bracket = t.indexOf('[');
  for (let from = 0; ; ) {
    if (brace >= 0 && brace < from) brace = t.indexOf('{', from);
    if (bracket >= 0 && bracket < from) bracket = t.indexOf('[', from);
    const i = brace < 0 ? bracket : bracket < 0 ? brace : Math.min(brace, bracket);
    if (i < 0) return n;
    const c = t.charCodeAt(i + 1);
    const hit = re === PADDED ? c === 0x20 && i + 2 < t.length && !jsSpace(t.charCodeAt(i + 2)) : i + 1 < t.length && !jsSpace(c) && c !== 0x5d && c !== 0x7d;
    if (hit) n++;
    from = hit ? i + (re === PADDED ? 3 : 2) : i + 1;
  }
}

/**
 * `Document.toString` options that reproduce how a document is written: its indentation, whether
 * block sequences are indented under their key, flow padding and preferred quotes. Lines are
 * never folded (`lineWidth: 0`).
 */
export function detectStyle(text: string): ToStringOptions {
  const lines = lineTexts(text).filter(styleLine);
  const indents = new Map<number, number>();
  let seqIndented = 0;
  let seqFlush = 0;
  for (let i = 0; i + 1 < lines.length; i++) {
    const cur = lines[i];
    // (Without a `#`, a key with a block value ends with its `:`: most lines are not one.)
    if ((!cur.includes('#') && !cur.trimEnd().endsWith(':')) || !KEY_WITH_BLOCK_VALUE.test(cur) || /[|>][-+0-9]*\s*(#.*)?$/.test(cur)) continue;
    const next = lines[i + 1];
    // The key's own column: after a leading "- " the key sits two columns in.
    const dash = /^(\s*)-\s+/.exec(cur);
    const keyCol = dash ? dash[0].length : indentOf(cur);
    const nextCol = indentOf(next);
    if (next.trimStart().startsWith('-')) {
      if (nextCol > keyCol) seqIndented++;
      else if (nextCol === keyCol) seqFlush++;
      if (nextCol > keyCol) indents.set(nextCol - keyCol, (indents.get(nextCol - keyCol) ?? 0) + 1);
    } else if (nextCol > keyCol) {
      indents.set(nextCol - keyCol, (indents.get(nextCol - keyCol) ?? 0) + 1);
    }
  }
  let indent = 2;
  let best = 0;
  for (const [d, n] of [...indents.entries()].sort((a, b) => a[0] - b[0])) {
    if (d >= 1 && d <= 8 && n > best) {
      indent = d;
      best = n;
    }
  }
  const body = lines.join('\n');
  const padded = matchCount(body, PADDED);
  const tight = matchCount(body, TIGHT);
  const single = matchCount(body, SINGLE);
  const double = matchCount(body, DOUBLE);
  return {
    indent,
    indentSeq: seqIndented >= seqFlush ? seqIndented > 0 || seqFlush === 0 : false,
    lineWidth: 0,
    minContentWidth: 0,
    flowCollectionPadding: padded >= tight ? padded > 0 || tight === 0 : false,
    singleQuote: single > double ? true : null,
  };
}

/** The comments of a YAML text, as the lexer sees them (so `#` inside strings is not one). */
export function commentTokens(text: string): string[] {
  const out: string[] = [];
  try {
    for (const tok of new Lexer().lex(text)) if (tok.startsWith('#')) out.push(tok.trimEnd());
  } catch {
    // The lexer does not throw on bad input in practice; if it did, no comments are claimed.
  }
  return out;
}

function counts(xs: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

/**
 * Comments of `original` that `result` lost, not counting the ones the edit itself dropped
 * (present in `before`, the rendering of the unedited document, but not in `after`). `original`
 * may be given as its comment tokens already.
 */
export function lostComments(original: string | string[], before: string, after: string, result: string): string[] {
  const o = counts(typeof original === 'string' ? commentTokens(original) : original);
  const b = counts(commentTokens(before));
  const a = counts(commentTokens(after));
  const r = counts(commentTokens(result));
  const lost: string[] = [];
  for (const [c, n] of o) {
    const droppedByEdit = Math.max(0, (b.get(c) ?? 0) - (a.get(c) ?? 0));
    if ((r.get(c) ?? 0) < n - droppedByEdit) lost.push(c);
  }
  return lost;
}

/** For each line of `b`, the index of the equal line of `a` it aligns with, or -1 (a longest common subsequence). */
function align(a: string[], b: string[]): Int32Array | undefined {
  const map = new Int32Array(b.length).fill(-1);
  // Bounded so a badly misaligned document falls back to yaml's rendering instead of spinning.
  const parts = diffArrays(a, b, { maxEditLength: 4000 });
  if (!parts) return undefined;
  let ia = 0;
  let ib = 0;
  for (const p of parts) {
    const n = p.count ?? p.value.length;
    if (p.added) ib += n;
    else if (p.removed) ia += n;
    else {
      for (let k = 0; k < n; k++) map[ib + k] = ia + k;
      ia += n;
      ib += n;
    }
  }
  return map;
}

/**
 * Maps 1-based line numbers of `before` to `after`: a kept line to where it is now, a replaced or
 * removed line to where its replacement starts (or the line that follows the removal).
 */
export function lineMapping(before: string, after: string): (line: number) => number {
  // The lines before the first difference stay where they are, without a diff: jsdiff takes the
  // common prefix as kept (its first snake), so its mapping is the identity there. --fix asks
  // mostly for such lines (a finding's line, above what its repair inserts).
  const n = Math.min(before.length, after.length);
  let i = 0;
  while (i < n && before.charCodeAt(i) === after.charCodeAt(i)) i++;
  let prefix = 0;
  for (let j = before.indexOf('\n'); j >= 0 && j < i; j = before.indexOf('\n', j + 1)) prefix++;
  let full: ((line: number) => number) | undefined;
  return (line) => (line >= 1 && line <= prefix ? line : (full ??= diffMapping(before, after))(line));
}

/** lineMapping by the diff of the two texts' lines. */
export function diffMapping(before: string, after: string): (line: number) => number {
  const A = lineTexts(after);
  const last = Math.max(1, A.length);
  const parts = diffArrays(lineTexts(before), A, { maxEditLength: 4000 });
  if (!parts) return (line) => Math.min(line, last);
  const map: number[] = [];
  let ia = 0;
  for (const p of parts) {
    const n = p.count ?? p.value.length;
    if (p.added) ia += n;
    else if (p.removed) for (let k = 0; k < n; k++) map.push(ia);
    else {
      for (let k = 0; k < n; k++) map.push(ia + k);
      ia += n;
    }
  }
  return (line) => Math.min(last, (line >= 1 && line <= map.length ? map[line - 1] : ia) + 1);
}

/** A 1-based line and column. */
export interface TextPosition {
  line: number;
  column: number;
}

/**
 * Maps positions in `fixed` (a text the fixer produced) back to `original` (the file as it is on
 * disk), for `--fix-dry-run`, whose report must point at the file the user has. A line the fix
 * kept maps to where it is in the original, same column. A line the fix inserted or rewrote has
 * no counterpart: it maps to the first original line of the change (the replaced lines, or the
 * line before which the insertion goes), where the diff shows the change: at the same column when
 * the original line reads the same up to it, else at its first non-blank column.
 */
export function positionMapping(fixed: string, original: string, plan?: { chunks: Chunked | undefined }): (pos: TextPosition) => TextPosition {
  const ch = plan ? plan.chunks : lineChunks(fixed, original);
  if (ch) return chunkedMapping(fixed, original, ch);
  const O = lineTexts(original);
  const lastLine = Math.max(1, O.length);
  const F = lineTexts(fixed);
  const parts = diffArrays(F, O, { maxEditLength: MAPPING_EDITS });
  if (!parts) return (p) => ({ line: Math.min(p.line, lastLine), column: p.line <= lastLine ? p.column : 1 });
  const map = new LineMap(lastLine);
  map.add(parts, 0);
  return (p) => map.position(p, F[p.line - 1], (line) => O[line - 1]);
}

/** The most changed lines a position mapping diffs (beyond it, lines map to themselves). */
const MAPPING_EDITS = 4000;

/**
 * For each line of a fixed text from its first one on: the original line it is (kept), or the
 * first original line of its change (see positionMapping).
 */
class LineMap {
  readonly lines: number[] = [];
  readonly kept: boolean[] = [];
  constructor(private readonly lastLine: number) {}
  /** Adds the lines of a diff (fixed to original) whose first original line is `io` (0-based). */
  add(parts: ArrayChange<string>[], io: number): void {
    let changeStart: number | undefined;
    for (const p of parts) {
      const n = p.count ?? p.value.length;
      if (!p.added && !p.removed) {
        changeStart = undefined;
        for (let k = 0; k < n; k++) {
          this.lines.push(io + k + 1);
          this.kept.push(true);
        }
        io += n;
        continue;
      }
      // A change is a run of removed (fixed only) and added (original only) parts, in either order.
      if (changeStart === undefined) changeStart = io;
      if (p.added) io += n;
      else
        for (let k = 0; k < n; k++) {
          this.lines.push(Math.min(changeStart + 1, this.lastLine));
          this.kept.push(false);
        }
    }
  }
  /** The position of `p`, whose line (the i-th added here) reads `text`; `originalLine` reads an original line. */
  at(i: number, p: TextPosition, text: string | undefined, originalLine: (line: number) => string | undefined): TextPosition {
    const line = this.lines[i];
    if (this.kept[i]) return { line, column: p.column };
    // A rewritten line that still reads the same up to the column (a changed value after the same
    // key, say): the column holds there too.
    const prefix = (text ?? '').slice(0, p.column - 1);
    const o = originalLine(line) ?? '';
    if (o.startsWith(prefix)) return { line, column: p.column };
    const m = /\S/.exec(o);
    return { line, column: m ? m.index + 1 : 1 };
  }
  position(p: TextPosition, text: string | undefined, originalLine: (line: number) => string | undefined): TextPosition {
    if (p.line - 1 >= this.lines.length || p.line < 1) return { line: Math.min(p.line, this.lastLine), column: 1 };
    return this.at(p.line - 1, p, text, originalLine);
  }
}

/** Line `i` (0-based) of `t` as lineTexts(t)[i] reads it, given its line starts (lineChunks'). */
function lineAt(t: string, starts: number[], i: number): string | undefined {
  if (i < 0 || i >= starts.length) return undefined;
  const from = starts[i];
  let to = i + 1 < starts.length ? starts[i + 1] : t.length;
  if (to > from && t.charCodeAt(to - 1) === 0x0a) {
    to--;
    if (to > from && t.charCodeAt(to - 1) === 0x0d) to--;
  }
  return t.slice(from, to);
}

/**
 * positionMapping of a large text from its parts (chunks.ts, lineChunks(fixed, original)): each
 * part's lines diffed as in the whole-file diff (chunkedDiff), the lines between parts kept in
 * place, and no line of the whole texts split out. Past MAPPING_EDITS changed lines in all, the
 * lines map to themselves, as positionMapping's whole diff does.
 */
function chunkedMapping(fixed: string, original: string, ch: Chunked): (pos: TextPosition) => TextPosition {
  const { aStarts: fStarts, bStarts: oStarts, chunks } = ch;
  const lastLine = Math.max(1, oStarts.length);
  const giveUp = (p: TextPosition) => ({ line: Math.min(p.line, lastLine), column: p.line <= lastLine ? p.column : 1 });
  // Every line one text has more than the other is a change: past the limit already, undiffed.
  if (Math.abs(fStarts.length - oStarts.length) > MAPPING_EDITS) return giveUp;
  const lines = (t: string, starts: number[], from: number, to: number) => {
    const out: string[] = [];
    for (let i = from; i < to; i++) out.push(lineAt(t, starts, i)!);
    return out;
  };
  const maps: LineMap[] = [];
  let edits = 0;
  for (const c of chunks) {
    const sub = diffArrays(lines(fixed, fStarts, c.a0, c.a1), lines(original, oStarts, c.b0, c.b1), { maxEditLength: MAPPING_EDITS });
    if (sub) for (const p of sub) if (p.added || p.removed) edits += p.count ?? p.value.length;
    if (!sub || edits > MAPPING_EDITS) return giveUp;
    const m = new LineMap(lastLine);
    m.add(sub, c.b0);
    maps.push(m);
  }
  const originalLine = (line: number) => lineAt(original, oStarts, line - 1);
  return (p) => {
    const i = p.line - 1;
    if (i >= fStarts.length || p.line < 1) return { line: Math.min(p.line, lastLine), column: 1 };
    // The last part starting at or before the line.
    let lo = 0;
    let hi = chunks.length - 1;
    let k = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (chunks[mid].a0 <= i) {
        k = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (k >= 0 && i < chunks[k].a1) return maps[k].at(i - chunks[k].a0, p, lineAt(fixed, fStarts, i), originalLine);
    // Between parts (or before the first): an equal line, moved as the part before it moved lines.
    const shift = k >= 0 ? chunks[k].b1 - chunks[k].a1 : 0;
    return { line: i + shift + 1, column: p.column };
  };
}

/**
 * diffArrays(A, B, { maxEditLength }) of the lines of texts `a` and `b`, for a large text diffed
 * in the parts around its changed documents (chunks.ts): the equal lines between the parts, and
 * each part's diff. Undefined when the changes exceed maxEditLength, as diffArrays.
 */
export function chunkedDiff(a: string, b: string, A: string[], B: string[], maxEditLength: number): ArrayChange<string>[] | undefined {
  const ch = lineChunks(a, b);
  if (!ch) return diffArrays(A, B, { maxEditLength });
  const parts: ArrayChange<string>[] = [];
  // Equal lines around a part join the part's own first and last equal runs, as in one diff.
  const push = (p: ArrayChange<string>) => {
    const last = parts[parts.length - 1];
    if (last && !last.added && !last.removed && !p.added && !p.removed) {
      last.value = last.value.concat(p.value);
      last.count = last.value.length;
    } else parts.push(p);
  };
  let pa = 0;
  let edits = 0;
  for (const c of ch.chunks) {
    if (c.a0 > pa) push({ value: A.slice(pa, c.a0), count: c.a0 - pa, added: false, removed: false });
    const sub = diffArrays(A.slice(c.a0, c.a1), B.slice(c.b0, c.b1), { maxEditLength });
    if (!sub) return undefined;
    for (const p of sub) if (p.added || p.removed) edits += p.count ?? p.value.length;
    if (edits > maxEditLength) return undefined;
    sub.forEach(push);
    pa = c.a1;
  }
  if (pa < A.length) push({ value: A.slice(pa), count: A.length - pa, added: false, removed: false });
  return parts;
}

/** Lines removed plus lines added between two texts (a size for choosing the smallest edit). */
export function changedLineCount(a: string, b: string): number {
  const parts = diffArrays(
    lineTexts(a),
    lineTexts(b),
    { maxEditLength: 4000 },
  );
  if (!parts) return Number.MAX_SAFE_INTEGER;
  return parts.reduce((n, p) => n + (p.added || p.removed ? (p.count ?? p.value.length) : 0), 0);
}

/** A replacement of original lines [start, end) by `lines`. */
export interface Hunk {
  start: number;
  end: number;
  lines: string[];
}

/**
 * Three-way merge of a document's edit into its original text: `before` and `after` are yaml's
 * renderings of the document without and with the edit. Anchors are lines equal in all three;
 * between two anchors, a region the edit did not touch keeps the original lines, and a touched
 * region takes the lines of `after`. Returns the touched regions as hunks over the original, or
 * undefined when the texts are too different to align.
 */
export function mergeHunks(original: string, before: string, after: string): Hunk[] | undefined {
  const O = lineTexts(original);
  const B = lineTexts(before);
  const A = lineTexts(after);
  const bToO = align(O, B);
  const bToA = align(A, B);
  if (!bToO || !bToA) return undefined;
  const anchors: [number, number, number][] = [];
  for (let ib = 0; ib < B.length; ib++) {
    if (bToO[ib] >= 0 && bToA[ib] >= 0) anchors.push([bToO[ib], ib, bToA[ib]]);
  }
  anchors.push([O.length, B.length, A.length]);
  const hunks: Hunk[] = [];
  let o = 0;
  let b = 0;
  let a = 0;
  for (const [ao, ab, aa] of anchors) {
    const bChunk = B.slice(b, ab);
    const aChunk = A.slice(a, aa);
    const untouched = bChunk.length === aChunk.length && bChunk.every((x, i) => x === aChunk[i]);
    if (!untouched) hunks.push({ start: o, end: ao, lines: aChunk });
    o = ao + 1;
    b = ab + 1;
    a = aa + 1;
  }
  // Every replaced line counts: a moved node's lines leave in one hunk and arrive in another.
  const replaced = hunks.flatMap((h) => O.slice(h.start, h.end));
  return hunks.map((h) => ({ ...h, lines: keepCommentSpacing(h.lines, replaced) }));
}

const TRAILING_COMMENT = /^(.*\S)(\s+)(#.*)$/;

/**
 * yaml writes one space before a trailing comment; where the replaced lines had the same comment
 * with other spacing (aligned comments), that spacing comes back. (A `#` inside a string that this
 * misreads changes the value, which the caller's read-back check rejects.)
 */
function keepCommentSpacing(lines: string[], replaced: string[]): string[] {
  const gaps = new Map<string, string | null>();
  for (const l of replaced) {
    const m = TRAILING_COMMENT.exec(l);
    if (!m) continue;
    gaps.set(m[3], gaps.has(m[3]) && gaps.get(m[3]) !== m[2] ? null : m[2]);
  }
  if (!gaps.size) return lines;
  return lines.map((l) => {
    const m = TRAILING_COMMENT.exec(l);
    const gap = m ? gaps.get(m[3]) : undefined;
    return m && gap ? m[1] + gap + m[3] : l;
  });
}

/** The original text with the hunks (sorted, not overlapping) applied; new lines end with `eol`. */
export function applyHunks(original: string, hunks: Hunk[], eol: string): string {
  const O = splitLines(original);
  const out: Line[] = [];
  let at = 0;
  // Loops, not push(...slice): a large file has more lines than a call may take arguments.
  for (const h of hunks) {
    for (let i = at; i < h.start; i++) out.push(O[i]);
    for (const text of h.lines) out.push({ text, eol });
    at = h.end;
  }
  for (let i = at; i < O.length; i++) out.push(O[i]);
  // A line that gained a successor needs a line break.
  for (let i = 0; i + 1 < out.length; i++) if (out[i].eol === '') out[i] = { text: out[i].text, eol };
  return joinLines(out);
}

export function mergeEdit(original: string, before: string, after: string, eol: string): string | undefined {
  const hunks = mergeHunks(original, before, after);
  return hunks && applyHunks(original, hunks, eol);
}

/**
 * Merges with several renderings (e.g. both sequence indentations) and picks, for each cluster of
 * overlapping hunks, the rendering that changes the fewest lines there: files that mix styles keep
 * each region's own style.
 */
export function mergeEditMixed(original: string, variants: { before: string; after: string }[], eol: string): string | undefined {
  const sets = variants.map((v) => mergeHunks(original, v.before, v.after));
  const all: { v: number; h: Hunk }[] = [];
  sets.forEach((hs, v) => hs?.forEach((h) => all.push({ v, h })));
  if (!all.length) return undefined;
  all.sort((x, y) => x.h.start - y.h.start || x.h.end - y.h.end);
  const clusters: { v: number; h: Hunk }[][] = [];
  let end = -1;
  for (const x of all) {
    const last = clusters[clusters.length - 1];
    // Touching counts as overlapping: two insertions at one point are the same edit.
    if (last && x.h.start <= end) {
      last.push(x);
      end = Math.max(end, x.h.end);
    } else {
      clusters.push([x]);
      end = x.h.end;
    }
  }
  const chosen: Hunk[] = [];
  for (const c of clusters) {
    let best: { cost: number; hunks: Hunk[] } | undefined;
    for (let v = 0; v < variants.length; v++) {
      const hs = c.filter((x) => x.v === v).map((x) => x.h);
      if (!hs.length) continue;
      const cost = hs.reduce((n, h) => n + (h.end - h.start) + h.lines.length, 0);
      if (!best || cost < best.cost) best = { cost, hunks: hs };
    }
    chosen.push(...best!.hunks);
  }
  return applyHunks(original, chosen, eol);
}
