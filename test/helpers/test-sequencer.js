/**
 * jest's test order with the known slow files first even when jest has no timings (issue 16).
 *
 * Jest hands test files to its workers in the order its sequencer gives, each worker taking the next
 * file when it is free. Its own sequencer puts the files with the longest durations of the last run
 * first (from its cache), which keeps both workers busy to the end; with no cache (CI: a fresh
 * clone) it sorts by file size instead, so a short file with a long run (examples/app-repo: small,
 * ~60 s of npm, tsc and cdk8s) can start late and make the tail of the run alone.
 *
 * This sequencer sorts as jest does (files that failed last time first, then the longest first), but
 * takes a file's duration from jest's cache when it has one and otherwise from the table checked in
 * beside it (test-durations.json: wall milliseconds of the files that take 1.5 s or more, from a
 * whole run with 2 workers). A file in neither (new, or fast) counts as UNKNOWN_MS and files of
 * equal duration keep jest's order by size, largest first.
 *
 * To refresh the table from a whole run: `npx jest --json --outputFile=/tmp/run.json`, then
 * `node test/helpers/test-sequencer.js /tmp/run.json` (rewrites test-durations.json). A file of the
 * table that no longer exists fails test/scripts/test-sequencer.test.ts.
 */
'use strict';
const fs = require('fs');
const path = require('path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = path.resolve(__dirname, '../..');
const TABLE = path.join(__dirname, 'test-durations.json');
/** The duration of a file that neither jest's cache nor the table knows: above most fast files, below the slow ones. */
const UNKNOWN_MS = 1000;
/** Files at least this long go into the table. */
const TABLE_FROM_MS = 1500;

/** The table: repository-relative path (with /) -> wall milliseconds. */
function knownDurations() {
  try {
    return JSON.parse(fs.readFileSync(TABLE, 'utf8'));
  } catch {
    return {};
  }
}

const relative = (file) => path.relative(ROOT, file).split(path.sep).join('/');

/**
 * The order: failed first, then by duration (longest first), then by size (largest first), then by
 * path (a total order: the same input gives the same order). Pure: `failed`, `duration` (ms or
 * undefined) and `size` are functions of a test.
 */
function order(tests, { failed, duration, size }) {
  const key = new Map(tests.map((t) => [t, { failed: failed(t), ms: duration(t) ?? UNKNOWN_MS, size: size(t) }]));
  return [...tests].sort((a, b) => {
    const x = key.get(a);
    const y = key.get(b);
    if (x.failed !== y.failed) return x.failed ? -1 : 1;
    if (x.ms !== y.ms) return y.ms - x.ms;
    if (x.size !== y.size) return y.size - x.size;
    return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  });
}

class KnownDurationsSequencer extends Sequencer {
  sort(tests) {
    const table = knownDurations();
    for (const t of tests) {
      const cached = this.time(t);
      const known = table[relative(t.path)];
      // (jest also reads test.duration: with all durations under 1 s, up to 20 files run in band.)
      t.duration = cached ?? (typeof known === 'number' ? known : undefined);
    }
    return order(tests, {
      failed: (t) => this.hasFailed(t),
      duration: (t) => t.duration,
      size: (t) => (t.context && t.context.hasteFS && t.context.hasteFS.getSize(t.path)) || 0,
    });
  }
}

/** test-durations.json from a `jest --json` output: files of TABLE_FROM_MS or more, sorted by path. */
function tableFrom(results) {
  const out = {};
  for (const r of results.testResults) {
    const ms = r.endTime - r.startTime;
    if (ms >= TABLE_FROM_MS) out[relative(r.name)] = Math.round(ms / 100) * 100;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

module.exports = KnownDurationsSequencer;
module.exports.order = order;
module.exports.tableFrom = tableFrom;
module.exports.knownDurations = knownDurations;
module.exports.UNKNOWN_MS = UNKNOWN_MS;

if (require.main === module) {
  const input = process.argv[2];
  if (!input) {
    process.stderr.write('usage: node test/helpers/test-sequencer.js JEST_JSON_OUTPUT\n');
    process.exit(2);
  }
  const table = tableFrom(JSON.parse(fs.readFileSync(input, 'utf8')));
  fs.writeFileSync(TABLE, JSON.stringify(table, null, 2) + '\n');
  process.stdout.write(`${Object.keys(table).length} files of ${TABLE_FROM_MS / 1000} s or more written to ${relative(TABLE)}\n`);
}
