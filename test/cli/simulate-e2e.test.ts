/**
 * `kubegrace simulate rollout` through the built bin: the section 11 numbers, JSON output and exit codes.
 */
import { runCli } from '../helpers/cli';
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');

beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npx tsc -p tsconfig.json\` (npm test builds it)`);
});

function kg(args: string[]) {
  const r = runCli(args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('kubegrace simulate rollout', () => {
  test('--replicas 3 --probability 0.7 reports about 19.5 s for the per-step wait', () => {
    const r = kg(['simulate', 'rollout', '--replicas', '3', '--probability', '0.7']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('to 19.5s (T_max)');
    expect(r.stdout).toContain('minReadySeconds needed:  20');
    expect(r.stdout).toContain('rollout takes about 60s (3 x (startup 0s + minReadySeconds 20s))');
  });

  test('--format json: version 1 with the table numbers', () => {
    const r = kg(['simulate', 'rollout', '--replicas', '5', '--probability', '0.9', '--format', 'json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.version).toBe(1);
    expect(j.input).toEqual({ replicas: 5, probability: 0.9, backoff: 'linear:2-4', surge: 1, minReadySeconds: null, startupSeconds: 0 });
    expect(j.perStep).toMatchObject({ retries: 9.32, waitSecondsMax: 366, requiredMinReadySeconds: 367, method: 'closed-form' });
    expect(j.rollout.steps).toBe(5);
    const z = JSON.parse(kg(['simulate', 'rollout', '--replicas', '2', '--probability', '0.5', '--format', 'json']).stdout);
    expect(z.perStep).toMatchObject({ waitSecondsMax: 0, requiredMinReadySeconds: 0 });
  });

  test('all options; deterministic output', () => {
    const args = ['simulate', 'rollout', '--replicas', '7', '--surge', '2', '--min-ready', '15', '--startup', '10', '--backoff', 'exponential:1-30', '--format', 'json'];
    const a = kg(args);
    expect(a.code).toBe(0);
    const j = JSON.parse(a.stdout);
    expect(j.rollout).toMatchObject({ steps: 4, minReadySeconds: 15, minReadySource: 'given', stepSeconds: 25, durationSeconds: 100 });
    expect(j.perStep.method).toBe('sum-of-delays');
    expect(kg(args).stdout).toBe(a.stdout);
  });

  test.each([
    [['--replicas', '0'], /--replicas must be a whole number from 1 to 10000/],
    [['--replicas', 'three'], /--replicas "three" is not a number/],
    [[], /--replicas N is required/],
    [['--replicas', '3', '--probability', '1'], /--probability must be above 0 and at most 0.999/],
    [['--replicas', '3', '--probability', '1.5'], /--probability must be above 0 and at most 0.999/],
    [['--replicas', '3', '--backoff', 'fibonacci:1-2'], /--backoff: invalid backoff "fibonacci:1-2"/],
    [['--replicas', '3', '--backoff', 'linear:4-2'], /--backoff: invalid backoff/],
    [['--replicas', '3', '--surge', '0'], /--surge/],
    [['--replicas', '3', '--min-ready', '-5'], /--min-ready/],
    [['--replicas', '3', '--format', 'yaml'], /unknown format "yaml"/],
  ])('bad arguments %j: exit 2 with a clear message', (args, re) => {
    const r = kg(['simulate', 'rollout', ...(args as string[])]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^kubegrace: /);
    expect(r.stderr).toMatch(re as RegExp);
  });

  test('unknown or missing simulation: exit 2; --help: 0', () => {
    expect(kg(['simulate']).code).toBe(2);
    expect(kg(['simulate', 'upgrade']).stderr).toMatch(/unknown simulation "upgrade"/);
    const h = kg(['simulate', 'rollout', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/^Usage: kubegrace simulate rollout --replicas N/);
  });
});
