/**
 * Reproducible chart packages: the bytes, the archive layout helm expects, .helmignore, and what
 * the real helm (node_modules/.bin/helm, 3.6) makes of the archives.
 */
import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tar from 'tar-stream';
import * as zlib from 'zlib';
import { ChartError, collectChartFiles, globToRegExp, isIgnored, packageChart, parseChartYaml, parseHelmignore, readPackagedFiles } from '../../lib/helm/package';

const ROOT = path.resolve(__dirname, '../..');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');
const CORPUS = path.resolve(ROOT, '../shared/corpus');

let tmpRoot: string;
beforeAll(() => {
  tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-pkg-'));
});
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

function tmp(): string {
  return fs.mkdtempSync(path.join(tmpRoot, 'd-'));
}

function writeTree(dir: string, files: Record<string, string | Buffer>): string {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`;

function smallChart(dir: string, extra: Record<string, string | Buffer> = {}): string {
  return writeTree(dir, {
    'Chart.yaml': 'apiVersion: v2\nname: small\nversion: 1.2.3\nappVersion: "1.27"\ndescription: a small chart\n',
    'values.yaml': 'replicas: 2\n',
    'templates/deployment.yaml': DEPLOY,
    'templates/_helpers.tpl': '{{- define "small.name" -}}small{{- end -}}\n',
    ...extra,
  });
}

interface Entry {
  name: string;
  mode: number;
  uid: number;
  gid: number;
  uname: string;
  gname: string;
  type: string;
  mtime: number;
  data: Buffer;
}

/** Reads an archive with its own tar-stream extractor (independent of readPackagedFiles). */
async function entriesOf(tgz: Buffer): Promise<Entry[]> {
  const out: Entry[] = [];
  const ex = tar.extract();
  ex.on('entry', (h, stream, next) => {
    const bufs: Buffer[] = [];
    stream.on('data', (d: unknown) => bufs.push(d as Buffer));
    stream.on('end', () => {
      out.push({ name: h.name, mode: h.mode, uid: h.uid, gid: h.gid, uname: h.uname, gname: h.gname, type: h.type, mtime: h.mtime.getTime(), data: Buffer.concat(bufs) });
      next();
    });
    stream.resume();
  });
  const done = new Promise<void>((resolve, reject) => {
    ex.on('finish', () => resolve());
    ex.on('error', reject);
  });
  ex.end(zlib.gunzipSync(tgz));
  await done;
  return out;
}

function helm(args: string[], env: Record<string, string> = {}) {
  const home = path.join(tmpRoot, 'helm-home');
  const r = spawnSync(HELM, args, {
    encoding: 'utf8',
    env: { ...process.env, HELM_CACHE_HOME: `${home}/cache`, HELM_CONFIG_HOME: `${home}/config`, HELM_DATA_HOME: `${home}/data`, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('packageChart: reproducible bytes', () => {
  const saved = process.env.SOURCE_DATE_EPOCH;
  afterEach(() => {
    if (saved === undefined) delete process.env.SOURCE_DATE_EPOCH;
    else process.env.SOURCE_DATE_EPOCH = saved;
  });

  test('two runs give byte-identical archives, whatever the source files\' mtimes', async () => {
    delete process.env.SOURCE_DATE_EPOCH;
    const chart = smallChart(tmp());
    const a = await packageChart(chart, path.join(tmpRoot, 'out-a'));
    for (const f of ['Chart.yaml', 'values.yaml', 'templates/deployment.yaml']) fs.utimesSync(path.join(chart, f), new Date('2001-02-03T04:05:06Z'), new Date('2011-12-13T14:15:16Z'));
    // The same chart copied elsewhere (another checkout), with fresh mtimes.
    const copy = tmp();
    fs.cpSync(chart, copy, { recursive: true });
    const b = await packageChart(copy, path.join(tmpRoot, 'out-b'));
    expect(path.basename(a.file)).toBe('small-1.2.3.tgz');
    expect(a).toMatchObject({ name: 'small', version: '1.2.3' });
    const bytesA = fs.readFileSync(a.file);
    expect(fs.readFileSync(b.file).equals(bytesA)).toBe(true);
    expect(a.digest).toBe(sha256(bytesA));
    expect(b.digest).toBe(a.digest);
  });

  test('the content matters: a changed template changes the bytes', async () => {
    const chart = smallChart(tmp());
    const a = fs.readFileSync((await packageChart(chart, path.join(tmpRoot, 'out-c1'))).file);
    fs.appendFileSync(path.join(chart, 'templates/deployment.yaml'), '# changed\n');
    const b = fs.readFileSync((await packageChart(chart, path.join(tmpRoot, 'out-c2'))).file);
    expect(b.equals(a)).toBe(false);
  });

  test('mtime: 1980-01-01 by default, SOURCE_DATE_EPOCH if set, opts.mtime first', async () => {
    const chart = smallChart(tmp());
    delete process.env.SOURCE_DATE_EPOCH;
    const def = await entriesOf(fs.readFileSync((await packageChart(chart, path.join(tmpRoot, 'm1'))).file));
    expect(new Set(def.map((e) => e.mtime))).toEqual(new Set([Date.UTC(1980, 0, 1)]));
    process.env.SOURCE_DATE_EPOCH = '1700000000';
    const sde = await entriesOf(fs.readFileSync((await packageChart(chart, path.join(tmpRoot, 'm2'))).file));
    expect(new Set(sde.map((e) => e.mtime))).toEqual(new Set([1700000000 * 1000]));
    const opt = await entriesOf(fs.readFileSync((await packageChart(chart, path.join(tmpRoot, 'm3'), { mtime: new Date('2020-05-06T07:08:09Z') })).file));
    expect(new Set(opt.map((e) => e.mtime))).toEqual(new Set([Date.UTC(2020, 4, 6, 7, 8, 9)]));
    process.env.SOURCE_DATE_EPOCH = 'yesterday';
    await expect(packageChart(chart, path.join(tmpRoot, 'm4'))).rejects.toThrow(/SOURCE_DATE_EPOCH=yesterday is not an integer/);
  });

  test('archive layout: sorted <name>/ files only, 0644, uid/gid 0, no owner names; gzip header without time or OS', async () => {
    delete process.env.SOURCE_DATE_EPOCH;
    const chart = smallChart(tmp(), { 'files/config.txt': 'x=1\n', 'values.schema.json': '{"type":"object"}\n' });
    const bytes = fs.readFileSync((await packageChart(chart, path.join(tmpRoot, 'layout'))).file);
    expect([...bytes.subarray(0, 3)]).toEqual([0x1f, 0x8b, 8]);
    expect(bytes.readUInt32LE(4)).toBe(0); // MTIME
    expect(bytes[9]).toBe(0xff); // OS: unknown, not the build platform's
    const entries = await entriesOf(bytes);
    expect(entries.map((e) => e.name)).toEqual([
      'small/Chart.yaml',
      'small/files/config.txt',
      'small/templates/_helpers.tpl',
      'small/templates/deployment.yaml',
      'small/values.schema.json',
      'small/values.yaml',
    ]);
    for (const e of entries) expect({ mode: e.mode, uid: e.uid, gid: e.gid, uname: e.uname, gname: e.gname, type: e.type }).toEqual({ mode: 0o644, uid: 0, gid: 0, uname: '', gname: '', type: 'file' });
    expect(entries.find((e) => e.name === 'small/templates/deployment.yaml')!.data.toString()).toBe(DEPLOY);
    // Chart.yaml is packaged as written (comments kept).
    expect(entries[0].data.toString()).toBe(fs.readFileSync(path.join(chart, 'Chart.yaml'), 'utf8'));
  });

  test('long paths (over 100 bytes) survive', async () => {
    const long = `templates/${'d'.repeat(60)}/${'f'.repeat(70)}.yaml`;
    const chart = smallChart(tmp(), { [long]: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: long\n' });
    const names = (await entriesOf(fs.readFileSync((await packageChart(chart, path.join(tmpRoot, 'long'))).file))).map((e) => e.name);
    expect(names).toContain(`small/${long}`);
  });

  test('a UTF-8 BOM is stripped (as helm\'s loader does); the output file inside the chart is not packaged', async () => {
    const chart = smallChart(tmp(), { 'templates/bom.yaml': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bom\n')]) });
    await packageChart(chart, chart); // writes small-1.2.3.tgz into the chart itself
    const again = fs.readFileSync((await packageChart(chart, chart)).file);
    const entries = await entriesOf(again);
    expect(entries.map((e) => e.name)).not.toContain('small/small-1.2.3.tgz');
    expect(entries.find((e) => e.name === 'small/templates/bom.yaml')!.data.toString()).toMatch(/^apiVersion/);
  });

  test('readPackagedFiles reads Chart.yaml back from several archives', async () => {
    const a = await packageChart(smallChart(tmp()), path.join(tmpRoot, 'rp'));
    const got = await readPackagedFiles([fs.readFileSync(a.file), fs.readFileSync(a.file)], ['Chart.yaml', 'values.yaml']);
    expect(got).toHaveLength(2);
    expect(got[0].found['values.yaml']).toBe('replicas: 2\n');
    expect(got[1].found['Chart.yaml']).toMatch(/^apiVersion: v2\nname: small/);
    expect(got[0].names).toContain('small/templates/deployment.yaml');
  });

  test('readPackagedFiles rejects a broken archive with tar-stream\'s reason', async () => {
    const tarBytes = zlib.gunzipSync(fs.readFileSync((await packageChart(smallChart(tmp()), path.join(tmpRoot, 'rp-bad'))).file));
    const cut = zlib.gzipSync(tarBytes.subarray(0, 700)); // a header and part of the first file
    await expect(readPackagedFiles([cut], ['Chart.yaml'])).rejects.toThrow(ChartError);
    await expect(readPackagedFiles([cut], ['Chart.yaml'])).rejects.toThrow('tar read failed: Unexpected end of data');
    await expect(readPackagedFiles([zlib.gzipSync(Buffer.from('x'.repeat(1024)))], ['Chart.yaml'])).rejects.toThrow(/tar read failed: Invalid tar header/);
    expect(await readPackagedFiles([], ['Chart.yaml'])).toEqual([]);
  });
});

describe('.helmignore', () => {
  test('globs follow Go filepath.Match', () => {
    const m = (g: string, s: string) => globToRegExp(g).test(s);
    expect(m('*.bak', 'x.bak')).toBe(true);
    expect(m('*.bak', 'a/x.bak')).toBe(false); // * never crosses /
    expect(m('secret?.txt', 'secret1.txt')).toBe(true);
    expect(m('secret?.txt', 'secret12.txt')).toBe(false);
    expect(m('[ab]x', 'bx')).toBe(true);
    expect(m('[^ab]x', 'cx')).toBe(true);
    expect(m('[^ab]x', 'ax')).toBe(false);
    expect(m('[a-c]?', 'b/')).toBe(false);
    expect(m('x[0-9]', 'x7')).toBe(true);
    expect(m('a\\*b', 'a*b')).toBe(true);
    expect(m('a\\*b', 'axb')).toBe(false);
    expect(m('a.b', 'axb')).toBe(false);
    expect(m('(x)+', '(x)+')).toBe(true);
    expect(() => globToRegExp('[ab')).toThrow(/syntax error/);
    expect(() => globToRegExp('ab\\')).toThrow(/syntax error/);
  });

  test('rule scopes, directory rules, helm\'s default and helm\'s negation semantics', () => {
    const rules = parseHelmignore('# comment\n\n*.bak\n/docs/\nci/\nfiles/secret*\n');
    expect(isIgnored(rules, 'a.bak', false)).toBe(true);
    expect(isIgnored(rules, 'templates/x.bak', false)).toBe(true); // no slash: base name at any depth
    expect(isIgnored(rules, 'docs', true)).toBe(true);
    expect(isIgnored(rules, 'sub/docs', true)).toBe(false); // leading slash: root only
    expect(isIgnored(rules, 'docs', false)).toBe(false); // trailing slash: directories only
    expect(isIgnored(rules, 'sub/ci', true)).toBe(true);
    expect(isIgnored(rules, 'files/secret.txt', false)).toBe(true);
    expect(isIgnored(rules, 'other/files/secret.txt', false)).toBe(false);
    expect(isIgnored(rules, 'templates/.hidden.yaml', false)).toBe(true); // helm's default rule
    expect(isIgnored(rules, 'templates/deployment.yaml', false)).toBe(false);
    // Helm (pkg/ignore) ignores whatever does NOT match a `!` rule, unlike .gitignore.
    const neg = parseHelmignore('!*.yaml\n');
    expect(isIgnored(neg, 'values.yaml', false)).toBe(false);
    expect(isIgnored(neg, 'notes.txt', false)).toBe(true);
    expect(() => parseHelmignore('ok\n**/x\n')).toThrow(/\.helmignore:2: double-star/);
  });

  test('the packaged file set equals what `helm package` writes (helmignore and subcharts)', async () => {
    const chart = smallChart(tmp(), {
      '.helmignore': '# ours\n*.bak\n/docs/\nsecret?.txt\ntmp/\n[xy]z.txt\n*.swp\n',
      'a.bak': 'x',
      'templates/b.bak': 'x',
      'secret1.txt': 'x',
      'secret12.txt': 'kept: ? matches one character',
      'docs/readme.md': 'x',
      'sub/docs/kept.md': 'kept: /docs/ is anchored',
      'tmp/x': 'x',
      'yz.txt': 'x',
      'az.txt': 'kept',
      'templates/.hidden.yaml': 'x',
      'templates/NOTES.txt': 'notes',
      'charts/sub/Chart.yaml': 'apiVersion: v2\nname: sub\nversion: 0.1.0\n',
      'charts/sub/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\n',
      'charts/sub/values.yaml': 'a: 1\n',
    });
    const ours = (await entriesOf(fs.readFileSync((await packageChart(chart, path.join(tmpRoot, 'ign-ours'))).file))).map((e) => e.name);
    const out = path.join(tmpRoot, 'ign-helm');
    const r = helm(['package', chart, '-d', out]);
    expect(r.stderr).toBe('');
    const helms = (await entriesOf(fs.readFileSync(path.join(out, 'small-1.2.3.tgz')))).map((e) => e.name);
    expect(ours).toEqual([...helms].sort());
    expect(ours).toEqual(expect.arrayContaining(['small/secret12.txt', 'small/sub/docs/kept.md', 'small/az.txt', 'small/.helmignore', 'small/charts/sub/templates/cm.yaml']));
    expect(ours).not.toContain('small/a.bak');
  });

  test.each(['linkerd-control-plane', 'bitnami-postgresql', 'metrics-server'])('corpus chart %s: same file set as `helm package`', async (id) => {
    const dir = path.join(CORPUS, 'charts', id);
    const ours = await entriesOf(fs.readFileSync((await packageChart(dir, path.join(tmpRoot, `corpus-${id}`))).file));
    const out = path.join(tmpRoot, `corpus-helm-${id}`);
    expect(helm(['package', dir, '-d', out]).status).toBe(0);
    const [tgz] = fs.readdirSync(out);
    const helms = await entriesOf(fs.readFileSync(path.join(out, tgz)));
    expect(ours.map((e) => e.name)).toEqual(helms.map((e) => e.name).sort());
    // Everything but Chart.yaml (which helm re-serializes) has the same bytes.
    const byName = new Map(helms.map((e) => [e.name, e.data]));
    for (const e of ours) if (!e.name.endsWith('/Chart.yaml')) expect([e.name, e.data.equals(byName.get(e.name)!)]).toEqual([e.name, true]);
  });
});

describe('helm reads the packages', () => {
  test('helm template of the .tgz renders the same as the chart directory; helm show chart; helm lint --strict', async () => {
    const chart = smallChart(tmp());
    const { file } = await packageChart(chart, path.join(tmpRoot, 'helm-read'));
    const fromDir = helm(['template', 'kg', chart, '--kube-version', '1.31.0']);
    const fromTgz = helm(['template', 'kg', file, '--kube-version', '1.31.0']);
    expect(fromTgz.status).toBe(0);
    expect(fromTgz.stdout).toContain('name: kg-web');
    expect(fromTgz.stdout).toBe(fromDir.stdout);
    const show = helm(['show', 'chart', file]);
    expect(show.status).toBe(0);
    expect(show.stdout).toMatch(/^name: small$/m);
    expect(show.stdout).toMatch(/^version: 1\.2\.3$/m);
    const lint = helm(['lint', '--strict', file]);
    expect([lint.status, lint.stdout]).toEqual([0, expect.stringContaining('0 chart(s) failed')]);
  });

  test.each([
    ['linkerd-control-plane', ['-f', path.join(CORPUS, 'values/linkerd-dummy-identity.yaml')], 'linkerd-destination'],
    ['metrics-server', [], 'kind: Deployment'],
    ['bitnami-postgresql', [], 'kind: StatefulSet'],
    ['teleport-cluster-2022', ['-f', path.join(CORPUS, 'values/teleport-cluster-minimal.yaml')], 'kind: Deployment'],
  ])('corpus chart %s: helm template of the package works', async (id, values, expected) => {
    const { file } = await packageChart(path.join(CORPUS, 'charts', id), path.join(tmpRoot, 'corpus-tpl'));
    const r = helm(['template', 'kg', file, '--kube-version', '1.31.0', ...values]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(expected);
  });
});

describe('bad charts are refused with a clear error', () => {
  const chartYaml = (text: string) => {
    const dir = smallChart(tmp());
    fs.writeFileSync(path.join(dir, 'Chart.yaml'), text);
    return dir;
  };
  test.each([
    ['apiVersion: v1\nname: a\nversion: 1.0.0\n', /Chart\.yaml:1:13: apiVersion v1 is not supported; charts must be apiVersion: v2/],
    ['name: a\nversion: 1.0.0\n', /apiVersion is missing/],
    ['apiVersion: v2\nversion: 1.0.0\n', /name is missing/],
    ['apiVersion: v2\nname: my chart\nversion: 1.0.0\n', /Chart\.yaml:2:7: chart name "my chart" is invalid/],
    ['apiVersion: v2\nname: ..\nversion: 1.0.0\n', /chart name "\.\." is invalid/],
    ['apiVersion: v2\nname: a/b\nversion: 1.0.0\n', /chart name "a\/b" is invalid/],
    ['apiVersion: v2\nname: a\n', /version is missing/],
    ['apiVersion: v2\nname: a\nversion: 1.0\n', /Chart\.yaml:3:10: version must be a SemVer 2 string such as 1\.2\.3 \(got 1\.0, which YAML reads as a number\)/],
    ['apiVersion: v2\nname: a\nversion: v1.2.3\n', /version "v1\.2\.3" is not SemVer 2/],
    ['apiVersion: v2\nname: a\nversion: 1.2.03\n', /version "1\.2\.03" is not SemVer 2/],
    ['apiVersion: v2\nname: a\nversion: 1.2.3\ntype: plugin\n', /type must be application or library/],
    ['apiVersion: v2\nname: a\nversion: [1\n', /Chart\.yaml:\d+:\d+: not valid YAML/],
    ['- a\n- b\n', /must be a YAML mapping/],
    ['apiVersion: v2\nname: a\nversion: 1.2.3\ndependencies:\n- name: redis\n  version: 1.x\n  repository: https://charts.example\n', /redis is listed in dependencies but missing in charts\/; run `helm dependency update`/],
  ])('%j', async (text, message) => {
    const dir = chartYaml(text);
    await expect(packageChart(dir, path.join(tmpRoot, 'bad'))).rejects.toThrow(ChartError);
    await expect(packageChart(dir, path.join(tmpRoot, 'bad'))).rejects.toThrow(message);
  });

  test('no Chart.yaml; an unsupported .helmignore pattern', async () => {
    await expect(packageChart(tmp(), path.join(tmpRoot, 'bad'))).rejects.toThrow(/no Chart\.yaml; this is not a Helm chart directory/);
    const dir = smallChart(tmp(), { '.helmignore': 'a\n**/*.bak\n' });
    await expect(packageChart(dir, path.join(tmpRoot, 'bad'))).rejects.toThrow(/\.helmignore:2: double-star \(\*\*\) syntax is not supported/);
  });

  test('valid edge cases pass: prerelease+build versions, anchors, vendored dependencies (dir or .tgz)', async () => {
    expect(parseChartYaml('apiVersion: v2\nname: a.b_c-1\nversion: 1.0.0-rc.1+build.5\nappVersion: 1.10\n', 'C').appVersion).toBe('1.10');
    expect(parseChartYaml('.v: &v "2.0.0"\napiVersion: v2\nname: a\nversion: *v\n', 'C').version).toBe('2.0.0');
    const withDir = smallChart(tmp(), {
      'Chart.yaml': 'apiVersion: v2\nname: small\nversion: 1.0.0\ndependencies:\n- name: sub\n  version: 0.1.0\n  repository: file://sub\n- name: cache\n  version: 2.x\n  repository: https://x\n',
      'charts/sub/Chart.yaml': 'apiVersion: v1\nname: sub\nversion: 0.1.0\n',
      'charts/cache-2.1.0.tgz': Buffer.from('not inspected'),
    });
    expect((await packageChart(withDir, path.join(tmpRoot, 'deps'))).version).toBe('1.0.0');
  });

  test('collectChartFiles refuses a broken symlink with a hint', () => {
    const dir = smallChart(tmp());
    fs.symlinkSync(path.join(dir, 'nope'), path.join(dir, 'templates/link.yaml'));
    expect(() => collectChartFiles(dir)).toThrow(/broken symbolic link; remove it or add it to \.helmignore/);
  });
});
