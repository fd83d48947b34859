/**
 * `kubegrace lint --fix-dry-run` through the built bin: it shows exactly what `--fix` writes (the
 * diff equals the diff between a copy before and after a real `--fix`, byte for byte, and `patch`
 * applied to a third copy gives the same bytes), its output ends with a newline, and the findings
 * that remain are reported at line:column of the unmodified file on disk (those of a real --fix at
 * the lines of the fixed file).
 */
import { spawnSync } from 'child_process';
import { runCli } from '../helpers/cli';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const CORPUS = path.resolve(ROOT, '../shared/corpus/rendered');

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\``);
});

function kg(args: string[], cwd: string, input = '') {
  const r = runCli(args, { cwd, input, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface JsonFinding {
  ruleId: string;
  severity: string;
  message: string;
  file: string;
  line: number;
  column: number;
  pointer: string;
  object: { kind: string; name: string; namespace?: string };
}

function findings(args: string[], cwd: string): JsonFinding[] {
  const r = kg([...args, '--format', 'json', '--output', 'report.json'], cwd);
  if (r.code === 2) throw new Error(`kubegrace failed: ${r.stderr}`);
  const j = JSON.parse(fs.readFileSync(path.join(cwd, 'report.json'), 'utf8')) as { findings: JsonFinding[] };
  fs.rmSync(path.join(cwd, 'report.json'));
  return j.findings;
}

const key = (f: JsonFinding) => `${f.file}|${f.ruleId}|${f.object.kind}/${f.object.namespace ?? ''}/${f.object.name}|${f.pointer}|${f.message}`;
const at = (f: JsonFinding) => `${f.file}:${f.line}:${f.column}`;

/** Served, on 1.31: prestop-missing inserts a preStop (safe), which moves every later line down. */
const SHIFTING = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      terminationGracePeriodSeconds: 45
      containers:
      - name: app
        image: example/web:1.0
        ports:
        - {name: http, containerPort: 8080}
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
  - {name: admin, port: 81, targetPort: admin}
`;

/** A grace fix on one line, in a file without a final newline. */
const NO_FINAL_NEWLINE = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: a
    image: x
    lifecycle: {preStop: {sleep: {seconds: 10}}}
  terminationGracePeriodSeconds: 5`;

/** Nothing to fix; a finding remains. */
const CLEAN_OF_FIXES = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 1
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: app
        image: example/api:1.0
        livenessProbe:
          httpGet: {path: /health, port: 8080}
          initialDelaySeconds: 60
`;

interface Case {
  name: string;
  files: Record<string, string>;
  /** The diff must change something (firing) or nothing (not firing). */
  changes: boolean;
  /** Findings that the fix leaves are also reported on the file on disk. */
  remains: boolean;
}

const corpusFiles = ['k8s-examples-guestbook.yaml', 'microservices-demo.yaml'];

const CASES: Case[] = [
  { name: 'an inserted hook moves a later finding', files: { 'web.yaml': SHIFTING }, changes: true, remains: true },
  { name: 'a file without a final newline', files: { 'pod.yaml': NO_FINAL_NEWLINE }, changes: true, remains: false },
  { name: 'the test fixture', files: { 'bad-grace.yaml': fs.readFileSync(path.join(ROOT, 'test/fixtures/bad-grace.yaml'), 'utf8') }, changes: true, remains: false },
  { name: 'nothing to fix', files: { 'api.yaml': CLEAN_OF_FIXES }, changes: false, remains: true },
  { name: 'two corpus files at once', files: Object.fromEntries(corpusFiles.map((f) => [f, fs.readFileSync(path.join(CORPUS, f), 'utf8')])), changes: true, remains: true },
];

function copy(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-dry-'));
  for (const [n, t] of Object.entries(files)) fs.writeFileSync(path.join(dir, n), t);
  return dir;
}

describe.each([
  { label: 'safe fixes', extra: [] as string[] },
  { label: 'with --fix-proposals', extra: ['--fix-proposals'] },
])('--fix-dry-run ($label)', ({ extra }) => {
  test.each(CASES)('$name', ({ files, changes, remains }) => {
    const names = Object.keys(files);
    const base = ['lint', ...names, '--kube-version', '1.31'];
    const disk = copy(files);
    const written = copy(files);
    const patched = copy(files);

    const onDisk = findings(base, disk);
    // One dry run: the diff on stdout, the text report on stderr, the JSON report to a file.
    const dry = kg([...base, '--fix-dry-run', ...extra, '--format', 'text', '--format', 'json=dry.json'], disk);
    expect(dry.code).not.toBe(2);
    const dryFindings = (JSON.parse(fs.readFileSync(path.join(disk, 'dry.json'), 'utf8')) as { findings: JsonFinding[] }).findings;
    // The dry run wrote nothing.
    for (const n of names) expect(fs.readFileSync(path.join(disk, n), 'utf8')).toBe(files[n]);

    const afterFix = findings([...base, '--fix', ...extra], written);
    const expected = names
      .map((n) => {
        const after = fs.readFileSync(path.join(written, n), 'utf8');
        return after === files[n] ? '' : createTwoFilesPatch(`a/${n}`, `b/${n}`, files[n], after, undefined, undefined, { headerOptions: FILE_HEADERS_ONLY, context: 3 });
      })
      .join('');
    // Exactly what --fix writes, byte for byte.
    expect(dry.stdout).toBe(expected);
    if (changes) expect(dry.stdout).not.toBe('');
    else expect(dry.stdout).toBe('');
    if (dry.stdout) {
      expect(dry.stdout.endsWith('\n')).toBe(true);
      // And `patch` turns the files on disk into what --fix wrote.
      fs.writeFileSync(path.join(patched, 'dry.diff'), dry.stdout);
      const p = spawnSync('patch', ['-p1', '-s', '-i', 'dry.diff'], { cwd: patched, encoding: 'utf8' });
      expect(p.stderr).toBe('');
      expect(p.status).toBe(0);
      for (const n of names) expect(fs.readFileSync(path.join(patched, n))).toEqual(fs.readFileSync(path.join(written, n)));
    }

    // What remains after the dry run is reported at the lines of the unmodified file: a finding that
    // also exists on disk is exactly where the plain lint puts it, and every position is in the file.
    const diskAt = new Map(onDisk.map((f) => [key(f), at(f)]));
    let compared = 0;
    for (const f of dryFindings) {
      expect(f.line).toBeLessThanOrEqual(files[f.file].split('\n').length);
      const want = diskAt.get(key(f));
      if (want === undefined) continue;
      compared++;
      expect(at(f)).toBe(want);
    }
    expect(compared > 0).toBe(remains);
    // The text report says the same.
    for (const f of dryFindings) expect(dry.stderr).toMatch(new RegExp(`^ +${f.line}:${f.column} +${f.severity} `, 'm'));

    // A real --fix reports what remains at the lines of the fixed file, as linting it again does.
    const again = new Map(findings(base, written).map((f) => [key(f), at(f)]));
    for (const f of afterFix) expect(at(f)).toBe(again.get(key(f)));
  });
});

test('the dry-run summary names the lines on disk of what it would fix', () => {
  const dir = copy({ 'web.yaml': SHIFTING });
  const onDisk = findings(['lint', 'web.yaml', '--kube-version', '1.31'], dir);
  const r = kg(['lint', 'web.yaml', '--kube-version', '1.31', '--fix-dry-run', '--fix-proposals'], dir);
  const lines = r.stderr.split('\n').filter((l) => /^ {2}web\.yaml:\d+ /.test(l));
  expect(lines.length).toBeGreaterThan(1);
  for (const l of lines) {
    const [, line, rule] = /^ {2}web\.yaml:(\d+) (\S+)/.exec(l)!;
    expect(onDisk.filter((f) => f.ruleId === rule).map((f) => String(f.line))).toContain(line);
  }
});

test('stdin: the dry-run diff ends with a newline and the report points at the lines read', () => {
  const dir = copy({});
  const plain = kg(['lint', '-', '--kube-version', '1.31', '--format', 'json'], dir, SHIFTING);
  const want = new Map((JSON.parse(plain.stdout).findings as JsonFinding[]).map((f) => [key(f), at(f)]));
  const r = kg(['lint', '-', '--kube-version', '1.31', '--fix-dry-run', '--format', 'json', '--output', 'r.json'], dir, SHIFTING);
  expect(r.stdout.startsWith('--- a/<stdin>')).toBe(true);
  expect(r.stdout.endsWith('\n')).toBe(true);
  const got = JSON.parse(fs.readFileSync(path.join(dir, 'r.json'), 'utf8')).findings as JsonFinding[];
  const shared = got.filter((f) => want.has(key(f)));
  expect(shared.length).toBeGreaterThan(0);
  for (const f of shared) expect(at(f)).toBe(want.get(key(f)));
});
