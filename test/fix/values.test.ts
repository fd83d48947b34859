/**
 * sameValue decides at the first difference what changedPaths decides by listing every changed
 * path: the two must agree on every pair of values (nulls and absent keys against containers,
 * empty containers, arrays against mappings, dates, inherited names).
 */
import fc from 'fast-check';
import { changedPaths, sameValue } from '../../lib/fix/values';

describe('sameValue', () => {
  // A small space of values, so that equal and nearly equal pairs come often.
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { maxDepth: 3, depthIdentifier: 'v' },
      fc.constantFrom<unknown>(null, undefined, 0, 1, -0, NaN, '', 'a', '1', true, false, new Date(0), new Date(1)),
      fc.array(tie('value'), { maxLength: 3, depthIdentifier: 'v' }),
      fc.dictionary(fc.constantFrom('x', 'y', '0', 'constructor', 'toString'), tie('value'), { maxKeys: 3, depthIdentifier: 'v' }),
    ),
  }));

  test('is exactly whether changedPaths finds no difference', () => {
    let equal = 0;
    fc.assert(
      fc.property(value, value, (a, b) => {
        const want = changedPaths(a, b).length === 0;
        if (want) equal++;
        expect(sameValue(a, b)).toBe(want);
        expect(sameValue(b, a)).toBe(changedPaths(b, a).length === 0);
        // A value and its copy.
        const copy = structuredClone(a);
        expect(sameValue(a, copy)).toBe(changedPaths(a, copy).length === 0);
      }),
      { numRuns: 3000, seed: 11 },
    );
    expect(equal).toBeGreaterThan(100);
  });

  test('hand cases', () => {
    expect(sameValue({ a: { b: [1, { c: null }] } }, { a: { b: [1, { c: null }] } })).toBe(true);
    expect(sameValue({ a: null }, {})).toBe(false);
    expect(sameValue({}, null)).toBe(false);
    expect(sameValue({ a: undefined }, null)).toBe(true);
    expect(sameValue([], {})).toBe(false);
    expect(sameValue({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });
});
