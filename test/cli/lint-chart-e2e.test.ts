/**
 * `kubegrace lint CHART_DIR` end to end through the built bin: helm template rendering, findings
 * on the template file (the line that writes the reported key), helm missing or failing (exit 2,
 * message on stderr) without hiding the other inputs' findings, --values, --set, --release,
 * --namespace and --kube-version, and a chart's templates/ directory refused with one clear error.
 */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { WEB_CHART, writeTree } from '../helpers/charts';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const HELM_DIR = path.join(ROOT, 'node_modules/.bin');
const HELM = path.join(HELM_DIR, 'helm');

let work: string;
beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does it)`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-chart-e2e-'));
  write('charts/web', WEB_CHART);
  write('charts/guarded', { ...WEB_CHART, 'templates/guard.yaml': '{{- if lt (int .Values.replicas) 3 }}\n{{- fail "boom: replicas must be at least 3" }}\n{{- end }}\n' });
  write('charts/modern', { ...WEB_CHART, 'Chart.yaml': 'apiVersion: v2\nname: modern\nversion: 0.1.0\nkubeVersion: ">=1.31.0-0"\n' });
  write('charts/nsweb', { ...WEB_CHART, 'templates/deployment.yaml': WEB_CHART['templates/deployment.yaml'].replace(/(kind: Deployment\nmetadata:\n)/, '$1  namespace: {{ .Release.Namespace }}\n') });
  write('.', {
    'bad-grace.yaml': fs.readFileSync(path.join(ROOT, 'test/fixtures/bad-grace.yaml'), 'utf8'),
    'prestop.yaml': 'preStop: true\n',
  });
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function write(dir: string, files: Record<string, string>): void {
  writeTree(path.join(work, dir), files);
}

/** PATH with helm (the dev dependency) unless overridden; HELM_BIN unset unless given. */
function kg(args: string[], env: Record<string, string> = {}) {
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '', FORCE_COLOR: '', PATH: `${HELM_DIR}${path.delimiter}${process.env.PATH ?? ''}` };
  delete base.HELM_BIN;
  const r = runCli(args, { cwd: work, input: '', encoding: 'utf8', env: { ...base, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface JsonFinding {
  ruleId: string;
  file: string;
  line: number;
  column: number;
  object: { kind: string; name: string };
}
interface JsonReport {
  findings: JsonFinding[];
  errors: { file: string; line: number; column: number; message: string }[];
}

describe('kubegrace lint on a chart directory', () => {
  test('findings land on the template file, at the template line that writes the reported key (SARIF and GitHub alike)', () => {
    const r = kg(['lint', 'charts/web', '--format', 'json', '--kube-version', '1.31']);
    expect(r.stderr).toBe('');
    const j = JSON.parse(r.stdout) as JsonReport;
    expect(j.errors).toEqual([]);
    const f = j.findings.find((x) => x.ruleId === 'prestop-missing')!;
    expect(f).toMatchObject({ file: 'charts/web/templates/deployment.yaml', object: { kind: 'Deployment', name: 'kubegrace-web' } });
    // The rendered finding is on the container's `name: web`; so is the template line (the third `name:` in both).
    const template = fs.readFileSync(path.join(work, 'charts/web/templates/deployment.yaml'), 'utf8').split('\n');
    expect(template[f.line - 1].slice(f.column - 1)).toBe('- name: web'.slice(2));
    const text = kg(['lint', 'charts/web', '--kube-version', '1.31']);
    expect(text.stdout).toMatch(/^charts\/web\/templates\/deployment\.yaml$/m);
    expect(text.stdout).toMatch(new RegExp(`^ +${f.line}:${f.column} +warning +.* prestop-missing$`, 'm'));
    const sarif = JSON.parse(kg(['lint', 'charts/web', '--format', 'sarif', '--kube-version', '1.31']).stdout) as { runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[] }[] }[] };
    const locs = sarif.runs[0].results.map((x) => x.locations[0].physicalLocation);
    expect(locs.length).toBeGreaterThan(0);
    for (const l of locs) {
      expect(fs.existsSync(path.join(work, decodeURIComponent(l.artifactLocation.uri)))).toBe(true);
      expect(l.region.startLine).toBeLessThanOrEqual(template.length);
    }
    const gh = kg(['lint', 'charts/web', '--format', 'github', '--kube-version', '1.31']).stdout;
    expect(gh).toContain(`file=charts/web/templates/deployment.yaml,line=${f.line},`);
  });

  test('an input error on a rendered object is at the template file and line, like the findings', () => {
    const j = JSON.parse(kg(['lint', 'charts/web', '--set', 'replicas=3 4', '--format', 'json']).stdout) as JsonReport;
    const template = fs.readFileSync(path.join(work, 'charts/web/templates/deployment.yaml'), 'utf8').split('\n');
    expect(j.errors).toEqual([{ file: 'charts/web/templates/deployment.yaml', line: template.findIndex((l) => l.includes('replicas: {{')) + 1, column: 3, message: expect.stringContaining('spec.replicas is the string "3 4"') }]);
  });

  test('--set, --release and --namespace are passed to helm template', () => {
    const withSet = JSON.parse(kg(['lint', 'charts/web', '--set', 'preStop=true', '--format', 'json']).stdout) as JsonReport;
    expect(withSet.errors).toEqual([]);
    expect(withSet.findings.filter((f) => f.ruleId === 'prestop-missing')).toEqual([]);
    const j = JSON.parse(kg(['lint', 'charts/nsweb', '--release', 'blue', '--namespace', 'shop', '--format', 'json']).stdout) as { findings: { object: { kind: string; name: string; namespace?: string } }[] };
    const dep = j.findings.find((f) => f.object.kind === 'Deployment')!;
    expect(dep.object).toMatchObject({ name: 'blue-web', namespace: 'shop' });
    // A chart that names no namespace (helm create's): helm install -n shop still puts its objects in
    // shop, so a budget of namespace default in another input does not count for them.
    const other = 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: other, namespace: default}\nspec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}\n';
    fs.writeFileSync(path.join(work, 'other-pdb.yaml'), other);
    const plain = JSON.parse(kg(['lint', 'charts/web', 'other-pdb.yaml', '--release', 'blue', '--namespace', 'shop', '--set', 'replicas=2', '--format', 'json']).stdout) as { findings: { ruleId: string; object: { kind: string; name: string; namespace?: string } }[] };
    const ours = plain.findings.filter((f) => f.object.kind === 'Deployment');
    expect(ours.length).toBeGreaterThan(0);
    for (const f of ours) expect(f.object).toMatchObject({ name: 'blue-web', namespace: 'shop' });
    expect(ours.map((f) => f.ruleId)).toContain('pdb-missing');
  });

  test("a chart's templates/ directory (or a template in it) gives one clear error naming the chart directory", () => {
    for (const p of ['charts/web/templates', 'charts/web/templates/deployment.yaml']) {
      const r = kg(['lint', p, '--format', 'json']);
      expect(r.code).toBe(2);
      const j = JSON.parse(r.stdout) as JsonReport;
      expect(j.errors).toEqual([{ file: p, line: 1, column: 1, message: expect.stringContaining('lint the chart directory instead: kubegrace lint charts/web') }]);
      expect(j.findings).toEqual([]);
    }
  });

  test('--values FILE is passed to helm; a missing values file is a usage error', () => {
    const j = JSON.parse(kg(['lint', 'charts/web', '--values', 'prestop.yaml', '--format', 'json']).stdout) as JsonReport;
    expect(j.errors).toEqual([]);
    expect(j.findings.filter((f) => f.ruleId === 'prestop-missing')).toEqual([]);
    const missing = kg(['lint', 'charts/web', '--values', 'nope.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^kubegrace: values file nope\.yaml does not exist/);
  });

  test('--kube-version is the version helm renders for (chart kubeVersion constraint)', () => {
    expect(kg(['lint', 'charts/modern', '--kube-version', '1.31', '--fail-on', 'never']).code).toBe(0);
    const old = kg(['lint', 'charts/modern', '--kube-version', '1.29', '--fail-on', 'never']);
    expect(old.code).toBe(2);
    expect(old.stdout).toMatch(/kubeVersion.*1\.29\.0/);
    expect(old.stderr).toBe('');
  });

  test('HELM_BIN pointing to a missing file: exit 2, clear message, other files still linted', () => {
    const r = kg(['lint', 'charts/web', 'bad-grace.yaml', '--format', 'json'], { HELM_BIN: path.join(work, 'no/helm') });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`kubegrace: charts/web:1:1: cannot render this Helm chart: HELM_BIN=${path.join(work, 'no/helm')} is not an executable file; point HELM_BIN at a helm 3 binary`);
    const j = JSON.parse(r.stdout) as JsonReport;
    expect(j.errors).toEqual([{ file: 'charts/web', line: 1, column: 1, message: expect.stringContaining('HELM_BIN') }]);
    expect(j.findings.some((f) => f.file === 'bad-grace.yaml' && f.ruleId === 'grace-period-budget')).toBe(true);
  });

  test('no helm on PATH: exit 2 saying to install helm or set HELM_BIN, once', () => {
    const r = kg(['lint', 'charts/web'], { PATH: path.join(work, 'empty-bin') });
    expect(r.code).toBe(2);
    // Printed once: by the text report on stdout, not again on stderr.
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^charts\/web\n {4}1:1 +error +cannot render this Helm chart: helm not found: install helm 3 and put it on PATH, or set HELM_BIN to its path/m);
    expect(r.stdout.split('helm not found').length).toBe(2);
  });

  test('a failing guard (`fail "boom"`): exit 2, the message on stderr at the template, other inputs\' findings reported', () => {
    const r = kg(['lint', 'charts/guarded', 'charts/web', 'bad-grace.yaml', '--format', 'json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^kubegrace: charts\/guarded\/templates\/guard\.yaml:2:\d+: helm template failed: .*boom: replicas must be at least 3/m);
    const j = JSON.parse(r.stdout) as JsonReport;
    expect(j.errors).toEqual([{ file: 'charts/guarded/templates/guard.yaml', line: 2, column: expect.any(Number), message: expect.stringContaining('boom') }]);
    const files = new Set(j.findings.map((f) => f.file));
    expect(files.has('bad-grace.yaml')).toBe(true);
    expect(files.has('charts/web/templates/deployment.yaml')).toBe(true);
  });
});
