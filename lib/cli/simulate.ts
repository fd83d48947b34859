import * as path from 'path';
import { parseArgs } from 'util';
import { checkSimulateInput, SimulateInput, SimulateInputError, simulateRollout, simulationText } from '../explain/simulate';
import { Backoff, DEFAULT_BACKOFF, DEFAULT_RECONNECT_PROBABILITY, formatBackoff, parseBackoff } from '../timeline/reconnect';
import { CliIO, UsageError, writeAtomic } from './io';

export const SIMULATE_USAGE = `Usage: kubegrace simulate rollout --replicas N [options]

The reconnect model of the min-ready-seconds rule (docs/rules/min-ready-seconds.md in the package)
over a whole rollout: for clients that must hold a connection to every replica (reverse tunnels,
agents), the probability that they have reconnected to each new replica before the next one is
replaced, the minReadySeconds that reaches a target probability, and how long the rollout then takes.

Options:
  --replicas N          replicas (whole number >= 1; required)
  --probability P       target probability per step, 0 < P < 1 (default ${DEFAULT_RECONNECT_PROBABILITY})
  --backoff MODEL       client retry backoff: linear:A-B (default ${formatBackoff(DEFAULT_BACKOFF)}) or
                        exponential:BASE-CAP (e.g. exponential:1-30); as kubegrace.dev/reconnect-backoff
  --min-ready S         evaluate this minReadySeconds (default: the one the target needs)
  --surge K             new replicas per step, maxSurge (default 1)
  --startup S           seconds from pod creation to Ready (default 0)
  -f, --format text|json
                        output (default text); json is stable, "version": 1
  -o, --output FILE     write to FILE instead of stdout

Exit codes: 0 done; 2 bad arguments.
`;

function number(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const t = v.trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) throw new UsageError(`--${name} "${v}" is not a number`);
  return Number(t);
}

export function runSimulate(argv: string[], io: CliIO): number {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout(SIMULATE_USAGE);
    return 0;
  }
  if (sub !== 'rollout') throw new UsageError(sub === undefined ? 'simulate needs a subcommand: kubegrace simulate rollout --replicas N' : `unknown simulation "${sub}": the only one is "rollout"`);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      replicas: { type: 'string' },
      probability: { type: 'string' },
      backoff: { type: 'string' },
      'min-ready': { type: 'string' },
      surge: { type: 'string' },
      startup: { type: 'string' },
      format: { type: 'string', short: 'f' },
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(SIMULATE_USAGE);
    return 0;
  }
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`unknown format "${format}": use text or json`);
  const replicas = number('replicas', values.replicas);
  if (replicas === undefined) throw new UsageError('--replicas N is required');
  let backoff: Backoff = DEFAULT_BACKOFF;
  if (values.backoff !== undefined) {
    try {
      backoff = parseBackoff(values.backoff);
    } catch (e) {
      throw new UsageError(`--backoff: ${(e as Error).message}`);
    }
  }
  const input: SimulateInput = {
    replicas,
    probability: number('probability', values.probability) ?? DEFAULT_RECONNECT_PROBABILITY,
    backoff,
    surge: number('surge', values.surge) ?? 1,
    minReadySeconds: number('min-ready', values['min-ready']),
    startupSeconds: number('startup', values.startup) ?? 0,
  };
  try {
    checkSimulateInput(input);
  } catch (e) {
    if (e instanceof SimulateInputError) throw new UsageError(e.message);
    throw e;
  }
  const sim = simulateRollout(input);
  const text = format === 'json' ? JSON.stringify(sim, null, 2) + '\n' : simulationText(sim);
  if (values.output !== undefined) writeAtomic(path.resolve(io.cwd, values.output), text);
  else io.stdout(text);
  return 0;
}
