/**
 * `npm run bench`: one table of lint throughput, memory and start-up (issue 16). Each figure is
 * the best of BENCH_RUNS child processes (each run is a fresh `node`, so peak memory is that
 * run's own), over inputs built from the corpus (../shared/corpus/rendered, every object,
 * ConfigMaps included) copied into many namespaces, as one multi-document YAML file and as one
 * `kind: List` JSON file (a big `kubectl get -A -o json`); plus generated objects in few
 * namespaces at every size (the quadratic-rule case: objects/s across sizes is the growth curve), single-file start-up against `node -e 0`, and
 * --fix against the lint of the same input: the repairs in-process, and whole CLI processes
 * (`lint --fix` and `lint --fix --fix-proposals` on a fresh copy of the input, `--fix-dry-run
 * --fix-proposals`).
 * Environment: BENCH_SIZES (default 1000,10000,100000), BENCH_RUNS (default 3), BENCH_FIX
 * (objects for the --fix row, default 10000). Not a test: nothing here fails on a figure.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as yaml from 'js-yaml';
import * as os from 'os';
import * as path from 'path';
import { parseText } from '../lib/model/parse';
import { isClusterScoped } from '../lib/model/parse';
import { JsonObject } from '../lib/model/types';
import { generate, goYamlFolded, kubectlDump } from './generate';

const ROOT = path.resolve(__dirname, '../..');
const CORPUS = path.resolve(ROOT, '../shared/corpus/rendered');
const CHILD = path.join(__dirname, 'bench-child.js');
const CLI = path.join(ROOT, 'build/lib/cli/main.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

interface Run {
  ms: number;
  objects: number;
  peakMiB: number;
}

function child(mode: string, target: string): Run {
  let best: Run | undefined;
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(process.execPath, [CHILD, mode, target], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) return { ms: NaN, objects: 0, peakMiB: NaN, ...{ error: (r.stderr || r.signal || '').toString().split('\n').find((l) => /Error|heap/.test(l)) } };
    const run = JSON.parse(r.stdout.trim().split('\n').pop()!) as Run;
    if (!best || run.ms < best.ms) best = { ...run, peakMiB: Math.max(run.peakMiB, best?.peakMiB ?? 0) };
  }
  return best!;
}

function wall(args: string[]): number {
  let best = Infinity;
  for (let i = 0; i < Math.max(RUNS, 5); i++) {
    const t0 = process.hrtime.bigint();
    spawnSync(process.execPath, args, { encoding: 'utf8', cwd: path.join(ROOT, 'test/fixtures') });
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return best;
}

/**
 * Best wall time of each CLI command (whole processes), measured in `rounds` rounds of one run of
 * each, in order (`prepare` runs before each, untimed); NaN for a command that failed. Also each
 * command's time over the first one's per round, as the median over the rounds: the commands of a
 * round run side by side in time, so a slow spell of the machine (a noisy neighbour) weighs on
 * both terms of a round's ratio, where the best times of the two may come from different spells.
 */
function cliRounds(commands: string[][], prepare: () => void, rounds = RUNS): { best: number[]; medianRatio: number[] } {
  const best = commands.map(() => Infinity);
  const ratios: number[][] = commands.map(() => []);
  for (let i = 0; i < rounds; i++) {
    const times = commands.map((args) => {
      prepare();
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
      return r.status === null || r.status > 1 ? NaN : Number(process.hrtime.bigint() - t0) / 1e6;
    });
    times.forEach((ms, k) => {
      best[k] = Number.isNaN(ms) || Number.isNaN(best[k]) ? NaN : Math.min(best[k], ms);
      ratios[k].push(ms / times[0]);
    });
  }
  const median = (xs: number[]) => {
    const a = [...xs].sort((x, y) => x - y);
    return a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
  };
  return { best, medianRatio: ratios.map(median) };
}

/** The corpus objects, copied into as many namespaces as it takes to reach n objects. */
function corpusObjects(n: number): JsonObject[] {
  const base = fs
    .readdirSync(CORPUS)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => parseText(f, fs.readFileSync(path.join(CORPUS, f), 'utf8')).objects.map((o) => o.raw));
  const out: JsonObject[] = [];
  for (let copy = 0; out.length < n; copy++) {
    for (const o of base) {
      if (out.length >= n) break;
      const c = JSON.parse(JSON.stringify(o)) as JsonObject;
      const meta = (c.metadata ?? (c.metadata = {})) as JsonObject;
      if (isClusterScoped(String(c.kind))) meta.name = `${String(meta.name)}-${copy}`;
      else meta.namespace = `${String(meta.namespace ?? 'default')}-${copy}`;
      out.push(c);
    }
  }
  return out;
}

function fmt(n: number, digits = 0): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

function main(): void {
  const sizes = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
  const fixSize = Number(process.env.BENCH_FIX ?? 10000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-bench-'));
  const rows: string[][] = [];
  // parse ms: kubegrace's own reading; rules/parse: (lint - parse) / parse, the cost of the graph,
  // rules and sorting next to reading (the rules must cost little next to parsing).
  const head = ['input', 'objects', 'format', 'parse floor ms', 'parse ms', 'lint ms', 'objects/s', 'peak MiB', 'lint/floor', 'rules/parse', 'note'];
  const line = (r: string[]) => rows.push(r);
  console.error(`bench: ${RUNS} run(s) per figure in child processes; inputs in ${dir}`);
  for (const n of sizes) {
    const objs = corpusObjects(n);
    const yamlFile = path.join(dir, `corpus-${n}.yaml`);
    fs.writeFileSync(yamlFile, objs.map((o) => yaml.dump(o, { lineWidth: -1, noRefs: true })).join('---\n'));
    const jsonFile = path.join(dir, `corpus-${n}.json`);
    const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: objs };
    fs.writeFileSync(jsonFile, JSON.stringify(list, null, 4));
    // The same objects as one YAML List (as kubectl writes it): large objects in one document.
    const yamlListFile = path.join(dir, `corpus-list-${n}.yaml`);
    fs.writeFileSync(yamlListFile, yaml.dump(list, { lineWidth: -1, noRefs: true, noArrayIndent: true }));
    for (const [format, file] of [['YAML', yamlFile], ['JSON List', jsonFile], ['YAML List', yamlListFile]] as const) {
      console.error(`  corpus x namespaces, ${n} objects, ${format}...`);
      // (No floor for the YAML List: js-yaml holds about 16 times a text, 5.7 GB at 100k objects.)
      const floor = format === 'YAML List' ? { ms: NaN, objects: 0, peakMiB: NaN } : child('floor', file);
      const parse = child('parse', file);
      const lint = child('lint', file);
      const note = (lint as Run & { error?: string }).error ?? '';
      line(['corpus copies', String(n), format, fmt(floor.ms), fmt(parse.ms), fmt(lint.ms), fmt(lint.objects / (lint.ms / 1000)), fmt(lint.peakMiB), fmt(lint.ms / floor.ms, 2), fmt((lint.ms - parse.ms) / parse.ms, 2), note]);
    }
  }
  // A cluster as `kubectl get -A -o yaml` and `-o json` return it: one List document, the Pods'
  // and Events' long messages folded at 80 columns in the YAML, as go-yaml writes them.
  for (const n of sizes) {
    const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: kubectlDump(n) };
    const yamlFile = path.join(dir, `dump-${n}.yaml`);
    fs.writeFileSync(yamlFile, goYamlFolded(yaml.dump(list, { lineWidth: -1, noRefs: true, noArrayIndent: true })));
    const jsonFile = path.join(dir, `dump-${n}.json`);
    fs.writeFileSync(jsonFile, JSON.stringify(list, null, 4));
    for (const [format, file] of [['YAML List', yamlFile], ['JSON List', jsonFile]] as const) {
      console.error(`  kubectl get -A dump, ${n} objects, ${format}...`);
      const floor = child('floor', file);
      const parse = child('parse', file);
      const lint = child('lint', file);
      const note = (lint as Run & { error?: string }).error ?? '';
      line(['kubectl get -A dump', String(n), format, fmt(floor.ms), fmt(parse.ms), fmt(lint.ms), fmt(lint.objects / (lint.ms / 1000)), fmt(lint.peakMiB), fmt(lint.ms / floor.ms, 2), fmt((lint.ms - parse.ms) / parse.ms, 2), note]);
    }
  }
  // Generated objects in 50 namespaces, at every size: every rule's index is exercised with many
  // objects per namespace, and objects/s across the sizes is the growth curve (linear if constant).
  for (const genN of sizes) {
    const gen = generate(Math.ceil(genN / 4));
    const genDir = path.join(dir, `generated-${genN}`);
    fs.mkdirSync(genDir);
    for (const s of gen.sources) fs.writeFileSync(path.join(genDir, s.file.replace(/[^\w.-]/g, '_')), s.text);
    console.error(`  generated, ${gen.objects} objects in few namespaces...`);
    const gFloor = child('floor', genDir);
    const gParse = child('parse', genDir);
    const gLint = child('lint', genDir);
    line(['generated, 50 namespaces', String(gLint.objects || gen.objects), 'YAML files', fmt(gFloor.ms), fmt(gParse.ms), fmt(gLint.ms), fmt(gLint.objects / (gLint.ms / 1000)), fmt(gLint.peakMiB), fmt(gLint.ms / gFloor.ms, 2), fmt((gLint.ms - gParse.ms) / gParse.ms, 2), '']);
  }
  // --fix against the lint of the same input: the repairs in-process (fixSources, as the child's
  // lint is lintSources), then whole CLI processes: `lint`, `lint --fix` (the safe repairs, the
  // default), `lint --fix --fix-proposals`, each on a fresh copy of the input (they write the file),
  // and `--fix-dry-run --fix-proposals` (which also prints the diff). The CLI commands run in
  // rounds, one of each per round, so that a slower spell of the machine weighs on all of them;
  // ratios are of the minimums.
  const fixFile = path.join(dir, `corpus-${fixSize}.yaml`);
  if (!fs.existsSync(fixFile)) fs.writeFileSync(fixFile, corpusObjects(fixSize).map((o) => yaml.dump(o, { lineWidth: -1, noRefs: true })).join('---\n'));
  console.error(`  --fix, ${fixSize} objects...`);
  const fixLint = child('lint', fixFile);
  const fixSafe = child('fix-safe', fixFile);
  const fix = child('fix', fixFile);
  line(['repairs (fixSources) --fix', String(fixSize), 'YAML', '', '', fmt(fixSafe.ms), '', fmt(fixSafe.peakMiB), '', '', `in-process fix/lint ${fmt(fixSafe.ms / fixLint.ms, 2)} (lint ${fmt(fixLint.ms)} ms)`]);
  line(['repairs (fixSources) --fix-proposals', String(fixSize), 'YAML', '', '', fmt(fix.ms), '', fmt(fix.peakMiB), '', '', `in-process fix/lint ${fmt(fix.ms / fixLint.ms, 2)}`]);
  const work = path.join(dir, 'fix-work');
  const copy = () => {
    fs.rmSync(work, { recursive: true, force: true });
    fs.mkdirSync(work);
    fs.copyFileSync(fixFile, path.join(work, 'input.yaml'));
  };
  // (At least 5 rounds: one round's ratio moves by a tenth with this machine's noise.)
  const fixRounds = Math.max(RUNS, 5);
  const cli = cliRounds([['lint', work], ['lint', '--fix', work], ['lint', '--fix', '--fix-proposals', work], ['lint', '--fix-dry-run', '--fix-proposals', work]], copy, fixRounds);
  const [cliLint, cliFixSafe, cliFix, cliDry] = cli.best;
  const perRound = (k: number) => `; per-round median ${fmt(cli.medianRatio[k], 2)}`;
  line(['CLI lint --fix', String(fixSize), 'YAML', '', '', fmt(cliFixSafe), '', '', '', '', `fix/lint ${fmt(cliFixSafe / cliLint, 2)}${perRound(1)} (CLI lint ${fmt(cliLint)} ms, whole processes, best of ${fixRounds} rounds)`]);
  line(['CLI lint --fix --fix-proposals', String(fixSize), 'YAML', '', '', fmt(cliFix), '', '', '', '', `fix/lint ${fmt(cliFix / cliLint, 2)}${perRound(2)}`]);
  line(['CLI lint --fix-dry-run --fix-proposals', String(fixSize), 'YAML', '', '', fmt(cliDry), '', '', '', '', `dry-run/lint ${fmt(cliDry / cliLint, 2)}${perRound(3)}`]);
  // Start-up: one small file, whole process, against node -e 0.
  console.error('  start-up...');
  const nodeMs = wall(['-e', '0']);
  const lintMs = wall([CLI, 'lint', 'good.yaml']);
  line(['start-up: lint good.yaml', '1', 'YAML', '', '', fmt(lintMs), '', '', '', '', `node -e 0 ${fmt(nodeMs)} ms, ratio ${fmt(lintMs / nodeMs, 2)}`]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const show = (r: string[]) => r.map((c, i) => (i < 3 || i === r.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  console.log(show(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(show(r));
  fs.rmSync(dir, { recursive: true, force: true });
}

main();
