/**
 * One measurement of `npm run bench`, in its own process so that its peak memory is its own:
 *   node build/bench/bench-child.js floor|parse|lint|fix|fix-safe PATH
 * floor: the parser alone (JSON.parse for .json, js-yaml loadAll for YAML); parse: kubegrace's own
 * reading (values as the API server reads them, positions, the JSON fast path); lint: what
 * `kubegrace lint PATH` does (read, parse, graph, rules, sort); fix: the repairs of `--fix
 * --fix-proposals` in-process (fixSources: repairs computed, checked and read back, and the last
 * lint, which is the report of what remains; nothing written); fix-safe: the same for `--fix`
 * (the safe repairs alone). Prints one JSON line:
 * {ms, objects, peakMiB}.
 */
import * as yaml from 'js-yaml';
import { loadPolicy } from '../lib/engine/policy';
import { lintSources, parseSources } from '../lib/engine/run';
import { KubeVersion } from '../lib/engine/version';
import { fixSources } from '../lib/fix';
import { collectSources } from '../lib/model/sources';
import { ALL_RULES } from '../lib/rules';

function main(): void {
  const [mode, target] = process.argv.slice(2);
  const opts = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.33') };
  const t0 = process.hrtime.bigint();
  let objects = 0;
  // The bench's inputs are large on purpose (a 100k-object List is ~0.5 GB): no size limit.
  // As `kubegrace lint` reads (a large file in chunks) except for the floor and --fix.
  const { sources, errors } = collectSources([target], { maxFileSize: Number.MAX_SAFE_INTEGER, stream: mode === 'lint' || mode === 'parse' });
  for (const e of errors) process.stderr.write(`${e.file}: ${e.message}\n`);
  if (mode === 'floor') {
    for (const s of sources) {
      if (s.file.endsWith('.json')) {
        const v = JSON.parse(s.text) as { items?: unknown[] };
        objects += Array.isArray(v.items) ? v.items.length : 1;
      } else {
        yaml.loadAll(s.text, () => objects++);
      }
    }
  } else if (mode === 'parse') {
    objects = parseSources(sources).reduce((a, p) => a + p.objects.length, 0);
  } else if (mode === 'lint') {
    // As `kubegrace lint` does (no --fix): a source may drop its bytes once read.
    objects = lintSources(sources, { ...opts, releaseBytes: true }).objects;
  } else if (mode === 'fix' || mode === 'fix-safe') {
    const r = fixSources(sources, { ...opts, proposals: mode === 'fix' });
    objects = r.files.length;
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  // maxRSS is in KiB: the peak of this process, parse and all.
  process.stdout.write(`${JSON.stringify({ ms, objects, peakMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
}

main();
