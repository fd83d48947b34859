/**
 * End to end through the real `cdk8s synth` and the built package: the synth gate of this
 * repository (cdk8s.yaml), a bad app that the gate refuses, and an app repository that installs the
 * packed tarball, subclasses GracefulDeployment and loads the plugin from its own node_modules.
 *
 * These tests use build/ (the compiled package). When the sources of the constructs, the plugin or
 * the example apps are newer than the build, they rebuild it first (`tsc -p tsconfig.json`, what
 * `npm run build` runs).
 */
import { spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { APPS } from '../../charts-src/apps';
import { CliIO } from '../../lib/cli/io';
import { main } from '../../lib/cli/main';

const ROOT = path.resolve(__dirname, '../..');
const CDK8S = path.join(ROOT, 'node_modules/cdk8s-cli/bin/cdk8s');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const PKG_VERSION: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

function newestMtime(p: string): number {
  if (!fs.existsSync(p)) return 0;
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(0, ...fs.readdirSync(p).map((e) => newestMtime(path.join(p, e))));
}

/** Rebuilds build/ when the sources these tests exercise are newer than it. */
function ensureBuilt(): void {
  const built = ['build/lib/index.js', 'build/lib/cdk8s/index.js', 'build/charts-src/main.js'].map((f) => path.join(ROOT, f));
  const oldest = Math.min(...built.map((f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0)));
  const sources = Math.max(...['lib/constructs', 'lib/cdk8s', 'lib/index.ts', 'charts-src'].map((p) => newestMtime(path.join(ROOT, p))));
  if (oldest > sources) return;
  const r = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: ROOT, encoding: 'utf8' });
  if (!fs.existsSync(built[0])) throw new Error(`build failed:\n${r.stdout}${r.stderr}`);
}

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env }, maxBuffer: 64 * 1024 * 1024 });
}

function synth(cwd: string, extra: string[] = [], env: Record<string, string> = {}): SpawnSyncReturns<string> {
  return run(process.execPath, [CDK8S, 'synth', '--no-check-upgrade', ...extra], cwd, env);
}

interface Report {
  reports: {
    title: string;
    summary: { status: string };
    violations: { ruleName: string; recommendation: string; violatingConstructs: { constructPath?: string; manifestPath: string; resourceName: string; locations: string[] }[] }[];
  }[];
}

function tmp(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

beforeAll(() => ensureBuilt(), 300_000);

describe('the synth gate of this repository (cdk8s.yaml)', () => {
  test(
    'cdk8s synth writes one manifest per example app, runs the plugin, and the output lints clean with --policy strict',
    () => {
      const out = tmp('kg-synth-');
      try {
        const r = synth(ROOT, ['--output', out]);
        expect(r.stderr).not.toMatch(/Error/);
        expect(r.status).toBe(0);
        expect(r.stdout).toContain('Performing validations');
        expect(r.stdout).toMatch(/Status\s+│ success/);
        expect(r.stdout).toContain('Validations ended succesfully');
        for (const name of Object.keys(APPS)) expect(fs.existsSync(path.join(out, `${name}.yaml`))).toBe(true);
        const outputs: string[] = [];
        const io: CliIO = { cwd: ROOT, stdout: (s) => outputs.push(s), stderr: (s) => outputs.push(s), stdoutIsTTY: false, stderrIsTTY: false, readStdin: () => '' };
        const code = main(['lint', out, '--policy', 'strict', '--fail-on', 'info', '--format', 'json'], io);
        const json = JSON.parse(outputs.join(''));
        expect(json.findings).toEqual([]);
        expect(json.summary).toMatchObject({ files: Object.keys(APPS).length + 1, error: 0, warning: 0, info: 0 });
        expect(code).toBe(0);
      } finally {
        fs.rmSync(out, { recursive: true, force: true });
      }
    },
    120_000,
  );

  test(
    'an app overridden into a bad state (preStop longer than grace) fails the gate with the rule ID, construct path and manifest path',
    () => {
      const dir = tmp('kg-bad-');
      try {
        fs.writeFileSync(
          path.join(dir, 'cdk8s.yaml'),
          [
            'language: typescript',
            `app: node ${JSON.stringify(path.join(ROOT, 'test/fixtures/apps/bad-grace/app.js'))}`,
            'output: dist',
            'validations:',
            `  - package: ${JSON.stringify(path.join(ROOT, 'build/lib/cdk8s'))}`,
            `    version: ${PKG_VERSION}`,
            '    class: KubegraceValidation',
            '    properties: {policy: strict}',
            '',
          ].join('\n'),
        );
        const r = synth(dir, ['--validation-reports-output-file', 'report.json']);
        expect(r.status).toBe(2);
        expect(r.stderr).toContain('Validation failed');
        // The text report cdk8s prints.
        expect(r.stdout).toMatch(/grace-period-budget \(\d+ occurrences\)/);
        expect(r.stdout).toContain('Construct Path: bad-grace/web/Resource');
        expect(r.stdout).toContain('Manifest Path: dist/bad-grace.yaml');
        // The JSON report.
        const report: Report = JSON.parse(fs.readFileSync(path.join(dir, 'report.json'), 'utf8'));
        expect(report.reports[0].summary.status).toBe('failure');
        const v = report.reports[0].violations.find((x) => x.ruleName === 'grace-period-budget');
        expect(v).toBeDefined();
        expect(v!.recommendation).toMatch(/^error: container "app": preStop delay 20s >= terminationGracePeriodSeconds \(15s\)/);
        expect(v!.violatingConstructs[0]).toMatchObject({ resourceName: 'web', constructPath: 'bad-grace/web/Resource', manifestPath: 'dist/bad-grace.yaml' });
        expect(v!.violatingConstructs[0].locations[0]).toMatch(/^Deployment\/shop\/web \/spec\/template\/spec\/containers\/0\/lifecycle\/preStop \(dist\/bad-grace.yaml:\d+:\d+\)$/);
        // The sleep action longer than the grace period is also what the API would reject.
        expect(report.reports[0].violations.map((x) => x.ruleName)).toContain('prestop-sleep-action');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

describe('an app repository using the packed package', () => {
  const work = tmp('kg-pack-');
  const app = path.join(work, 'app');

  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  test(
    'npm pack, install the tarball, subclass GracefulDeployment, cdk8s synth with the plugin from node_modules',
    () => {
      const t0 = Date.now();
      const pack = run('npm', ['pack', '--pack-destination', work, '--json', '--silent'], ROOT);
      expect(pack.status).toBe(0);
      const tarball = path.join(work, JSON.parse(pack.stdout)[0].filename as string);
      const files: string[] = JSON.parse(pack.stdout)[0].files.map((f: { path: string }) => f.path);
      expect(files).toEqual(expect.arrayContaining(['package.json', 'build/lib/index.js', 'build/lib/index.d.ts', 'build/lib/cdk8s/index.js', 'build/lib/constructs/deployment.d.ts', 'policies/strict.yaml', 'policies/policy.schema.json']));
      expect(files.some((f) => f.startsWith('test/') || f.startsWith('charts-src/'))).toBe(false);

      fs.mkdirSync(app, { recursive: true });
      fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'checkout-app', version: '1.0.0', private: true }, null, 2));
      const install = run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], app);
      expect(install.stderr).not.toMatch(/ERR!/);
      expect(install.status).toBe(0);

      // The team's own construct, in TypeScript against the package's type declarations.
      fs.writeFileSync(
        path.join(app, 'main.ts'),
        `import { App, Chart, Duration } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { GracefulDeployment, GracefulDeploymentProps, KubegraceValidation, RolloutProfile } from 'kubegrace';
import { ManifestOverlay } from 'kubegrace/constructs';

export interface CheckoutWebProps extends Omit<GracefulDeploymentProps, 'containers'> {
  readonly image: string;
}

/** The team's standard web service: kubegrace's defaults, the team label, a readiness probe. */
export class CheckoutWeb extends GracefulDeployment {
  constructor(scope: Construct, id: string, props: CheckoutWebProps) {
    super(scope, id, {
      ...props,
      containers: [{ name: 'web', image: props.image, portNumber: 8080, readiness: kplus.Probe.fromHttpGet('/readyz') }],
      service: { name: 'checkout' },
    });
    this.podMetadata.addLabel('team', 'checkout');
  }
}

declare const process: { env: Record<string, string | undefined> };
const bad = process.env.CHECKOUT_BAD === '1';
const app = new App({ outputFileExtension: '.yaml' });
const chart = new Chart(app, 'checkout', { namespace: 'checkout' });
const web = new CheckoutWeb(chart, 'web', {
  metadata: { name: 'checkout-web' },
  image: 'team/checkout:1.0.0',
  replicas: 3,
  rollout: RolloutProfile.longLived(),
  ...(bad ? { preStopSeconds: 30, terminationGracePeriod: Duration.seconds(20) } : {}),
});
ManifestOverlay.of(web).addTransform((m) => {
  (m.metadata as { annotations: Record<string, string> }).annotations['team.example.com/owner'] = 'checkout';
});
const plugin: KubegraceValidation = new KubegraceValidation({ policy: 'strict' });
void plugin;
app.synth();
`,
      );
      fs.writeFileSync(
        path.join(app, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'node16', moduleResolution: 'node16', strict: true, esModuleInterop: true, skipLibCheck: true, outDir: 'build', types: [] }, files: ['main.ts'] }),
      );
      const tsc = run(process.execPath, [TSC, '-p', 'tsconfig.json'], app);
      expect(tsc.stdout + tsc.stderr).toBe('');
      expect(tsc.status).toBe(0);

      fs.writeFileSync(
        path.join(app, 'cdk8s.yaml'),
        ['language: typescript', 'app: node build/main.js', 'output: dist', 'validations:', '  - package: ./node_modules/kubegrace', `    version: ${PKG_VERSION}`, '    class: KubegraceValidation', '    properties:', '      policy: strict', ''].join('\n'),
      );
      const r = synth(app);
      expect(r.stderr).not.toMatch(/Error/);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`Validation Report (${path.join(app, 'node_modules/kubegrace')}@${PKG_VERSION})`);
      expect(r.stdout).toMatch(/Status\s+│ success/);
      const yaml = fs.readFileSync(path.join(app, 'dist/checkout.yaml'), 'utf8');
      expect(yaml).toContain('team: checkout');
      expect(yaml).toContain('team.example.com/owner: checkout');
      expect(yaml).toMatch(/preStop:\n\s+sleep:\n\s+seconds: 10/);
      expect(yaml).toContain('kind: PodDisruptionBudget');
      // Loaded from the app's node_modules, not from this repository.
      const resolved = run(process.execPath, ['-p', "require.resolve('kubegrace') + ' ' + require.resolve('kubegrace/cdk8s')"], app);
      expect(resolved.stdout.trim()).toBe(`${path.join(app, 'node_modules/kubegrace/build/lib/index.js')} ${path.join(app, 'node_modules/kubegrace/build/lib/cdk8s/index.js')}`);
      console.log(`pack + install + compile + synth: ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    },
    300_000,
  );

  test(
    'the same app overridden into a bad state fails its synth gate',
    () => {
      expect(fs.existsSync(path.join(app, 'build/main.js'))).toBe(true);
      const r = synth(app, ['--validation-reports-output-file', 'report.json'], { CHECKOUT_BAD: '1' });
      expect(r.status).toBe(2);
      const report: Report = JSON.parse(fs.readFileSync(path.join(app, 'report.json'), 'utf8'));
      const v = report.reports[0].violations.find((x) => x.ruleName === 'grace-period-budget');
      expect(v?.violatingConstructs[0]).toMatchObject({ resourceName: 'checkout-web', constructPath: 'checkout/web/Resource', manifestPath: 'dist/checkout.yaml' });
    },
    120_000,
  );
});
