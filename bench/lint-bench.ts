/**
 * `npm run bench`: lint throughput on a generated manifest set of realistic shape.
 * Measures parse-only time and full lint time (parse + graph + every rule) in the same process,
 * best of several runs after a warm-up, and ends with the line the issue asks for:
 *   lint/parse ratio: R (N objects, M objects/s)
 * Environment: BENCH_APPS (default 2600 apps, about 10,400 objects), BENCH_RUNS (default 5).
 */
import { loadPolicy } from '../lib/engine/policy';
import { lintSources, parseSources, runRules } from '../lib/engine/run';
import { KubeVersion } from '../lib/engine/version';
import { fixSources } from '../lib/fix';
import { ALL_RULES } from '../lib/rules';
import { generate } from './generate';

function time<T>(fn: () => T): [T, number] {
  const t0 = process.hrtime.bigint();
  const v = fn();
  return [v, Number(process.hrtime.bigint() - t0) / 1e6];
}

function main(): void {
  const apps = Number(process.env.BENCH_APPS ?? 2600);
  const runs = Number(process.env.BENCH_RUNS ?? 5);
  const { sources, objects } = generate(apps);
  const bytes = sources.reduce((a, s) => a + s.text.length, 0);
  const policy = loadPolicy('recommended', ALL_RULES);
  const opts = { rules: ALL_RULES, policy, version: KubeVersion.parse('1.33') };
  console.log(`input: ${sources.length} files, ${objects} objects, ${(bytes / 1e6).toFixed(1)} MB; ${ALL_RULES.length} rules; best of ${runs} runs after a warm-up`);
  // Warm-up (JIT), also checking the input is what we think it is.
  const warm = lintSources(sources, opts);
  if (warm.objects !== objects || warm.errors.length) throw new Error(`generator produced ${warm.objects} objects and ${warm.errors.length} errors`);
  let parseBest = Infinity;
  let lintBest = Infinity;
  let rulesBest = Infinity;
  let findings = 0;
  for (let i = 0; i < runs; i++) {
    const [, tParse] = time(() => parseSources(sources));
    const [res, tLint] = time(() => lintSources(sources, opts));
    const objs = res.parsed.flatMap((p) => p.objects);
    const [, tRules] = time(() => runRules(objs, opts));
    parseBest = Math.min(parseBest, tParse);
    lintBest = Math.min(lintBest, tLint);
    rulesBest = Math.min(rulesBest, tRules);
    findings = res.findings.length;
  }
  const ratio = lintBest / parseBest;
  console.log(`parse only:               ${parseBest.toFixed(0)} ms`);
  console.log(`graph + rules only:       ${rulesBest.toFixed(0)} ms (${((rulesBest / parseBest) * 100).toFixed(0)}% of parse)`);
  console.log(`full lint (parse+rules):  ${lintBest.toFixed(0)} ms, ${findings} findings`);
  // --fix --fix-proposals over the same input, once (it re-lints, edits and re-checks every
  // repaired document, so it is expected to cost a few times a lint; printed before the ratio
  // line, which stays last for tools that read it).
  const [fixed, tFix] = time(() => fixSources(sources, { ...opts, proposals: true }));
  const repairs = fixed.files.reduce((n, f) => n + f.applied.length, 0);
  console.log(`fix (with proposals):     ${tFix.toFixed(0)} ms, ${repairs} repairs in ${fixed.files.filter((f) => f.applied.length).length} files, ${fixed.passes} pass(es)`);
  console.log(`lint/parse ratio: ${ratio.toFixed(2)} (${objects} objects, ${Math.round(objects / (lintBest / 1000))} objects/s)`);
}

main();
