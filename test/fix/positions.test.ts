/**
 * positionMapping: positions in the fixer's output mapped back to the file on disk, which is where
 * `--fix-dry-run` must report what remains.
 */
import { positionMapping } from '../../lib/fix/format';

const ORIGINAL = ['a: 1', 'spec:', '  grace: 20', '  name: web', 'tail: x', ''].join('\n');

describe('positionMapping', () => {
  const cases: { name: string; fixed: string; original?: string; at: [number, number]; want: [number, number] }[] = [
    { name: 'identical text: every position stays', fixed: ORIGINAL, at: [4, 3], want: [4, 3] },
    { name: 'kept line after an insertion moves up, same column', fixed: ORIGINAL.replace('spec:\n', 'spec:\n  pre: 1\n  stop: 2\n'), at: [6, 3], want: [4, 3] },
    { name: 'kept line before the change does not move', fixed: ORIGINAL.replace('tail: x', 'tail: y'), at: [3, 10], want: [3, 10] },
    { name: 'inserted line maps to the line before which it goes, first non-blank column', fixed: ORIGINAL.replace('spec:\n', 'spec:\n  pre: 1\n'), at: [3, 5], want: [3, 3] },
    { name: 'rewritten value after the same key keeps its column', fixed: ORIGINAL.replace('grace: 20', 'grace: 40'), at: [3, 10], want: [3, 10] },
    { name: 'rewritten line that reads differently before the column goes to its first non-blank column', fixed: ORIGINAL.replace('  grace: 20', '  period: 40'), at: [3, 11], want: [3, 3] },
    { name: 'kept line after a deletion moves down', fixed: ORIGINAL.replace('  grace: 20\n', ''), at: [3, 3], want: [4, 3] },
    { name: 'appended lines map to the last line of the original', fixed: ORIGINAL + 'more: 1\nand: 2\n', at: [7, 1], want: [5, 1] },
    { name: 'CRLF files map like LF files', fixed: ORIGINAL.replace('spec:\n', 'spec:\n  pre: 1\n').replace(/\n/g, '\r\n'), original: ORIGINAL.replace(/\n/g, '\r\n'), at: [5, 3], want: [4, 3] },
    { name: 'a file without a final newline', fixed: 'a: 1\nb: 2\nc: 3', original: 'a: 1\nc: 3', at: [3, 4], want: [2, 4] },
  ];
  test.each(cases)('$name', ({ fixed, original, at, want }) => {
    const map = positionMapping(fixed, original ?? ORIGINAL);
    expect(map({ line: at[0], column: at[1] })).toEqual({ line: want[0], column: want[1] });
  });

  test('every mapped line exists in the original', () => {
    const fixed = ORIGINAL.replace('spec:\n', 'spec:\n  x: 1\n  y: 2\n  z: 3\n') + 'extra: 1\n';
    const map = positionMapping(fixed, ORIGINAL);
    const lines = ORIGINAL.split('\n').length - 1;
    for (let l = 1; l <= fixed.split('\n').length; l++) {
      const p = map({ line: l, column: 1 });
      expect(p.line).toBeGreaterThanOrEqual(1);
      expect(p.line).toBeLessThanOrEqual(lines);
    }
  });
});
