/**
 * `kubegrace chart generate|package|index` end to end through the built CLI (run in this process,
 * test/helpers/cli.ts; KUBEGRACE_TEST_SPAWN=1 spawns the bin), on the charts-src
 * apps as an app repository would use it: synthesized manifests in, charts, reproducible packages
 * and a repository index out; the packages render with the real helm and the index digests match.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { App } from 'cdk8s';
import { parse } from 'yaml';
import { APPS } from '../../charts-src/apps';
import { HELM, KUBE, makeHelm, tmpDir } from '../helm/generate-helpers';
import { BIN, runCliAsync } from '../helpers/cli';

const work = tmpDir('kg-chart-cli-');
const helm = makeHelm(path.join(work, 'helm-home'));
const NAMES = Object.keys(APPS);

/** The built CLI (test/helpers/cli.ts: in this process; KUBEGRACE_TEST_SPAWN=1 spawns it) in the work directory, helm on PATH. */
async function kubegrace(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number; stdout: string; stderr: string }> {
  const r = await runCliAsync(args, { cwd: work, env: { ...process.env, PATH: `${path.dirname(HELM)}${path.delimiter}${process.env.PATH}`, ...env } });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

async function packageAll(out: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const r = await kubegrace(['chart', 'package', ...NAMES.map((n) => `charts/${n}`), '--out', out, '--index'], env);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
}

beforeAll(async () => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does it)`);
  const app = new App({ outdir: path.join(work, 'manifests'), outputFileExtension: '.yaml' });
  for (const [name, build] of Object.entries(APPS)) build(app, name);
  app.synth();
  for (const name of NAMES) {
    const r = await kubegrace(['chart', 'generate', `manifests/${name}.yaml`, '--name', name, '--version', '1.2.3', '--out', 'charts']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`generated charts/${name}`);
  }
  await packageAll('packages');
}, 180_000);
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('kubegrace chart', () => {
  test('generate takes the appVersion from the first image tag and writes a complete chart', () => {
    const chart = parse(fs.readFileSync(path.join(work, 'charts/http-api/Chart.yaml'), 'utf8'));
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'http-api', version: '1.2.3', appVersion: '1.4.2' });
    for (const f of ['values.yaml', 'values.schema.json', 'README.md', 'templates/_helpers.tpl', 'templates/NOTES.txt']) {
      expect(fs.existsSync(path.join(work, 'charts/http-api', f))).toBe(true);
    }
  });

  test.each(NAMES)('the packaged %s chart renders with helm template and lints clean', async (name) => {
    const tgz = path.join(work, 'packages', `${name}-1.2.3.tgz`);
    const r = helm(['template', 'rel', tgz, '--kube-version', KUBE]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('kind: ');
    const lint = await kubegrace(['lint', `charts/${name}`, '--kube-version', '1.33', '--format', 'json']);
    expect(lint.status).toBe(0);
    expect(JSON.parse(lint.stdout).summary).toMatchObject({ error: 0 });
  });

  test('the index lists every package with the sha256 of its file', () => {
    const index = parse(fs.readFileSync(path.join(work, 'packages/index.yaml'), 'utf8'));
    expect(index.apiVersion).toBe('v1');
    expect(Object.keys(index.entries).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) {
      const [entry] = index.entries[name];
      expect(entry.version).toBe('1.2.3');
      expect(entry.urls).toEqual([`${name}-1.2.3.tgz`]);
      expect(entry.digest).toBe(sha256(path.join(work, 'packages', entry.urls[0])));
    }
  });

  test('a second packaging run is byte-identical, even after the chart files were touched', async () => {
    const later = new Date(Date.now() + 3_600_000);
    for (const name of NAMES) fs.utimesSync(path.join(work, 'charts', name, 'values.yaml'), later, later);
    await packageAll('packages-again');
    const files = fs.readdirSync(path.join(work, 'packages')).sort();
    expect(fs.readdirSync(path.join(work, 'packages-again')).sort()).toEqual(files);
    for (const f of files) expect(fs.readFileSync(path.join(work, 'packages-again', f)).equals(fs.readFileSync(path.join(work, 'packages', f)))).toBe(true);
  });

  test('SOURCE_DATE_EPOCH sets the timestamps, so the bytes change with it and only with it', async () => {
    await packageAll('packages-epoch', { SOURCE_DATE_EPOCH: '1700000000' });
    const a = path.join(work, 'packages-epoch/http-api-1.2.3.tgz');
    expect(fs.readFileSync(a).equals(fs.readFileSync(path.join(work, 'packages/http-api-1.2.3.tgz')))).toBe(false);
    expect(fs.readFileSync(path.join(work, 'packages-epoch/index.yaml'), 'utf8')).toContain('2023-11-14T22:13:20Z');
  });

  test('index --url prefixes the chart URLs', async () => {
    const r = await kubegrace(['chart', 'index', 'packages-again', '--url', 'https://charts.example.com/stable']);
    expect(r.status).toBe(0);
    const index = parse(fs.readFileSync(path.join(work, 'packages-again/index.yaml'), 'utf8'));
    expect(index.entries['datastore'][0].urls).toEqual(['https://charts.example.com/stable/datastore-1.2.3.tgz']);
  });

  test('usage errors exit 2; a chart that cannot be packaged exits 1 with the reason', async () => {
    expect((await kubegrace(['chart'])).status).toBe(2);
    const noName = await kubegrace(['chart', 'generate', 'manifests/http-api.yaml']);
    expect(noName.status).toBe(2);
    expect(noName.stderr).toContain('--name');
    expect((await kubegrace(['chart', 'frobnicate'])).status).toBe(2);
    fs.mkdirSync(path.join(work, 'broken'), { recursive: true });
    fs.writeFileSync(path.join(work, 'broken/Chart.yaml'), 'apiVersion: v2\nname: broken\nversion: not-semver\n');
    const bad = await kubegrace(['chart', 'package', 'broken', '--out', 'packages-broken']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/broken.*version/i);
  });

  test('generate refuses input that is not YAML, naming the file', async () => {
    fs.writeFileSync(path.join(work, 'bad.yaml'), 'kind: [unclosed\n');
    const r = await kubegrace(['chart', 'generate', 'bad.yaml', '--name', 'bad']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('bad.yaml');
  });
});
