/**
 * `expect(actual).toEqual(expected)` (or toStrictEqual) for large values compared many times, as the
 * differential tests of the fast paths do: when the two are deeply and strictly equal
 * (util.isDeepStrictEqual: same own keys, values by Object.is, same prototypes), which implies both
 * toEqual and toStrictEqual, nothing more is done; otherwise the jest matcher decides and reports as
 * usual. The verdict is the matcher's in every case; only the passing case skips jest's generic
 * recursive equality (with its iterable and asymmetric-matcher checks at every level), which cost
 * more than the readers under test.
 */
import { isDeepStrictEqual } from 'util';

export function expectEqual(actual: unknown, expected: unknown, opts: { strict?: boolean } = {}): void {
  if (isDeepStrictEqual(actual, expected)) return;
  if (opts.strict) expect(actual).toStrictEqual(expected);
  else expect(actual).toEqual(expected);
}
