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
import { ArrayChange, diffArrays } from 'diff';
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
 * lineChunks(a, b) and lineChunks(b, a) at once, for a dry run that needs the diff both ways (the
 * unified diff of the original against the fixed text, and the position mapping back). When the
 * documents' alignment was forced (see forcedAlignment) the second is the first mirrored, else it
 * is computed on its own (a diff of the other way round may pair equal documents otherwise).
 */
export function lineChunksBoth(a: string, b: string): { forward: Chunked | undefined; backward: Chunked | undefined } {
  const forward = planChunks(a, b);
  if (!forward.symmetric) return { forward: forward.result, backward: lineChunks(b, a) };
  const f = forward.result;
  return { forward: f, backward: f && { aStarts: f.bStarts, bStarts: f.aStarts, chunks: f.chunks.map((c) => ({ a0: c.b0, a1: c.b1, b0: c.a0, b1: c.a1 })) } };
}

/**
 * The changes between two sequences of document numbers as diffArrays(a, b) has them, when they
 * are forced: once the numbers found in only one of the sequences are left out, both read the
 * same. Every common subsequence is then at most that sequence, which is one, so every longest
 * one (and diffArrays finds a shortest edit script, i.e. a longest common subsequence) pairs its
 * elements in order, one with one: which documents are equal is decided, whatever the algorithm.
 * The changes come as runs of removed then added numbers between equal ones (the order within a
 * run, which diffArrays may choose otherwise, does not matter to the regions). Undefined when the
 * sequences are not of this kind. (The files a fix writes are: kept documents keep their order,
 * edited ones become texts the original does not have, added ones are new.)
 */
export function forcedAlignment(a: number[], b: number[]): ArrayChange<number>[] | undefined {
  const inA = new Set(a);
  const inB = new Set(b);
  const parts: ArrayChange<number>[] = [];
  const push = (value: number[], added: boolean, removed: boolean) => {
    if (!value.length) return;
    const last = parts[parts.length - 1];
    if (last && last.added === added && last.removed === removed) {
      for (const v of value) last.value.push(v);
      last.count = last.value.length;
    } else parts.push({ value, count: value.length, added, removed });
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const removed: number[] = [];
    while (i < a.length && !inB.has(a[i])) removed.push(a[i++]);
    const added: number[] = [];
    while (j < b.length && !inA.has(b[j])) added.push(b[j++]);
    push(removed, false, true);
    push(added, true, false);
    if (i < a.length && j < b.length) {
      if (a[i] !== b[j]) return undefined;
      push([a[i]], false, false);
      i++;
      j++;
    } else if (i < a.length || j < b.length) {
      // One side has a common number left that the other side lacks here: not forced.
      if ((i < a.length && inB.has(a[i])) || (j < b.length && inA.has(b[j]))) return undefined;
    }
  }
  return parts;
}

/**
 * The parts of `a` and `b` to diff line by line (each with MARGIN equal lines around its
 * changes where the texts have them), or undefined when the texts should be diffed whole (small,
 * or their documents do not line up).
 */
export function lineChunks(a: string, b: string, opts?: { forced?: boolean }): Chunked | undefined {
  return planChunks(a, b, opts?.forced !== false).result;
}

/**
 * lineChunks, and whether lineChunks(b, a) is its mirror image (symmetric). `forced: false` aligns
 * the documents by diffArrays alone (for tests comparing the two).
 */
function planChunks(a: string, b: string, forced = true): { result: Chunked | undefined; symmetric: boolean } {
  const result = (r: Chunked | undefined, symmetric: boolean) => ({ result: r, symmetric });
  const aStarts = lineStartsOf(a);
  const bStarts = lineStartsOf(b);
  if (aStarts.length < CHUNKED_FROM && bStarts.length < CHUNKED_FROM) return result(undefined, true);
  const sa = slices(a);
  const sb = slices(b);
  const text = (t: string, s: number[], i: number) => t.slice(s[i], i + 1 < s.length ? s[i + 1] : t.length);
  // Documents as numbers (equal texts, equal numbers): the alignment compares numbers, not texts.
  // The texts are grouped by their length and ends first, so that only texts that may be equal
  // are compared whole (hashing every document's whole text costs more).
  const groups = new Map<string, { text: string; id: number }[]>();
  let next = 0;
  const id = (t: string) => {
    const key = `${t.length}\u0000${t.slice(0, 48)}\u0000${t.slice(-48)}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    for (const x of g) if (x.text === t) return x.id;
    g.push({ text: t, id: next });
    return next++;
  };
  const da = sa.map((_, i) => id(text(a, sa, i)));
  const db = sb.map((_, i) => id(text(b, sb, i)));
  const quick = forced ? forcedAlignment(da, db) : undefined;
  const parts = quick ?? diffArrays(da, db);
  const symmetric = quick !== undefined;
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
    if (r.a0 - pa !== r.b0 - pb) return result(undefined, symmetric);
    pa = r.a1;
    pb = r.b1;
  }
  if (aStarts.length - pa !== bStarts.length - pb) return result(undefined, symmetric);
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
  return result({ aStarts, bStarts, chunks }, symmetric);
}

/** The text of lines [from, to) of `t` (with their line breaks). */
export function linesText(t: string, starts: number[], from: number, to: number): string {
  return t.slice(from < starts.length ? starts[from] : t.length, to < starts.length ? starts[to] : t.length);
}
