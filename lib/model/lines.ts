/** Line tables of a text: offsets of line starts, and the line holding an offset. */

/** 0-based index of the line holding `offset`, given the sorted offsets of line starts (binary search). */
export function lineIndex(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Number of line feeds in a string. */
export function lineFeeds(t: string): number {
  let n = 0;
  for (let i = t.indexOf('\n'); i !== -1; i = t.indexOf('\n', i + 1)) n++;
  return n;
}
