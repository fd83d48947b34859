/**
 * `npm run synth` reuses its last result only when nothing it depends on changed (issue 16: <= 5 s
 * with no change): the built script (build/scripts/synth.js, npm test builds it) in a copy of the
 * repository's build/ beside the real node_modules, policies and docs, with the real cdk8s and helm.
 * A reused run leaves dist/ byte for byte as the full run wrote it and prints the same output; every
 * input (an app source, a compiled rule, a policy, cdk8s.yaml, helm, the environment read) changes
 * the fingerprint, so a run after such a change is a full run like the first; a dist/ file changed
 * by hand is not reused either; a failing synth fails again with the same report, and is never
 * recorded. (Two full runs at most: each costs seconds of the suite's budget.)
 */
import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const BIN_DIR = path.join(ROOT, 'node_modules/.bin');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-synth-'));
const repo = path.join(work, 'repo');
const script = path.join(repo, 'build/scripts/synth.js');
const stamp = path.join(repo, 'build/.synth-stamp.json');

beforeAll(() => {
  if (!fs.existsSync(path.join(ROOT, 'build/scripts/synth.js'))) throw new Error('build/scripts/synth.js is missing: run `npm run build` (npm test does it)');
  fs.mkdirSync(repo);
  fs.cpSync(path.join(ROOT, 'build'), path.join(repo, 'build'), { recursive: true, filter: (src) => !src.endsWith('.synth-stamp.json') });
  for (const f of ['package.json', 'cdk8s.yaml', 'README.md']) fs.copyFileSync(path.join(ROOT, f), path.join(repo, f));
  fs.cpSync(path.join(ROOT, 'policies'), path.join(repo, 'policies'), { recursive: true });
  for (const d of ['node_modules', 'docs', 'lib']) fs.symlinkSync(path.join(ROOT, d), path.join(repo, d));
});
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function synth(env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const base: NodeJS.ProcessEnv = { ...process.env, PATH: `${BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' };
  delete base.KUBEGRACE_SYNTH_FORCE;
  delete base.HELM_BIN;
  const r = spawnSync(process.execPath, [script], { cwd: repo, encoding: 'utf8', env: { ...base, ...env }, maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** sha256 of every file under dist/, by path. */
function distDigests(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(repo, p)] = createHash('sha256').update(fs.readFileSync(p)).digest('hex');
    }
  };
  walk(path.join(repo, 'dist'));
  return out;
}

/** The output without the timing table and the reuse note (the only lines that differ between runs). */
function printed(stdout: string): string {
  return stdout
    .slice(0, stdout.indexOf('where the time went:'))
    .split('\n')
    .filter((l) => !l.startsWith('nothing changed since the run of '))
    .join('\n');
}

const timingRows = (stdout: string) => stdout.slice(stdout.indexOf('where the time went:')).split('\n').slice(1).map((l) => l.trim().replace(/\s+[\d.]+ s$|\s+n\/a$/, ''));

describe('npm run synth with nothing changed', () => {
  let full: ReturnType<typeof synth>;
  let fullDist: Record<string, string>;

  test('the first run does everything and records it', () => {
    full = synth();
    expect(full.stderr).toBe('');
    expect(full.status).toBe(0);
    expect(full.stdout).toContain('Validations ended succesfully');
    expect(full.stdout).toContain('packaged 6 chart(s) into dist/packages with index.yaml');
    expect(full.stdout).not.toContain('nothing changed since');
    expect(timingRows(full.stdout)).toEqual(expect.arrayContaining(['cdk8s synth (with the validation plugin, in-process)', 'lint of the manifests', 'chart generation', 'packaging and repository index', 'total']));
    fullDist = distDigests();
    expect(Object.keys(fullDist)).toEqual(expect.arrayContaining(['dist/manifests/http-api.yaml', 'dist/charts/http-api/Chart.yaml', 'dist/packages/index.yaml']));
    expect(fs.existsSync(stamp)).toBe(true);
  }, 300_000);

  test('the second run reuses it: same output, same exit code, dist/ byte for byte, and says where the time went', () => {
    const mtimes = Object.keys(fullDist).map((f) => fs.statSync(path.join(repo, f)).mtimeMs);
    const again = synth();
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/^nothing changed since the run of \d{4}-\d\d-\d\dT/m);
    expect(printed(again.stdout)).toBe(printed(full.stdout));
    expect(distDigests()).toEqual(fullDist);
    // Not rewritten either.
    expect(Object.keys(fullDist).map((f) => fs.statSync(path.join(repo, f)).mtimeMs)).toEqual(mtimes);
    const rows = timingRows(again.stdout);
    expect(rows).toEqual(['build (tsc, incremental)', 'node start-up and module loading', 'fingerprint of the inputs', 'check of dist/ against the last run', 'total', '']);
  }, 300_000);
});

describe('what invalidates the record', () => {
  // The built script's own functions, on the copy (nothing runs when it is required).
  const load = () => {
    jest.resetModules();
    return require(script) as { fingerprint(): string; outputs(): Record<string, string>; sameOutputs(r: Record<string, string>): boolean };
  };

  test('every input of the result changes the fingerprint; source maps, declarations and the README do not', () => {
    const { fingerprint } = load();
    const base = fingerprint();
    const changes: Array<[string, () => () => void]> = [
      ['an app source', () => touch('build/charts-src/apps/http-api.js')],
      ['a compiled rule', () => touch('build/lib/rules/prestop-missing.js')],
      ['a compiled construct', () => touch('build/lib/constructs/index.js')],
      ['the synth script', () => touch('build/scripts/synth.js')],
      ['a policy', () => touch('policies/strict.yaml')],
      ['cdk8s.yaml', () => touch('cdk8s.yaml')],
      ['package.json', () => touch('package.json')],
      ['a new compiled file', () => create('build/lib/extra.js')],
      // (A value other than the one the run may have already: `HELM_BIN=node_modules/.bin/helm npm test`.)
      ['HELM_BIN', () => env('HELM_BIN', process.env.HELM_BIN === path.join(BIN_DIR, 'helm') ? path.join(work, 'no-such-helm') : path.join(BIN_DIR, 'helm'))],
      ['SOURCE_DATE_EPOCH', () => env('SOURCE_DATE_EPOCH', '1700000000')],
      ['CDK8S_DISABLE_SORT', () => env('CDK8S_DISABLE_SORT', '1')],
      ['NO_COLOR', () => env('NO_COLOR', process.env.NO_COLOR === 'x' ? 'y' : 'x')],
    ];
    for (const [what, change] of changes) {
      const undo = change();
      try {
        expect({ what, changed: fingerprint() !== base }).toEqual({ what, changed: true });
      } finally {
        undo();
      }
      expect({ what, restored: fingerprint() === base }).toEqual({ what, restored: true });
    }
    for (const [what, change] of [
      ['a source map', () => touch('build/lib/rules/prestop-missing.js.map')],
      ['a declaration', () => touch('build/lib/rules/prestop-missing.d.ts')],
      ['the README', () => touch('README.md')],
    ] as Array<[string, () => () => void]>) {
      const undo = change();
      try {
        expect({ what, changed: fingerprint() !== base }).toEqual({ what, changed: false });
      } finally {
        undo();
      }
    }
  });

  test('a dist/ file changed, added or removed is not the recorded result', () => {
    const { outputs, sameOutputs } = load();
    const recorded = outputs();
    expect(Object.keys(recorded).length).toBeGreaterThan(10);
    expect(sameOutputs(recorded)).toBe(true);
    for (const change of [() => touch('dist/charts/http-api/values.yaml'), () => create('dist/charts/http-api/templates/extra.yaml'), () => remove('dist/packages/index.yaml')]) {
      const undo = change();
      expect(sameOutputs(recorded)).toBe(false);
      undo();
      expect(sameOutputs(recorded)).toBe(true);
    }
  });
});

test('a failing synth fails again with the same report and exit code, and is not recorded', () => {
  // The synth gate refuses this app (preStop 20 s in a 15 s grace period).
  const bad = path.join(ROOT, 'test/fixtures/apps/bad-grace/app.js');
  const config = path.join(repo, 'cdk8s.yaml');
  const good = fs.readFileSync(config, 'utf8');
  fs.writeFileSync(config, good.replace(/^app: .*$/m, `app: node ${bad}`));
  try {
    const first = synth();
    expect(first.status).toBe(2);
    expect(first.stdout).toContain('grace-period-budget');
    expect(first.stderr).toContain('Validation failed');
    expect(fs.existsSync(stamp)).toBe(false);
    const second = synth();
    expect(second.status).toBe(2);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toBe(first.stderr);
    expect(fs.existsSync(stamp)).toBe(false);
  } finally {
    fs.writeFileSync(config, good);
  }
}, 300_000);

/** Appends a byte to a file of the copy; returns the undo. */
function touch(rel: string): () => void {
  const f = path.join(repo, rel);
  const before = fs.readFileSync(f);
  fs.appendFileSync(f, ' ');
  return () => fs.writeFileSync(f, before);
}
function create(rel: string): () => void {
  const f = path.join(repo, rel);
  fs.writeFileSync(f, 'x\n');
  return () => fs.rmSync(f);
}
function remove(rel: string): () => void {
  const f = path.join(repo, rel);
  const before = fs.readFileSync(f);
  fs.rmSync(f);
  return () => fs.writeFileSync(f, before);
}
function env(name: string, value: string): () => void {
  const before = process.env[name];
  process.env[name] = value;
  return () => {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  };
}
