/**
 * Linting Helm charts through `helm template`: one Source per template file, positions in the
 * rendered text (what `helm template --show-only` prints), helm's errors as input errors.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { helmChartRenderer, helmError, kubeVersionArg, renderedSources, splitRendered } from '../../lib/helm/render';
import { collectSources } from '../../lib/model/sources';
import { InputError } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';
import { WEB_CHART, writeTree } from '../helpers/charts';

const ROOT = path.resolve(__dirname, '../..');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');
const CORPUS = path.resolve(ROOT, '../shared/corpus');

let tmpRoot: string;
beforeAll(() => {
  tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-render-'));
});
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));


function chartDir(files: Record<string, string> = WEB_CHART): string {
  return writeTree(fs.mkdtempSync(path.join(tmpRoot, 'c-')), files);
}

function helmTemplate(dir: string, extra: string[] = []): string {
  const r = spawnSync(HELM, ['template', 'kubegrace', dir, '--kube-version', '1.31.0', ...extra], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

const renderer = (opts: Parameters<typeof helmChartRenderer>[0] = {}) => helmChartRenderer({ helm: HELM, kubeVersion: '1.31', ...opts });

describe('splitting helm template output', () => {
  test('blocks keep helm\'s text; a template\'s scattered documents become one Source', () => {
    const out = '---\n# Source: c/templates/a.yaml\nkind: A\n---\n# Source: c/templates/b.yaml\nkind: B\n---\n# Source: c/templates/a.yaml\nkind: A2\n';
    expect(splitRendered(out).map((b) => b.source)).toEqual(['templates/a.yaml', 'templates/b.yaml', 'templates/a.yaml']);
    expect(renderedSources(out, 'charts/c')).toEqual([
      { file: 'charts/c/templates/a.yaml (rendered)', chart: 'charts/c', text: '---\n# Source: c/templates/a.yaml\nkind: A\n---\n# Source: c/templates/a.yaml\nkind: A2\n' },
      { file: 'charts/c/templates/b.yaml (rendered)', chart: 'charts/c', text: '---\n# Source: c/templates/b.yaml\nkind: B\n' },
    ]);
    expect(renderedSources('', 'c')).toEqual([]);
    expect(renderedSources('kind: X\n', 'c')).toEqual([{ file: 'c (rendered)', chart: 'c', text: 'kind: X\n' }]);
  });

  test('each Source is exactly what `helm template --show-only <template>` prints', () => {
    const dir = chartDir();
    const sources = renderedSources(helmTemplate(dir), 'web');
    expect(sources.map((s) => s.file)).toEqual(['web/templates/deployment.yaml (rendered)', 'web/templates/service.yaml (rendered)']);
    for (const s of sources) {
      const tpl = s.file.replace(/^web\//, '').replace(/ \(rendered\)$/, '');
      expect(s.text).toBe(helmTemplate(dir, ['--show-only', tpl]));
    }
    // deployment.yaml's two documents are not adjacent in the full output.
    expect(helmTemplate(dir)).not.toContain(sources[0].text);
  });

  test('helm errors: template positions point at the template file, others at the chart', () => {
    expect(helmError('Error: execution error at (c/templates/guard.yaml:3:4): preStop >= grace\n\nUse --debug flag to render out invalid YAML\n', 'charts/c')).toEqual({
      file: 'charts/c/templates/guard.yaml',
      line: 3,
      column: 4,
      message: 'helm template failed: execution error at (c/templates/guard.yaml:3:4): preStop >= grace',
    });
    expect(helmError('Error: template: c/templates/x.yaml:4:11: executing "c/templates/x.yaml" at <fail "boom">: error calling fail: boom\n', 'c')).toMatchObject({ file: 'c/templates/x.yaml', line: 4, column: 11 });
    expect(helmError('Error: parse error at (c/templates/x.yaml:1): missing value for if\n', 'c')).toMatchObject({ file: 'c/templates/x.yaml', line: 1, column: 1 });
    // helm names the template but gives a line of the rendered text: line 1 of the template.
    expect(helmError('Error: YAML parse error on c/templates/x.yaml: error converting YAML to JSON: yaml: line 5: bad\n', 'c')).toMatchObject({ file: 'c/templates/x.yaml', line: 1, column: 1, message: expect.stringContaining('yaml: line 5: bad') });
    // Warnings before helm's `Error:` line (symlink notices, values warnings) are not part of the message.
    expect(helmError('walk.go:74: found symbolic link in path: /x/Chart.yaml resolves to /y/Chart.yaml. Contents of linked file included and used\ncoalesce.go:220: warning: cannot overwrite table with non table for a (map[])\nError: execution error at (c/templates/a b:c.yaml:3:4): no\n', 'c')).toEqual({ file: 'c/templates/a b:c.yaml', line: 3, column: 4, message: 'helm template failed: execution error at (c/templates/a b:c.yaml:3:4): no' });
    // A chart-level message that quotes a position later on is not a template error.
    expect(helmError('Error: chart requires kubeVersion: >=1.31 (template: c/templates/x.yaml:1:1: no)\n', 'c')).toMatchObject({ file: 'c', line: 1, column: 1 });
    // A values file or Chart.yaml that is not YAML: at that file and helm's line, saying the chart was not linted.
    expect(helmError(`Error: failed to parse ${path.join(process.cwd(), 'vals', 'bad.yaml')}: error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this context\n`, 'charts/c')).toEqual({
      file: path.join('vals', 'bad.yaml'),
      line: 3,
      column: 1,
      message: 'values file is not valid YAML: mapping values are not allowed in this context; fix the values file (the chart charts/c was not linted)',
    });
    expect(helmError('Error: failed to parse /elsewhere/v.yaml: error converting YAML to JSON: yaml: line 1: bad\n', 'c')).toMatchObject({ file: '/elsewhere/v.yaml', line: 1 });
    expect(helmError("Error: cannot load Chart.yaml: error converting YAML to JSON: yaml: line 2: did not find expected ',' or ']'\n", 'charts/c')).toEqual({
      file: 'charts/c/Chart.yaml',
      line: 2,
      column: 1,
      message: "Chart.yaml is not valid YAML: did not find expected ',' or ']'; fix it (the chart was not linted)",
    });
    expect(kubeVersionArg('1.31')).toBe('1.31.0');
    expect(kubeVersionArg('v1.30.4')).toBe('1.30.4');
  });
});

describe('helmChartRenderer through collectSources and the engine', () => {
  function lint(paths: string[], cwd: string, opts: Parameters<typeof helmChartRenderer>[0] = {}) {
    const { sources, errors } = collectSources(paths, { cwd, renderChart: renderer(opts) });
    const policy = loadPolicy('recommended', ALL_RULES);
    return { sources, ...lintSources(sources, { rules: ALL_RULES, policy, version: KubeVersion.parse('1.31') }, errors) };
  }

  test('findings name the template and point into its rendered text', () => {
    const parent = fs.mkdtempSync(path.join(tmpRoot, 'p-'));
    writeTree(path.join(parent, 'charts/web'), WEB_CHART);
    const r = lint(['charts/web'], parent);
    expect(r.errors).toEqual([]);
    expect(r.sources.map((s) => [s.file, s.chart])).toEqual([
      ['charts/web/templates/deployment.yaml (rendered)', 'charts/web'],
      ['charts/web/templates/service.yaml (rendered)', 'charts/web'],
    ]);
    const f = r.findings.find((x) => x.ruleId === 'prestop-missing');
    expect(f).toMatchObject({ file: 'charts/web/templates/deployment.yaml (rendered)', object: { kind: 'Deployment', name: 'kubegrace-web' }, pointer: '/spec/template/spec/containers/0' });
    const text = r.sources[0].text;
    const line = text.split('\n')[f!.line - 1];
    expect(line.slice(f!.column - 1)).toBe('name: web');
    // The Deployment is the second document of that text: the line is past the ServiceAccount.
    const deploymentLine = text.split('\n').indexOf('kind: Deployment') + 1;
    expect(deploymentLine).toBeGreaterThan(5);
    expect(f!.line).toBeGreaterThan(deploymentLine);
    // With the values that add a preStop hook, the finding goes away.
    const values = path.join(parent, 'prestop.yaml');
    fs.writeFileSync(values, 'preStop: true\n');
    expect(lint(['charts/web'], parent, { valuesFiles: [values] }).findings.filter((x) => x.ruleId === 'prestop-missing')).toEqual([]);
  });

  test('a directory with charts and plain files: both are linted; subcharts render under charts/<sub>', () => {
    const parent = fs.mkdtempSync(path.join(tmpRoot, 'p-'));
    writeTree(path.join(parent, 'deploy/web'), {
      ...WEB_CHART,
      'charts/sub/Chart.yaml': 'apiVersion: v2\nname: sub\nversion: 0.2.0\n',
      'charts/sub/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\n',
    });
    writeTree(path.join(parent, 'deploy/only'), { 'Chart.yaml': 'apiVersion: v2\nname: only\nversion: 0.1.0\n' });
    // helm refuses to render a library chart ("library charts are not installable"): nothing to lint.
    writeTree(path.join(parent, 'deploy/lib'), { 'Chart.yaml': 'apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n', 'templates/_x.tpl': '{{- define "x" }}{{ end }}\n' });
    writeTree(path.join(parent, 'deploy'), { 'plain.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n' });
    const r = lint(['deploy'], parent);
    expect(r.errors).toEqual([]);
    expect(r.sources.map((s) => s.file)).toEqual([
      'deploy/plain.yaml',
      'deploy/web/charts/sub/templates/cm.yaml (rendered)',
      'deploy/web/templates/deployment.yaml (rendered)',
      'deploy/web/templates/service.yaml (rendered)',
    ]);
  });

  test('--kube-version reaches helm (a chart\'s kubeVersion constraint)', () => {
    const dir = chartDir({ ...WEB_CHART, 'Chart.yaml': 'apiVersion: v2\nname: web\nversion: 0.1.0\nkubeVersion: ">=1.31.0-0"\n' });
    const ok = renderer({ kubeVersion: '1.31' })(dir, 'web');
    expect(ok.errors).toEqual([]);
    expect(ok.sources).toHaveLength(2);
    const old = renderer({ kubeVersion: '1.29' })(dir, 'web');
    expect(old.sources).toEqual([]);
    expect(old.errors).toEqual([{ file: 'web', line: 1, column: 1, message: expect.stringMatching(/^helm template failed: .*kubeVersion.*1\.29\.0/) }]);
  });

  test('a guard that fails: the message reaches the user, at the template position; other inputs and the chart\'s other templates are still linted', () => {
    const parent = fs.mkdtempSync(path.join(tmpRoot, 'p-'));
    writeTree(path.join(parent, 'guarded'), {
      ...WEB_CHART,
      'templates/guard.yaml': '{{- if lt (int .Values.replicas) 3 }}\n{{- fail "boom: replicas must be at least 3" }}\n{{- end }}\n',
    });
    writeTree(parent, { 'other.yaml': 'apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  selector: {app: nothing}\n  ports: [{port: 80}]\n' });
    const seen: InputError[] = [];
    const { sources, errors } = collectSources(['guarded', 'other.yaml'], { cwd: parent, renderChart: renderer({ onError: (e) => seen.push(e) }) });
    expect(errors).toEqual([{ file: 'guarded/templates/guard.yaml', line: 2, column: expect.any(Number), message: expect.stringContaining('boom: replicas must be at least 3') }]);
    expect(seen).toEqual(errors);
    // The chart is rendered again without the failing template (issue 12 item 14).
    expect(sources.map((s) => s.file)).toEqual(['guarded/templates/deployment.yaml (rendered)', 'guarded/templates/service.yaml (rendered)', 'other.yaml']);
  });

  test('helm missing: one error per chart saying how to provide helm; plain files still read', () => {
    const parent = fs.mkdtempSync(path.join(tmpRoot, 'p-'));
    writeTree(path.join(parent, 'c1'), WEB_CHART);
    writeTree(path.join(parent, 'c2'), WEB_CHART);
    writeTree(parent, { 'plain.yaml': 'kind: ConfigMap\n' });
    const viaBin = collectSources(['c1', 'plain.yaml'], { cwd: parent, renderChart: helmChartRenderer({ env: { HELM_BIN: path.join(parent, 'no-helm') } }) });
    expect(viaBin.errors).toEqual([{ file: 'c1', line: 1, column: 1, message: `cannot render this Helm chart: HELM_BIN=${path.join(parent, 'no-helm')} is not an executable file; point HELM_BIN at a helm 3 binary` }]);
    expect(viaBin.sources.map((s) => s.file)).toEqual(['plain.yaml']);
    const noPath = collectSources(['c1', 'c2'], { cwd: parent, renderChart: helmChartRenderer({ env: { HELM_BIN: '', PATH: path.join(parent, 'empty-bin') } }) });
    expect(noPath.errors.map((e) => [e.file, e.message])).toEqual([
      ['c1', 'cannot render this Helm chart: helm not found: install helm 3 and put it on PATH, or set HELM_BIN to its path'],
      ['c2', 'cannot render this Helm chart: helm not found: install helm 3 and put it on PATH, or set HELM_BIN to its path'],
    ]);
  });

  test('corpus: linkerd-control-plane with its values renders one Source per template, all parseable', () => {
    const dir = path.join(CORPUS, 'charts/linkerd-control-plane');
    const r = lint([dir], CORPUS, { valuesFiles: [path.join(CORPUS, 'values/linkerd-dummy-identity.yaml')] });
    expect(r.errors).toEqual([]);
    expect(r.sources.length).toBeGreaterThan(5);
    for (const s of r.sources) expect(s.file).toMatch(/^charts\/linkerd-control-plane\/templates\/[\w./-]+\.yaml \(rendered\)$/);
    expect(r.objects).toBe(40); // INDEX.md: 40 objects
    // Without the identity values the chart's own guard fails, with its message.
    const bare = lint([dir], CORPUS);
    expect(bare.errors).toEqual([{ file: 'charts/linkerd-control-plane/templates/identity.yaml', line: 19, column: 21, message: expect.stringContaining('Please provide the identity issuer certificate') }]);
  });
});
