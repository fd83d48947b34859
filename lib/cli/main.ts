#!/usr/bin/env node
import * as fs from 'fs';
import * as path from 'path';
import { packageRoot, PolicyError } from '../engine/policy';
import { CliIO, processIO, UsageError } from './io';
import { runChart } from './chart';
import { runExplain } from './explain';
import { runLint } from './lint';
import { runRules } from './rules';
import { runSimulate } from './simulate';

const VERSION: string = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')).version;

export const USAGE = `kubegrace ${VERSION}: Kubernetes workloads that roll out and shut down without dropping traffic

Usage:
  kubegrace lint [PATH... | -] [options]   lint manifests (kubegrace lint --help)
  kubegrace rules [--format text|json|markdown]
  kubegrace explain PATH... [--object KIND/NAME] [--format text|svg]   termination timeline and rollout (kubegrace explain --help)
  kubegrace simulate rollout --replicas N [...]   reconnect odds over a rollout (kubegrace simulate --help)
  kubegrace chart generate|package|index ...   Helm charts (kubegrace chart --help)
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
      return runLint(rest, io);
    case 'rules':
      return runRules(rest, io);
    case 'explain':
      return runExplain(rest, io);
    case 'simulate':
      return runSimulate(rest, io);
    case 'chart':
      return runChart(rest, io);
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
