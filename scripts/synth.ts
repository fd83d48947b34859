/**
 * `npm run synth`: synthesize the charts-src apps with the real `cdk8s synth` (whose kubegrace
 * validation plugin, configured in cdk8s.yaml, fails the synth on error findings), check that every
 * app was written to dist/manifests/<app>.yaml, then lint what was written with the strict policy
 * and --fail-on warning. Then turn each app into a Helm chart in dist/charts/<app>, check it with
 * the real `helm lint --strict`, lint its default `helm template` rendering the same way, and
 * package the charts reproducibly into dist/packages with a repository index.
 * Exits non-zero if any step fails. Ends with where the time went, step by step.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { APPS, DESCRIPTIONS } from '../charts-src/apps';
import { firstImageTag } from '../lib/cli/chart';
import { main } from '../lib/cli/main';
import { generateChart } from '../lib/helm/generate';
import { runHelm } from '../lib/helm/helm-bin';
import { packageChart } from '../lib/helm/package';
import { writeRepoIndex } from '../lib/helm/repo-index';

const root = path.resolve(__dirname, '../..');

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
  console.log('where the time went:');
  for (const [name, t] of rows) console.log(`  ${name.padEnd(42)} ${t === undefined ? '   n/a' : `${t.toFixed(2).padStart(6)} s`}`);
  console.log(`  ${'total'.padEnd(42)} ${total.toFixed(2).padStart(6)} s`);
}
/** Kubernetes versions every chart's rendering is re-linted at (those below a chart's kubeVersion skipped). */
const LINT_VERSIONS = ['1.25', '1.28', '1.29', '1.30', '1.33'];
const out = path.join(root, 'dist', 'manifests');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });
const cdk8s = path.join(root, 'node_modules', '.bin', 'cdk8s');
const r = spawnSync(cdk8s, ['synth', '--no-check-upgrade', '--output', out], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  console.error(`cdk8s synth failed (exit ${r.status ?? r.signal})`);
  process.exit(r.status ?? 1);
}
fs.mkdirSync(out, { recursive: true });
// Written for the validation report only (construct paths by resource name); not a manifest.
fs.rmSync(path.join(out, 'construct-metadata.json'), { force: true });
const missing = Object.keys(APPS).filter((name) => !fs.existsSync(path.join(out, `${name}.yaml`)));
if (missing.length) {
  console.error(`cdk8s synth wrote no manifest for: ${missing.join(', ')}`);
  process.exit(1);
}
const files = fs.readdirSync(out).filter((f) => f.endsWith('.yaml'));
console.log(`synthesized ${files.length} app(s) into ${path.relative(root, out)}`);
step('cdk8s synth (with the validation plugin)');
const code = main(['lint', out, '--policy', 'strict', '--fail-on', 'warning']) as number;
if (code !== 0) process.exit(code);
step('lint of the manifests');

// Charts: one per app, versioned with this package.
const version: string = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
const chartsDir = path.join(root, 'dist', 'charts');
const packagesDir = path.join(root, 'dist', 'packages');
fs.rmSync(chartsDir, { recursive: true, force: true });
fs.rmSync(packagesDir, { recursive: true, force: true });
const chartDirs: string[] = [];
let genSeconds = 0;
let helmSeconds = 0;
for (const name of Object.keys(APPS)) {
  const manifests = fs.readFileSync(path.join(out, `${name}.yaml`), 'utf8');
  const t0 = process.hrtime.bigint();
  const chart = generateChart(manifests, { name, version, appVersion: firstImageTag(manifests) ?? version, description: DESCRIPTIONS[name] ?? name }, chartsDir);
  const t1 = process.hrtime.bigint();
  const lint = runHelm(['lint', '--strict', chart.dir]);
  genSeconds += Number(t1 - t0) / 1e9;
  helmSeconds += Number(process.hrtime.bigint() - t1) / 1e9;
  if (lint.status !== 0) {
    console.error(`helm lint --strict failed for ${name}:\n${lint.stdout}${lint.stderr}`);
    process.exit(1);
  }
  chartDirs.push(chart.dir);
}
console.log(`generated ${chartDirs.length} chart(s) into ${path.relative(root, chartsDir)}; helm lint --strict passed`);
step('chart generation and helm lint');
times[times.length - 1] = ['chart generation', genSeconds];
times.push(['helm lint --strict', helmSeconds]);
// The default rendering of each chart must be as clean as the manifests it came from, at every
// supported Kubernetes version the chart accepts (the templates choose fields by the version).
const chartCode = main(['lint', ...chartDirs, '--policy', 'strict', '--fail-on', 'warning']) as number;
if (chartCode !== 0) process.exit(chartCode);
const relinted: string[] = [];
for (const v of LINT_VERSIONS) {
  const dirs = chartDirs.filter((d) => {
    const m = /^kubeVersion: ">=(\d+)\.(\d+)\./m.exec(fs.readFileSync(path.join(d, 'Chart.yaml'), 'utf8'));
    const [maj, min] = v.split('.').map(Number);
    return !m || maj > Number(m[1]) || (maj === Number(m[1]) && min >= Number(m[2]));
  });
  const code = main(['lint', ...dirs, '--policy', 'strict', '--fail-on', 'warning', '--kube-version', v, '--quiet']) as number;
  if (code !== 0) {
    console.error(`the charts' rendering at Kubernetes ${v} is not lint-clean`);
    process.exit(code);
  }
  const skipped = chartDirs.filter((d) => !dirs.includes(d)).map((d) => path.basename(d));
  relinted.push(`  ${v}: ${dirs.length} of ${chartDirs.length} chart(s)${skipped.length ? ` (below the kubeVersion of ${skipped.join(', ')})` : ''}`);
}
console.log(`re-linted the charts' renderings at each Kubernetes version (strict, --fail-on warning):\n${relinted.join('\n')}`);
step('helm template and lint of the charts (all versions)');
void (async () => {
  for (const dir of chartDirs) await packageChart(dir, packagesDir);
  await writeRepoIndex(packagesDir);
  console.log(`packaged ${chartDirs.length} chart(s) into ${path.relative(root, packagesDir)} with index.yaml`);
  step('packaging and repository index');
  printTimes();
})().catch((e: unknown) => {
  console.error(`packaging failed: ${(e as Error).message}`);
  process.exit(1);
});
