/**
 * `kubegrace policy export` end to end through the built bin: files and stdout, the Helm chart
 * rendered and linted by the real helm, `kubegrace lint` over the exported objects, policies and
 * actions, and the usage errors.
 */
import { spawnSync } from 'child_process';
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { ADMISSION, NOT_EXPORTED, admissionSupport } from '../../lib/admission/catalog';
import { ALL_RULES } from '../../lib/rules';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-policy-cli-'));

function kubegrace(args: string[]): { status: number; stdout: string; stderr: string } {
  const r = runCli(args, { cwd: work, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function docs(text: string): Record<string, unknown>[] {
  return parseAllDocuments(text).map((d) => {
    if ('errors' in d && d.errors.length) throw new Error(d.errors[0].message);
    return d.toJSON() as Record<string, unknown>;
  }).filter((d) => d !== null);
}

function helm(args: string[]): { status: number; stdout: string; stderr: string } {
  const home = path.join(work, 'helm-home');
  const env = { ...process.env, HELM_CACHE_HOME: path.join(home, 'cache'), HELM_CONFIG_HOME: path.join(home, 'config'), HELM_DATA_HOME: path.join(home, 'data') };
  const r = spawnSync(HELM, args, { cwd: work, encoding: 'utf8', env });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\``);
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('kubegrace policy export', () => {
  test('--output writes both files; kubegrace lint accepts them (exit 0, no error, no finding)', () => {
    const r = kubegrace(['policy', 'export', '--kube-version', '1.34', '--output', 'out']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/wrote \d+ validating and \d+ mutating policies for Kubernetes 1\.34/);
    expect(r.stderr).toContain('--runtime-config=admissionregistration.k8s.io/v1beta1=true');
    const v = docs(fs.readFileSync(path.join(work, 'out/validating-admission-policies.yaml'), 'utf8'));
    const m = docs(fs.readFileSync(path.join(work, 'out/mutating-admission-policies.yaml'), 'utf8'));
    expect(new Set(v.map((d) => d.kind))).toEqual(new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']));
    expect(new Set(m.map((d) => `${d.apiVersion} ${d.kind}`))).toEqual(new Set(['admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicy', 'admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicyBinding']));
    const lint = kubegrace(['lint', 'out', '--format', 'json']);
    expect(lint.stderr).toBe('');
    expect(lint.status).toBe(0);
    const j = JSON.parse(lint.stdout);
    expect(j.errors).toEqual([]);
    expect(j.findings).toEqual([]);
    expect(j.summary.objects).toBe(v.length + m.length);
  });

  test('stdout without --output; the same documents; below 1.32 only validating policies, with a note', () => {
    const r = kubegrace(['policy', 'export', '--kube-version', '1.31']);
    expect(r.status).toBe(0);
    const d = docs(r.stdout);
    expect(d.length).toBeGreaterThan(10);
    expect(d.every((x) => String(x.kind).startsWith('ValidatingAdmissionPolicy'))).toBe(true);
    expect(r.stderr).toContain('no MutatingAdmissionPolicy on 1.31');
  });

  test('--helm-chart: helm lint passes and helm template renders exactly the exported documents', () => {
    const r = kubegrace(['policy', 'export', '--kube-version', '1.36', '--helm-chart', 'chart']);
    expect(r.status).toBe(0);
    expect(fs.existsSync(path.join(work, 'chart/Chart.yaml'))).toBe(true);
    const lint = helm(['lint', '--strict', 'chart']);
    expect(lint.stdout + lint.stderr).toContain('1 chart(s) linted, 0 chart(s) failed');
    const t = helm(['template', 'p', 'chart', '--kube-version', '1.36.0']);
    expect(t.stderr).toBe('');
    expect(t.status).toBe(0);
    const rendered = docs(t.stdout);
    const direct = docs(kubegrace(['policy', 'export', '--kube-version', '1.36']).stdout);
    const key = (x: Record<string, unknown>) => `${String(x.kind)}/${String((x.metadata as Record<string, unknown>).name)}`;
    expect(rendered.map(key).sort()).toEqual(direct.map(key).sort());
    expect(rendered.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(direct.sort((a, b) => key(a).localeCompare(key(b))));
  });

  test('severities map to actions (strict raises info to warning: Warn); --action overrides; --mode', () => {
    const bindings = (args: string[]) =>
      docs(kubegrace(['policy', 'export', '--kube-version', '1.36', ...args]).stdout).filter((d) => d.kind === 'ValidatingAdmissionPolicyBinding');
    const rec = bindings([]);
    const action = (bs: Record<string, unknown>[], name: string) => (bs.find((b) => (b.metadata as Record<string, string>).name === name)?.spec as Record<string, string[]>).validationActions;
    expect(action(rec, 'kubegrace-zero-grace-period-error')).toEqual(['Deny']);
    expect(action(rec, 'kubegrace-zero-grace-period-warning')).toEqual(['Warn']);
    expect(action(rec, 'kubegrace-prestop-handler-info')).toEqual(['Audit']);
    expect(action(bindings(['--policy', 'strict']), 'kubegrace-prestop-handler-info')).toEqual(['Warn']);
    expect(new Set(bindings(['--action', 'Audit']).map((b) => (b.spec as Record<string, string[]>).validationActions[0]))).toEqual(new Set(['Audit']));
    const onlyMutate = docs(kubegrace(['policy', 'export', '--kube-version', '1.36', '--mode', 'mutate']).stdout);
    expect(onlyMutate.every((d) => String(d.kind).startsWith('Mutating'))).toBe(true);
  });

  test('a policy that turns a rule off exports nothing for it; a waitPattern CEL cannot read is a usage error', () => {
    fs.writeFileSync(
      path.join(work, 'p.yaml'),
      'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  extends: [recommended]\n  rules:\n    zero-grace-period: off\n',
    );
    const r = kubegrace(['policy', 'export', '--kube-version', '1.36', '--policy', 'p.yaml']);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('kubegrace-zero-grace-period');
    expect(r.stdout).toContain('kubegrace-prestop-handler-error');
    fs.writeFileSync(
      path.join(work, 'bad.yaml'),
      'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: bad}\nspec:\n  extends: [recommended]\n  rules:\n    grace-period-budget: {params: {waitPatterns: ["^wait (?<d>\\\\d+)s and more$"]}}\n',
    );
    const bad = kubegrace(['policy', 'export', '--kube-version', '1.36', '--policy', 'bad.yaml']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('waitPatterns entry');
    expect(bad.stdout).toBe('');
  });

  test.each([
    [['policy'], /Usage: kubegrace policy export/],
    [['policy', 'import'], /unknown policy command "import"/],
    [['policy', 'export', '--mode', 'all'], /--mode must be validate, mutate or both/],
    [['policy', 'export', '--action', 'Block'], /--action must be Deny, Warn or Audit/],
    [['policy', 'export', '--kube-version', '1.29'], /needs Kubernetes >= 1.30/],
    [['policy', 'export', '--kube-version', 'latest'], /invalid Kubernetes version/],
    [['policy', 'export', 'extra'], /unexpected argument "extra"/],
  ])('usage error %j exits 2', (args, message) => {
    const r = kubegrace(args as string[]);
    expect(r.status).toBe(2);
    expect(r.stdout + r.stderr).toMatch(message as RegExp);
  });
});

describe('kubegrace rules lists what is exported and why not', () => {
  test('every rule has an admission note; every catalog entry names a rule', () => {
    const ids = new Set(ALL_RULES.map((r) => r.meta.id));
    for (const id of [...Object.keys(ADMISSION), ...Object.keys(NOT_EXPORTED)]) expect({ id, known: ids.has(id) }).toEqual({ id, known: true });
    for (const id of ids) expect(admissionSupport(id).note.length).toBeGreaterThan(10);
  });

  test('text and json output carry it', () => {
    const t = kubegrace(['rules']);
    expect(t.status).toBe(0);
    expect(t.stdout).toMatch(/Admission policies \(kubegrace policy export\):\n/);
    expect(t.stdout).toMatch(/pdb-missing +no +needs other objects than the admitted one: PodDisruptionBudgets and HPAs/);
    const j = JSON.parse(kubegrace(['rules', '--format', 'json']).stdout);
    const g = j.rules.find((r: { id: string }) => r.id === 'grace-period-budget');
    expect(g.admission).toEqual(expect.objectContaining({ validate: true, mutate: true }));
  });
});
