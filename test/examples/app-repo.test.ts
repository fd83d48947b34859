/**
 * examples/app-repo as a user gets it (issue 13): the package packed with `npm pack`, installed
 * into a copy of the example with the peer dependencies at the LOW end of kubegrace's peer ranges
 * (their minimums) and at the HIGH end (the versions this repository builds with), then `tsc`
 * with the example's own tsconfig (what `cdk8s init` writes: CommonJS, node10 resolution), the
 * documented import paths under node10, node16 and bundler resolution, `cdk8s synth` with the
 * kubegrace plugin, and two deliberately broken workloads failing the synth with a clear message.
 *
 * One install per end (npm cache, --prefer-offline), reused by every check of that end: the high end
 * from nothing, the low end over a copy of the high end's install (a user moving their peers; npm
 * changes the peers and kubegrace's, ~5 CPU-s instead of ~13 for an install from nothing). The app
 * installs what it compiles and runs against (the peers, kubegrace, @types/node); the tools, `tsc`
 * and `cdk8s` (cdk8s-cli), are this repository's, the versions the test pinned the app to before
 * (cdk8s-cli bundles its dependencies: 100 packages and 80 MB of an install for a tool that loads
 * the plugin from the app's `./node_modules/kubegrace`, resolved from the app directory). Uses
 * build/ (npm test builds first; stale or missing output is rebuilt here).
 */
import { spawnSync, SpawnSyncReturns } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureBuilt } from '../helpers/build';

const ROOT = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(ROOT, 'examples/app-repo');
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const PEERS = ['cdk8s', 'cdk8s-plus-27', 'constructs'];

/** The minimum of a caret range: `^2.64.2` -> `2.64.2`. */
function minimum(range: string): string {
  const m = /^\^(\d+\.\d+\.\d+)$/.exec(range);
  if (!m) throw new Error(`peer range ${range} is not a caret range: teach this test its low end`);
  return m[1];
}

const ENDS: Record<'low' | 'high', Record<string, string>> = {
  low: Object.fromEntries(PEERS.map((p) => [p, minimum(PKG.peerDependencies[p])])),
  high: Object.fromEntries(PEERS.map((p) => [p, PKG.devDependencies[p]])),
};

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env }, maxBuffer: 64 * 1024 * 1024 });
}

/**
 * A fresh install of an end costs ~12 CPU-seconds (218 packages from the npm cache); most runs install
 * exactly what the last one did but for kubegrace's own files. So a copy of node_modules and
 * package-lock.json after a fresh install is kept (kubegrace-test-cache in the system's temporary directory,
 * not the run's own, which jest removes: test/helpers/tmp-setup.js), under a key of
 * everything npm resolves the tree from: the app's package.json with kubegrace's spec left out,
 * kubegrace's package.json (its dependencies, peers and bin), npm, node and the platform. The next
 * run with the same key copies it in before the same `npm install`, which then resolves the tree
 * again from the lockfile and replaces kubegrace from the new tarball (`changed 1 package`); the
 * first test checks that the installed kubegrace is the one just packed. A key not seen before (a
 * new peer range end, a changed dependency) or KUBEGRACE_TEST_FRESH_INSTALL=1 installs from nothing.
 * With CI set (a CI machine, fresh each run) nothing is kept.
 * Copies, not hard links: nothing a test does in the app directory can reach the kept copy.
 */
const INSTALL_CACHE = path.join(process.env.KUBEGRACE_OUTER_TMPDIR || os.tmpdir(), 'kubegrace-test-cache');
let npmVersion: string | undefined;

function installKey(end: string, pkg: { dependencies: Record<string, string> }): string {
  npmVersion ??= spawnSync('npm', ['--version'], { encoding: 'utf8' }).stdout.trim();
  const deps = { ...pkg.dependencies, kubegrace: '(the packed tarball)' };
  const key = JSON.stringify({ app: { ...pkg, dependencies: deps }, kubegrace: fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'), npm: npmVersion, node: process.version, platform: `${process.platform}-${process.arch}` });
  return `app-repo-${end}-${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}

/** Copies the kept install of this key into `app`; whether there was one. */
function restoreInstall(end: string, pkg: { dependencies: Record<string, string> }, app: string): boolean {
  if (process.env.KUBEGRACE_TEST_FRESH_INSTALL === '1') return false;
  const kept = path.join(INSTALL_CACHE, installKey(end, pkg));
  if (!fs.existsSync(path.join(kept, 'complete'))) return false;
  try {
    fs.cpSync(path.join(kept, 'node_modules'), path.join(app, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    fs.copyFileSync(path.join(kept, 'package-lock.json'), path.join(app, 'package-lock.json'));
    return true;
  } catch {
    fs.rmSync(path.join(app, 'node_modules'), { recursive: true, force: true });
    fs.rmSync(path.join(app, 'package-lock.json'), { force: true });
    return false;
  }
}

/** Keeps a copy of a fresh install under its key (written aside, then renamed: other runs may read it meanwhile). */
function saveInstall(end: string, pkg: { dependencies: Record<string, string> }, app: string): void {
  const name = installKey(end, pkg);
  const kept = path.join(INSTALL_CACHE, name);
  const tmp = `${kept}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(INSTALL_CACHE, { recursive: true });
    fs.cpSync(path.join(app, 'node_modules'), path.join(tmp, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    fs.copyFileSync(path.join(app, 'package-lock.json'), path.join(tmp, 'package-lock.json'));
    fs.writeFileSync(path.join(tmp, 'complete'), '');
    fs.rmSync(kept, { recursive: true, force: true });
    fs.renameSync(tmp, kept);
    // Older keys of this end are of no more use.
    for (const e of fs.readdirSync(INSTALL_CACHE)) if (e.startsWith(`app-repo-${end}-`) && e !== name && !e.endsWith('.tmp')) fs.rmSync(path.join(INSTALL_CACHE, e), { recursive: true, force: true });
  } catch {
    // A cache only: the next run installs from nothing.
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-app-repo-'));
let tarball = '';
let packed: string[] = [];

beforeAll(() => {
  ensureBuilt(['lib'], ['build/lib/index.js']);
  // build/ is fresh: skip the prepack build.
  const pack = run('npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--json', '--silent'], ROOT);
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  const info = JSON.parse(pack.stdout)[0] as { filename: string; files: { path: string }[] };
  tarball = path.join(work, info.filename);
  packed = info.files.map((f) => f.path);
}, 300_000);

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

test('the tarball holds the code, type declarations, the data read at run time, rule docs and LICENSE, and nothing else of the repository', () => {
  expect(packed).toEqual(
    expect.arrayContaining([
      'package.json',
      'LICENSE',
      'README.md',
      'build/lib/index.js',
      'build/lib/index.d.ts',
      'build/lib/constructs/index.d.ts',
      'build/lib/cdk8s/index.js',
      'policies/strict.yaml',
      'policies/policy.schema.json',
      'lib/catalog/catalog.yaml',
      'lib/catalog/catalog.schema.json',
      'docs/rules/grace-period-budget.md',
    ]),
  );
  expect(packed.filter((f) => /^(test|charts-src|examples|bench|scripts)\//.test(f) || (f.startsWith('lib/') && !f.startsWith('lib/catalog/catalog.')))).toEqual([]);
});

test('the ends tested are the ends of the published peer ranges', () => {
  expect(ENDS.low).toEqual({ cdk8s: '2.64.2', 'cdk8s-plus-27': '2.7.1', constructs: '10.2.70' });
  for (const p of PEERS) expect(PKG.peerDependencies[p]).toBe(`^${ENDS.low[p]}`);
});

/** The ends installed in this run, for the next end to start from. */
const installed: string[] = [];

describe.each(['high', 'low'] as const)('examples/app-repo with the peers at the %s end', (end) => {
  const app = path.join(work, end);
  // The repository's tools (see above), run in the app directory.
  const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

  beforeAll(() => {
    fs.cpSync(EXAMPLE, app, { recursive: true, filter: (src) => !/[\\/](node_modules|build|dist)$/.test(src) });
    const pkg = JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8'));
    pkg.dependencies = { ...pkg.dependencies, ...ENDS[end], kubegrace: `file:${tarball}` };
    // The declarations the example compiles against, at this repository's version; the tools are the repository's.
    pkg.devDependencies = { '@types/node': PKG.devDependencies['@types/node'] };
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(pkg, null, 2));
    const t0 = Date.now();
    const reused = restoreInstall(end, pkg, app);
    const from = reused ? undefined : installed.find((e) => fs.existsSync(path.join(work, e, 'node_modules')));
    if (from) {
      fs.cpSync(path.join(work, from, 'node_modules'), path.join(app, 'node_modules'), { recursive: true, verbatimSymlinks: true });
      fs.copyFileSync(path.join(work, from, 'package-lock.json'), path.join(app, 'package-lock.json'));
    }
    const install = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], app);
    if (install.status !== 0) throw new Error(`npm install (${end}) failed:\n${install.stdout}${install.stderr}`);
    // (Not on CI, whose machine starts from nothing and is thrown away: the copy of 13k files and
    // 155 MB would cost ~1.7 CPU-s per end for no later run.)
    if (!reused && !process.env.CI) saveInstall(end, pkg, app);
    installed.push(end);
    const over = reused ? ' (over the node_modules of an earlier install of the same dependencies)' : from ? ` (over a copy of the ${from} end's install)` : '';
    console.log(`examples/app-repo ${end} end (${Object.entries(ENDS[end]).map(([k, v]) => `${k}@${v}`).join(', ')}): npm install ${((Date.now() - t0) / 1000).toFixed(1)}s${over}`);
  }, 600_000);

  test('npm installed exactly these peers, one copy each, shared with kubegrace', () => {
    // The kubegrace just packed, whatever node_modules npm started from.
    for (const f of ['package.json', 'build/lib/index.js', 'build/lib/cdk8s/index.js']) {
      expect([f, fs.readFileSync(path.join(app, 'node_modules/kubegrace', f), 'utf8')]).toEqual([f, fs.readFileSync(path.join(ROOT, f), 'utf8')]);
    }
    for (const p of PEERS) {
      expect(JSON.parse(fs.readFileSync(path.join(app, 'node_modules', p, 'package.json'), 'utf8')).version).toBe(ENDS[end][p]);
      expect(fs.existsSync(path.join(app, 'node_modules/kubegrace/node_modules', p))).toBe(false);
      expect(fs.existsSync(path.join(app, 'node_modules/cdk8s-plus-27/node_modules', p))).toBe(false);
    }
    const resolved = run(process.execPath, ['-p', "[require.resolve('kubegrace'), require.resolve('kubegrace/constructs'), require.resolve('kubegrace/cdk8s')].join(' ')"], app);
    expect(resolved.stdout.trim()).toBe(['index.js', 'constructs/index.js', 'cdk8s/index.js'].map((f) => path.join(app, 'node_modules/kubegrace/build/lib', f)).join(' '));
  });

  test(
    'tsc with the example tsconfig (CommonJS, node10 resolution, full library check)',
    () => {
      const tsc = run(process.execPath, [bin('tsc'), '-p', 'tsconfig.json'], app);
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);
      expect(fs.existsSync(path.join(app, 'build/main.js'))).toBe(true);
    },
    300_000,
  );

  test('every documented import path type-checks under node10, node16 and bundler resolution', () => {
    fs.writeFileSync(
      path.join(app, 'imports.ts'),
      [
        "import { lintSources, GracefulDeployment as FromRoot } from 'kubegrace';",
        "import { GracefulDeployment, ManifestOverlay } from 'kubegrace/constructs';",
        "import { KubegraceValidation } from 'kubegrace/cdk8s';",
        'export const used: unknown[] = [lintSources, FromRoot, GracefulDeployment, ManifestOverlay, new KubegraceValidation({ policy: "strict" })];',
        '',
      ].join('\n'),
    );
    // One tsc process checks the three (`tsc -b` over one tsconfig per resolution, sharing what it
    // parsed of the declarations: 2.5 s instead of 6.2 s), each with the options of
    // `tsc --noEmit --strict --skipLibCheck --types node --module M --moduleResolution R imports.ts`.
    // On a failure, each resolution is checked alone to say which one fails.
    const resolutions = [
      ['commonjs', 'node10'],
      ['node16', 'node16'],
      ['esnext', 'bundler'],
    ];
    const configs = resolutions.map(([module, resolution]) => {
      const file = `tsconfig.imports-${resolution}.json`;
      const compilerOptions = { noEmit: true, strict: true, skipLibCheck: true, types: ['node'], module, moduleResolution: resolution };
      fs.writeFileSync(path.join(app, file), JSON.stringify({ compilerOptions, files: ['imports.ts'] }, null, 2));
      return file;
    });
    const all = run(process.execPath, [bin('tsc'), '-b', ...configs], app);
    if (all.status !== 0 || all.stdout + all.stderr !== '') {
      for (const [i, [, resolution]] of resolutions.entries()) {
        const r = run(process.execPath, [bin('tsc'), '-p', configs[i]], app);
        expect([resolution, r.stdout + r.stderr]).toEqual([resolution, '']);
      }
    }
    expect([all.status, all.stdout + all.stderr]).toEqual([0, '']);
  }, 300_000);

  test(
    'cdk8s synth with the kubegrace plugin: success, and the manifests carry what the example shows',
    () => {
      const r = run(process.execPath, [bin('cdk8s'), 'synth', '--no-check-upgrade'], app);
      expect(r.stderr).not.toMatch(/Error/);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`Validation Report (${path.join(app, 'node_modules/kubegrace')}@${PKG.version})`);
      expect(r.stdout).toMatch(/Status\s+│ success/);
      expect(r.stdout).toContain('kubegrace: 9 objects in 1 manifest: 0 errors, 0 warnings, 0 info, 0 suppressed (policy strict, Kubernetes 1.33, fail on error)');
      const yaml = fs.readFileSync(path.join(app, 'dist/storefront.yaml'), 'utf8');
      // The readiness gate of the ALB target group binding.
      expect(yaml).toMatch(/readinessGates:\n\s+- conditionType: target-health\.elbv2\.k8s\.aws\/storefront-web/);
      // The native sidecar of the company construct, and its drain in the budget.
      expect(yaml).toMatch(/name: log-shipper\n(?:.*\n)*?\s+restartPolicy: Always/);
      expect(yaml).toContain('kubegrace.dev/sidecar-drain-seconds: log-shipper=5');
      // The custom preStop program with its declared duration: 25 + drain 10 + sidecar 5 + margin 5.
      expect(yaml).toContain('kubegrace.dev/prestop-seconds: "25"');
      expect(yaml).toMatch(/- \/app\/bin\/drain\n\s+- --wait\n\s+- 25s/);
      const graces = [...yaml.matchAll(/terminationGracePeriodSeconds: (\d+)/g)].map((m) => Number(m[1]));
      // web: ALB window 30 + 10 + 5 + 5; checkout: 25 + 10 + 5 + 5; cart-events: 10 + 20 + 5 + 5.
      expect(graces).toEqual([50, 45, 40]);
      expect(yaml).toContain('example.com/pci-scope: "true"');
      expect(yaml).toContain('example.com/team: payments');
    },
    300_000,
  );

  test(
    'a workload whose grace period is overridden below its preStop delay fails the synth gate, with the rule, the object, the line and how to fix it',
    () => {
      const r = run(process.execPath, [bin('cdk8s'), 'synth', '--no-check-upgrade', '--validation-reports-output-file', 'report.json'], app, { STOREFRONT_BROKEN: 'lint' });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('Validation failed');
      expect(r.stdout).toMatch(/^ {2}error {3}grace-period-budget  Deployment\/storefront\/legacy-search  dist\/broken\.yaml:\d+:\d+$/m);
      expect(r.stdout).toContain('Recommendation: error: container "app": preStop delay 20s >= terminationGracePeriodSeconds (15s): the app gets only 2s after SIGTERM before SIGKILL');
      expect(r.stdout).toContain('How to fix: raise terminationGracePeriodSeconds to 35 (preStop + drain + addend + margin)');
      expect(r.stdout).toContain('Rule doc: node_modules/kubegrace/docs/rules/grace-period-budget.md');
      expect(fs.existsSync(path.join(app, 'node_modules/kubegrace/docs/rules/grace-period-budget.md'))).toBe(true);
      const report = JSON.parse(fs.readFileSync(path.join(app, 'report.json'), 'utf8')) as { reports: { summary: { status: string }; violations: { ruleName: string; violatingConstructs: { resourceName: string }[] }[] }[] };
      expect(report.reports[0].summary.status).toBe('failure');
      const v = report.reports[0].violations.find((x) => x.ruleName === 'grace-period-budget');
      // The Deployment and its Service share the name: named by kind rather than mapped to the Service's construct.
      expect(v?.violatingConstructs[0].resourceName).toBe('Deployment/legacy-search');
    },
    300_000,
  );

  test(
    'a preStop program without a declared duration is refused by the construct, naming the prop',
    () => {
      const r = run(process.execPath, [bin('cdk8s'), 'synth', '--no-check-upgrade'], app, { STOREFRONT_BROKEN: 'hook' });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toContain(
        '[broken/recommendations] container "app" has a preStop program (/app/bin/drain --wait 25s) whose duration kubegrace cannot know, so terminationGracePeriodSeconds would be computed from a guess: declare how long it runs with the customPreStopSeconds prop',
      );
    },
    300_000,
  );
});
