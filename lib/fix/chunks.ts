/**
 * Line diffs of a large fixed file against its original in pieces, for --fix-dry-run's diff and
 * position mapping. A fixed file is its original with some documents edited and some added: the
 * documents (`---` slices) are aligned first (a diff of a few thousand strings), and only the
 * lines around the documents that differ, with MARGIN equal lines on each side, are diffed line
 * by line. jsdiff's Myers diff of the whole file costs its length times the number of changed
 * lines; the pieces cost little. The result is the whole-file diff's: a change is placed by the
 * lines around it (a block inserted between equal lines may slide only over lines equal to its
 * own), which the margins hold; test/fix/chunks.test.ts compares the two over the corpus, the
 * bench input and random edits. Small texts are diffed whole.
 */
import { diffArrays } from 'diff';
import { lineIndex } from '../model/lines';

/** Equal lines kept on each side of a changed region (more than twice a unified diff's context). */
export const MARGIN = 12;
/** Texts with fewer lines than this are diffed whole. */
export const CHUNKED_FROM = 2000;

const MARKER = /^---(?=[ \t\r\n]|$)/gm;

/** Offsets of line starts of `t`, one per line as splitLines counts them (no empty last line). */
function lineStartsOf(t: string): number[] {
  const s = [0];
  for (let i = t.indexOf('\n'); i >= 0 && i + 1 < t.length; i = t.indexOf('\n', i + 1)) s.push(i + 1);
  return t.length ? s : [];
}

/** Offsets where `---` slices start (0 first). */
function slices(t: string): number[] {
  const out = [0];
  MARKER.lastIndex = 0;
  for (let m = MARKER.exec(t); m; m = MARKER.exec(t)) if (m.index > 0) out.push(m.index);
  return out;
}

/** A part of two line sequences: lines [a0, a1) of the first and [b0, b1) of the second. */
export interface Chunk {
  a0: number;
  a1: number;
  b0: number;
  b1: number;
}

export interface Chunked {
  /** Line starts of both texts (offsets). */
  aStarts: number[];
  bStarts: number[];
  /** The parts to diff, in order; the lines between them are equal, pairwise. */
  chunks: Chunk[];
}

/**
 * The parts of `a` and `b` to diff line by line (each with MARGIN equal lines around its
 * changes where the texts have them), or undefined when the texts should be diffed whole (small,
 * or their documents do not line up).
 */
export function lineChunks(a: string, b: string): Chunked | undefined {
  const aStarts = lineStartsOf(a);
  const bStarts = lineStartsOf(b);
  if (aStarts.length < CHUNKED_FROM && bStarts.length < CHUNKED_FROM) return undefined;
  const sa = slices(a);
  const sb = slices(b);
  const text = (t: string, s: number[], i: number) => t.slice(s[i], i + 1 < s.length ? s[i + 1] : t.length);
  // Documents as numbers (equal texts, equal numbers): the alignment compares numbers, not texts.
  const ids = new Map<string, number>();
  const id = (t: string) => {
    let n = ids.get(t);
    if (n === undefined) ids.set(t, (n = ids.size));
    return n;
  };
  const da = sa.map((_, i) => id(text(a, sa, i)));
  const db = sb.map((_, i) => id(text(b, sb, i)));
  const parts = diffArrays(da, db);
  // Changed regions in lines: runs of removed and added documents between equal ones.
  const lineOf = (starts: number[], s: number[], t: string, i: number) => (i >= s.length ? starts.length : s[i] >= t.length ? starts.length : lineIndex(starts, s[i]));
  const regions: Chunk[] = [];
  let ia = 0;
  let ib = 0;
  let open: { ia: number; ib: number } | undefined;
  const close = () => {
    if (open) regions.push({ a0: lineOf(aStarts, sa, a, open.ia), a1: lineOf(aStarts, sa, a, ia), b0: lineOf(bStarts, sb, b, open.ib), b1: lineOf(bStarts, sb, b, ib) });
    open = undefined;
  };
  for (const p of parts) {
    const n = p.count ?? p.value.length;
    if (!p.added && !p.removed) {
      close();
      ia += n;
      ib += n;
      continue;
    }
    open ??= { ia, ib };
    if (p.removed) ia += n;
    else ib += n;
  }
  close();
  // The lines between two regions (and before the first, after the last) are equal: their counts
  // must agree on both sides, else the documents did not line up as assumed.
  let pa = 0;
  let pb = 0;
  for (const r of regions) {
    if (r.a0 - pa !== r.b0 - pb) return undefined;
    pa = r.a1;
    pb = r.b1;
  }
  if (aStarts.length - pa !== bStarts.length - pb) return undefined;
  // Regions closer than two margins merged, then a margin of equal lines on each side.
  const merged: Chunk[] = [];
  for (const r of regions) {
    const last = merged[merged.length - 1];
    if (last && r.a0 - last.a1 <= 2 * MARGIN) {
      last.a1 = r.a1;
      last.b1 = r.b1;
    } else merged.push({ ...r });
  }
  const chunks = merged.map((r, i) => {
    const before = Math.min(MARGIN, r.a0 - (i ? merged[i - 1].a1 : 0));
    const after = Math.min(MARGIN, (i + 1 < merged.length ? merged[i + 1].a0 : aStarts.length) - r.a1);
    return { a0: r.a0 - before, a1: r.a1 + after, b0: r.b0 - before, b1: r.b1 + after };
  });
  return { aStarts, bStarts, chunks };
}

/** The text of lines [from, to) of `t` (with their line breaks). */
export function linesText(t: string, starts: number[], from: number, to: number): string {
  return t.slice(from < starts.length ? starts[from] : t.length, to < starts.length ? starts[to] : t.length);
}
