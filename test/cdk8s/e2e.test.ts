/**
 * End to end through the real `cdk8s synth` and the built package: the synth gate of this
 * repository (cdk8s.yaml) and a bad app that the gate refuses.
 *
 * These tests use build/ (the compiled package). When the sources of the constructs, the plugin or
 * the example apps are newer than the build, they rebuild it first (`tsc -p tsconfig.json`, what
 * `npm run build` runs).
 */
import { spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureBuilt } from '../helpers/build';
import { APPS } from '../../charts-src/apps';
import { CliIO } from '../../lib/cli/io';
import { main } from '../../lib/cli/main';

const ROOT = path.resolve(__dirname, '../..');
const CDK8S = path.join(ROOT, 'node_modules/cdk8s-cli/bin/cdk8s');
const PKG_VERSION: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

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

beforeAll(() => ensureBuilt(['lib/constructs', 'lib/cdk8s', 'lib/index.ts', 'charts-src'], ['build/lib/index.js', 'build/lib/cdk8s/index.js', 'build/charts-src/main.js']), 300_000);

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

// The app-repository side (npm pack, install at both ends of the peer ranges, tsc, synth with the
// plugin from node_modules) is test/examples/app-repo.test.ts.
