/**
 * Per-template recovery (lib/helm/recover.ts): the template list is in helm's rendering order (a
 * differential test against helm 3.10.1: a chart whose every template fails is reported in the
 * order helm stops at them), the mirror leaves out only the removed files and never touches the
 * original, and renderWithRecovery bounds its helm runs.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tarStream from 'tar-stream';
import * as zlib from 'zlib';
import { listTemplates, mirrorChart, readTgz, renderWithRecovery } from '../../lib/helm/recover';
import { helmErrorPosition } from '../../lib/helm/render';
import { writeTree } from '../helpers/charts';

const ROOT = path.resolve(__dirname, '../..');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');

let tmpRoot: string;
beforeAll(() => {
  tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-recover-'));
});
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

const failing = (names: string[]) => Object.fromEntries(names.map((n) => [n, `{{ fail "${n}" }}\n`]));

function render(dir: string) {
  const r = spawnSync(HELM, ['template', 'r', dir], { encoding: 'utf8' });
  return r.status === 0 ? ({ ok: true, stdout: r.stdout } as const) : ({ ok: false, stderr: r.stderr } as const);
}
const describeErr = (stderr: string) => {
  const msg = stderr.slice(stderr.indexOf('Error: ') + 7).split('\n\nUse --debug')[0];
  return { error: msg, helmPath: helmErrorPosition(msg)?.helmPath };
};

describe('renderWithRecovery with real helm', () => {
  const templates = ['templates/a.yaml', 'templates/B.yaml', 'templates/z.yaml', 'templates/NOTES.txt', 'templates/deep/x.yaml', 'templates/deep/er/y.yaml', 'templates/ab.yaml'];
  const subTemplates = ['charts/s-dir/templates/one.yaml', 'charts/s-dir/templates/two.yaml', 'charts/s-dir/charts/n/templates/n.yaml'];

  test('listTemplates is helm\'s rendering order: every template failing is found in that order, one run each', () => {
    const dir = writeTree(path.join(tmpRoot, 'order'), {
      'Chart.yaml': 'apiVersion: v2\nname: top\nversion: 0.1.0\n',
      'templates/_helpers.tpl': '{{ define "h" }}{{ end }}\n',
      'templates/deep/_inner.tpl': '{{ define "i" }}{{ end }}\n',
      'charts/s-dir/Chart.yaml': 'apiVersion: v2\nname: sub\nversion: 0.1.0\n',
      'charts/s-dir/charts/n/Chart.yaml': 'apiVersion: v2\nname: nested\nversion: 0.1.0\n',
      ...failing([...templates, ...subTemplates]),
    });
    const listed = listTemplates(dir);
    expect(listed.map((t) => t.diskPath).sort()).toEqual([...templates, ...subTemplates].sort());
    expect(listed.find((t) => t.diskPath === 'charts/s-dir/charts/n/templates/n.yaml')!.helmPath).toBe('charts/sub/charts/nested/templates/n.yaml');
    const r = renderWithRecovery(dir, { render, describe: describeErr, maxRuns: 30 });
    expect(r.exhausted).toBe(false);
    expect(r.runs).toBe(listed.length + 1);
    expect(r.failures.map((f) => f.template!.helmPath)).toEqual(listed.map((t) => t.helmPath));
    expect(r.failures.every((f) => !f.bisected)).toBe(true);
    expect(r.stdout!.trim()).toBe('');
  });

  test('a failure helm reports in a helper is bisected in about log2(templates) runs; the bound stops it', () => {
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`templates/t${String(i).padStart(2, '0')}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t${i}\n`]));
    const dir = writeTree(path.join(tmpRoot, 'bisect'), {
      'Chart.yaml': 'apiVersion: v2\nname: b\nversion: 0.1.0\n',
      'templates/_helpers.tpl': '{{ define "boom" }}{{ fail "helper" }}{{ end }}\n',
      ...many,
      'templates/t17.yaml': '{{ template "boom" . }}\n',
    });
    const r = renderWithRecovery(dir, { render, describe: describeErr, maxRuns: 30 });
    expect(r.failures).toEqual([{ error: 'execution error at (b/templates/_helpers.tpl:1:22): helper', template: { helmPath: 'templates/t17.yaml', diskPath: 'templates/t17.yaml' }, bisected: true }]);
    // First render, the render with nothing, ceil(log2(40)) = 6 probes, the final render.
    expect(r.runs).toBeLessThanOrEqual(1 + 1 + 6 + 1);
    expect(r.stdout).toContain('name: t16');
    const bounded = renderWithRecovery(dir, { render, describe: describeErr, maxRuns: 4 });
    expect(bounded).toMatchObject({ exhausted: true, runs: 4 });
    expect(bounded.stdout).toBeUndefined();
    expect(bounded.failures).toEqual([{ error: 'execution error at (b/templates/_helpers.tpl:1:22): helper' }]);
  });
});

describe('mirrorChart', () => {
  test('leaves out exactly the removed files, links everything else, and removing it leaves the original intact', () => {
    const dir = writeTree(path.join(tmpRoot, 'orig'), {
      'Chart.yaml': 'apiVersion: v2\nname: o\nversion: 0.1.0\n',
      '.helmignore': 'skip/\n',
      'values.yaml': 'a: 1\n',
      'templates/a.yaml': 'a\n',
      'templates/b.yaml': 'b\n',
      'templates/sub/c.yaml': 'c\n',
      'charts/s/templates/d.yaml': 'd\n',
      'files/big.txt': 'x'.repeat(1000),
    });
    const m = mirrorChart(dir, ['templates/sub/c.yaml', 'charts/s/templates/d.yaml', 'templates/a.yaml']);
    try {
      expect(fs.lstatSync(path.join(m.dir, 'templates')).isDirectory()).toBe(true);
      expect(fs.lstatSync(path.join(m.dir, 'files')).isSymbolicLink()).toBe(true);
      expect(fs.lstatSync(path.join(m.dir, '.helmignore')).isSymbolicLink()).toBe(true);
      expect(fs.readdirSync(path.join(m.dir, 'templates')).sort()).toEqual(['b.yaml', 'sub']);
      expect(fs.readdirSync(path.join(m.dir, 'templates/sub'))).toEqual([]);
      expect(fs.readdirSync(path.join(m.dir, 'charts/s/templates'))).toEqual([]);
      expect(fs.readFileSync(path.join(m.dir, 'templates/b.yaml'), 'utf8')).toBe('b\n');
    } finally {
      fs.rmSync(m.root, { recursive: true, force: true });
    }
    expect(fs.existsSync(m.root)).toBe(false);
    for (const f of ['templates/a.yaml', 'templates/sub/c.yaml', 'charts/s/templates/d.yaml', 'files/big.txt', 'values.yaml']) expect(fs.existsSync(path.join(dir, f))).toBe(true);
  });
});

describe('packaged subcharts', () => {
  async function tgz(entries: { name: string; body?: string; type?: 'file' | 'symlink'; linkname?: string }[]): Promise<Buffer> {
    const pack = tarStream.pack();
    const chunks: Buffer[] = [];
    pack.on('data', (c: unknown) => chunks.push(c as Buffer));
    const done = new Promise<void>((resolve) => pack.on('end', () => resolve()));
    for (const e of entries) {
      await new Promise<void>((resolve, reject) => pack.entry({ name: e.name, type: e.type ?? 'file', linkname: e.linkname }, e.body ?? '', (err) => (err ? reject(err) : resolve())));
    }
    pack.finalize();
    await done;
    return zlib.gzipSync(Buffer.concat(chunks));
  }

  test('readTgz reads long (pax) names; listTemplates and the mirror ignore `..`, absolute and link entries, and never write outside the mirror', async () => {
    const long = `templates/${'d'.repeat(120)}/deep.yaml`;
    const archive = await tgz([
      { name: 'sub/Chart.yaml', body: 'apiVersion: v2\nname: packed\nversion: 0.1.0\n' },
      { name: `sub/${long}`, body: 'kind: A\n' },
      { name: 'sub/templates/_h.tpl', body: '{{ define "x" }}{{ end }}\n' },
      { name: 'sub/templates/ok.yaml', body: 'kind: B\n' },
      { name: 'sub/templates/../../../../escape.yaml', body: 'x' },
      { name: '/abs/templates/a.yaml', body: 'x' },
      { name: 'sub/templates/link.yaml', type: 'symlink', linkname: '/etc/passwd' },
    ]);
    fs.writeFileSync(path.join(tmpRoot, 'x.tgz'), archive);
    const files = readTgz(path.join(tmpRoot, 'x.tgz'))!;
    expect(files.has(`sub/${long}`)).toBe(true);
    expect(files.has('sub/templates/link.yaml')).toBe(false);
    const dir = writeTree(path.join(tmpRoot, 'withtgz'), { 'Chart.yaml': 'apiVersion: v2\nname: top\nversion: 0.1.0\n', 'templates/t.yaml': 'kind: T\n' });
    fs.mkdirSync(path.join(dir, 'charts'));
    fs.writeFileSync(path.join(dir, 'charts/packed-0.1.0.tgz'), archive);
    const listed = listTemplates(dir);
    expect(listed.map((t) => t.helmPath).sort()).toEqual([`charts/packed/${long}`, 'charts/packed/templates/ok.yaml', 'templates/t.yaml']);
    const ok = listed.find((t) => t.helmPath === 'charts/packed/templates/ok.yaml')!;
    expect(ok.archive).toEqual({ file: 'charts/packed-0.1.0.tgz', entry: 'templates/ok.yaml' });
    const m = mirrorChart(dir, [], new Map([[ok.archive!.file, new Set([ok.archive!.entry])]]));
    try {
      const unpacked = path.join(m.dir, 'charts/packed-0.1.0.tgz.kubegrace-unpacked');
      expect(fs.existsSync(path.join(m.dir, 'charts/packed-0.1.0.tgz'))).toBe(false);
      expect(fs.readFileSync(path.join(unpacked, long), 'utf8')).toBe('kind: A\n');
      expect(fs.existsSync(path.join(unpacked, 'templates/ok.yaml'))).toBe(false);
      expect(fs.existsSync(path.join(unpacked, 'templates/_h.tpl'))).toBe(true);
      expect(fs.existsSync(path.join(m.root, 'escape.yaml')) || fs.existsSync(path.join(tmpRoot, 'escape.yaml'))).toBe(false);
      // helm renders the mirror: the subchart without ok.yaml.
      const r = render(m.dir);
      expect(r.ok).toBe(true);
      expect(r.ok && r.stdout).toContain('# Source: top/charts/packed/templates/dd');
      expect(r.ok && r.stdout).not.toContain('ok.yaml');
    } finally {
      fs.rmSync(m.root, { recursive: true, force: true });
    }
    expect(fs.readFileSync(path.join(dir, 'charts/packed-0.1.0.tgz')).equals(archive)).toBe(true);
  });
});
