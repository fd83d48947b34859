/**
 * --fix on files with more lines than a JavaScript call takes arguments (a 10k-object stream has
 * over a million): the line tables and the hunk application must not spread them into a call
 * (`push(...lines)` threw RangeError: Maximum call stack size exceeded).
 */
import { applyHunks } from '../../lib/fix/format';
import { lineCounterOf, lineStarts } from '../../lib/fix/pieces';

const LINES = 600_000;

test('line starts of a 600k-line text make a LineCounter', () => {
  const text = 'a: 1\n'.repeat(LINES);
  const starts = lineStarts(text);
  expect(starts.length).toBe(LINES + 1);
  const lc = lineCounterOf(starts);
  expect(lc.linePos(5 * (LINES - 1))).toEqual({ line: LINES, col: 1 });
});

test('hunks applied to a 600k-line text', () => {
  const text = 'a: 1\n'.repeat(LINES);
  const out = applyHunks(text, [{ start: 1, end: 2, lines: ['b: 2'] }], '\n');
  expect(out.length).toBe(text.length);
  expect(out.slice(0, 10)).toBe('a: 1\nb: 2\n');
  expect(out.endsWith('a: 1\n')).toBe(true);
});
