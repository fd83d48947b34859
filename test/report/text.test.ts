/**
 * The stylish text report: the file once, then `line:col  severity  message  rule-id` under each
 * object, the first sentence of the message (all of it with --verbose; an input error always all
 * of it: what to do follows its first sentence), wrapped on a terminal and
 * one line per finding in a pipe; colour only on a terminal, never with NO_COLOR, and --color wins.
 */
import * as path from 'path';
import { main } from '../../lib/cli/main';
import { CliIO } from '../../lib/cli/io';
import { LintResult } from '../../lib/engine/run';
import { Finding } from '../../lib/engine/types';
import { splitMessage, toText } from '../../lib/report/text';

const FIX = path.resolve(__dirname, '../fixtures');

function finding(p: Partial<Finding> & Pick<Finding, 'ruleId' | 'message' | 'line' | 'column'>): Finding {
  return {
    severity: 'error',
    file: 'deploy/web.yaml',
    object: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
    pointer: '/spec',
    suppressed: false,
    fixable: false,
    ...p,
  };
}

const RESULT: LintResult = {
  kubernetesVersion: '1.33',
  files: 2,
  objects: 3,
  parsed: [],
  errors: [{ file: 'broken.yaml', line: 3, column: 1, message: 'YAML syntax error: Implicit keys need to be on a single line; fix the syntax at this position (the other documents are still linted)' }],
  findings: [
    finding({
      ruleId: 'grace-period-budget',
      line: 20,
      column: 11,
      pointer: '/spec/template/spec/containers/0/lifecycle/preStop',
      message: 'container "app": preStop delay 25s >= terminationGracePeriodSeconds (20s): the app gets only 2s after SIGTERM before SIGKILL; raise the grace period to at least 40s or shorten the delay',
    }),
    finding({
      ruleId: 'pdb-missing',
      severity: 'warning',
      line: 6,
      column: 3,
      pointer: '/spec/replicas',
      message: 'replicas 3 but no PodDisruptionBudget in its namespace selects its pods: a node drain may evict every replica at once; add a PodDisruptionBudget with maxUnavailable: 1 and selector.matchLabels {app: web}',
    }),
    finding({
      ruleId: 'headless-publish-not-ready',
      severity: 'info',
      line: 40,
      column: 3,
      object: { apiVersion: 'v1', kind: 'Service', name: 'web\u001b[2J', namespace: 'shop' },
      message: 'Service/web: no publishNotReadyAddresses. Set it on the peer Service',
    }),
    finding({ ruleId: 'prestop-missing', severity: 'warning', line: 9, column: 1, suppressed: true, message: 'suppressed; never shown' }),
  ],
};

describe('splitMessage', () => {
  test.each([
    ['a: b; c', 'a: b', 'c'],
    ['a (x; y) b; c', 'a (x; y) b', 'c'],
    ['say "a; b" then; c', 'say "a; b" then', 'c'],
    ['a {k: v; w} b. Then c', 'a {k: v; w} b', 'Then c'],
    ['version 1.30 is old', 'version 1.30 is old', ''],
    ['ends with a period.', 'ends with a period', ''],
  ])('%s', (m, summary, rest) => {
    expect(splitMessage(m)).toEqual({ summary, rest });
  });
});

describe('toText', () => {
  test('a pipe: one line per finding, first sentence, aligned columns, control characters shown escaped', () => {
    expect(toText(RESULT, { color: false, docsPath: (id) => `docs/rules/${id}.md` })).toBe(
      [
        'broken.yaml',
        '    3:1    error    YAML syntax error: Implicit keys need to be on a single line; fix the syntax at this position (the other documents are still linted)',
        '',
        'deploy/web.yaml',
        '  Deployment/web (shop)',
        '    20:11  error    container "app": preStop delay 25s >= terminationGracePeriodSeconds (20s): the app gets only 2s after SIGTERM before SIGKILL  grace-period-budget',
        '    6:3    warning  replicas 3 but no PodDisruptionBudget in its namespace selects its pods: a node drain may evict every replica at once  pdb-missing',
        '  Service/web\\u001b[2J (shop)',
        '    40:3   info     Service/web: no publishNotReadyAddresses  headless-publish-not-ready',
        '',
        '4 problems (1 error, 1 warning, 1 info, 1 suppressed, 1 input error) in 2 files, 3 objects',
        'Run with --verbose for the advice on each finding.',
        'Rule docs: docs/rules/grace-period-budget.md, docs/rules/pdb-missing.md, docs/rules/headless-publish-not-ready.md',
        '',
      ].join('\n'),
    );
  });

  test('a terminal 80 columns wide: messages wrapped under themselves, the rule ID ending the last line or on its own', () => {
    const out = toText(RESULT, { color: false, width: 80 });
    expect(out).toBe(
      [
        'broken.yaml',
        '    3:1    error    YAML syntax error: Implicit keys need to be on a single',
        '                    line; fix the syntax at this position (the other documents',
        '                    are still linted)',
        '',
        'deploy/web.yaml',
        '  Deployment/web (shop)',
        '    20:11  error    container "app": preStop delay 25s >=',
        '                    terminationGracePeriodSeconds (20s): the app gets only 2s',
        '                    after SIGTERM before SIGKILL  grace-period-budget',
        '    6:3    warning  replicas 3 but no PodDisruptionBudget in its namespace',
        '                    selects its pods: a node drain may evict every replica at',
        '                    once  pdb-missing',
        '  Service/web\\u001b[2J (shop)',
        '    40:3   info     Service/web: no publishNotReadyAddresses',
        '                    headless-publish-not-ready',
        '',
        '4 problems (1 error, 1 warning, 1 info, 1 suppressed, 1 input error) in 2 files, 3 objects',
        'Run with --verbose for the advice on each finding.',
        '',
      ].join('\n'),
    );
    for (const line of out.split('\n').slice(0, -4)) expect(line.length).toBeLessThanOrEqual(80);
  });

  test('--verbose: the whole message and the pointer', () => {
    const out = toText(RESULT, { color: false, verbose: true });
    expect(out).toContain(
      '    20:11  error    container "app": preStop delay 25s >= terminationGracePeriodSeconds (20s): the app gets only 2s after SIGTERM before SIGKILL; raise the grace period to at least 40s or shorten the delay  grace-period-budget\n' +
        '                    at /spec/template/spec/containers/0/lifecycle/preStop\n',
    );
    expect(out).not.toContain('--verbose');
    // The message as written: a first sentence that ends with a period is not joined with a semicolon.
    expect(out).toContain('    40:3   info     Service/web: no publishNotReadyAddresses. Set it on the peer Service  headless-publish-not-ready\n');
  });

  test('input errors alone: shown whole (what to do follows the first sentence), with or without --verbose', () => {
    const errors = [
      { file: 'big.json', line: 1, column: 1, message: 'file is 94.4 MB, over the size limit of 64 MB; split it, or if it is genuine, raise the limit: --max-file-size 128MB' },
      { file: 'bad.yaml', line: 6, column: 3, message: 'Deployment/a: spec.replicas is the string "3", but Kubernetes expects an integer (int32); the API server refuses the object (and kubegrace cannot judge this field), so write it without quotes: 3' },
    ];
    const only: LintResult = { ...RESULT, findings: [], errors };
    for (const verbose of [false, true]) {
      const out = toText(only, { color: false, verbose });
      expect(out).toContain('    1:1  error  file is 94.4 MB, over the size limit of 64 MB; split it, or if it is genuine, raise the limit: --max-file-size 128MB\n');
      expect(out).toContain('so write it without quotes: 3\n');
      expect(out).not.toContain('--verbose for');
      expect(out).toContain('\n2 problems (0 errors, 0 warnings, 0 info, 0 suppressed, 2 input errors) in 2 files, 3 objects\n');
    }
  });

  test('colour: severity coloured, rule ID bold and never dimmed', () => {
    const out = toText(RESULT, { color: true });
    expect(out).toContain('\u001b[1mgrace-period-budget\u001b[22m');
    expect(out).toContain('\u001b[31merror\u001b[39m');
    expect(out).not.toMatch(/\u001b\[2m[a-z-]+-[a-z-]+\u001b\[22m/);
  });
});

describe('colour and width through the CLI', () => {
  function run(args: string[], io: Partial<CliIO>, env: Record<string, string | undefined> = {}): string {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
    let out = '';
    try {
      main(['lint', 'bad-grace.yaml', ...args], { cwd: FIX, stdout: (s) => (out += s), stderr: () => undefined, readStdin: () => '', stdoutIsTTY: false, ...io });
    } finally {
      process.env = saved;
    }
    return out;
  }
  test('a terminal gets colour and wrapping; NO_COLOR keeps the wrapping and drops the colour; --color wins over NO_COLOR', () => {
    const tty = run([], { stdoutIsTTY: true, columns: 60 }, { NO_COLOR: undefined });
    expect(tty).toContain('\u001b[');
    expect(Math.max(...tty.replace(/\u001b\[\d+m/g, '').split('\n').filter((l) => l.startsWith('    ')).map((l) => l.length))).toBeLessThanOrEqual(60);
    const noColor = run([], { stdoutIsTTY: true, columns: 60 }, { NO_COLOR: '1' });
    expect(noColor).not.toContain('\u001b[');
    expect(noColor).toBe(tty.replace(/\u001b\[\d+m/g, ''));
    expect(run(['--color'], { stdoutIsTTY: true, columns: 60 }, { NO_COLOR: '1' })).toContain('\u001b[');
  });
  test('a pipe: no colour, no wrapping', () => {
    const out = run([], { stdoutIsTTY: false, columns: 60 }, { NO_COLOR: undefined });
    expect(out).not.toContain('\u001b[');
    expect(out).toMatch(/^ {4}20:11 {2}error {2}container "app": preStop delay 25s >= terminationGracePeriodSeconds \(20s\)[^\n]* {2}grace-period-budget$/m);
  });
});
