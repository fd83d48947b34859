/**
 * `npm run synth`: synthesize the charts-src apps as `cdk8s synth` does (whose kubegrace validation
 * plugin, configured in cdk8s.yaml, fails the synth on error findings), check that every app was
 * written to dist/manifests/<app>.yaml, then lint what was written with the strict policy and
 * --fail-on warning. Then turn each app into a Helm chart in dist/charts/<app>, check it with the
 * real `helm lint --strict`, lint its default `helm template` rendering the same way (and at each
 * supported Kubernetes version), and package the charts reproducibly into dist/packages with a
 * repository index. Exits non-zero if any step fails. Ends with where the time went, step by step.
 *
 * Nothing changed, nothing redone (issue 16: <= 5 s): a successful run records a fingerprint of
 * everything its result depends on (the compiled kubegrace and apps in build/, cdk8s.yaml,
 * package.json, the policies, catalog and rule docs read at run time, the installed dependencies,
 * the helm binary, node, and the environment variables kubegrace, cdk8s and helm read), the digest
 * of every file it wrote under dist/ and what it printed. The next run whose fingerprint is the same
 * and whose dist/ files are still exactly those prints the recorded output again and exits 0 with
 * dist/ untouched; any difference runs everything. A failed run records nothing (and removes the
 * record), so it fails again, with the same findings, until something changes.
 * `npm run synth -- --force` (or KUBEGRACE_SYNTH_FORCE=1) always runs everything.
 */
import { spawn, spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Worker } from 'worker_threads';

const root = path.resolve(__dirname, '../..');
const dist = path.join(root, 'dist');
const out = path.join(dist, 'manifests');
const chartsDir = path.join(dist, 'charts');
const packagesDir = path.join(dist, 'packages');
/** What dist/ holds after a run, all of it written by the run. */
const OUTPUT_DIRS = [out, chartsDir, packagesDir];
/** The record of the last successful run (build/ goes with what it was computed from). */
export const STAMP = path.join(root, 'build', '.synth-stamp.json');
/** Kubernetes versions every chart's rendering is re-linted at (those below a chart's kubeVersion skipped). */
const LINT_VERSIONS = ['1.25', '1.28', '1.29', '1.30', '1.33'];

// ---------------------------------------------------------------------------------------------
// Where the time goes

/** Seconds per step, printed at the end (issue 16: say where the time of `npm run synth` goes). */
const times: Array<[string, number]> = [];
let mark = process.hrtime.bigint();
function step(name: string): void {
  const now = process.hrtime.bigint();
  times.push([name, Number(now - mark) / 1e9]);
  mark = now;
}

/**
 * The `npm run build` that ran just before this script: the time between the start of the shell
 * npm started for `npm run synth` (our parent) and our own start, from /proc (Linux only).
 */
function buildSeconds(): number | undefined {
  try {
    const start = (pid: number | string) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[19]);
    const ticks = start('self') - start(process.ppid);
    return ticks >= 0 ? ticks / 100 : undefined; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

function printTimes(): void {
  const build = buildSeconds();
  const rows: Array<[string, number | undefined]> = [['build (tsc, incremental)', build], ['node start-up and module loading', process.uptime() - times.reduce((a, [, t]) => a + t, 0)], ...times];
  const total = rows.reduce((a, [, t]) => a + (t ?? 0), 0);
  const width = Math.max(...rows.map(([name]) => name.length));
  console.log('where the time went:');
  for (const [name, t] of rows) console.log(`  ${name.padEnd(width)} ${t === undefined ? '   n/a' : `${t.toFixed(2).padStart(6)} s`}`);
  console.log(`  ${'total'.padEnd(width)} ${total.toFixed(2).padStart(6)} s`);
}

// ---------------------------------------------------------------------------------------------
// The fingerprint of the inputs and the record of the outputs

/** Files under `dir` (recursively), as paths relative to `root`, sorted; none if it is missing. */
function filesUnder(dir: string, keep: (rel: string) => boolean = () => true): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() || e.isSymbolicLink()) {
        const rel = path.relative(root, p);
        if (keep(rel)) found.push(rel);
      }
    }
  };
  walk(dir);
  return found.sort();
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The helm binary kubegrace and this script run (HELM_BIN, else the first `helm` on PATH), as findHelm finds it. */
function helmBinary(): string | undefined {
  if (process.env.HELM_BIN) return process.env.HELM_BIN;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'helm');
    try {
      if (fs.statSync(candidate).isFile()) {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      }
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** Environment variables that change what the run writes or prints. */
const ENV_READ = /^(CDK8S_|HELM_|KUBEGRACE_|XDG_)|^(SOURCE_DATE_EPOCH|NO_COLOR|FORCE_COLOR|TZ|HOME|TMPDIR)$/;

/**
 * Everything the result of a run depends on, as one digest. The compiled code in build/ stands for
 * lib/ and charts-src/ (`npm run build` has just compiled them); source maps and declarations do not
 * run. The installed dependencies are npm's record of node_modules (node_modules/.package-lock.json,
 * rewritten by every npm install). helm by its path, size and modification time.
 */
export function fingerprint(): string {
  const h = createHash('sha256');
  const add = (label: string, value: string | Buffer) => {
    h.update(`${label}\0${Buffer.byteLength(value)}\0`);
    h.update(value);
  };
  const code = (rel: string) => !/\.(map|d\.ts|tsbuildinfo)$/.test(rel) && rel !== path.relative(root, STAMP);
  const files = [
    ...filesUnder(path.join(root, 'build'), code),
    ...filesUnder(path.join(root, 'policies')),
    ...filesUnder(path.join(root, 'lib', 'catalog'), (rel) => !rel.endsWith('.ts')),
    ...filesUnder(path.join(root, 'docs', 'rules')),
    'cdk8s.yaml',
    'package.json',
  ];
  for (const rel of files) {
    let data: Buffer;
    try {
      data = fs.readFileSync(path.join(root, rel));
    } catch {
      data = Buffer.from('(missing)');
    }
    add(`file ${rel}`, data);
  }
  const lock = [path.join(root, 'node_modules', '.package-lock.json'), path.join(root, 'package-lock.json')].find((f) => fs.existsSync(f));
  add('dependencies', lock ? fs.readFileSync(lock) : '(none)');
  const helm = helmBinary();
  let helmId = '(not found)';
  if (helm) {
    try {
      const st = fs.statSync(helm);
      helmId = `${fs.realpathSync(helm)} ${st.size} ${st.mtimeMs}`;
    } catch {
      helmId = `${helm} (unreadable)`;
    }
  }
  add('helm', helmId);
  add('node', `${process.version} ${process.platform} ${process.arch}`);
  const env = Object.keys(process.env)
    .filter((k) => ENV_READ.test(k))
    .sort()
    .map((k) => `${k}=${process.env[k]}`);
  add('env', env.join('\n'));
  add('terminal', `${!!process.stdout.isTTY} ${!!process.stderr.isTTY} ${process.stdout.columns ?? ''}`);
  return h.digest('hex');
}

/** Every file the run writes under dist/, with its digest. */
export function outputs(): Record<string, string> {
  const r: Record<string, string> = {};
  for (const d of OUTPUT_DIRS) for (const rel of filesUnder(d)) r[rel] = sha256(fs.readFileSync(path.join(root, rel)));
  return r;
}

interface Stamp {
  fingerprint: string;
  date: string;
  outputs: Record<string, string>;
  /** What the run printed, in order: [1 = stdout | 2 = stderr, text]. */
  printed: Array<[1 | 2, string]>;
}

function readStamp(): Stamp | undefined {
  try {
    return JSON.parse(fs.readFileSync(STAMP, 'utf8')) as Stamp;
  } catch {
    return undefined;
  }
}

export function sameOutputs(recorded: Record<string, string>): boolean {
  const now = outputs();
  const a = Object.keys(recorded);
  return a.length === Object.keys(now).length && a.every((k) => now[k] === recorded[k]);
}

/** Everything written to stdout and stderr from now on, also kept in `printed`. */
function record(printed: Array<[1 | 2, string]>): void {
  for (const [fd, stream] of [
    [1, process.stdout],
    [2, process.stderr],
  ] as const) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      printed.push([fd, typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8')]);
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
}

// ---------------------------------------------------------------------------------------------
// The steps

function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

/**
 * `cdk8s synth --output dist/manifests` in this process: cdk8s.yaml's `app` (`node FILE`) is
 * required here with the environment cdk8s gives it, then cdk8s-cli's own validation step runs the
 * plugins of cdk8s.yaml and prints their reports (exit 2 on a failed validation, as cdk8s synth).
 * Any other kind of `app` runs through the real cdk8s CLI.
 */
async function cdk8sSynth(): Promise<void> {
  const cli = path.join(root, 'node_modules', 'cdk8s-cli', 'lib');
  const { readConfigSync } = require(path.join(cli, 'config.js')) as { readConfigSync(): { app?: string; validations?: unknown; pluginsDirectory?: string } | undefined };
  const config = readConfigSync();
  const app = /^node\s+(\S+)$/.exec(config?.app ?? '');
  const validations = config?.validations;
  if (!app || (validations !== undefined && !Array.isArray(validations))) {
    // A URL of validations, or an app that is not a node script: the real CLI.
    const r = spawnSync(path.join(root, 'node_modules', '.bin', 'cdk8s'), ['synth', '--no-check-upgrade', '--output', out], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) fail(`cdk8s synth failed (exit ${r.status ?? r.signal})`, r.status ?? 1);
    return;
  }
  const util = require(path.join(cli, 'util.js')) as {
    findManifests(dir: string): Promise<string[]>;
    findConstructMetadata(dir: string): string | undefined;
    validateApp(app: { manifests: string[]; constructMetadata?: string }, stdout: boolean, validations: unknown[], pm: unknown, reportsFile?: string): Promise<void>;
  };
  const { PluginManager } = require(path.join(cli, 'plugins', '_manager.js')) as { PluginManager: new (dir: string) => unknown };
  const plugins = validations as unknown[] | undefined;
  fs.rmSync(out, { recursive: true, force: true });
  console.log('Synthesizing application');
  const saved = { outdir: process.env.CDK8S_OUTDIR, record: process.env.CDK8S_RECORD_CONSTRUCT_METADATA };
  process.env.CDK8S_OUTDIR = out;
  process.env.CDK8S_RECORD_CONSTRUCT_METADATA = saved.record ?? (plugins?.length ? 'true' : 'false');
  // cdk8s reads the app's stdout and drops it; its stderr goes to the terminal.
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  try {
    require(path.resolve(root, app[1]));
  } catch (e) {
    process.stdout.write = write;
    fail(`cdk8s synth failed: the app (${config?.app}) threw:\n${(e as Error).stack ?? String(e)}`);
  } finally {
    process.stdout.write = write;
    for (const [k, v] of [
      ['CDK8S_OUTDIR', saved.outdir],
      ['CDK8S_RECORD_CONSTRUCT_METADATA', saved.record],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  if (!fs.existsSync(out)) fail(`ERROR: synthesis failed, app expected to create "${out}"`);
  const manifests = await util.findManifests(out);
  for (const m of manifests) console.log(`  - ${m}`);
  if (!manifests.length) console.error('No manifests synthesized');
  if (plugins?.length) {
    const pm = new PluginManager(config?.pluginsDirectory ?? path.join(os.homedir(), '.cdk8s', 'plugins'));
    await util.validateApp({ manifests, constructMetadata: util.findConstructMetadata(out) }, false, plugins, pm);
  }
}

/** A child process's exit code and output. */
function runAsync(cmd: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', (e) => resolve({ status: 127, stdout, stderr: `${stderr}${e.message}\n` }));
    child.on('close', (code) => resolve({ status: code ?? 1, stdout, stderr }));
  });
}

/** Runs `jobs` with at most `n` at a time; results in job order. */
async function pool<T, R>(jobs: T[], n: number, run: (job: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await run(jobs[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, jobs.length) }, worker));
  return results;
}

const CORES = Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);

/**
 * `kubegrace lint ARGS` for each job, `CORES` at a time in worker threads (each renders its charts
 * with helm and lints them as the CLI does); exit code and output per job, in job order.
 */
async function lintInParallel(jobs: string[][]): Promise<Array<{ code: number; printed: Array<[1 | 2, string]> }>> {
  const source = `
    const { parentPort, workerData } = require('worker_threads');
    const { main } = require(workerData.main);
    parentPort.on('message', (argv) => {
      const printed = [];
      const code = main(argv, {
        cwd: process.cwd(),
        stdout: (s) => printed.push([1, s]),
        stderr: (s) => printed.push([2, s]),
        readStdin: () => '',
        stdoutIsTTY: workerData.stdoutIsTTY,
        stderrIsTTY: workerData.stderrIsTTY,
        columns: workerData.columns,
      });
      parentPort.postMessage({ code, printed });
    });`;
  const workers = Array.from({ length: Math.min(CORES, jobs.length) }, () => new Worker(source, { eval: true, workerData: { main: path.join(__dirname, '..', 'lib', 'cli', 'main.js'), stdoutIsTTY: !!process.stdout.isTTY, stderrIsTTY: !!process.stderr.isTTY, columns: process.stdout.columns } }));
  const idle = [...workers];
  const waiting: Array<(w: Worker) => void> = [];
  const take = () => new Promise<Worker>((resolve) => (idle.length ? resolve(idle.pop()!) : waiting.push(resolve)));
  const give = (w: Worker) => (waiting.length ? waiting.shift()!(w) : idle.push(w));
  try {
    return await pool(jobs, workers.length, async (argv) => {
      const w = await take();
      try {
        return await new Promise<{ code: number; printed: Array<[1 | 2, string]> }>((resolve, reject) => {
          w.once('message', resolve);
          w.once('error', reject);
          w.postMessage(argv);
        });
      } finally {
        w.removeAllListeners('message');
        w.removeAllListeners('error');
        give(w);
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

function replay(printed: Array<[1 | 2, string]>): void {
  for (const [fd, s] of printed) (fd === 1 ? process.stdout : process.stderr).write(s);
}

async function fullRun(): Promise<void> {
  fs.mkdirSync(out, { recursive: true });
  await cdk8sSynth();
  fs.mkdirSync(out, { recursive: true });
  // Written for the validation report only (construct paths by resource name); not a manifest.
  fs.rmSync(path.join(out, 'construct-metadata.json'), { force: true });
  const { APPS, DESCRIPTIONS } = require('../charts-src/apps') as typeof import('../charts-src/apps');
  const missing = Object.keys(APPS).filter((name) => !fs.existsSync(path.join(out, `${name}.yaml`)));
  if (missing.length) fail(`cdk8s synth wrote no manifest for: ${missing.join(', ')}`);
  const files = fs.readdirSync(out).filter((f) => f.endsWith('.yaml'));
  console.log(`synthesized ${files.length} app(s) into ${path.relative(root, out)}`);
  step('cdk8s synth (with the validation plugin, in-process)');

  const { main } = require('../lib/cli/main') as typeof import('../lib/cli/main');
  const code = main(['lint', out, '--policy', 'strict', '--fail-on', 'warning']) as number;
  if (code !== 0) process.exit(code);
  step('lint of the manifests');

  // Charts: one per app, versioned with this package.
  const { firstImageTag } = require('../lib/cli/chart') as typeof import('../lib/cli/chart');
  const { generateChart } = require('../lib/helm/generate') as typeof import('../lib/helm/generate');
  const { findHelm } = require('../lib/helm/helm-bin') as typeof import('../lib/helm/helm-bin');
  const version: string = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  fs.rmSync(chartsDir, { recursive: true, force: true });
  fs.rmSync(packagesDir, { recursive: true, force: true });
  const names = Object.keys(APPS);
  const chartDirs: string[] = [];
  for (const name of names) {
    const manifests = fs.readFileSync(path.join(out, `${name}.yaml`), 'utf8');
    // Named by file, so a refusal (lib/helm/refusals.ts) says dist/manifests/<app>.yaml:line:column.
    const file = path.relative(root, path.join(out, `${name}.yaml`));
    chartDirs.push(generateChart([{ file, text: manifests }], { name, version, appVersion: firstImageTag(manifests) ?? version, description: DESCRIPTIONS[name] ?? name }, chartsDir).dir);
  }
  step('chart generation');
  let helm: string;
  try {
    helm = findHelm();
  } catch (e) {
    fail(`helm lint --strict failed: ${(e as Error).message}`);
  }
  const lints = await pool(chartDirs, CORES, (dir) => runAsync(helm, ['lint', '--strict', dir]));
  lints.forEach((lint, i) => {
    if (lint.status !== 0) fail(`helm lint --strict failed for ${names[i]}:\n${lint.stdout}${lint.stderr}`);
  });
  console.log(`generated ${chartDirs.length} chart(s) into ${path.relative(root, chartsDir)}; helm lint --strict passed`);
  step(`helm lint --strict (${Math.min(CORES, chartDirs.length)} at a time)`);

  // The default rendering of each chart must be as clean as the manifests it came from, at every
  // supported Kubernetes version the chart accepts (the templates choose fields by the version).
  // The lints run side by side; their output is printed in this order, up to the first failure.
  const accepted = (v: string) =>
    chartDirs.filter((d) => {
      const m = /^kubeVersion: ">=(\d+)\.(\d+)\./m.exec(fs.readFileSync(path.join(d, 'Chart.yaml'), 'utf8'));
      const [maj, min] = v.split('.').map(Number);
      return !m || maj > Number(m[1]) || (maj === Number(m[1]) && min >= Number(m[2]));
    });
  const jobs = [['lint', ...chartDirs, '--policy', 'strict', '--fail-on', 'warning'], ...LINT_VERSIONS.map((v) => ['lint', ...accepted(v), '--policy', 'strict', '--fail-on', 'warning', '--kube-version', v, '--quiet'])];
  const results = await lintInParallel(jobs);
  const relinted: string[] = [];
  for (const [i, r] of results.entries()) {
    replay(r.printed);
    if (r.code !== 0) {
      if (i > 0) console.error(`the charts' rendering at Kubernetes ${LINT_VERSIONS[i - 1]} is not lint-clean`);
      process.exit(r.code);
    }
    if (i === 0) continue;
    const v = LINT_VERSIONS[i - 1];
    const dirs = accepted(v);
    const skipped = chartDirs.filter((d) => !dirs.includes(d)).map((d) => path.basename(d));
    relinted.push(`  ${v}: ${dirs.length} of ${chartDirs.length} chart(s)${skipped.length ? ` (below the kubeVersion of ${skipped.join(', ')})` : ''}`);
  }
  console.log(`re-linted the charts' renderings at each Kubernetes version (strict, --fail-on warning):\n${relinted.join('\n')}`);
  step(`helm template and lint of the charts (all versions, ${Math.min(CORES, jobs.length)} at a time)`);

  const { packageChart } = require('../lib/helm/package') as typeof import('../lib/helm/package');
  const { writeRepoIndex } = require('../lib/helm/repo-index') as typeof import('../lib/helm/repo-index');
  try {
    for (const dir of chartDirs) await packageChart(dir, packagesDir);
    await writeRepoIndex(packagesDir);
  } catch (e) {
    fail(`packaging failed: ${(e as Error).message}`);
  }
  console.log(`packaged ${chartDirs.length} chart(s) into ${path.relative(root, packagesDir)} with index.yaml`);
  step('packaging and repository index');
}

async function synth(): Promise<void> {
  process.chdir(root); // cdk8s.yaml and its plugin paths are read relative to the working directory
  const force = process.argv.includes('--force') || process.env.KUBEGRACE_SYNTH_FORCE === '1';
  const key = fingerprint();
  step('fingerprint of the inputs');
  const stamp = force ? undefined : readStamp();
  if (stamp?.fingerprint === key && sameOutputs(stamp.outputs)) {
    step('check of dist/ against the last run');
    replay(stamp.printed);
    console.log(`nothing changed since the run of ${stamp.date} (same build, apps, policies, dependencies, helm, node and environment, and dist/ as it wrote it): its output is above; \`npm run synth -- --force\` redoes it`);
    printTimes();
    return;
  }
  fs.rmSync(STAMP, { force: true });
  const printed: Array<[1 | 2, string]> = [];
  record(printed);
  await fullRun();
  const t = process.hrtime.bigint();
  const stampNew: Stamp = { fingerprint: key, date: new Date().toISOString(), outputs: outputs(), printed };
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  fs.writeFileSync(STAMP, JSON.stringify(stampNew));
  mark = t;
  step('record of the run (build/.synth-stamp.json)');
  printTimes();
}

if (require.main === module) {
  synth().catch((e: unknown) => fail(`npm run synth failed: ${(e as Error).stack ?? String(e)}`));
}
