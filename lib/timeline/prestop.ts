import { isObject, Json } from '../model/types';
import { get } from '../model/workload';
import { parseGoDuration, parseSleepArg } from './duration';

/**
 * What a container's preStop hook does to the termination timeline.
 * - `sleep`: the sleep action; `exec-sleep`: an exec that runs only a sleep;
 * - `exec-sleep-then`: a shell that sleeps and then does more (seconds is a lower bound);
 * - `exec-wait`: a known wait command (e.g. `teleport wait duration 30s`) matched by a pattern;
 * - `exec-other`, `httpGet`, `tcpSocket`: delay unknown; `none`: no preStop hook.
 */
export type PreStopKind = 'none' | 'sleep' | 'exec-sleep' | 'exec-sleep-then' | 'exec-wait' | 'exec-other' | 'httpGet' | 'tcpSocket' | 'invalid';

export interface PreStopDelay {
  kind: PreStopKind;
  /** Seconds the hook delays SIGTERM, when known. */
  seconds?: number;
  /** The exec command as written, for messages. */
  command?: string[];
}

/**
 * The preStop delay added for in-cluster clients when none is set (graceful-termination.md
 * TERM-002: 5-15 s): what `--fix` writes and what the constructs default to.
 */
export const DEFAULT_PRESTOP_SECONDS = 10;

/** Default wait-command patterns; each must capture the duration in group `d` (Go duration or seconds). */
export const DEFAULT_WAIT_PATTERNS = ['^(?:\\S*/)?teleport wait duration (?<d>\\S+)$'];

const SLEEP_BIN = /^(?:\/usr)?(?:\/bin\/)?sleep$/;
const SHELL = /^(?:\/usr)?(?:\/bin\/)?(?:ba|da|a)?sh$/;

function durationOf(s: string): number | undefined {
  return parseSleepArg(s) ?? parseGoDuration(s);
}

/** Classifies a preStop handler (the value of `lifecycle.preStop`). */
export function classifyPreStop(handler: Json | undefined, waitPatterns: string[] = DEFAULT_WAIT_PATTERNS): PreStopDelay {
  if (handler === undefined || handler === null) return { kind: 'none' };
  if (!isObject(handler)) return { kind: 'invalid' };
  if (handler.sleep !== undefined) {
    const s = get(handler, 'sleep', 'seconds');
    return typeof s === 'number' ? { kind: 'sleep', seconds: s } : { kind: 'invalid' };
  }
  if (handler.httpGet !== undefined) return { kind: 'httpGet' };
  if (handler.tcpSocket !== undefined) return { kind: 'tcpSocket' };
  const cmd = get(handler, 'exec', 'command');
  if (!Array.isArray(cmd) || !cmd.every((x) => typeof x === 'string' || typeof x === 'number')) return { kind: 'invalid' };
  const command = cmd.map(String);
  // ["sleep", "N"], ["/bin/sleep", "N"]
  if (command.length === 2 && SLEEP_BIN.test(command[0])) {
    const s = durationOf(command[1]);
    return s === undefined ? { kind: 'exec-other', command } : { kind: 'exec-sleep', seconds: s, command };
  }
  // ["sh", "-c", "sleep N"], also "exec sleep N" and a trailing ";"
  if (command.length === 3 && SHELL.test(command[0]) && command[1] === '-c') {
    const script = command[2].trim();
    const only = /^(?:exec\s+)?(?:\/usr)?(?:\/bin\/)?sleep\s+(\S+?)\s*;?$/.exec(script);
    if (only) {
      const s = durationOf(only[1]);
      if (s !== undefined) return { kind: 'exec-sleep', seconds: s, command };
    }
    const first = /^(?:\/usr)?(?:\/bin\/)?sleep\s+(\S+?)\s*(?:;|&&)/.exec(script);
    if (first) {
      const s = durationOf(first[1]);
      if (s !== undefined) return { kind: 'exec-sleep-then', seconds: s, command };
    }
  }
  const joined = command.join(' ').trim();
  for (const p of waitPatterns) {
    const m = new RegExp(p).exec(joined);
    if (m?.groups?.d !== undefined) {
      const s = durationOf(m.groups.d);
      if (s !== undefined) return { kind: 'exec-wait', seconds: s, command };
    }
  }
  return { kind: 'exec-other', command };
}

/** The preStop delay of a container object (its `lifecycle.preStop`). */
export function preStopDelay(container: Json, waitPatterns?: string[]): PreStopDelay {
  return classifyPreStop(get(container, 'lifecycle', 'preStop'), waitPatterns);
}
