/**
 * The headline case of issue 11 / graceful-termination.md section 0, through the built bin: an app
 * repository keeps one object per file, so a Deployment is often linted without its Service. Rules
 * that judge what is configured (a preStop hook against the grace period it spends) must still fire.
 */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const BIN = path.resolve(__dirname, '../../build/lib/cli/main.js');

function lint(file: string, extra: string[] = []) {
  const r = runCli(['lint', file, '--format', 'json', '--kube-version', '1.31', ...extra], { encoding: 'utf8' });
  return { code: r.status, json: JSON.parse(r.stdout), stderr: r.stderr };
}

describe('a Deployment linted without its Service', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-unknown-'));
  const file = path.join(dir, 'deployment.yaml');
  fs.writeFileSync(
    file,
    `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080}]
        readinessProbe: {httpGet: {path: /readyz, port: http}}
        lifecycle: {preStop: {sleep: {seconds: 40}}}
`,
  );
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('preStop sleep 40 under the default grace of 30 s is an error, and the exit code says so', () => {
    const r = lint(file);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const budget = r.json.findings.filter((f: { ruleId: string }) => f.ruleId === 'grace-period-budget');
    expect(budget).toHaveLength(1);
    expect(budget[0]).toMatchObject({ severity: 'error', line: 15, pointer: '/spec/template/spec/containers/0/lifecycle/preStop' });
  });

  test('kubegrace.dev/served: "false" does not silence the consistency rule', () => {
    const hinted = path.join(dir, 'hinted.yaml');
    fs.writeFileSync(hinted, fs.readFileSync(file, 'utf8').replace('metadata: {labels: {app: web}}', 'metadata: {labels: {app: web}, annotations: {kubegrace.dev/served: "false"}}'));
    const r = lint(hinted);
    expect(r.code).toBe(1);
    expect(r.json.findings.map((f: { ruleId: string }) => f.ruleId)).toContain('grace-period-budget');
  });
});
