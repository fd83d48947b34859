/**
 * `kubegrace explain` through the built bin: text and SVG output, --object, --output, colour
 * handling and exit codes.
 */
import { runCli } from '../helpers/cli';
import { DOMParser } from '@xmldom/xmldom';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const FIX = path.join(ROOT, 'test/explain/fixtures');

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npx tsc -p tsconfig.json\` (npm test builds it)`);
});

function kg(args: string[], opts: { input?: string; cwd?: string; env?: Record<string, string> } = {}) {
  const r = runCli(args, {
    cwd: opts.cwd ?? FIX,
    input: opts.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...opts.env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const TWO = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: app, image: a}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: d}]}
`;

describe('kubegrace explain', () => {
  test('text: the timeline, findings and rollout of the fixture; exit 0', () => {
    const r = kg(['explain', 'sidecar-overlong.yaml']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Deployment\/checkout \(namespace shop\) {2}sidecar-overlong\.yaml:3:1\n/);
    expect(r.stdout).toContain('┗ grace deadline 30s, last SIGKILL 32s');
    expect(r.stdout).toMatch(/sidecar-overlong\.yaml:\d+:\d+ error {3}grace-period-budget/);
    expect(r.stdout).toContain('steps: 3 x 1 new pod');
    expect(r.stdout).not.toContain('\u001b[');
  });

  test('svg to a file with --output: well-formed, with a violation; nothing on stdout', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-explain-'));
    const out = path.join(dir, 'x.svg');
    const r = kg(['explain', path.join(FIX, 'sidecar-overlong.yaml'), '--format', 'svg', '--output', out], { cwd: dir });
    expect([r.code, r.stderr, r.stdout]).toEqual([0, '', '']);
    const svg = fs.readFileSync(out, 'utf8');
    const errors: string[] = [];
    const doc = new DOMParser({ onError: (level, msg) => errors.push(`${level}: ${msg}`) }).parseFromString(svg, 'image/svg+xml');
    expect(errors).toEqual([]);
    expect(doc.documentElement!.tagName).toBe('svg');
    expect(svg).toMatch(/class="phase violation"[^>]*data-rule="grace-period-budget"/);
    // Same bytes on stdout and in the file, and on a second run.
    expect(kg(['explain', path.join(FIX, 'sidecar-overlong.yaml'), '--format', 'svg'], { cwd: dir }).stdout).toBe(svg);
  });

  test('stdin, several workloads one after another; --object picks one (kubectl short kind, namespace)', () => {
    const all = kg(['explain', '-'], { input: TWO });
    expect(all.code).toBe(0);
    expect(all.stdout.indexOf('Deployment/api ')).toBeLessThan(all.stdout.indexOf('StatefulSet/db '));
    const one = kg(['explain', '-', '--object', 'sts/data/db'], { input: TWO });
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^StatefulSet\/db \(namespace data\)/);
    expect(one.stdout).not.toContain('Deployment/api');
  });

  test('--object not found: exit 2, listing the workloads', () => {
    const r = kg(['explain', '-', '--object', 'Deployment/nope'], { input: TWO });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--object Deployment/nope not found in -; the workloads there are:');
    expect(r.stderr).toContain('  Deployment/api  (<stdin>:1)');
    expect(r.stderr).toContain('  StatefulSet/data/db  (<stdin>:10)');
  });

  test('a workload given as a path (as kubectl takes it): the missing path says to pass it as --object; the input is still drawn', () => {
    const r = kg(['explain', '-', 'deploy/api'], { input: TWO });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('deploy/api:1:1 error input no such file or directory; check the path; to draw only this workload, pass it as --object deploy/api\n');
    expect(r.stdout).toContain('Deployment/api');
    // A missing path that is no workload reference, or one next to --object: the plain error.
    expect(kg(['explain', '-', 'Service/api'], { input: TWO }).stderr).toBe('Service/api:1:1 error input no such file or directory; check the path\n');
    expect(kg(['explain', '-', 'sts/db', '--object', 'Deployment/api'], { input: TWO }).stderr).toBe('sts/db:1:1 error input no such file or directory; check the path\n');
  });

  test('no workload: exit 2 with a message', () => {
    const r = kg(['explain', '-'], { input: 'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {a: b}}\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^kubegrace: no workload \(Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob\) in -/);
  });

  test('a parse error is reported as file:line:col, the rest is still drawn, exit 2', () => {
    const r = kg(['explain', '-'], { input: `${TWO}---\nkind: [unclosed\n` });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^<stdin>:\d+:\d+ error input /m);
    expect(r.stdout).toContain('Deployment/api');
    const only = kg(['explain', '-'], { input: 'a: [unclosed\n' });
    expect(only.code).toBe(2);
    expect(only.stderr).toMatch(/^<stdin>:\d+:\d+ error input YAML syntax error.*\nkubegrace: no workload .* that could be parsed\n$/);
  });

  test('usage errors: exit 2', () => {
    for (const args of [['explain'], ['explain', 'sidecar-overlong.yaml', '--format', 'png'], ['explain', 'sidecar-overlong.yaml', '--object', 'web'], ['explain', 'sidecar-overlong.yaml', '--kube-version', 'x'], ['explain', 'sidecar-overlong.yaml', '--bogus']]) {
      const r = kg(args);
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.stderr).toMatch(/^kubegrace: /);
    }
    expect(kg(['explain', 'missing.yaml']).code).toBe(2);
  });

  test('colour: only when asked (--color stands for a terminal), never with NO_COLOR or --no-color', () => {
    expect(kg(['explain', 'sidecar-overlong.yaml', '--color']).stdout).toContain('\u001b[');
    expect(kg(['explain', 'sidecar-overlong.yaml', '--color'], { env: { NO_COLOR: '1' } }).stdout).not.toContain('\u001b[');
    expect(kg(['explain', 'sidecar-overlong.yaml', '--color', '--no-color']).stdout).not.toContain('\u001b[');
  });

  test('--help', () => {
    const r = kg(['explain', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: kubegrace explain PATH\.\.\. \[--object KIND\/NAME\] \[--format text\|svg\]/);
  });
});
