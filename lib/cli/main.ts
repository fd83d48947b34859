#!/usr/bin/env node
import { packageVersion, PolicyError } from '../engine/package-root';
import { CliIO, processIO, UsageError } from './io';

// Each command's module is loaded only when that command runs: start-up time is paid by every
// `kubegrace lint` in CI, and lint needs neither cdk8s, the chart generator nor explain.
const commands = {
  lint: () => (require('./lint') as typeof import('./lint')).runLint,
  rules: () => (require('./rules') as typeof import('./rules')).runRules,
  explain: () => (require('./explain') as typeof import('./explain')).runExplain,
  simulate: () => (require('./simulate') as typeof import('./simulate')).runSimulate,
  chart: () => (require('./chart') as typeof import('./chart')).runChart,
  policy: () => (require('./policy') as typeof import('./policy')).runPolicy,
};

const VERSION: string = packageVersion();

export const USAGE = `kubegrace ${VERSION}: Kubernetes workloads that roll out and shut down without dropping traffic

Usage:
  kubegrace lint [PATH... | -] [options]   lint manifests (kubegrace lint --help)
  kubegrace rules [--format text|json|markdown]
  kubegrace explain PATH... [--object KIND/NAME] [--format text|svg]   termination timeline and rollout (kubegrace explain --help)
  kubegrace simulate rollout --replicas N [...]   reconnect odds over a rollout (kubegrace simulate --help)
  kubegrace chart generate|package|index ...   Helm charts (kubegrace chart --help)
  kubegrace policy export [...]   admission policies for the cluster (kubegrace policy --help)
  kubegrace --version

Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage or input errors.
`;

/**
 * Runs the CLI; returns the exit code, or a promise of it for the commands that do asynchronous
 * work (`chart package|index`: tar streams). Never throws or rejects.
 */
export function main(argv: string[], io: CliIO = processIO()): number | Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    const r = dispatch(cmd, rest, io);
    return typeof r === 'number' ? r : r.catch((e: unknown) => failure(e, cmd, io));
  } catch (e) {
    return failure(e, cmd, io);
  }
}

function dispatch(cmd: string | undefined, rest: string[], io: CliIO): number | Promise<number> {
  switch (cmd) {
    case 'lint':
    case 'rules':
    case 'explain':
    case 'simulate':
    case 'chart':
    case 'policy':
      return commands[cmd]()(rest, io);
    case '--version':
    case '-v':
      io.stdout(`${VERSION}\n`);
      return 0;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.stdout(USAGE);
      return cmd === undefined ? 2 : 0;
    default:
      throw new UsageError(`unknown command "${cmd}"`);
  }
}

function failure(e: unknown, cmd: string | undefined, io: CliIO): number {
  if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    io.stderr(`kubegrace: ${(e as Error).message}\nRun 'kubegrace ${cmd && cmd !== '--help' ? `${cmd} ` : ''}--help' for usage.\n`);
    return 2;
  }
  if (e instanceof PolicyError) {
    io.stderr(`kubegrace: ${e.message}\n`);
    return 2;
  }
  io.stderr(`kubegrace: internal error: ${(e as Error).stack ?? String(e)}\nPlease report this with the input that caused it.\n`);
  return 2;
}

if (require.main === module) {
  void Promise.resolve(main(process.argv.slice(2))).then((code) => {
    process.exitCode = code;
  });
}
