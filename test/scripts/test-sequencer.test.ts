/**
 * The test order (test/helpers/test-sequencer.js): with no jest cache (CI), the known slow files
 * first; jest's own timings win when it has them; failed files first; the table names only files
 * that exist.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

interface FakeTest {
  path: string;
  duration?: number;
  context: { config: Record<string, unknown>; hasteFS: { getSize(p: string): number | null } };
}
interface SequencerModule {
  new (): { sort(tests: FakeTest[]): FakeTest[]; _getCachePath(context: FakeTest['context']): string };
  order(tests: FakeTest[], by: { failed(t: FakeTest): boolean; duration(t: FakeTest): number | undefined; size(t: FakeTest): number }): FakeTest[];
  tableFrom(results: { testResults: { name: string; startTime: number; endTime: number }[] }): Record<string, number>;
  knownDurations(): Record<string, number>;
  UNKNOWN_MS: number;
}
const Sequencer = require('../helpers/test-sequencer') as SequencerModule;

const ROOT = path.resolve(__dirname, '../..');
const abs = (rel: string) => path.join(ROOT, rel);

function context(sizes: Record<string, number>, config: Record<string, unknown> = { cache: false }): FakeTest['context'] {
  return { config, hasteFS: { getSize: (p) => sizes[p] ?? null } };
}

test('jest uses this sequencer', () => {
  const config = require('../../jest.config.js') as { testSequencer?: string };
  expect(config.testSequencer).toBe('<rootDir>/test/helpers/test-sequencer.js');
});

test('the table names test files that exist, with durations of at least 1.5 s', () => {
  const table = Sequencer.knownDurations();
  expect(Object.keys(table).length).toBeGreaterThan(10);
  const missing = Object.keys(table).filter((f) => !fs.existsSync(abs(f)) || !f.endsWith('.test.ts'));
  expect(missing).toEqual([]);
  expect(Object.values(table).filter((ms) => !(typeof ms === 'number' && ms >= 1500))).toEqual([]);
  // The one whose late start made the tail of a cold run.
  expect(table['test/examples/app-repo.test.ts']).toBeGreaterThan(30_000);
});

test('order: failed first, then the longest, a file of unknown duration counted as UNKNOWN_MS, then the largest, then by path', () => {
  const t = (p: string): FakeTest => ({ path: p, context: context({}) });
  const tests = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map(t);
  const failed = new Set(['g']);
  const ms: Record<string, number | undefined> = { a: 500, b: 90_000, c: undefined, d: Sequencer.UNKNOWN_MS + 1, e: undefined, f: 500, g: 1 };
  const size: Record<string, number> = { a: 10, b: 1, c: 5, d: 1, e: 50, f: 10, g: 1 };
  const got = Sequencer.order(tests, { failed: (x) => failed.has(x.path), duration: (x) => ms[x.path], size: (x) => size[x.path] });
  expect(got.map((x) => x.path)).toEqual(['g', 'b', 'd', 'e', 'c', 'a', 'f']);
  // The input is not reordered in place, and the order does not depend on it.
  expect(tests.map((x) => x.path)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  const again = Sequencer.order([...tests].reverse(), { failed: (x) => failed.has(x.path), duration: (x) => ms[x.path], size: (x) => size[x.path] });
  expect(again.map((x) => x.path)).toEqual(got.map((x) => x.path));
});

test('with no jest cache (a fresh clone), the known slow files come first, the slowest first, whatever their size', () => {
  const table = Sequencer.knownDurations();
  const files = ['test/examples/app-repo.test.ts', 'test/rules/zero-grace-period.test.ts', 'test/helm/generate.test.ts', 'test/fix/chunks.test.ts', 'test/scripts/not-in-the-table.test.ts'];
  // Sizes as jest would sort them without timings: app-repo the smallest.
  const sizes = Object.fromEntries(files.map((f, i) => [abs(f), f.includes('app-repo') ? 1 : 100_000 - i]));
  const ctx = context(sizes);
  const sorted = new Sequencer().sort(files.map((f) => ({ path: abs(f), context: ctx })));
  const slow = files.filter((f) => table[f] !== undefined).sort((a, b) => table[b] - table[a]);
  expect(sorted.map((t) => path.relative(ROOT, t.path))).toEqual([...slow, ...files.filter((f) => table[f] === undefined)]);
  expect(sorted[0].path).toBe(abs('test/examples/app-repo.test.ts'));
  // jest reads test.duration (milliseconds) for its in-band decision: the table's figure.
  expect(sorted[0].duration).toBe(table['test/examples/app-repo.test.ts']);
});

test("jest's own timings and failures (its cache of the last run) win over the table", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-sequencer-'));
  try {
    const ctx = context({}, { cache: true, cacheDirectory: dir, id: 'kg-test', haste: {} });
    const seq = new Sequencer();
    const app = abs('test/examples/app-repo.test.ts');
    const fast = abs('test/rules/zero-grace-period.test.ts');
    const other = abs('test/fix/chunks.test.ts');
    // jest's cache format: path -> [1 passed | 0 failed, runtime in ms].
    fs.writeFileSync(seq._getCachePath(ctx), JSON.stringify({ [app]: [1, 10], [fast]: [1, 200_000], [other]: [0, 5] }));
    const sorted = seq.sort([app, fast, other].map((p) => ({ path: p, context: ctx })));
    expect(sorted.map((t) => t.path)).toEqual([other, fast, app]);
    expect(sorted.map((t) => t.duration)).toEqual([5, 200_000, 10]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the table is made from a jest --json output: files of 1.5 s or more, rounded to 0.1 s, repository-relative', () => {
  const r = (rel: string, ms: number) => ({ name: abs(rel), startTime: 1000, endTime: 1000 + ms });
  expect(Sequencer.tableFrom({ testResults: [r('test/b.test.ts', 1499), r('test/a.test.ts', 61_234), r('test/c/d.test.ts', 1500)] })).toEqual({ 'test/a.test.ts': 61_200, 'test/c/d.test.ts': 1500 });
});
