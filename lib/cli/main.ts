#!/usr/bin/env node
import * as fs from 'fs';
import * as path from 'path';
import { packageRoot, PolicyError } from '../engine/policy';
import { CliIO, processIO, UsageError } from './io';
import { runLint } from './lint';
import { runRules } from './rules';

const VERSION: string = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')).version;

export const USAGE = `kubegrace ${VERSION}: Kubernetes workloads that roll out and shut down without dropping traffic

Usage:
  kubegrace lint [PATH... | -] [options]   lint manifests (kubegrace lint --help)
  kubegrace rules [--format text|json|markdown]
  kubegrace --version

Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage or input errors.
`;

/** Runs the CLI; returns the exit code. Never throws. */
export function main(argv: string[], io: CliIO = processIO()): number {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'lint':
        return runLint(rest, io);
      case 'rules':
        return runRules(rest, io);
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
  } catch (e) {
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
}

if (require.main === module) {
  const code = main(process.argv.slice(2));
  process.exitCode = code;
}
