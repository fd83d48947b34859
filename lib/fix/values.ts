/** Plain-value comparison used to prove that a fix changed nothing it was not asked to change. */

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map) && !(v instanceof Set);
}

function isContainer(v: unknown): boolean {
  return Array.isArray(v) || isPlainObject(v);
}

/**
 * Paths (as segment lists) where `a` and `b` differ. Added or removed subtrees are reported by
 * their leaves, so creating `lifecycle.preStop.sleep.seconds` reports that leaf, not `lifecycle`.
 * A null on one side counts as "absent" when the other side is a container.
 */
export function changedPaths(a: unknown, b: unknown, at: string[] = [], out: string[][] = []): string[][] {
  return diff(a, b, at, out, undefined);
}

/** A sequence of `b` (by path) whose item j was item origin[j] of `a` (-1 or past the end: new). */
export interface IndexShift {
  path: string[];
  origin: number[];
}

/**
 * changedPaths where items of some sequences moved to other indices: each item of a shifted
 * sequence of `b` is compared with the item of `a` it came from (paths are those of `b`); items of
 * `a` that no item came from are removals and are not reported.
 */
export function changedPathsShifted(a: unknown, b: unknown, shifts: readonly IndexShift[]): string[][] {
  return diff(a, b, [], [], shifts.length ? new Map(shifts.map((s) => [JSON.stringify(s.path), s.origin])) : undefined);
}

function diff(a: unknown, b: unknown, at: string[], out: string[][], shifts: Map<string, number[]> | undefined): string[][] {
  if (Object.is(a, b)) return out;
  const aC = isContainer(a);
  const bC = isContainer(b);
  if (aC || bC) {
    const origin = shifts && Array.isArray(a) && Array.isArray(b) ? shifts.get(JSON.stringify(at)) : undefined;
    if (origin) {
      const from = a as unknown[];
      (b as unknown[]).forEach((v, j) => {
        const o = origin[j] ?? -1;
        diff(o >= 0 ? from[o] : undefined, v, [...at, String(j)], out, shifts);
      });
      return out;
    }
    const emptyA = a === undefined || a === null;
    const emptyB = b === undefined || b === null;
    if ((aC || emptyA) && (bC || emptyB) && (emptyA || emptyB || Array.isArray(a) === Array.isArray(b))) {
      const keysA = aC ? Object.keys(a as object) : [];
      const keysB = bC ? Object.keys(b as object) : [];
      const keys = [...new Set([...keysA, ...keysB])];
      if (!keys.length) {
        if (aC !== bC) out.push(at);
        return out;
      }
      for (const k of keys) {
        diff(aC ? (a as Record<string, unknown>)[k] : undefined, bC ? (b as Record<string, unknown>)[k] : undefined, [...at, k], out, shifts);
      }
      return out;
    }
    out.push(at);
    return out;
  }
  if (a instanceof Date && b instanceof Date && a.getTime() === b.getTime()) return out;
  out.push(at);
  return out;
}

/** Whether `path` is `prefix` or lies below it. */
export function isUnder(path: string[], prefix: string[]): boolean {
  return prefix.length <= path.length && prefix.every((s, i) => path[i] === s);
}

/**
 * Deep equality of plain values (as `Document.toJS` returns them): exactly whether
 * changedPaths(a, b) is empty, decided without making the paths and at the first difference.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  const aC = isContainer(a);
  const bC = isContainer(b);
  if (aC || bC) {
    const emptyA = a === undefined || a === null;
    const emptyB = b === undefined || b === null;
    if (!((aC || emptyA) && (bC || emptyB) && (emptyA || emptyB || Array.isArray(a) === Array.isArray(b)))) return false;
    const keysA = aC ? Object.keys(a as object) : [];
    const keysB = bC ? Object.keys(b as object) : [];
    if (!keysA.length && !keysB.length) return aC === bC;
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    for (const k of keysA) if (!sameValue(ra[k], bC ? rb[k] : undefined)) return false;
    // The keys of b that a does not have (Object.keys lists the own enumerable ones).
    for (const k of keysB) if (!(aC && Object.prototype.propertyIsEnumerable.call(a, k)) && !sameValue(aC ? ra[k] : undefined, rb[k])) return false;
    return true;
  }
  return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
}
