/**
 * The chart repository index: Helm's format (compared with what `helm repo index` writes for the
 * same packages), digests, determinism, merge, and a real helm client using it over HTTP.
 */
import { execFile, spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import * as zlib from 'zlib';
import { packageChart } from '../../lib/helm/package';
import { buildRepoIndex, compareVersions, rfc3339, writeRepoIndex } from '../../lib/helm/repo-index';

const ROOT = path.resolve(__dirname, '../..');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');
const CORPUS = path.resolve(ROOT, '../shared/corpus');

let tmpRoot: string;
let helmEnv: NodeJS.ProcessEnv;
beforeAll(() => {
  tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-index-'));
  const home = path.join(tmpRoot, 'helm-home');
  helmEnv = { ...process.env, HELM_CACHE_HOME: `${home}/cache`, HELM_CONFIG_HOME: `${home}/config`, HELM_DATA_HOME: `${home}/data` };
});
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

const savedEpoch = process.env.SOURCE_DATE_EPOCH;
beforeEach(() => delete process.env.SOURCE_DATE_EPOCH);
afterEach(() => {
  if (savedEpoch === undefined) delete process.env.SOURCE_DATE_EPOCH;
  else process.env.SOURCE_DATE_EPOCH = savedEpoch;
});

function tmp(): string {
  return fs.mkdtempSync(path.join(tmpRoot, 'd-'));
}

function chart(name: string, version: string, chartYamlExtra = ''): string {
  const dir = path.join(tmp(), name);
  fs.mkdirSync(path.join(dir, 'templates'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: ${version}\n${chartYamlExtra}`);
  fs.writeFileSync(path.join(dir, 'values.yaml'), 'x: 1\n');
  fs.writeFileSync(path.join(dir, 'templates/cm.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-${name}\n`);
  return dir;
}

const RICH = `appVersion: "1.10"
description: |
  A chart with
  every metadata field.
kubeVersion: ">=1.29.0-0"
type: application
home: https://example.com/rich
icon: https://example.com/rich.png
sources:
- https://github.com/example/rich
keywords: [graceful, rollout]
maintainers:
- name: Ada
  email: ada@example.com
- name: Bob
  url: https://bob.example
annotations:
  example.com/yes: "yes"
  artifacthub.io/prerelease: "false"
deprecated: true
unknownField: dropped by helm
dependencies:
- name: sub
  version: 0.1.0
  repository: file://sub
  condition: sub.enabled
  tags: [a]
  import-values: [data]
  alias: subby
`;

function richChart(): string {
  const dir = chart('rich', '2.0.0', RICH);
  fs.mkdirSync(path.join(dir, 'charts/sub/templates'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'charts/sub/Chart.yaml'), 'apiVersion: v2\nname: sub\nversion: 0.1.0\n');
  return dir;
}

/** A packages directory: several versions of one chart, a chart with every metadata field, corpus charts. */
async function packagesDir(): Promise<string> {
  const out = tmp();
  for (const v of ['0.1.0', '0.10.0', '0.2.0', '1.0.0-rc.1', '1.0.0-rc.1.2', '1.0.0-beta']) await packageChart(chart('multi', v), out);
  await packageChart(richChart(), out);
  for (const id of ['linkerd-control-plane', 'metrics-server', 'bitnami-postgresql', 'teleport-cluster-2022']) await packageChart(path.join(CORPUS, 'charts', id), out);
  return out;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface IndexEntry {
  name: string;
  version: string;
  urls: string[];
  digest: string;
  created: string;
  [k: string]: unknown;
}
interface Index {
  apiVersion: string;
  entries: Record<string, IndexEntry[]>;
  generated: string;
}

describe('writeRepoIndex', () => {
  let dir: string;
  let index: Index;
  let text: string;
  beforeAll(async () => {
    delete process.env.SOURCE_DATE_EPOCH;
    dir = await packagesDir();
    text = fs.readFileSync(await writeRepoIndex(dir), 'utf8');
    index = parse(text) as Index;
  });

  test('every package is listed once, with the sha256 of its file and a relative URL', () => {
    const tgzs = fs.readdirSync(dir).filter((f) => f.endsWith('.tgz')).sort();
    const listed = Object.values(index.entries).flat();
    expect(listed.map((e) => e.urls[0]).sort()).toEqual(tgzs);
    for (const e of listed) {
      expect(e.urls).toHaveLength(1);
      expect(e.urls[0]).toBe(`${e.name}-${e.version}.tgz`);
      expect(e.digest).toBe(sha256(fs.readFileSync(path.join(dir, e.urls[0]))));
    }
  });

  test('entries sorted by name; versions newest first by SemVer precedence', () => {
    expect(Object.keys(index.entries)).toEqual(['linkerd-control-plane', 'metrics-server', 'multi', 'postgresql', 'rich', 'teleport-cluster']);
    expect(index.entries.multi.map((e) => e.version)).toEqual(['1.0.0-rc.1.2', '1.0.0-rc.1', '1.0.0-beta', '0.10.0', '0.2.0', '0.1.0']);
  });

  test('fixed times by default: created and generated 1980-01-01T00:00:00Z, quoted', () => {
    expect(index.generated).toBe('1980-01-01T00:00:00Z');
    expect(new Set(Object.values(index.entries).flat().map((e) => e.created))).toEqual(new Set(['1980-01-01T00:00:00Z']));
    expect(text).toMatch(/^generated: "1980-01-01T00:00:00Z"\n$/m);
  });

  test('metadata as helm reads it: strings as written, sanitized description, unknown keys dropped, keys sorted', () => {
    const rich = index.entries.rich[0];
    expect(rich).toEqual({
      annotations: { 'artifacthub.io/prerelease': 'false', 'example.com/yes': 'yes' },
      apiVersion: 'v2',
      appVersion: '1.10',
      created: '1980-01-01T00:00:00Z',
      dependencies: [{ alias: 'subby', condition: 'sub.enabled', 'import-values': ['data'], name: 'sub', repository: 'file://sub', tags: ['a'], version: '0.1.0' }],
      deprecated: true,
      description: 'A chart with every metadata field. ',
      digest: rich.digest,
      home: 'https://example.com/rich',
      icon: 'https://example.com/rich.png',
      keywords: ['graceful', 'rollout'],
      kubeVersion: '>=1.29.0-0',
      maintainers: [{ email: 'ada@example.com', name: 'Ada' }, { name: 'Bob', url: 'https://bob.example' }],
      name: 'rich',
      sources: ['https://github.com/example/rich'],
      type: 'application',
      urls: ['rich-2.0.0.tgz'],
      version: '2.0.0',
    });
    expect(Object.keys(rich)).toEqual([...Object.keys(rich)].sort());
  });

  test('same content as `helm repo index` writes for the same directory, apart from the times', () => {
    const theirs = tmp();
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.tgz'))) fs.copyFileSync(path.join(dir, f), path.join(theirs, f));
    const r = spawnSync(HELM, ['repo', 'index', theirs], { env: helmEnv, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const helmIndex = parse(fs.readFileSync(path.join(theirs, 'index.yaml'), 'utf8')) as Index;
    const untimed = (i: Index) => ({ ...i, generated: 'T', entries: Object.fromEntries(Object.entries(i.entries).map(([k, list]) => [k, list.map((e) => ({ ...e, created: 'T' }))])) });
    expect(untimed(index)).toEqual(untimed(helmIndex));
    // The same field names in the same (sorted) order.
    const keysOf = (i: Index) => Object.values(i.entries).flat().map((e) => Object.keys(e).join(','));
    expect(keysOf(index)).toEqual(keysOf(helmIndex));
  });

  test('deterministic: a second run gives the same bytes; SOURCE_DATE_EPOCH and opts.generated set the times', async () => {
    expect(await buildRepoIndex(dir)).toBe(text);
    process.env.SOURCE_DATE_EPOCH = '1700000000';
    const sde = parse(await buildRepoIndex(dir)) as Index;
    expect(sde.generated).toBe('2023-11-14T22:13:20Z');
    expect(sde.entries.multi[0].created).toBe('2023-11-14T22:13:20Z');
    const given = parse(await buildRepoIndex(dir, { generated: new Date('2024-02-03T04:05:06.120Z') })) as Index;
    expect(given.generated).toBe('2024-02-03T04:05:06.12Z');
  });

  test('an unquoted numeric appVersion keeps its spelling (helm 3.6 would list 1.10 as 1.1)', async () => {
    const d = tmp();
    await packageChart(chart('num', '1.0.0', 'appVersion: 1.10\n'), d);
    expect((parse(await buildRepoIndex(d)) as Index).entries.num[0].appVersion).toBe('1.10');
  });

  test('--url: chart URLs are absolute, joined like helm joins them', async () => {
    const withUrl = parse(await buildRepoIndex(dir, { url: 'https://charts.example.com/stable/' })) as Index;
    expect(withUrl.entries.multi[0].urls).toEqual(['https://charts.example.com/stable/multi-1.0.0-rc.1.2.tgz']);
    await expect(buildRepoIndex(dir, { url: 'charts.example.com' })).rejects.toThrow(/not an absolute URL/);
  });
});

describe('merge and bad input', () => {
  test('merge keeps other versions from the old index, replaces re-packaged ones, keeps created when the digest is unchanged', async () => {
    const repo = tmp();
    await packageChart(chart('app', '1.0.0'), repo);
    await writeRepoIndex(repo, { generated: new Date('2020-01-01T00:00:00Z') });
    const oldIndex = path.join(tmp(), 'old-index.yaml');
    fs.copyFileSync(path.join(repo, 'index.yaml'), oldIndex);
    // Next release: the new directory holds only the new package plus a rebuilt 1.0.0.
    const next = tmp();
    await packageChart(chart('app', '1.0.0'), next); // same bytes
    await packageChart(chart('app', '1.1.0'), next);
    const old = parse(fs.readFileSync(oldIndex, 'utf8')) as Index;
    old.entries.app.push({ ...old.entries.app[0], version: '0.9.0', urls: ['https://old.example/app-0.9.0.tgz'], digest: 'abc', created: '2019-01-01T00:00:00Z' });
    old.entries.gone = [{ name: 'gone', version: '3.0.0', urls: ['gone-3.0.0.tgz'], digest: 'def', created: '2018-01-01T00:00:00Z', apiVersion: 'v2' }];
    fs.writeFileSync(oldIndex, JSON.stringify(old));
    const merged = parse(await buildRepoIndex(next, { merge: oldIndex, generated: new Date('2021-01-01T00:00:00Z') })) as Index;
    expect(merged.entries.app.map((e) => [e.version, e.created])).toEqual([
      ['1.1.0', '2021-01-01T00:00:00Z'],
      ['1.0.0', '2020-01-01T00:00:00Z'],
      ['0.9.0', '2019-01-01T00:00:00Z'],
    ]);
    expect(merged.entries.app[2].urls).toEqual(['https://old.example/app-0.9.0.tgz']);
    expect(merged.entries.gone.map((e) => e.version)).toEqual(['3.0.0']);
    fs.writeFileSync(oldIndex, 'kind: Something\n');
    await expect(buildRepoIndex(next, { merge: oldIndex })).rejects.toThrow(/old-index\.yaml: not a Helm repository index/);
  });

  test('a .tgz that is not a chart package is an error naming it; an empty directory gives an empty index', async () => {
    const empty = tmp();
    expect(parse(await buildRepoIndex(empty))).toEqual({ apiVersion: 'v1', entries: {}, generated: '1980-01-01T00:00:00Z' });
    fs.writeFileSync(path.join(empty, 'junk.tgz'), 'not gzip');
    await expect(buildRepoIndex(empty)).rejects.toThrow(/junk\.tgz: not a chart package/);
    // gzip around something that is not a tar, next to a good package: the bad one is named.
    fs.rmSync(path.join(empty, 'junk.tgz'));
    await packageChart(chart('good', '1.0.0'), empty);
    fs.writeFileSync(path.join(empty, 'text.tgz'), zlib.gzipSync(Buffer.from('hello\n'.repeat(200))));
    await expect(buildRepoIndex(empty)).rejects.toThrow(/\/text\.tgz: not a chart package \(gzipped tar\): tar read failed: Invalid tar header/);
  });

  test('SemVer precedence and Go time format', () => {
    const sorted = ['1.0.0', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '0.9.9', '2.0.0', 'v1.1'].sort(compareVersions);
    expect(sorted).toEqual(['0.9.9', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', 'v1.1', '2.0.0']);
    expect(rfc3339(new Date('2024-01-02T03:04:05.000Z'))).toBe('2024-01-02T03:04:05Z');
    expect(rfc3339(new Date('2024-01-02T03:04:05.500Z'))).toBe('2024-01-02T03:04:05.5Z');
  });
});

describe('a real helm client uses the repository', () => {
  function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    // Asynchronous: the HTTP server below runs in this process.
    return new Promise((resolve) => {
      execFile(HELM, args, { env: helmEnv, encoding: 'utf8' }, (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }));
    });
  }

  test('helm repo add + helm pull + helm show chart over HTTP; the pulled file has the indexed digest', async () => {
    const repo = tmp();
    await packageChart(chart('served', '1.0.0'), repo);
    await packageChart(chart('served', '1.1.0'), repo);
    await packageChart(path.join(CORPUS, 'charts/metrics-server'), repo);
    await writeRepoIndex(repo);
    const server = http.createServer((req, res) => {
      const file = path.join(repo, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      if (!file.startsWith(repo) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': file.endsWith('.yaml') ? 'text/yaml' : 'application/gzip' }).end(fs.readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const add = await run(['repo', 'add', 'kg', url]);
      expect([add.code, add.stderr]).toEqual([0, '']);
      const search = await run(['search', 'repo', 'kg/', '--versions', '-o', 'json']);
      expect(search.code).toBe(0);
      expect((JSON.parse(search.stdout) as { name: string; version: string }[]).map((c) => `${c.name}@${c.version}`)).toEqual(['kg/metrics-server@3.13.1', 'kg/served@1.1.0', 'kg/served@1.0.0']);
      const dest = tmp();
      const pull = await run(['pull', 'kg/served', '--version', '1.0.0', '-d', dest]);
      expect([pull.code, pull.stderr]).toEqual([0, '']);
      const index = parse(fs.readFileSync(path.join(repo, 'index.yaml'), 'utf8')) as Index;
      const pulled = fs.readFileSync(path.join(dest, 'served-1.0.0.tgz'));
      expect(sha256(pulled)).toBe(index.entries.served.find((e) => e.version === '1.0.0')!.digest);
      const show = await run(['show', 'chart', 'kg/metrics-server']);
      expect(show.code).toBe(0);
      expect(show.stdout).toMatch(/^name: metrics-server$/m);
      expect(show.stdout).toMatch(/^version: 3\.13\.1$/m);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
