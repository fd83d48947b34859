/**
 * lineMapping answers the lines before the first difference without a diff (the identity): the same
 * answers as the diff's mapping (diffMapping) for every line, on texts with repeated lines, CRLF,
 * no final line break, and edits anywhere.
 */
import fc from 'fast-check';
import { diffMapping, lineMapping } from '../../lib/fix/format';

const RUNS = Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 200);

describe('lineMapping', () => {
  const line = fc.constantFrom('a', 'b', '  - x', '', 'a:', '  b: 1', '\r');
  const lines = fc.array(line, { maxLength: 12 });
  const text = (ls: string[], eol: string, final: boolean) => ls.join(eol) + (final && ls.length ? eol : '');

  test('agrees with the diff on every line: random edits of random texts', () => {
    fc.assert(
      fc.property(lines, fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 3 }), lines, fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.boolean(), (ls, at, cut, ins, eol, f1, f2) => {
        const k = Math.min(at, ls.length);
        const after = [...ls.slice(0, k), ...ins, ...ls.slice(Math.min(ls.length, k + cut))];
        const a = text(ls, eol, f1);
        const b = text(after, eol, f2);
        const lazy = lineMapping(a, b);
        const full = diffMapping(a, b);
        for (let l = -1; l <= ls.length + 3; l++) expect([l, lazy(l)]).toEqual([l, full(l)]);
      }),
      { numRuns: RUNS * 5, seed: 42 },
    );
  });

  test('a repair that inserts lines below the finding: its line stays, the lines below move down', () => {
    const before = 'kind: Deployment\nspec:\n  containers:\n  - name: web\n    image: a\nz: 1\n';
    const after = 'kind: Deployment\nspec:\n  containers:\n  - name: web\n    image: a\n    lifecycle:\n      preStop: {sleep: {seconds: 10}}\nz: 1\n';
    const m = lineMapping(before, after);
    expect([1, 2, 3, 4, 5, 6].map(m)).toEqual([1, 2, 3, 4, 5, 8]);
  });
});
