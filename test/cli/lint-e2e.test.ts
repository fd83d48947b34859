/**
 * End-to-end tests of the CLI contract (DESIGN.md) through the built `bin`: exit codes, the JSON
 * shape, stdin, text lines with file:line:col, bad input, config and policy handling.
 */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const FIX = path.join(ROOT, 'test/fixtures');

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does it)`);
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

function tmpdir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kg-e2e-'));
}

describe('kubegrace lint: exit codes', () => {
  test('0 for a clean file', () => {
    const r = kg(['lint', 'good.yaml']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('No problems');
    expect(r.code).toBe(0);
  });
  test('1 for an error finding', () => {
    expect(kg(['lint', 'bad-grace.yaml']).code).toBe(1);
  });
  test('--fail-on never gives 0 even with errors; --fail-on info fails on anything', () => {
    expect(kg(['lint', 'bad-grace.yaml', '--fail-on', 'never']).code).toBe(0);
    expect(kg(['lint', 'good.yaml', '--fail-on', 'info']).code).toBe(0);
  });
  test('2 for usage errors, with a message on stderr', () => {
    for (const args of [['lint'], ['lint', 'good.yaml', '--format', 'yaml'], ['lint', 'good.yaml', '--kube-version', 'latest'], ['lint', 'good.yaml', '--fail-on', 'maybe'], ['lint', 'good.yaml', '--bogus'], ['frobnicate'], ['lint', 'good.yaml', '--format', 'text', '--format', 'json']]) {
      const r = kg(args);
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.stderr).toMatch(/^kubegrace: /);
    }
  });
  test('2 for a missing file, and the other files are still linted', () => {
    const r = kg(['lint', 'nope.yaml', 'bad-grace.yaml', '--format', 'json']);
    expect(r.code).toBe(2);
    const j = JSON.parse(r.stdout);
    expect(j.errors).toEqual([{ file: 'nope.yaml', line: 1, column: 1, message: expect.stringMatching(/no such file/) }]);
    expect(j.findings.some((f: { ruleId: string }) => f.ruleId === 'grace-period-budget')).toBe(true);
  });
});

describe('kubegrace lint: JSON contract', () => {
  test('exact shape, version 1, positions and pointer', () => {
    const r = kg(['lint', 'bad-grace.yaml', '--format', 'json', '--kube-version', '1.33']);
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j)).toEqual(['version', 'kubernetesVersion', 'findings', 'errors', 'summary']);
    expect(j.version).toBe(1);
    expect(j.kubernetesVersion).toBe('1.33');
    const f = j.findings.find((x: { ruleId: string }) => x.ruleId === 'grace-period-budget');
    expect(Object.keys(f)).toEqual(['ruleId', 'severity', 'message', 'file', 'line', 'column', 'object', 'pointer', 'suppressed', 'fixable']);
    expect(f).toMatchObject({
      severity: 'error',
      file: 'bad-grace.yaml',
      line: 20,
      column: 11,
      object: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', namespace: 'default' },
      pointer: '/spec/template/spec/containers/0/lifecycle/preStop',
      suppressed: false,
      fixable: true,
    });
    expect(Object.keys(j.summary)).toEqual(['files', 'objects', 'error', 'warning', 'info', 'suppressed']);
    expect(j.summary.files).toBe(1);
    expect(j.summary.objects).toBe(2);
    expect(j.summary.error).toBeGreaterThanOrEqual(1);
    expect(j.errors).toEqual([]);
  });
  test('suppressed findings are listed with their reason and counted, not failing the run', () => {
    const text = fs.readFileSync(path.join(FIX, 'bad-grace.yaml'), 'utf8').replace(
      '      labels: {app: api}\n',
      '      labels: {app: api}\n      annotations:\n        kubegrace.dev/ignore: all\n        kubegrace.dev/ignore-reason: "migration ticket OPS-12"\n',
    );
    const r = kg(['lint', '-', '--format', 'json'], { input: text });
    const j = JSON.parse(r.stdout);
    expect(j.findings.length).toBeGreaterThan(0);
    for (const f of j.findings) {
      expect(f.suppressed).toBe(true);
      expect(f.suppressionReason).toBe('migration ticket OPS-12');
    }
    expect(j.summary.suppressed).toBe(j.findings.length);
    expect(j.summary.error + j.summary.warning + j.summary.info).toBe(0);
    expect(r.code).toBe(0);
  });
  test('byte-identical output for the same input', () => {
    const a = kg(['lint', '.', '--format', 'json']).stdout;
    const b = kg(['lint', '.', '--format', 'json']).stdout;
    expect(a).toBe(b);
  });
});

describe('kubegrace lint: stdin and text', () => {
  test('- reads stdin; findings name <stdin> with line and column', () => {
    const r = kg(['lint', '-', '--format', 'json'], { input: fs.readFileSync(path.join(FIX, 'bad-grace.yaml'), 'utf8') });
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.findings[0].file).toBe('<stdin>');
  });
  test('text: the file once, then line:col  severity  message  rule-id under each object, then a summary; no colour off a TTY', () => {
    const r = kg(['lint', 'bad-grace.yaml', 'good.yaml']);
    expect(r.stdout).toMatch(/^ {4}20:11 {2}error {2}container "app": preStop delay 25s >= terminationGracePeriodSeconds \(20s\).* {2}grace-period-budget$/m);
    expect(r.stdout.split('\n')[0]).toBe('bad-grace.yaml');
    expect(r.stdout).toMatch(/\d+ problems? \(\d+ errors?, \d+ warnings?, \d+ info, 0 suppressed\) in 2 files, 5 objects/);
    // eslint-disable-next-line no-control-regex
    expect(r.stdout).not.toMatch(/\u001b\[/);
  });
  test('--quiet shows only errors', () => {
    const r = kg(['lint', 'bad-grace.yaml', '--quiet']);
    const lines = r.stdout.split('\n').filter((l) => /^ +\d+:\d+ /.test(l));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/ error /);
  });
  test('--output writes the file (atomically) and prints nothing', () => {
    const dir = tmpdir();
    const out = path.join(dir, 'report.json');
    const r = kg(['lint', 'bad-grace.yaml', '--format', 'json', '--output', out]);
    expect(r.stdout).toBe('');
    expect(JSON.parse(fs.readFileSync(out, 'utf8')).version).toBe(1);
    expect(fs.readdirSync(dir)).toEqual(['report.json']);
  });
});

describe('kubegrace lint: bad input', () => {
  test('a syntax error exits 2 with file:line:col, and the other documents are still reported', () => {
    const r = kg(['lint', 'broken.yaml', '--format', 'json']);
    expect(r.code).toBe(2);
    const j = JSON.parse(r.stdout);
    expect(j.errors).toHaveLength(1);
    // yaml reports an unclosed flow collection where the document ends (line 37, after line 36's `[oops`).
    expect(j.errors[0]).toMatchObject({ file: 'broken.yaml', line: 37, column: 1 });
    expect(j.errors[0].message).toMatch(/YAML syntax error/);
    const names = new Set(j.findings.filter((f: { ruleId: string }) => f.ruleId === 'grace-period-budget').map((f: { object: { name: string } }) => f.object.name));
    expect(names).toEqual(new Set(['api', 'api2']));
  });
  test('text output shows the input error at its position', () => {
    const r = kg(['lint', 'broken.yaml']);
    expect(r.stdout).toMatch(/^broken\.yaml\n {4}37:1 +error +YAML syntax error/m);
    expect(r.stdout).toMatch(/1 input error/);
  });
  test('binary, non-UTF-8, alias bomb and deep nesting: reported, never a crash or hang', () => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, 'bin.yaml'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]));
    fs.writeFileSync(path.join(dir, 'latin1.yaml'), Buffer.from('name: caf\xe9\n', 'latin1'));
    let bomb = 'a0: &a0 [x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 10; i++) bomb += `a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]\n`;
    fs.writeFileSync(path.join(dir, 'bomb.yaml'), bomb);
    fs.writeFileSync(path.join(dir, 'deep.json'), '['.repeat(50000) + ']'.repeat(50000));
    fs.copyFileSync(path.join(FIX, 'bad-grace.yaml'), path.join(dir, 'z-real.yaml'));
    const t0 = Date.now();
    const r = kg(['lint', '.', '--format', 'json'], { cwd: dir });
    // A hang guard, not a speed test: well under jest's 60 s timeout, far above the real cost even on
    // a loaded machine (the CLI may run as a child: KUBEGRACE_TEST_SPAWN=1, so wall time).
    expect(Date.now() - t0).toBeLessThan(55000);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('');
    const j = JSON.parse(r.stdout);
    const byFile = Object.fromEntries(j.errors.map((e: { file: string; message: string }) => [e.file, e.message]));
    expect(byFile['bin.yaml']).toMatch(/binary/);
    expect(byFile['latin1.yaml']).toMatch(/UTF-8/);
    expect(byFile['bomb.yaml']).toMatch(/alias/);
    expect(byFile['deep.json']).toMatch(/nests/);
    expect(j.findings.some((f: { file: string }) => f.file === 'z-real.yaml')).toBe(true);
  });
  test('unknown kinds and custom resources pass through; non-Kubernetes YAML is ignored', () => {
    const input = 'replicaCount: 2\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {anything: [1, 2]}\n';
    const r = kg(['lint', '-', '--format', 'json'], { input });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).summary.objects).toBe(1);
  });
});

describe('kubegrace lint: config and policy', () => {
  test('.kubegrace.yaml is found upward and applies version, failOn and rule overrides', () => {
    const dir = tmpdir();
    fs.mkdirSync(path.join(dir, 'deploy'));
    fs.copyFileSync(path.join(FIX, 'bad-grace.yaml'), path.join(dir, 'deploy', 'api.yaml'));
    fs.writeFileSync(path.join(dir, '.kubegrace.yaml'), 'kubernetesVersion: "1.29"\nrules:\n  grace-period-budget: warning\n');
    const r = kg(['lint', 'api.yaml', '--format', 'json'], { cwd: path.join(dir, 'deploy') });
    const j = JSON.parse(r.stdout);
    expect(j.kubernetesVersion).toBe('1.29');
    expect(j.findings.find((f: { ruleId: string }) => f.ruleId === 'grace-period-budget').severity).toBe('warning');
  });
  test('a bad policy file exits 2 naming the JSON path', () => {
    const dir = tmpdir();
    fs.writeFileSync(path.join(dir, 'p.yaml'), 'apiVersion: kubegrace.dev/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  rules:\n    grace-period-budget: {severity: critical}\n');
    const r = kg(['lint', path.join(FIX, 'good.yaml'), '--policy', 'p.yaml'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/p\.yaml:6:\d+: \/spec\/rules\/grace-period-budget\/severity: must be equal to one of the allowed values: error, warning, info/);
  });
  test('--config names a file explicitly; a missing one is a usage error', () => {
    expect(kg(['lint', 'good.yaml', '--config', 'missing.yaml']).code).toBe(2);
  });
});

describe('kubegrace rules', () => {
  test('--format json lists every rule with its metadata', () => {
    const r = kg(['rules', '--format', 'json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.rules.length).toBeGreaterThan(0);
    for (const rule of j.rules) {
      expect(rule.id).toMatch(/^[a-z0-9-]+$/);
      expect(['error', 'warning', 'info']).toContain(rule.defaultSeverity);
      expect(rule.description.length).toBeGreaterThan(10);
      expect(rule.doc.length).toBeGreaterThan(50);
      expect(typeof rule.fixable).toBe('boolean');
      expect(rule.spec).toBeTruthy();
    }
  });
  test('text lists one rule per line', () => {
    const r = kg(['rules']);
    expect(r.stdout).toMatch(/^grace-period-budget +error +fix +preStop delay/m);
  });
  test('--version and --help', () => {
    expect(kg(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(kg(['lint', '--help']).stdout).toMatch(/Exit codes/);
  });
});

describe('an input with no Kubernetes object', () => {
  test('a failed render (helm\'s error text in the file, when it reads as a mapping), an empty stdin: warned on stderr in every format, exit 0; --quiet keeps it quiet', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-empty-'));
    try {
      // (Helm's usual error text has more colons and is a YAML syntax error, an input error: exit 2.)
      fs.writeFileSync(path.join(dir, 'render.yaml'), 'Error: chart requires kubeVersion >=1.31.0-0 which is incompatible with Kubernetes v1.25.0\n');
      for (const format of ['text', 'json', 'sarif']) {
        const r = runCli(['lint', 'render.yaml', '--format', format], { cwd: dir, encoding: 'utf8' });
        expect(r.status).toBe(0);
        expect(r.stderr).toBe('kubegrace: warning: no Kubernetes object in the input (1 file): nothing was checked; an empty file, a values file or a failed render (helm\'s error text) reads like this\n');
      }
      expect(runCli(['lint', '-'], { cwd: dir, encoding: 'utf8', input: '' }).stderr).toContain('no Kubernetes object in the input');
      expect(runCli(['lint', 'render.yaml', '--quiet'], { cwd: dir, encoding: 'utf8' }).stderr).toBe('');
      // One object anywhere in the input: no warning.
      fs.writeFileSync(path.join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
      expect(runCli(['lint', 'render.yaml', 'cm.yaml'], { cwd: dir, encoding: 'utf8' }).stderr).toBe('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
