/**
 * Issue 12 item 14: one failing chart template does not hide the findings of the chart's other
 * templates. Through the built bin with real helm (node_modules/.bin/helm, 3.10.1): each failing
 * template is an input error at the template (and line when helm gives one), the chart is rendered
 * again without it, and the other templates' findings are reported at their template files.
 */
import { spawnSync } from 'child_process';
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
/** The CLI's TMPDIR: the mirrors of charts are made there, and must all be gone after each run. */
let tmp: string;
beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does it)`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-chart-recovery-'));
  tmp = path.join(work, '.tmp');
  fs.mkdirSync(tmp);
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface JsonReport {
  findings: { ruleId: string; file: string; line: number; object: { kind: string; name: string } }[];
  errors: { file: string; line: number; column: number; message: string }[];
}

function kg(args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '', FORCE_COLOR: '', TMPDIR: tmp, PATH: `${HELM_DIR}${path.delimiter}${process.env.PATH ?? ''}` };
  delete env.HELM_BIN;
  const r = runCli(args, { cwd: work, input: '', encoding: 'utf8', env });
  expect(fs.readdirSync(tmp)).toEqual([]);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(args: string[]): { code: number | null; report: JsonReport; stderr: string } {
  const r = kg([...args, '--format', 'json', '--kube-version', '1.31']);
  return { code: r.code, report: JSON.parse(r.stdout) as JsonReport, stderr: r.stderr };
}

/** A chart (WEB_CHART: deployment.yaml has a prestop-missing finding) plus `extra` files. */
function chart(name: string, extra: Record<string, string>): string {
  const dir = path.join(work, name);
  writeTree(dir, { ...WEB_CHART, 'Chart.yaml': `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`, ...extra });
  return name;
}

/** Every file under dir with its bytes (the original chart must never change). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'base64');
    }
  };
  walk(dir);
  return out;
}

const prestopFinding = (r: JsonReport, file: string) => r.findings.filter((f) => f.ruleId === 'prestop-missing' && f.file === file);

describe('lint CHART_DIR recovers per template', () => {
  test('one failing template: its error at the template line, the other templates\' findings still reported', () => {
    const c = chart('onefail', { 'templates/guard.yaml': 'apiVersion: v1\nkind: ConfigMap\n{{- fail "boom: replicas too low" }}\n' });
    const before = snapshot(path.join(work, c));
    const { code, report, stderr } = json(['lint', c]);
    expect(code).toBe(2);
    expect(report.errors).toEqual([
      { file: 'onefail/templates/guard.yaml', line: 3, column: 4, message: 'helm template failed: execution error at (onefail/templates/guard.yaml:3:4): boom: replicas too low; the rest of the chart was linted without templates/guard.yaml (findings that something is missing, such as a Service or budget matching nothing, are not reported for this chart)' },
    ]);
    expect(prestopFinding(report, 'onefail/templates/deployment.yaml')).toHaveLength(1);
    expect(stderr).toBe(`kubegrace: onefail/templates/guard.yaml:3:4: ${report.errors[0].message}\n`);
    // The text report: the error under the template, the finding under its template.
    const text = kg(['lint', c, '--kube-version', '1.31']);
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/^onefail\/templates\/guard\.yaml\n +3:4 +error +helm template failed: .*boom: replicas too low/m);
    expect(text.stdout).toMatch(/^onefail\/templates\/deployment\.yaml\n(?:.*\n)*? +\d+:\d+ +warning .*prestop-missing$/m);
    expect(snapshot(path.join(work, c))).toEqual(before);
  });

  test('the workload\'s template fails: its Service and budget are not reported as matching nothing (they select the pods that did not render)', () => {
    const c = chart('noworkload', {
      'templates/deployment.yaml': `{{- fail "image.tag is required" }}\n${WEB_CHART['templates/deployment.yaml']}`,
      'templates/service.yaml': 'apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-web\nspec:\n  selector: {app: web}\n  ports: [{port: 80, targetPort: http}]\n',
      'templates/pdb.yaml': 'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: {{ .Release.Name }}-web\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {app: web}}\n',
      'templates/worker.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-worker\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: worker}}\n  template:\n    metadata: {labels: {app: worker}}\n    spec:\n      containers: [{name: w, image: w:1}]\n',
    });
    const { code, report } = json(['lint', c]);
    expect(code).toBe(2);
    expect(report.errors).toEqual([{ file: 'noworkload/templates/deployment.yaml', line: 1, column: 4, message: expect.stringMatching(/image\.tag is required; the rest of the chart was linted without templates\/deployment\.yaml \(findings that something is missing, such as a Service or budget matching nothing, are not reported for this chart\)$/) }]);
    expect(report.findings.filter((f) => ['service-selector-ports', 'pdb-selector', 'pdb-missing'].includes(f.ruleId))).toEqual([]);
    // Findings that do not conclude an absence stay (the budget's eviction policy).
    expect(report.findings.map((f) => f.ruleId)).toContain('pdb-unhealthy-eviction-policy');
  });

  test('two failing templates (fail, nil pointer) and a YAML error: all reported, one re-render each', () => {
    const c = chart('twofail', {
      'templates/a-guard.yaml': '{{ fail "first" }}\n',
      'templates/z-nil.yaml': 'x: {{ .Values.missing.deep }}\n',
      'templates/m-yaml.yaml': 'a: b\n  c: d: e\n',
    });
    const { code, report } = json(['lint', c]);
    expect(code).toBe(2);
    // helm executes in reverse name order and stops at the first failure (z, then a); it reads the YAML after all ran (m).
    expect(report.errors.map((e) => [e.file, e.line, e.column])).toEqual([
      ['twofail/templates/z-nil.yaml', 1, 13],
      ['twofail/templates/a-guard.yaml', 1, 3],
      ['twofail/templates/m-yaml.yaml', 1, 1],
    ]);
    expect(report.errors[0].message).toMatch(/nil pointer evaluating interface \{\}\.deep/);
    expect(report.errors[1].message).toMatch(/: first; the rest of the chart was linted without templates\/a-guard\.yaml \(findings that something is missing, such as a Service or budget matching nothing, are not reported for this chart\)$/);
    expect(report.errors[2].message).toMatch(/YAML parse error on twofail\/templates\/m-yaml\.yaml: .*yaml: line 2: mapping values are not allowed/);
    expect(prestopFinding(report, 'twofail/templates/deployment.yaml')).toHaveLength(1);
  });

  test('a failure inside a helper: through include helm names the template; through {{ template }} only the helper, and the template is found', () => {
    const helpers = `${WEB_CHART['templates/_helpers.tpl']}{{- define "boom" -}}\n{{ fail "helper says no" }}\n{{- end -}}\n{{- define "nilp" -}}\n{{ .Values.no.such }}\n{{- end -}}\n`;
    const inc = chart('helperinc', { 'templates/_helpers.tpl': helpers, 'templates/uses.yaml': 'a: 1\nx: {{ include "boom" . }}\n' });
    let { report } = json(['lint', inc]);
    expect(report.errors).toEqual([{ file: 'helperinc/templates/uses.yaml', line: 2, column: 6, message: expect.stringMatching(/^helm template failed: execution error at \(helperinc\/templates\/uses\.yaml:2:6\): helper says no; /) }]);
    expect(prestopFinding(report, 'helperinc/templates/deployment.yaml')).toHaveLength(1);

    const tpl = chart('helpertpl', {
      'templates/_helpers.tpl': helpers,
      'templates/a-uses.yaml': 'x: {{ template "boom" . }}\n',
      'templates/b-ok.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n',
      'templates/c-nil.yaml': 'x: {{ template "nilp" . }}\n',
    });
    ({ report } = json(['lint', tpl]));
    // helm's message points into _helpers.tpl; the error names the template that used it (found by bisection), at line 1.
    expect(report.errors).toEqual([
      { file: 'helpertpl/templates/c-nil.yaml', line: 1, column: 1, message: expect.stringMatching(/^helm template failed: template: helpertpl\/templates\/_helpers\.tpl:6:10: executing "nilp" .*nil pointer.* \(while rendering templates\/c-nil\.yaml\); the rest of the chart was linted without templates\/c-nil\.yaml \(findings that something is missing, such as a Service or budget matching nothing, are not reported for this chart\)$/) },
      { file: 'helpertpl/templates/a-uses.yaml', line: 1, column: 1, message: expect.stringMatching(/^helm template failed: execution error at \(helpertpl\/templates\/_helpers\.tpl:3:3\): helper says no \(while rendering templates\/a-uses\.yaml\); /) },
    ]);
    expect(prestopFinding(report, 'helpertpl/templates/deployment.yaml')).toHaveLength(1);
    // b-ok.yaml and the helpers were rendered: the ConfigMap is there (no findings on it, but no error either).
    expect(report.errors.some((e) => /_helpers|b-ok/.test(e.file))).toBe(false);
  });

  test('a helper that does not parse: one error, nothing else rendered (no template can be left out to recover)', () => {
    const c = chart('badhelper', { 'templates/_helpers.tpl': '{{- define "x" }}{{ if }}{{ end }}\n' });
    const { code, report } = json(['lint', c]);
    expect(code).toBe(2);
    expect(report.errors).toEqual([{ file: 'badhelper/templates/_helpers.tpl', line: 1, column: 1, message: expect.stringMatching(/^helm template failed: parse error at \(badhelper\/templates\/_helpers\.tpl:1\): missing value for if$/) }]);
    expect(report.findings).toEqual([]);
  });

  test('every template fails (NOTES.txt too): each reported once, no findings, no other error', () => {
    const c = chart('allfail', {
      'templates/deployment.yaml': '{{ fail "d" }}\n',
      'templates/service.yaml': '{{ fail "s" }}\n',
      'templates/NOTES.txt': '{{ fail "n" }}\n',
    });
    const { code, report } = json(['lint', c]);
    expect(code).toBe(2);
    expect(report.errors.map((e) => e.file).sort()).toEqual(['allfail/templates/NOTES.txt', 'allfail/templates/deployment.yaml', 'allfail/templates/service.yaml']);
    expect(report.findings).toEqual([]);
  });

  test('a failing template in a subchart: a directory whose name differs from the chart name, and a packaged (.tgz) subchart', () => {
    const c = chart('parent', {
      'charts/sub-dir/Chart.yaml': 'apiVersion: v2\nname: sub\nversion: 0.2.0\n',
      'charts/sub-dir/templates/bad.yaml': 'x: {{ fail "sub fails" }}\n',
      'charts/sub-dir/templates/ok.yaml': WEB_CHART['templates/deployment.yaml'].replace(/-web/g, '-subweb'),
    });
    const { code, report } = json(['lint', c]);
    expect(code).toBe(2);
    expect(report.errors).toEqual([{ file: 'parent/charts/sub-dir/templates/bad.yaml', line: 1, column: 6, message: expect.stringMatching(/^helm template failed: execution error at \(parent\/charts\/sub\/templates\/bad\.yaml:1:6\): sub fails; the rest of the chart was linted without charts\/sub-dir\/templates\/bad\.yaml \(findings that something is missing, such as a Service or budget matching nothing, are not reported for this chart\)$/) }]);
    expect(report.findings.filter((f) => f.ruleId === 'prestop-missing').map((f) => f.object.name).sort()).toEqual(['kubegrace-subweb', 'kubegrace-web']);

    // A packaged subchart: unpacked into the mirror without the failing template; its other templates still linted.
    const pkgSrc = path.join(work, 'pkgsrc');
    writeTree(pkgSrc, {
      'Chart.yaml': 'apiVersion: v2\nname: packed\nversion: 0.3.0\n',
      'templates/bad.yaml': '{{ fail "packed fails" }}\n',
      'templates/ok.yaml': WEB_CHART['templates/deployment.yaml'].replace(/-web/g, '-packedweb'),
    });
    const p = chart('withtgz', {});
    fs.mkdirSync(path.join(work, p, 'charts'));
    const pk = spawnSync(HELM, ['package', pkgSrc, '--destination', path.join(work, p, 'charts')], { encoding: 'utf8' });
    expect(pk.status).toBe(0);
    const before = snapshot(path.join(work, p));
    const t = json(['lint', p]);
    expect(t.code).toBe(2);
    expect(t.report.errors).toEqual([
      {
        file: 'withtgz/charts/packed/templates/bad.yaml',
        line: 1,
        column: 3,
        message: 'helm template failed: execution error at (withtgz/charts/packed/templates/bad.yaml:1:3): packed fails; the rest of the chart was linted without charts/packed/templates/bad.yaml (in charts/packed-0.3.0.tgz) (findings that something is missing, such as a Service or budget matching nothing, are not reported for this chart)',
      },
    ]);
    expect(t.report.findings.filter((f) => f.ruleId === 'prestop-missing').map((f) => f.object.name).sort()).toEqual(['kubegrace-packedweb', 'kubegrace-web']);
    expect(snapshot(path.join(work, p))).toEqual(before);
  });

  test('hostile failure messages and template names (control characters, a forged ::error) stay inert in every output', () => {
    const c = chart('hostile', {
      'templates/evil.yaml': '{{ fail "ctl \\x1b[31mred\\r\\n::error file=evil.yaml,line=1::forged\\u0007" }}\n',
      'templates/name\n::error file=forged.yaml,line=2::named.yaml': '{{ fail "by name" }}\n',
    });
    const text = kg(['lint', c, '--kube-version', '1.31']);
    const gh = kg(['lint', c, '--format', 'github', '--kube-version', '1.31']);
    const j = kg(['lint', c, '--format', 'json', '--kube-version', '1.31']);
    for (const out of [text.stdout, gh.stdout, j.stdout, j.stderr]) {
      // eslint-disable-next-line no-control-regex
      expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
      expect(out).not.toMatch(/^::error file=evil/m);
    }
    expect(text.stdout).toContain('ctl \\u001b[31mred\\u000d\\u000a::error file=evil.yaml,line=1::forged\\u0007');
    expect(gh.stdout).toMatch(/^::error file=hostile\/templates\/evil\.yaml,line=1,.*::.*ctl \\u001b\[31mred%0D%0A::error file=evil\.yaml,line=1::forged/m);
    // The JSON keeps the message as helm printed it (JSON escapes it); stderr shows it escaped.
    expect((JSON.parse(j.stdout) as JsonReport).errors.find((e) => e.file === 'hostile/templates/evil.yaml')!.message).toContain('ctl \u001b[31mred\r\n::error file=evil.yaml,line=1::forged\u0007');
    expect(j.stderr).toContain('ctl \\u001b[31mred\\u000d\\u000a::error');
    const report = JSON.parse(j.stdout) as JsonReport;
    // Both templates were recognised (even the one whose name holds a newline), left out, and the rest linted.
    expect(report.errors.map((e) => e.file).sort()).toEqual(['hostile/templates/evil.yaml', 'hostile/templates/name\n::error file=forged.yaml,line=2::named.yaml']);
    expect(text.stdout).toContain('hostile/templates/name\\u000a::error file=forged.yaml,line=2::named.yaml');
    expect(prestopFinding(report, 'hostile/templates/deployment.yaml')).toHaveLength(1);
    // explain renders charts the same way: the failures on stderr, escaped; the Deployment still explained.
    const ex = kg(['explain', c, '--kube-version', '1.31']);
    expect(ex.code).toBe(2);
    // eslint-disable-next-line no-control-regex
    expect(ex.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(ex.stderr).not.toMatch(/^::error/m);
    expect(ex.stderr).toContain('ctl \\u001b[31mred\\u000d\\u000a::error');
    expect(ex.stdout).toContain('kubegrace-web');
  });

  test('the number of helm runs is bounded: 30 failing templates stop at 24 runs with an error saying so', () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 30; i++) many[`templates/f${String(i).padStart(2, '0')}.yaml`] = `{{ fail "f${i}" }}\n`;
    const c = chart('many', many);
    const t0 = Date.now();
    const { code, report } = json(['lint', c]);
    const ms = Date.now() - t0;
    expect(code).toBe(2);
    expect(report.errors).toHaveLength(25);
    expect(report.errors.slice(0, 24).map((e) => e.file)).toEqual(Array.from({ length: 24 }, (_, i) => `many/templates/f${String(29 - i).padStart(2, '0')}.yaml`));
    expect(report.errors[24]).toEqual({ file: 'many', line: 1, column: 1, message: 'cannot render this Helm chart: stopped after 24 helm template runs with 24 failing templates found; the other templates were not linted: fix these and lint again' });
    // The messages do not claim the rest was linted: it was not.
    expect(report.errors.some((e) => e.message.includes('the rest of the chart was linted'))).toBe(false);
    expect(report.findings).toEqual([]);
    expect(ms).toBeLessThan(30000);
  });
});
