/**
 * `npm run synth`: synthesize the charts-src apps with the real `cdk8s synth` (whose kubegrace
 * validation plugin, configured in cdk8s.yaml, fails the synth on error findings), check that every
 * app was written to dist/manifests/<app>.yaml, then lint what was written with the strict policy
 * and --fail-on warning. Then turn each app into a Helm chart in dist/charts/<app>, check it with
 * the real `helm lint --strict`, lint its default `helm template` rendering the same way, and
 * package the charts reproducibly into dist/packages with a repository index.
 * Exits non-zero if any step fails.
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
const code = main(['lint', out, '--policy', 'strict', '--fail-on', 'warning']) as number;
if (code !== 0) process.exit(code);

// Charts: one per app, versioned with this package.
const version: string = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
const chartsDir = path.join(root, 'dist', 'charts');
const packagesDir = path.join(root, 'dist', 'packages');
fs.rmSync(chartsDir, { recursive: true, force: true });
fs.rmSync(packagesDir, { recursive: true, force: true });
const chartDirs: string[] = [];
for (const name of Object.keys(APPS)) {
  const manifests = fs.readFileSync(path.join(out, `${name}.yaml`), 'utf8');
  const chart = generateChart(manifests, { name, version, appVersion: firstImageTag(manifests) ?? version, description: DESCRIPTIONS[name] ?? name }, chartsDir);
  const lint = runHelm(['lint', '--strict', chart.dir]);
  if (lint.status !== 0) {
    console.error(`helm lint --strict failed for ${name}:\n${lint.stdout}${lint.stderr}`);
    process.exit(1);
  }
  chartDirs.push(chart.dir);
}
console.log(`generated ${chartDirs.length} chart(s) into ${path.relative(root, chartsDir)}; helm lint --strict passed`);
// The default rendering of each chart must be as clean as the manifests it came from, at every
// supported Kubernetes version the chart accepts (the templates choose fields by the version).
const chartCode = main(['lint', ...chartDirs, '--policy', 'strict', '--fail-on', 'warning']) as number;
if (chartCode !== 0) process.exit(chartCode);
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
}
console.log(`re-linted the charts' renderings at Kubernetes ${LINT_VERSIONS.join(', ')}`);
void (async () => {
  for (const dir of chartDirs) await packageChart(dir, packagesDir);
  await writeRepoIndex(packagesDir);
  console.log(`packaged ${chartDirs.length} chart(s) into ${path.relative(root, packagesDir)} with index.yaml`);
})().catch((e: unknown) => {
  console.error(`packaging failed: ${(e as Error).message}`);
  process.exit(1);
});
