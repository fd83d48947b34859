import { activeCatalog, Catalog } from '../catalog';
import { isObject, Json, JsonObject } from '../model/types';
import { get } from '../model/workload';
import { parseGoDuration, parsePerContainerSeconds, parseSleepArg } from './duration';
import { shellLessImage } from './shell-less';

/**
 * What a container's preStop hook does to the termination timeline.
 * - `sleep`: the sleep action; `exec-sleep`: an exec that runs only a sleep;
 * - `exec-sleep-then`: a shell that sleeps and then does more (seconds is a lower bound);
 * - `exec-then-sleep`: a shell that does something and then sleeps (`wget .../healthcheck/fail; sleep 25`,
 *   Gloo's gateway-proxy): the hook lasts at least the sleep (seconds is a lower bound of its length;
 *   whether the app serves meanwhile depends on what ran first);
 * - `exec-stop-then-sleep`: a shell that first signals the app to stop (STOP_FIRST: `killall -INT
 *   pgbouncer && sleep 120`, `kill -SIGTERM 1; sleep 30`) and then sleeps: the app's shutdown starts
 *   at the signal, so `seconds` (how long it keeps accepting) is 0, and the sleep (`waitSeconds`)
 *   only keeps the container alive while the app drains (review round 33, report p39: the Airflow
 *   chart's pgbouncer hook);
 * - `exec-wait`: a known wait command (e.g. `teleport wait duration 30s`) matched by a pattern;
 * - `exec-known`: a program of the catalog of well-known programs (lib/catalog/catalog.yaml, e.g.
 *   ingress-nginx `/wait-shutdown`): `seconds` is how long the container keeps accepting once the
 *   hook starts, derived as the catalog says (fixed, or from the program's flags and their
 *   defaults; undefined when a flag cannot be read); `program` is the entry ID;
 * - `exec-other`, `httpGet`, `tcpSocket`: delay unknown (an `httpGet` that waits for another
 *   container's known hook takes that hook's: see podPreStopDelay); `none`: no preStop hook.
 */
export type PreStopKind = 'none' | 'sleep' | 'exec-sleep' | 'exec-sleep-then' | 'exec-then-sleep' | 'exec-stop-then-sleep' | 'exec-wait' | 'exec-known' | 'exec-other' | 'httpGet' | 'tcpSocket' | 'invalid';

export interface PreStopDelay {
  kind: PreStopKind;
  /** Seconds the hook delays SIGTERM, when known. */
  seconds?: number;
  /** The exec command as written, for messages. */
  command?: string[];
  /** Set when `seconds` comes from the `kubegrace.dev/prestop-seconds` hint, not from the handler. */
  hinted?: boolean;
  /** `exec-known`: the catalog entry ID of the program. */
  program?: string;
  /** `exec-known`: `at-least` when `seconds` is a lower bound (the program waits for a drain). */
  bound?: 'exact' | 'at-least';
  /**
   * `httpGet`: the container of the same pod whose own hook this one waits for (its program's
   * catalog entry says `awaitedBy` this path and port); `seconds`, `bound` and `program` are then
   * that hook's.
   */
  awaits?: string;
  /**
   * An exec that only sleeps, in an image without a shell or sleep binary (runningPreStopDelay):
   * the hook fails at once, so `seconds` is 0; this is the image and the delay it was meant to give.
   */
  cannotRun?: { image: string; seconds: number };
  /** `exec-stop-then-sleep`: the command that signals the app (`killall -INT pgbouncer`), as written. */
  stop?: string;
  /** `exec-stop-then-sleep`: the sleep after the signal, the window the hook gives the app's drain. */
  waitSeconds?: number;
}

/**
 * The preStop delay added for in-cluster clients when none is set (graceful-termination.md
 * TERM-002: 5-15 s): what `--fix` writes and what the constructs default to.
 */
export const DEFAULT_PRESTOP_SECONDS = 10;

/** Default wait-command patterns; each must capture the duration in group `d` (Go duration or seconds). */
export const DEFAULT_WAIT_PATTERNS = ['^(?:\\S*/)?teleport wait duration (?<d>\\S+)$'];

const SLEEP_BIN = /^(?:\/usr)?(?:\/bin\/)?sleep$/;
/** A shell script that ends with a sleep after other commands (`...; sleep 25`, `... && sleep 25`); the admission policies use the same pattern. */
export const LAST_SLEEP = /(?:;|&&)\s*(?:exec\s+)?(?:\/usr)?(?:\/bin\/)?sleep\s+(\S+?)\s*;?$/;
const SHELL = /^(?:\/usr)?(?:\/bin\/)?(?:ba|da|a)?sh$/;

/**
 * A kill, pkill or killall with a signal that makes a process shut down: none (SIGTERM, the default
 * of all three: kill(1) of util-linux and procps, bash's kill builtin, pkill(1), killall(1)), TERM,
 * INT or KILL (by name, with or without SIG, or number 15, 2 or 9; `-s SIG`, `--signal SIG`). Not
 * HUP, USR1, USR2, which reload for most servers (nginx, https://nginx.org/en/docs/control.html: HUP
 * "changing configuration", USR1 "re-opening log files", USR2 "upgrading an executable file";
 * HAProxy's USR1 is its soft-stop, a catalog entry), nor QUIT, a graceful stop for nginx and php-fpm but a thread dump for a JVM, which
 * keeps running (Java SE 8 Troubleshooting Guide, Signals Used in Oracle Solaris and Linux,
 * https://docs.oracle.com/javase/8/docs/technotes/guides/troubleshoot/signals006.html: SIGQUIT "is
 * used to dump Java stack traces to the standard error stream"). Without a
 * signal, only single-letter lowercase options may come before the targets (not -s, -n, -l), so a
 * signal the pattern does not know is never read as the default. Regular expressions of one command
 * of a script (between separators); RE2-compatible, the admission policy uses them too.
 */
const KILL_CMD = '(?:exec\\s+)?(?:\\S*/)?(?:kill|pkill|killall)';
const STOP_SIG = '(?:SIG)?(?:TERM|INT|KILL)|15|2|9';
const KILL_STOP = `${KILL_CMD}(?:\\s+[^;&|\\s]+)*?\\s+(?:-(?:${STOP_SIG})|-s\\s*(?:${STOP_SIG})|--signal[=\\s]\\s*(?:${STOP_SIG}))(?:\\s+[^;&|\\s]+)+`;
const KILL_DEFAULT = `${KILL_CMD}(?:\\s+-[a-km-mo-rt-z])*(?:\\s+[^-;&|\\s][^;&|\\s]*)+`;
const SEP = '(?:;|&&|\\|\\|?|&)';
const PART = `[^;&|]*${SEP}\\s*`;
/** A script in which a command that stops the app (KILL_STOP, KILL_DEFAULT) is followed by more. */
export const STOP_FIRST_SOURCE = `^\\s*(?:${PART})*?(?:${KILL_STOP}|${KILL_DEFAULT})\\s*${SEP}`;
/** A script in which a sleep comes before such a command: the app served during that sleep. */
export const SLEEP_BEFORE_STOP_SOURCE = `^\\s*(?:${PART})*?(?:exec\\s+)?(?:/usr)?(?:/bin/)?sleep\\s[^;&|]*${SEP}\\s*(?:${PART})*?(?:${KILL_STOP}|${KILL_DEFAULT})\\s*${SEP}`;
const STOP_FIRST = new RegExp(STOP_FIRST_SOURCE);
const SLEEP_BEFORE_STOP = new RegExp(SLEEP_BEFORE_STOP_SOURCE);
const STOP_COMMAND = new RegExp(`^(?:${KILL_STOP}|${KILL_DEFAULT})$`);

/**
 * The command that stops the app in a script (newlines read as separators, shellNewlines) that
 * signals it before any sleep; undefined when none does, or a sleep comes first.
 */
export function stopBeforeSleep(script: string): string | undefined {
  if (!STOP_FIRST.test(script) || SLEEP_BEFORE_STOP.test(script)) return undefined;
  return script
    .split(/\s*(?:;|&&|\|\|?|&)\s*/)
    .map((p) => p.trim())
    .find((p) => STOP_COMMAND.test(p));
}

function durationOf(s: string): number | undefined {
  return parseSleepArg(s) ?? parseGoDuration(s);
}

/** A script line after which the command goes on: it ends with `&&`, `||`, `|`, `|&` or a backslash (lib/admission/cel.ts uses the same pattern). */
export const CONTINUED_LINE = /(?:&&|\|[|&]?|\\)[ \t\r]*$/;

/**
 * A `sh -c` script with its newlines read as the shell reads them (review round 30: Seldon Core v2's
 * Envoy hook, `echo ... > /dev/tcp/localhost/9901` newline `sleep '30'`). A newline ends a command
 * like `;` (GNU bash manual, Lists of Commands,
 * https://www.gnu.org/software/bash/manual/html_node/Lists.html: "A sequence of one or more newlines
 * may appear in a list to delimit commands, equivalent to a semicolon"; POSIX's grammar reads a
 * `newline_list` as a `separator`), so it becomes `;`; after `&&`, `||`, `|` or a backslash
 * (CONTINUED_LINE) the command goes on, and it becomes a space. A lone `&` runs the command in the
 * background and the next one starts: `;` too. Then the script's patterns (LAST_SLEEP etc.) read
 * `a` newline `sleep 30` as `a;sleep 30`. Quotes are not tracked: a newline inside a quoted argument
 * becomes `;` too, which leaves a quote in what follows and so reads no sleep there (the admission policy,
 * lib/admission/cel.ts, reads the script the same way, line by line).
 */
export function shellNewlines(script: string): string {
  const lines = script.split('\n');
  return lines.map((l, i) => (i === lines.length - 1 ? l : l + (CONTINUED_LINE.test(l) ? ' ' : ';'))).join('');
}

/**
 * A sleep argument of a shell script with one pair of matching quotes removed (`sleep '30'`,
 * `sleep "30"`: quote removal, POSIX 2.6.7, hands sleep the bare word). Only for scripts: an exec
 * argument `'30'` reaches sleep with its quotes and fails.
 */
function unquote(s: string): string {
  return s.length >= 2 && (s[0] === "'" || s[0] === '"') && s[s.length - 1] === s[0] ? s.slice(1, -1) : s;
}

function scriptDurationOf(s: string): number | undefined {
  return durationOf(unquote(s));
}

/**
 * Classifies a preStop handler (the value of `lifecycle.preStop`). `container`, when given, lets
 * catalog programs match on the image and read their delay from the container's flags.
 */
export function classifyPreStop(handler: Json | undefined, waitPatterns: string[] = DEFAULT_WAIT_PATTERNS, container?: Json): PreStopDelay {
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
    // (Newlines as the shell reads them, and a quoted sleep argument: review round 30.)
    const script = shellNewlines(command[2].trim());
    const only = /^(?:exec\s+)?(?:\/usr)?(?:\/bin\/)?sleep\s+(\S+?)\s*;?$/.exec(script);
    if (only) {
      const s = scriptDurationOf(only[1]);
      if (s !== undefined) return { kind: 'exec-sleep', seconds: s, command };
    }
    const first = /^(?:\/usr)?(?:\/bin\/)?sleep\s+(\S+?)\s*(?:;|&&)/.exec(script);
    if (first) {
      const s = scriptDurationOf(first[1]);
      if (s !== undefined) return { kind: 'exec-sleep-then', seconds: s, command };
    }
    // (Review round 12: Gloo's gracefulShutdown hook, `wget --post-data "" .../healthcheck/fail; sleep 25`.)
    // A program of the catalog with a known delay before the sleep says what the container does
    // meanwhile: `nginx -s quit; sleep 10` closes the listeners at once (review round 13), and the
    // sleep only delays SIGTERM to a server that has stopped accepting.
    const last = LAST_SLEEP.exec(script);
    if (last) {
      const s = scriptDurationOf(last[1]);
      if (s !== undefined) {
        const known = knownProgram(handler, command, container, true);
        if (known) return known;
        // (A script that signals the app before it sleeps, `killall -INT pgbouncer && sleep 120`: the
        // app stops accepting at once, and the sleep only keeps the container up while it drains.)
        const stop = stopBeforeSleep(script);
        return stop ? { kind: 'exec-stop-then-sleep', seconds: 0, waitSeconds: s, stop, command } : { kind: 'exec-then-sleep', seconds: s, command };
      }
    }
  }
  const joined = command.join(' ').trim();
  for (const p of waitPatterns) {
    const m = waitPattern(p).exec(joined);
    if (m?.groups?.d !== undefined) {
      const s = durationOf(m.groups.d);
      if (s !== undefined) return { kind: 'exec-wait', seconds: s, command };
    }
  }
  return knownProgram(handler, command, container, false) ?? { kind: 'exec-other', command };
}

/** The catalog's preStop program the hook runs (with a known delay only, when `knownDelay`). */
function knownProgram(handler: JsonObject, command: string[], container: Json | undefined, knownDelay: boolean): PreStopDelay | undefined {
  const self: JsonObject = isObject(container) ? container : { lifecycle: { preStop: handler } };
  const known = activeCatalog().knownPreStopProgram(self, command);
  if (!known || (knownDelay && known.seconds === undefined)) return undefined;
  const d: PreStopDelay = { kind: 'exec-known', command, program: known.entry.id, bound: known.bound };
  if (known.seconds !== undefined) d.seconds = known.seconds;
  return d;
}

/** Compiled wait patterns (a few per policy; emptied when it grows past a bound). */
const waitPatternCache = new Map<string, RegExp>();
function waitPattern(p: string): RegExp {
  let re = waitPatternCache.get(p);
  if (!re) {
    if (waitPatternCache.size >= 64) waitPatternCache.clear();
    // Without the g or y flag exec keeps no state, so one RegExp serves every call.
    waitPatternCache.set(p, (re = new RegExp(p)));
  }
  return re;
}

interface DelayMemo {
  catalog: Catalog;
  waitPatterns: string[];
  delay: PreStopDelay;
}
/**
 * preStopDelay per container object during one lint run (see withPreStopMemo), for the catalog and
 * wait patterns it was computed with: the rules ask for the same container many times. Only inside
 * a run: outside one (constructs, tools) container objects may change between calls.
 */
let delayMemo: WeakMap<JsonObject, DelayMemo[]> | undefined;

/** Runs `fn` (a lint run, which never changes the objects it reads) with preStopDelay memoized per container object. */
export function withPreStopMemo<T>(fn: () => T): T {
  const prev = delayMemo;
  delayMemo = new WeakMap();
  try {
    return fn();
  } finally {
    delayMemo = prev;
  }
}

/** The preStop delay of a container object (its `lifecycle.preStop`). Callers must not mutate the result. */
export function preStopDelay(container: Json, waitPatterns: string[] = DEFAULT_WAIT_PATTERNS): PreStopDelay {
  if (!delayMemo || !isObject(container)) return classifyPreStop(get(container, 'lifecycle', 'preStop'), waitPatterns, container);
  const catalog = activeCatalog();
  let memos = delayMemo.get(container);
  if (memos) {
    for (const m of memos) if (m.catalog === catalog && m.waitPatterns === waitPatterns) return m.delay;
  } else delayMemo.set(container, (memos = []));
  const delay = classifyPreStop(get(container, 'lifecycle', 'preStop'), waitPatterns, container);
  if (memos.length >= 4) memos.shift();
  memos.push({ catalog, waitPatterns, delay });
  return delay;
}

/**
 * Hint (RULES.md "Hint annotations"): how long a preStop hook of unknown duration (a custom
 * program) runs. A value (seconds or a Go duration: `"25"`, `"25s"`) applies to every container
 * whose hook is a program; `name=value` entries (`"app=25,worker=40"`) to one container each.
 */
export const PRESTOP_SECONDS_HINT = 'kubegrace.dev/prestop-seconds';

export interface PreStopHint {
  /** A bare value: applies to every container without its own entry. */
  all?: number;
  byName: Record<string, number>;
  /** Set when (part of) the hint is malformed; what could not be read is ignored. */
  problem?: string;
}

/** Parses `kubegrace.dev/prestop-seconds`. */
export function parsePreStopHint(v: string | undefined): PreStopHint {
  const { all, byName, bad } = parsePerContainerSeconds(v);
  const out: PreStopHint = { all, byName };
  if (bad.length) out.problem = `cannot read ${bad.map((b) => `"${b}"`).join(', ')} in ${PRESTOP_SECONDS_HINT}: write seconds ("25"), a duration ("25s") or name=seconds entries ("app=25,worker=40")`;
  return out;
}

/** Kinds whose duration the handler states itself (or that never run): the hint does not apply. */
const NOT_A_PROGRAM: readonly PreStopKind[] = ['none', 'sleep', 'exec-sleep', 'tcpSocket', 'invalid'];

/**
 * Whether a hook runs a program whose duration the hint may declare: any exec other than a bare
 * sleep (including a sleep followed by more work and recognised wait commands) and httpGet.
 */
export function isProgramHook(d: PreStopDelay): boolean {
  return !NOT_A_PROGRAM.includes(d.kind);
}

/** The hinted duration for one container's hook, if the hint names it or has a bare value. */
export function hintedSeconds(hint: PreStopHint, containerName: string): number | undefined {
  return hint.byName[containerName] ?? hint.all;
}

/**
 * Applies the hint to a classified hook: for a program hook the hinted duration always wins
 * (over a guess, a sleep lower bound or a recognised wait command); other hooks are unchanged.
 */
export function applyPreStopHint(d: PreStopDelay, containerName: string, hint: PreStopHint): PreStopDelay {
  if (!isProgramHook(d)) return d;
  const s = hintedSeconds(hint, containerName);
  if (s === undefined) return d;
  // (The declared duration is the hook's: a signal-first reading no longer applies.)
  const { waitSeconds: _wait, stop: _stop, ...rest } = d;
  return { ...rest, seconds: s, hinted: true };
}

/**
 * The hook as it runs in the container's image: an exec that only sleeps (`["sleep", "60"]`,
 * `["sh", "-c", "sleep 60"]`) cannot run in an image without a shell or sleep binary (`shellLess`:
 * prestop-sleep-action's shellLessImagePatterns, whose warning this is): the kubelet reports
 * FailedPreStopHook and sends the stop signal at once (kubernetes/kubernetes
 * pkg/kubelet/kuberuntime/kuberuntime_container.go executePreStopHook: a failed hook is only an
 * event). So it delays nothing: 0 s, with `cannotRun` saying what it was meant to give. Other hooks
 * are returned unchanged.
 */
export function runningPreStopDelay(d: PreStopDelay, image: Json | undefined, shellLess?: readonly string[]): PreStopDelay {
  if (d.kind !== 'exec-sleep' || d.seconds === undefined || typeof image !== 'string' || !shellLessImage(image, shellLess)) return d;
  return { ...d, seconds: 0, cannotRun: { image, seconds: d.seconds } };
}

/** Whether a hook delays the stop signal as written: there is one, and it can run in the image (not runningPreStopDelay's `cannotRun`). */
export function hookRuns(d: PreStopDelay): boolean {
  return d.kind !== 'none' && d.cannotRun === undefined;
}

/**
 * The drain window a hook that signals the app first gives it (`exec-stop-then-sleep`: the sleep
 * after the signal, during which the container stays up while the app drains), else undefined.
 */
export function hookDrainWindow(d: PreStopDelay): number | undefined {
  return d.kind === 'exec-stop-then-sleep' && !d.hinted ? d.waitSeconds : undefined;
}

/**
 * The preStop delay of a container in a pod whose (workload or template) annotations may carry
 * `kubegrace.dev/prestop-seconds`. The one place the hint is read: constructs, rules and explain
 * all call this. With `pod` (the pod's containers), an httpGet hook that another container's hook
 * answers (catalog `awaitedBy`) gets that hook's delay. With `shellLess` (image patterns; the
 * termination timeline and budget pass them), a hook that cannot run in the image is 0 s
 * (runningPreStopDelay).
 */
export function podPreStopDelay(
  container: { raw: Json; name: string },
  annotations: Readonly<Record<string, string>> | undefined,
  waitPatterns?: string[],
  pod?: readonly { raw: Json; name: string }[],
  shellLess?: readonly string[],
): PreStopDelay {
  let d = preStopDelay(container.raw, waitPatterns);
  if (d.kind === 'httpGet' && pod) d = awaitedDelay(container, annotations, waitPatterns, pod, shellLess) ?? d;
  if (shellLess) d = runningPreStopDelay(d, get(container.raw, 'image'), shellLess);
  const v = annotations?.[PRESTOP_SECONDS_HINT];
  return v === undefined ? d : applyPreStopHint(d, container.name, parsePreStopHint(v));
}

/**
 * An httpGet hook to the pod's own address that another container's hook answers (`pod`: the
 * pod's containers): Contour's Envoy calls its shutdown-manager's /shutdown on port 8090, which
 * answers only when the shutdown-manager's own hook (contour envoy shutdown) has drained Envoy. The
 * catalog entry of that program says which path and port (`awaitedBy`); the hook then lasts as
 * long as that one (its hint included). Undefined for any other httpGet.
 */
function awaitedDelay(
  container: { raw: Json; name: string },
  annotations: Readonly<Record<string, string>> | undefined,
  waitPatterns: string[] | undefined,
  pod: readonly { raw: Json; name: string }[],
  shellLess?: readonly string[],
): PreStopDelay | undefined {
  const h = get(container.raw, 'lifecycle', 'preStop', 'httpGet');
  if (!isObject(h) || (typeof h.host === 'string' && h.host !== '')) return undefined;
  // A named port is one of this container's own ports (as for probes).
  let port: Json | undefined = h.port;
  if (typeof port === 'string') {
    const named = Array.isArray(get(container.raw, 'ports')) ? (get(container.raw, 'ports') as Json[]).find((p) => isObject(p) && p.name === port) : undefined;
    port = isObject(named) ? named.containerPort : /^\d+$/.test(port) ? Number(port) : undefined;
  }
  if (typeof port !== 'number') return undefined;
  const path = (typeof h.path === 'string' && h.path !== '' ? h.path : '/').split('?')[0];
  for (const other of pod) {
    if (other.name === container.name || !isObject(other.raw)) continue;
    const a = activeCatalog().awaitedHook(other.raw);
    if (!a || a.port !== port || a.path !== path) continue;
    const theirs = podPreStopDelay(other, annotations, waitPatterns, undefined, shellLess);
    const out: PreStopDelay = { kind: 'httpGet', awaits: other.name, program: a.entry.id, bound: theirs.bound ?? 'exact' };
    if (theirs.seconds !== undefined) out.seconds = theirs.seconds;
    return out;
  }
  return undefined;
}
