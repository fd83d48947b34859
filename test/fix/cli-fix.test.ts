/**
 * `kubegrace lint --fix`, `--fix-dry-run` and `--fix-proposals` end to end through the built bin:
 * atomic writes that keep the file mode, diffs without writing, stdin to stdout, the Helm chart
 * refusal, and the report and exit code about what remains.
 */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npx tsc -p tsconfig.json\``);
});

function kg(args: string[], opts: { input?: string; cwd: string }) {
  const r = runCli(args, {
    cwd: opts.cwd,
    input: opts.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '', HELM_BIN: HELM },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tmpdir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kg-fix-'));
}

/** A served Deployment whose preStop (25 s) outlives its grace period (20 s): an error, fixable. */
const WEB = `# the web tier
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3 # HA
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      terminationGracePeriodSeconds: 20 # too short
      containers:
      - name: app
        image: example/web:1.0
        ports:
        - {name: http, containerPort: 8080}
        lifecycle:
          preStop:
            sleep: {seconds: 25}
        readinessProbe:
          httpGet: {path: /readyz, port: http}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: http}
`;
const FIXED = WEB.replace('terminationGracePeriodSeconds: 20 # too short', 'terminationGracePeriodSeconds: 40 # too short');

describe('lint --fix', () => {
  test('writes the fixed file atomically, keeps its mode, reports what remains', () => {
    const dir = tmpdir();
    const file = path.join(dir, 'web.yaml');
    fs.writeFileSync(file, WEB);
    fs.chmodSync(file, 0o640);
    const ino = fs.statSync(file).ino;
    expect(kg(['lint', 'web.yaml', '--kube-version', '1.33'], { cwd: dir }).code).toBe(1);

    const r = kg(['lint', 'web.yaml', '--fix', '--kube-version', '1.33'], { cwd: dir });
    expect(fs.readFileSync(file, 'utf8')).toBe(FIXED);
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    // Written through a temporary file and a rename: a new inode, no temporary file left.
    expect(fs.statSync(file).ino).not.toBe(ino);
    expect(fs.readdirSync(dir)).toEqual(['web.yaml']);
    expect(r.stderr).toContain('kubegrace: fixed 1 problem in 1 file:\n  web.yaml:21 grace-period-budget raise terminationGracePeriodSeconds to 40 (preStop + drain + addend + margin)\n');
    // What remains: warnings only (proposals not applied), so exit 0 under --fail-on error.
    expect(r.stderr).toMatch(/2 proposals not applied[^\n]*\n {2}web\.yaml:7 pdb-missing add PodDisruptionBudget web/);
    expect(r.stdout).toContain('pdb-missing');
    expect(r.stdout).not.toContain('grace-period-budget');
    expect(r.code).toBe(0);
    expect(kg(['lint', 'web.yaml', '--fix', '--fail-on', 'warning', '--kube-version', '1.33'], { cwd: dir }).code).toBe(1);
  });

  test('a second --fix changes nothing', () => {
    const dir = tmpdir();
    const file = path.join(dir, 'web.yaml');
    fs.writeFileSync(file, FIXED);
    const before = fs.statSync(file);
    const r = kg(['lint', 'web.yaml', '--fix', '--kube-version', '1.33'], { cwd: dir });
    expect(r.stderr).toContain('kubegrace: nothing to fix\n');
    expect(fs.readFileSync(file, 'utf8')).toBe(FIXED);
    expect(fs.statSync(file).ino).toBe(before.ino);
  });

  test('--fix-proposals also adds the PDB and the spread constraint; the JSON report lists what remains', () => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, 'web.yaml'), WEB);
    const r = kg(['lint', 'web.yaml', '--fix', '--fix-proposals', '--kube-version', '1.33', '--format', 'json'], { cwd: dir });
    const out = fs.readFileSync(path.join(dir, 'web.yaml'), 'utf8');
    const kinds = Array.from(parseAllDocuments(out) as unknown as Iterable<{ toJS(): { kind: string } }>).map((d) => d.toJS().kind);
    expect(kinds).toEqual(['Deployment', 'PodDisruptionBudget', 'Service']);
    expect(out).toContain('topologySpreadConstraints:');
    expect(r.stderr).toContain('kubegrace: fixed 3 problems in 1 file:');
    const j = JSON.parse(r.stdout);
    expect(j.findings.filter((f: { suppressed: boolean }) => !f.suppressed)).toEqual([]);
    expect(r.code).toBe(0);
  });

  test('the summary lists the fixes of every pass by line: a PDB proposed once the HPA\'s minReplicas was raised comes before it', () => {
    const dir = tmpdir();
    const api = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: app
        image: example/api:1.0
        ports:
        - {name: http, containerPort: 8080}
        readinessProbe:
          httpGet: {path: /readyz, port: http}
        lifecycle:
          preStop:
            sleep: {seconds: 10}
---
apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  selector: {app: api}
  ports:
  - {port: 80, targetPort: http}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: api
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 1
  maxReplicas: 5
`;
    fs.writeFileSync(path.join(dir, 'api.yaml'), api);
    const r = kg(['lint', 'api.yaml', '--fix', '--fix-proposals', '--kube-version', '1.33'], { cwd: dir });
    const listed = r.stderr.split('\n').filter((l) => /^ {2}api\.yaml:\d+ /.test(l));
    // (pdb-missing and replicas-not-spread report on the Deployment in the second pass.)
    expect(listed.map((l) => l.split(' ')[3])).toEqual(expect.arrayContaining(['hpa-replicas', 'pdb-missing']));
    const lines = listed.map((l) => Number(/:(\d+) /.exec(l)![1]));
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    expect(listed.findIndex((l) => l.includes(' pdb-missing '))).toBeLessThan(listed.findIndex((l) => l.includes(' hpa-replicas ')));
  });

  test('JSON fixable says whether each finding carries a repair', () => {
    const dir = tmpdir();
    const text = WEB.replace('        readinessProbe:\n          httpGet: {path: /readyz, port: http}\n', '');
    const r = kg(['lint', '-', '--format', 'json', '--kube-version', '1.33'], { cwd: dir, input: text });
    const j = JSON.parse(r.stdout);
    const byRule = Object.fromEntries(j.findings.map((f: { ruleId: string; fixable: boolean }) => [f.ruleId, f.fixable]));
    expect(byRule).toMatchObject({ 'grace-period-budget': true, 'pdb-missing': true, 'readiness-probe-missing': false });
  });

  test('stdin: the fixed YAML goes to stdout, the report to stderr, nothing is written', () => {
    const dir = tmpdir();
    const r = kg(['lint', '-', '--fix', '--kube-version', '1.33'], { cwd: dir, input: WEB });
    expect(r.stdout).toBe(FIXED);
    expect(r.stderr).toContain('<stdin>:21 grace-period-budget raise terminationGracePeriodSeconds to 40');
    expect(r.stderr).toContain('pdb-missing');
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(r.code).toBe(0);
  });

  test('stdin with nothing to fix is echoed unchanged', () => {
    const dir = tmpdir();
    const r = kg(['lint', '-', '--fix', '--kube-version', '1.33'], { cwd: dir, input: FIXED });
    expect(r.stdout).toBe(FIXED);
  });
});

describe('lint --fix-dry-run', () => {
  test('prints a unified diff and writes nothing; the report goes to stderr', () => {
    const dir = tmpdir();
    const file = path.join(dir, 'web.yaml');
    fs.writeFileSync(file, WEB);
    const mtime = fs.statSync(file).mtimeMs;
    const r = kg(['lint', 'web.yaml', '--fix-dry-run', '--kube-version', '1.33'], { cwd: dir });
    expect(r.stdout).toBe(
      '--- a/web.yaml\n+++ b/web.yaml\n@@ -11,7 +11,7 @@\n     metadata:\n       labels: {app: web}\n     spec:\n-      terminationGracePeriodSeconds: 20 # too short\n+      terminationGracePeriodSeconds: 40 # too short\n       containers:\n       - name: app\n         image: example/web:1.0\n',
    );
    expect(r.stderr).toContain('kubegrace: would fix 1 problem in 1 file:');
    expect(r.stderr).toContain('pdb-missing');
    expect(fs.readFileSync(file, 'utf8')).toBe(WEB);
    expect(fs.statSync(file).mtimeMs).toBe(mtime);
    expect(fs.readdirSync(dir)).toEqual(['web.yaml']);
    expect(r.code).toBe(0);
  });

  test('a report format with --output FILE is still written', () => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, 'web.yaml'), WEB);
    const r = kg(['lint', 'web.yaml', '--fix-dry-run', '--format', 'json', '--output', 'report.json', '--kube-version', '1.33'], { cwd: dir });
    expect(r.stdout.startsWith('--- a/web.yaml')).toBe(true);
    const j = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
    expect(j.findings.map((f: { ruleId: string }) => f.ruleId)).not.toContain('grace-period-budget');
    expect(fs.readFileSync(path.join(dir, 'web.yaml'), 'utf8')).toBe(WEB);
  });
});

describe('lint --fix: refusals and usage', () => {
  function chart(): string {
    const dir = tmpdir();
    fs.mkdirSync(path.join(dir, 'web', 'templates'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'web', 'Chart.yaml'), 'apiVersion: v2\nname: web\nversion: 0.1.0\n');
    fs.writeFileSync(path.join(dir, 'web', 'templates', 'all.yaml'), WEB);
    return dir;
  }

  test('--fix refuses to write into a Helm chart (exit 2), the chart is untouched', () => {
    const dir = chart();
    const r = kg(['lint', 'web', '--fix', '--kube-version', '1.33'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--fix cannot write into the Helm chart web: .*fix the chart's templates or values by hand \(to see the repairs on the rendered manifests: helm template RELEASE CHART > rendered\.yaml, then kubegrace lint rendered\.yaml --fix-dry-run\)/);
    expect(fs.readFileSync(path.join(dir, 'web', 'templates', 'all.yaml'), 'utf8')).toBe(WEB);
    expect(fs.readdirSync(path.join(dir, 'web', 'templates'))).toEqual(['all.yaml']);
  });

  test('--fix-dry-run on a chart shows nothing to write and says why', () => {
    const dir = chart();
    const r = kg(['lint', 'web', '--fix-dry-run', '--kube-version', '1.33'], { cwd: dir });
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("rendered from a Helm chart: fix the chart's templates or values");
    expect(r.code).toBe(1);
  });

  test('--fix-proposals alone, and --fix with --fix-dry-run, are usage errors', () => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, 'web.yaml'), WEB);
    const a = kg(['lint', 'web.yaml', '--fix-proposals'], { cwd: dir });
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('--fix-proposals needs --fix or --fix-dry-run');
    const b = kg(['lint', 'web.yaml', '--fix', '--fix-dry-run'], { cwd: dir });
    expect(b.code).toBe(2);
    expect(fs.readFileSync(path.join(dir, 'web.yaml'), 'utf8')).toBe(WEB);
  });

  test('the report after --fix (taken from the fixer\'s last lint) is the report of linting the written files', () => {
    const dir = tmpdir();
    const corpus = path.resolve(ROOT, '../shared/corpus/rendered');
    for (const f of ['kube-prometheus.yaml', 'istio-bookinfo.yaml', 'k8s-examples-guestbook.yaml']) fs.writeFileSync(path.join(dir, f), fs.readFileSync(path.join(corpus, f)));
    fs.writeFileSync(path.join(dir, 'web.yaml'), WEB);
    fs.writeFileSync(path.join(dir, 'list.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: Array.from(parseAllDocuments(WEB) as unknown as Iterable<{ toJS(): unknown }>).map((d) => d.toJS()) }, null, 2));
    const fixed = kg(['lint', '.', '--fix', '--fix-proposals', '--kube-version', '1.33', '--format', 'json'], { cwd: dir });
    expect(fixed.stderr).toMatch(/kubegrace: fixed \d+ problems in 5 files:/);
    const again = kg(['lint', '.', '--kube-version', '1.33', '--format', 'json'], { cwd: dir });
    expect(JSON.parse(fixed.stdout)).toEqual(JSON.parse(again.stdout));
    expect(fixed.code).toBe(again.code);
  });

  test('a file with a broken document: the good documents are fixed, the input error still exits 2', () => {
    const dir = tmpdir();
    const text = `${WEB}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: [broken\n`;
    fs.writeFileSync(path.join(dir, 'web.yaml'), text);
    const r = kg(['lint', 'web.yaml', '--fix', '--kube-version', '1.33'], { cwd: dir });
    expect(fs.readFileSync(path.join(dir, 'web.yaml'), 'utf8')).toBe(text.replace('terminationGracePeriodSeconds: 20', 'terminationGracePeriodSeconds: 40'));
    expect(r.code).toBe(2);
  });
});
