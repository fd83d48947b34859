/** "Did you mean" for misspelled names (policies, rule IDs, fields, enum values). */

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  if (!m) return n;
  if (!n) return m;
  let prev2: number[] = [];
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      cur.push(d);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[n];
}

/**
 * The candidate closest to `input`, if it is close enough to be a plausible typo: at most a third
 * of the longer name's characters differ (at least 1, at most 4), or one name is a prefix of the
 * other (`stricter` -> `strict`, `warn` -> `warning`). Case is ignored.
 */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  const low = input.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const cl = c.toLowerCase();
    if (cl === low) return c;
    const d = editDistance(low, cl);
    const limit = Math.min(4, Math.max(1, Math.floor(Math.max(low.length, cl.length) / 3)));
    const prefix = low.length >= 3 && cl.length >= 3 && (cl.startsWith(low) || low.startsWith(cl));
    if ((d <= limit || prefix) && d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

/** `; did you mean "x"?` or '' when nothing is close. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const c = closest(input, candidates);
  return c === undefined ? '' : `; did you mean "${c}"?`;
}
