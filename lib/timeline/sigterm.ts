/**
 * Containers whose first process ignores SIGTERM: the kernel delivers a signal to a PID namespace's
 * init (PID 1, which the container's first process is unless the pod shares one process namespace)
 * only if that process installed a handler for it (pid_namespaces(7), "only signals for which the
 * init process has established a signal handler can be sent to the init process by other members
 * of the PID namespace"; the kubelet's SIGTERM comes through the runtime the same way). `tail` and
 * `sleep` install none, nor does a shell without a `trap` while it waits for its children. Such a
 * container runs until SIGKILL at the grace deadline, whatever it does: every deletion of the pod
 * takes the whole grace period.
 *
 * Judged only where PID 1 is known: `command` set (it replaces the image's ENTRYPOINT, so an init
 * such as tini in the image is gone too), `args` alone on a base image with no ENTRYPOINT (busybox,
 * alpine, debian, ubuntu), or an image whose ENTRYPOINT and CMD are known (IMAGE_START), and only
 * for programs known to have no handler. `args` alone on another image run under its ENTRYPOINT,
 * which the manifest does not show.
 */
import { imageRepository } from '../catalog';
import { get, ContainerView, Workload } from '../model/workload';

/** Programs with no SIGTERM handler (GNU coreutils and BusyBox alike). */
const NO_HANDLER = new Set(['tail', 'sleep']);
/** Docker Official Images with no ENTRYPOINT (their CMD is a shell): `args` alone are the command. */
const NO_ENTRYPOINT = new Set(['busybox', 'alpine', 'debian', 'ubuntu']);
const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh']);
/**
 * Reserved words that open or continue a compound command (POSIX XCU 2.4), skipped before a
 * command's program: `if [ -f x ]; then app; fi` runs `[` and app. (`for` and `case` open a header
 * that runs no program: see programOf.)
 */
const KEYWORDS = new Set(['do', 'then', 'else', 'elif', 'if', 'while', 'until', '!', '{', '(', 'done', 'fi', 'esac', '}', ')']);
/** Builtins and short commands that are neither the app nor a reason to doubt. */
const HARMLESS = new Set(['wait', 'true', 'false', ':', 'echo', 'printf', 'set', 'cd', 'export', 'mkdir', 'touch', '[', '[[', 'test']);
/** Commands that end at once, named neither as a loop's or block's app nor as what never gets SIGTERM. */
const SHORT = new Set(['cat', 'ls', 'cp', 'mv', 'rm', 'ln', 'chmod', 'chown', 'env', 'id', 'date', 'basename', 'dirname', 'unset', 'shift', 'source', '.', 'read', 'umask', 'ulimit']);

export interface SigtermIgnored {
  /**
   * no-handler: PID 1 runs only programs that have no use for SIGTERM (tail, sleep): the pod just
   * waits out the grace period. shell-holds: a shell stays PID 1 above the app, which never gets
   * the signal, so its own graceful shutdown never runs.
   */
  kind: 'no-handler' | 'shell-holds';
  /** The program that does not handle SIGTERM (`tail`, `sleep`, or `sh` waiting for them). */
  program: string;
  /** For shell-holds: the programs under the shell that never get SIGTERM. */
  under?: string;
  /** What to do, for messages. */
  advice: string;
  /** Why no handler takes SIGTERM, for messages. */
  noHandler: string;
  /** How it runs, for messages: `tail as PID 1`, `sh -c with only tail under it and no TERM trap`. */
  how: string;
  /**
   * The field that makes it PID 1 (`args` alone on a base image without ENTRYPOINT; `image` for an
   * image whose own CMD is known to hold the signal).
   */
  field: 'command' | 'args' | 'image';
}

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** A known bash script that starts its server without exec, as PID 1. */
function wrapperHeld(script: string, wrapper: Wrapper, how: string, field: SigtermIgnored['field']): SigtermIgnored {
  return {
    kind: 'shell-holds',
    program: script,
    under: wrapper.server,
    how,
    noHandler: `${script} is a bash script that starts ${wrapper.server} without exec and has no SIGTERM handler`,
    advice: wrapper.advice ?? WRAPPER_ADVICE(script, wrapper.server),
    field,
  };
}

/**
 * The known wrapper script that a command's words run (`start.sh …`, `/app/start.sh …`, `bash
 * start.sh …`), when its arguments make it start the server; `label` is how the command reads.
 */
function wrapperRun(words: string[], wrappers: Map<string, Wrapper> | undefined): { script: string; wrapper: Wrapper; label: string } | undefined {
  if (!wrappers || !words.length) return undefined;
  const k = base(words[0]) === 'bash' && words.length > 1 ? 1 : 0;
  const script = base(words[k]);
  const wrapper = wrappers.get(script);
  if (!wrapper || (wrapper.serves && !wrapper.serves(words.slice(k + 1)))) return undefined;
  return { script, wrapper, label: k ? `bash ${script}` : script };
}

/** Whether the container's PID 1 is a program known to ignore SIGTERM, and which. */
export function sigtermIgnored(w: Pick<Workload, 'podSpec'>, c: ContainerView): SigtermIgnored | undefined {
  if (get(w.podSpec, 'shareProcessNamespace') === true) return undefined;
  // Pods that run to completion (a Job's, a test Pod's) end by themselves; their deletion is no routine.
  const restart = get(w.podSpec, 'restartPolicy');
  if (restart === 'Never' || restart === 'OnFailure') return undefined;
  const strings = (v: unknown): string[] | undefined => (v === undefined || v === null ? [] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);
  const command = strings(get(c.raw, 'command'));
  const args = strings(get(c.raw, 'args'));
  if (!command || !args) return undefined;
  const repo = imageRepository(c.image).path;
  const wrappers = NON_EXEC_WRAPPERS.get(repo);
  const start = IMAGE_START.get(repo);
  // PID 1's argv: `command` replaces the image's ENTRYPOINT (and its CMD); `args` alone run under the
  // ENTRYPOINT, known to be none only for the base images and the images of IMAGE_START.
  let argv: string[];
  let field: SigtermIgnored['field'];
  let from: string | undefined;
  if (command.length) {
    argv = [...command, ...args];
    field = 'command';
  } else if (start) {
    argv = [...start.entrypoint, ...(args.length ? args : start.cmd)];
    field = args.length ? 'args' : 'image';
    if (start.entrypoint.length) from = args.length ? `the image's ENTRYPOINT, with args as its arguments` : `the image's ENTRYPOINT`;
    else if (!args.length) from = `the image's CMD`;
  } else if (NO_ENTRYPOINT.has(repo)) {
    argv = args;
    field = 'args';
  } else return undefined;
  if (!argv.length) return undefined;
  // `busybox tail ...`: the applet runs in the busybox process itself.
  if (base(argv[0]) === 'busybox' && argv.length > 1) argv = argv.slice(1);
  const first = base(argv[0]);
  const run = wrapperRun(argv, wrappers);
  if (run) return wrapperHeld(run.script, run.wrapper, `${run.label} as PID 1${from ? ` (${from})` : ''}`, field);
  if (NO_HANDLER.has(first)) return { kind: 'no-handler', program: first, how: `${first} as PID 1`, noHandler: `${first} does not handle SIGTERM`, advice: NO_HANDLER_ADVICE, field };
  if (!SHELLS.has(first)) return undefined;
  // `sh -c SCRIPT` (also with other single-letter options: `-ec`, `-x -c`).
  let i = 1;
  let c_ = false;
  for (; i < argv.length && /^-[a-z]+$/.test(argv[i]); i++) if (argv[i].includes('c')) c_ = true;
  if (!c_ || i >= argv.length) return undefined;
  // (Comments first: a `trap`, a quote or a program named in one is none; review round 34, report p49 item B.)
  const script = stripComments(argv[i]);
  // `sh -c '…; exec run-server.sh'`: the script's shell replaces sh as PID 1, and holds the signal.
  const parts = wrappers && !/\btrap\b/.test(script) ? splitScript(script) : undefined;
  const lastPart = parts?.length ? parts[parts.length - 1] : undefined;
  const last = lastPart && lastPart.sep !== '&' ? programOf(lastPart) : undefined;
  const lastRun = last && wrapperRun(last.words, wrappers);
  if (last?.exec && lastRun) return wrapperHeld(lastRun.script, lastRun.wrapper, `${lastRun.label} as PID 1 (${first} -c execs it)`, field);
  const waitedFor = scriptWaitsOnly(script);
  if (!waitedFor) {
    const held = shellHolds(script, first, c.image);
    if (held)
      return {
        kind: 'shell-holds',
        program: first,
        under: held.under,
        how: `${first} -c as PID 1 (${held.why})`,
        noHandler: `${first} has no SIGTERM handler and does not pass the signal on`,
        advice: held.advice,
        field,
      };
    // A wrapper last, without exec: whether the shell replaces itself with it or waits for it as its
    // child, neither passes SIGTERM on.
    if (lastRun) return wrapperHeld(lastRun.script, lastRun.wrapper, `${lastRun.label} last under ${first} -c (whether ${first} replaces itself with it or runs it as its child, neither passes SIGTERM on)`, field);
    return undefined;
  }
  return {
    kind: 'no-handler',
    program: first,
    how: `${first} -c as PID 1 with only ${waitedFor} under it and no TERM trap`,
    noHandler: `neither ${first} without a trap nor ${waitedFor} handles SIGTERM (whether ${first} execs the last command or waits for it)`,
    advice: NO_HANDLER_ADVICE,
    field,
  };
}

/**
 * The programs a shell script runs when it runs nothing but programs without a SIGTERM handler
 * (`tail -F a & tail -F b & wait`, `while true; do sleep 30; done`, `exec sleep infinity`), and no
 * `trap`; undefined otherwise. Whether the shell execs its last command (bash does, for a simple
 * one; Debian's dash 0.5.12 does not) or waits for it, PID 1 then has no handler.
 */
function scriptWaitsOnly(script: string): string | undefined {
  if (/\btrap\b/.test(script) || /[`$]\(|`/.test(script)) return undefined;
  const parts = splitScript(script);
  if (!parts) return undefined;
  const programs = new Set<string>();
  for (const part of parts) {
    const p = programOf(part).name;
    if (p === undefined || HARMLESS.has(p)) continue;
    if (!NO_HANDLER.has(p)) return undefined;
    programs.add(p);
  }
  return programs.size ? [...programs].sort().join(' and ') : undefined;
}

const NO_HANDLER_ADVICE = `make it exit on SIGTERM: trap it in a script (sh -c 'trap "exit 0" TERM; … & wait'), or run it under an init that forwards signals if the image has one (tini, dumb-init)`;
/**
 * Not an init (tini, dumb-init) above a shell that runs the app: the shell, no longer PID 1, dies of
 * the forwarded SIGTERM at once (dash 0.5.12 checked), and the init exits with its child
 * (krallin/tini@70379340 src/tini.c main: "Exiting: child has exited"; Yelp/dumb-init@e4e2dd05
 * dumb-init.c handle_signal: SIGTERM to the group, then exit), so the kernel SIGKILLs the app
 * (pid_namespaces(7): the namespace's init terminating kills every process in it).
 */
const NO_INIT = (p: string) => `(an init such as tini or dumb-init above the shell does not help: the shell dies of the forwarded signal at once, the init exits with it, and ${p} is killed)`;
const EXEC_ADVICE = (p: string) => `put exec before the last command (sh -c '…; exec ${p} …') so that ${p} is PID 1 and gets SIGTERM ${NO_INIT(p)}`;
const WRAPPER_ADVICE = (script: string, server: string) => `run ${server} itself as PID 1 (command: [${server}, …] with the flags ${script} passes it, or sh -c '…; exec ${server} …'), so that it gets SIGTERM: running ${script} (even with exec) leaves bash as PID 1 above ${server}, holding the signal`;
const TRAP_ADVICE = `pass the signal on: sh -c 'app & pid=$!; trap "kill -TERM $pid" TERM; wait $pid; wait $pid', or run one program with exec ${NO_INIT('the app')}`;

/** Docker Official Images built on Debian or Ubuntu, whose /bin/sh is dash (their alpine variants are not). */
const DASH_IMAGES = new Set(['debian', 'ubuntu', 'buildpack-deps', 'python', 'node', 'ruby', 'golang', 'perl', 'php', 'nginx', 'httpd', 'postgres', 'redis', 'eclipse-temurin', 'openjdk', 'rust']);
/**
 * Images built FROM one of DASH_IMAGES' Debian variants, by their repository path (any registry),
 * with the Dockerfile line that says so. apache/superset: `FROM python:${PY_VER}` with `ARG
 * PY_VER=3.9-slim-bookworm` (apache/superset@b86efe80 Dockerfile), `3.10-slim-bookworm`
 * (@003941c0), `3.11.14-slim-trixie` on current master: Debian 12 and 13, dash 0.5.12.
 * open-webui/pipelines: `FROM python:3.11-slim-bookworm AS base` (open-webui/pipelines@26b8f20b
 * Dockerfile:1).
 */
const DERIVED_DASH_IMAGES = new Map([
  ['apache/superset', 'python'],
  ['open-webui/pipelines', 'python'],
]);

/** A script that starts a server without exec (NON_EXEC_WRAPPERS). */
interface Wrapper {
  /** The server it starts as its child. */
  server: string;
  /** Whether these arguments make it start the server (all do when absent). */
  serves?: (args: string[]) => boolean;
  /** What to do instead, when WRAPPER_ADVICE's "run the server itself" needs more (a setup step). */
  advice?: string;
}

/**
 * open-webui/pipelines' start.sh (open-webui/pipelines@26b8f20b start.sh): its argument loop takes
 * only `--mode X` (`--mode) MODE="$2"; shift ;;`, anything else: "Unknown parameter passed", exit
 * 1), MODE defaults to `full` and must be setup, run or full; uvicorn starts only for run and full.
 */
function pipelinesServes(args: string[]): boolean {
  let mode = 'full';
  for (let k = 0; k < args.length; k += 2) {
    if (args[k] !== '--mode') return false;
    mode = args[k + 1] ?? '';
  }
  return mode === 'run' || mode === 'full';
}

/**
 * Scripts that images ship as their server command and that start the server without exec, so that
 * an `exec` of the script leaves the script's shell as PID 1, still holding the signal: by image
 * path, the script's name and the program it starts. bash runs the commands of a script file,
 * the last one too, as its children.
 * - apache/superset's /usr/bin/run-server.sh is a bash script whose last command is `gunicorn
 *   --bind … "${FLASK_APP}"`, no exec (apache/superset@b0312e9f docker/run-server.sh; @1917ac50
 *   docker/entrypoints/run-server.sh, which the Dockerfile copies to /usr/bin/).
 * - open-webui/pipelines' /app/start.sh (`#!/usr/bin/env bash`, mode 100755) ends `if [[ "$MODE" ==
 *   "run" || "$MODE" == "full" ]]; then … uvicorn main:app --host "$HOST" --port "$PORT"
 *   --forwarded-allow-ips '*' --loop "$UVICORN_LOOP"; fi`, with no exec and no trap anywhere in the
 *   script (open-webui/pipelines@26b8f20b start.sh:153-156; the same since the script's first
 *   version, @0f42868). uvicorn then never runs the app's lifespan shutdown (main.py:251-254
 *   `await on_shutdown()`, which calls each pipeline's on_shutdown). Its setup mode (`--mode setup`:
 *   PIPELINES_URLS downloads, `pip install` of requirements) runs in the container itself, hence
 *   the advice to run it first in the same shell.
 * - grafana/oncall's celery_with_exporter.sh (`#!/bin/bash`, mode 100755; the Dockerfile's `WORKDIR
 *   /etc/app` and `COPY ./ ./` of engine/) checks CELERY_WORKER_QUEUE, _CONCURRENCY and
 *   _MAX_TASKS_PER_CHILD, builds CELERY_ARGS and ends `celery "${CELERY_ARGS[@]}"`, no exec and no
 *   trap (grafana/oncall@3666186a engine/celery_with_exporter.sh:1,27-53, the same since the script's
 *   first version, @6b40f950; line 8 leaves `sleep
 *   $CELERY_WORKER_SHUTDOWN_INTERVAL && celery -A engine control shutdown &` in the background). The
 *   chart runs it as the celery Deployment's `command: ["./celery_with_exporter.sh"]`
 *   (helm/oncall/templates/celery/deployment.yaml:61; `python manage.py start_celery` in devMode).
 *   celery's warm shutdown (it finishes the running tasks) then never starts, and with
 *   CELERY_TASK_ACKS_LATE = True (engine/settings/base.py:534) a task killed mid-run is redelivered.
 */
const NON_EXEC_WRAPPERS = new Map<string, Map<string, Wrapper>>([
  ['apache/superset', new Map([['run-server.sh', { server: 'gunicorn' }]])],
  [
    'grafana/oncall',
    new Map([
      [
        'celery_with_exporter.sh',
        {
          server: 'celery',
          advice: `run celery itself as PID 1 with the flags celery_with_exporter.sh passes it, from the same env (command: [celery, --quiet, -A, engine, worker, "--concurrency=$(CELERY_WORKER_CONCURRENCY)", "--max-tasks-per-child=$(CELERY_WORKER_MAX_TASKS_PER_CHILD)", -Q, "$(CELERY_WORKER_QUEUE)", -l, info], with --beat where CELERY_WORKER_BEAT_ENABLED is True), or make the script's last line exec celery, so that celery gets SIGTERM and runs its warm shutdown, which waits for the running tasks (size terminationGracePeriodSeconds to the longest): running celery_with_exporter.sh (even with exec) leaves bash as PID 1 above celery, holding the signal`,
        },
      ],
    ]),
  ],
  [
    'open-webui/pipelines',
    new Map([
      [
        'start.sh',
        {
          server: 'uvicorn',
          serves: pipelinesServes,
          advice: `run start.sh's setup, then exec uvicorn, in one shell: command: [bash, -c, 'bash start.sh --mode setup && exec uvicorn main:app --host "$HOST" --port "$PORT" --forwarded-allow-ips "*"'], so that uvicorn is PID 1, gets SIGTERM and runs the pipelines' on_shutdown: start.sh (even with exec) leaves bash as PID 1 above uvicorn, holding the signal`,
        },
      ],
    ]),
  ],
]);
/**
 * The ENTRYPOINT and CMD of images in NON_EXEC_WRAPPERS, by image path: `args` alone replace the
 * CMD and run under the ENTRYPOINT.
 * - apache/superset: `CMD ["/usr/bin/run-server.sh"]` (@b86efe80 Dockerfile;
 *   `/app/docker/entrypoints/run-server.sh` on current master), under python's ENTRYPOINT, which is
 *   none.
 * - open-webui/pipelines: `ENTRYPOINT [ "bash", "start.sh" ]` and no CMD (open-webui/pipelines@26b8f20b
 *   Dockerfile:65, WORKDIR /app; the same since @7264d5d): `args` are start.sh's arguments.
 */
const IMAGE_START = new Map<string, { entrypoint: string[]; cmd: string[] }>([
  ['apache/superset', { entrypoint: [], cmd: ['/usr/bin/run-server.sh'] }],
  ['open-webui/pipelines', { entrypoint: ['bash', 'start.sh'], cmd: [] }],
]);
const COMPOUND_END = /(?:^|[\s;])(?:done|fi|esac|\}|\))$/;

/** A command of a script and the separator after it (`;`, `;;`, `&&`, `||`, `|`, `&`, a line end, or none at the end). */
interface Part {
  words: string[];
  sep: string;
}

/**
 * The script without its comments: a `#` that starts a word outside quotes runs to the end of the
 * line (POSIX XCU 2.3 rule 9), whatever it holds (an apostrophe in `# npm can't write` is no quote;
 * review round 34, report p49 item B). The script unchanged if a quote is never closed.
 */
function stripComments(script: string): string {
  let out = '';
  let q: string | undefined;
  for (let i = 0; i < script.length; i++) {
    const ch = script[i];
    if (q) {
      if (ch === q) q = undefined;
      else if (ch === '\\' && q === '"' && i + 1 < script.length) out += script[i++];
      out += ch === '\\' && q === '"' ? script[i] : ch;
      continue;
    }
    if (ch === "'" || ch === '"') q = ch;
    else if (ch === '\\') {
      out += ch + (script[i + 1] ?? '');
      i++;
      continue;
    } else if (ch === '#' && (i === 0 || /[\s;&|()]/.test(script[i - 1]))) {
      while (i + 1 < script.length && script[i + 1] !== '\n') i++;
      continue;
    }
    out += ch;
  }
  return q ? script : out;
}

/** The script's commands, split at separators outside quotes; undefined for a quote never closed. */
function splitScript(script: string): Part[] | undefined {
  const parts: Part[] = [];
  let cur = '';
  let q: string | undefined;
  const push = (sep: string) => {
    const words = cur.trim().split(/\s+/).filter((x) => x !== '');
    if (words.length) parts.push({ words, sep });
    else if (parts.length && sep !== '\n' && sep !== '') parts[parts.length - 1].sep = sep;
    cur = '';
  };
  for (let i = 0; i < script.length; i++) {
    const ch = script[i];
    if (q) {
      // Inside quotes: text (a backslash escapes the next character between double quotes).
      if (ch === q) q = undefined;
      else if (ch === '\\' && q === '"' && i + 1 < script.length) cur += script[++i];
      else cur += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      q = ch;
      continue;
    }
    if (ch === '\\') {
      cur += script[++i] ?? '';
      continue;
    }
    const two = script.slice(i, i + 2);
    if (two === '&&' || two === '||' || two === ';;') {
      push(two);
      i++;
    } else if (ch === ';' || ch === '\n' || ch === '&' || ch === '|') {
      // (`2>&1` and `>&2` are redirections, not a background job.)
      if (ch === '&' && (script[i - 1] === '>' || script[i + 1] === '>')) {
        cur += ch;
        continue;
      }
      push(ch);
    } else cur += ch;
  }
  if (q) return undefined;
  push('');
  // A case arm's pattern (`--mode) MODE="$2"; shift ;;`, after `case … in` or a `;;`) is no program.
  for (let k = 1; k < parts.length; k++) {
    const prev = parts[k - 1];
    if (prev.sep !== ';;' && prev.words[0] !== 'case') continue;
    const end = parts[k].words.findIndex((x) => x.endsWith(')'));
    if (end >= 0 && parts[k].words[0] !== 'esac') parts[k].words = parts[k].words.slice(end + 1);
  }
  return parts.filter((p) => p.words.length);
}

/**
 * A command's program: its first word past keywords, `exec`, `busybox` and variable assignments,
 * with the words from it on; none for the header of a `for` or `case` (`for f in *; do`, `case $1
 * in`), which runs no program.
 */
function programOf(p: Part): { name?: string; exec: boolean; words: string[] } {
  const w = [...p.words];
  while (w.length && (KEYWORDS.has(w[0]) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0]))) w.shift();
  if (w[0] === 'for' || w[0] === 'case' || w[0] === 'select') return { exec: false, words: [] };
  const exec = w[0] === 'exec';
  if (exec) w.shift();
  if (w.length > 1 && base(w[0]) === 'busybox') w.shift();
  return { name: w.length ? base(w[0]) : undefined, exec, words: w };
}

/** A program named as the app of a loop or block: neither harmless nor short. */
const appOf = (n: string | undefined): n is string => n !== undefined && !HARMLESS.has(n) && !KEYWORDS.has(n) && !SHORT.has(n);

/**
 * The apps of the loop or block that ends the script: for a loop (`… done`), those of its body,
 * from the header of the outermost loop that ends there (they run again and again); for a block
 * (`if … fi`, `case … esac`, `{ … }`, `( … )`), the last one, which is what still runs (those
 * before it have ended). None when that one, or one in the loop, runs with exec (the shell is then
 * replaced by it).
 */
function compoundApps(parts: Part[], loop: boolean): string[] | undefined {
  let from = 0;
  if (loop) {
    // Walk back to the header that opens the loop closed by the last `done`.
    let depth = 0;
    for (let k = parts.length - 1; k >= 0; k--) {
      const lead: string[] = [];
      for (const x of parts[k].words) {
        if (!KEYWORDS.has(x) && x !== 'for' && x !== 'select') break;
        lead.push(x);
      }
      for (const x of lead.reverse()) {
        if (x === 'done') depth++;
        else if ((x === 'while' || x === 'until' || x === 'for' || x === 'select') && --depth === 0) from = k;
      }
      if (depth === 0 && from === k) break;
    }
    const body = parts.slice(from).map(programOf);
    if (body.some((p) => p.exec && p.name)) return undefined;
    const apps = [...new Set(body.map((p) => p.name).filter(appOf))];
    return apps.length ? apps : [...new Set(body.map((p) => p.name).filter((n): n is string => n !== undefined && !HARMLESS.has(n)))];
  }
  const run = parts.map(programOf).filter((p) => p.name !== undefined && !HARMLESS.has(p.name));
  const last = [...run].reverse().find((p) => appOf(p.name)) ?? run[run.length - 1];
  if (!last || last.exec) return undefined;
  return [last.name!];
}

/**
 * Whether the shell running `script` stays PID 1 above the programs it starts, which then never get
 * SIGTERM: it waits for a background job (\`app & wait\`), runs a pipeline or a loop last (no shell
 * execs those), or it is dash (\`sh\` on a Debian or Ubuntu image), which execs no command, not
 * even the last (checked: dash 0.5.12, Debian 12: \`dash -c 'sleep 30'\` stays the parent of sleep;
 * bash 5.2 execs it). A last command run with \`exec\` is PID 1 itself; a \`trap\` or a command
 * substitution (a program not read) leaves it unjudged.
 */
function shellHolds(script: string, shell: string, image: string): { why: string; under: string; advice: string } | undefined {
  if (/\btrap\b/.test(script)) return undefined;
  // Command substitutions run no program the shell waits for past their own end: read them as a
  // plain word, unless one gives a command its program (`$(which app) …`: not read).
  const plain = withoutSubstitutions(script);
  // Nor are function definitions (their bodies run where they are called) or here-documents (their
  // lines are text): such a script is not read.
  if (plain === undefined || /<<|\bfunction\s|[A-Za-z_][A-Za-z0-9_]*\s*\(\s*\)/.test(plain)) return undefined;
  const parts = splitScript(plain);
  if (!parts || !parts.length) return undefined;
  if (parts.some((p) => programOf(p).words[0]?.includes(SUBST))) return undefined;
  const named = (ps: Part[]) => [...new Set(ps.map((p) => programOf(p).name).filter((n): n is string => n !== undefined && !HARMLESS.has(n) && !KEYWORDS.has(n)))];
  const bg = parts.filter((p) => p.sep === '&');
  if (bg.length && parts.some((p, k) => k > parts.indexOf(bg[0]) && programOf(p).name === 'wait')) {
    const under = named(bg);
    if (under.length) return { why: `it runs ${under.join(', ')} in the background and waits`, under: under.join(', '), advice: TRAP_ADVICE };
  }
  const fg = foregroundBeforeMore(parts);
  if (fg) return { why: `it runs ${fg} in the foreground before further commands, and no shell replaces itself with a command that is not its last`, under: fg, advice: TRAP_ADVICE };
  const last = parts[parts.length - 1];
  if (programOf(last).exec) return undefined;
  // (The closing word must be the last command's own: `echo done` ends no loop.)
  const kw = COMPOUND_END.test(script.trim().replace(/[;\s]+$/, '')) ? last.words[0] : undefined;
  if (kw !== undefined && kw in BLOCK_OR_LOOP) {
    const under = compoundApps(parts, kw === 'done');
    if (!under?.length) return undefined;
    const what = kw === 'done' ? `${under.join(', ')} in a loop` : `${under[0]} last in ${BLOCK[kw]}`;
    return { why: `it runs ${what}, which no shell replaces itself with`, under: under.join(', '), advice: TRAP_ADVICE };
  }
  const k = parts.length - 1;
  if (k > 0 && parts[k - 1].sep === '|') {
    let j = k - 1;
    while (j > 0 && parts[j - 1].sep === '|') j--;
    const under = named(parts.slice(j));
    if (under.length) return { why: `it runs the pipeline ${under.join(' | ')} last, which no shell replaces itself with`, under: under.join(', '), advice: `run ${under[0]} with exec, its output redirected rather than piped ${NO_INIT(under[0])}` };
  }
  const repo = imageRepository(image);
  const tag = image.slice(image.lastIndexOf(':') + 1);
  const from = DERIVED_DASH_IMAGES.get(repo.path);
  if (shell === 'sh' && (DASH_IMAGES.has(repo.path) || from) && !/alpine/i.test(image.includes(':') ? tag : '')) {
    const lp = programOf(last);
    const run = wrapperRun(lp.words, NON_EXEC_WRAPPERS.get(repo.path));
    const p = run?.label ?? lp.name;
    const on = from ? `${repo.path}, built FROM ${from} on Debian` : repo.path;
    const why = p && `on ${on}, /bin/sh is dash, which runs even the last command ${p} as its child instead of replacing itself with it`;
    if (why && run) return { why, under: `${run.wrapper.server} (which ${run.script}, a bash script, also starts without exec)`, advice: run.wrapper.advice ?? WRAPPER_ADVICE(run.script, run.wrapper.server) };
    if (why && !HARMLESS.has(p) && !AFTER.has(p) && p !== 'wait') return { why, under: p, advice: EXEC_ADVICE(p) };
  }
  return undefined;
}

/** How the block that ends a script reads, by its closing word. */
const BLOCK: Record<string, string> = { fi: 'an if block', esac: 'a case block', '}': 'a { } group', ')': 'a subshell' };
const BLOCK_OR_LOOP: Record<string, true> = { done: true, fi: true, esac: true, '}': true, ')': true };

/** Stands for a command substitution's output in a script read by withoutSubstitutions. */
const SUBST = '\u0001';

/**
 * The script with each command substitution (`$(…)`, `` `…` ``, and arithmetic `$((…))`) outside
 * single quotes replaced by SUBST: its commands end before the shell goes on, so none is what the
 * shell waits for. Quotes and nested substitutions inside one are followed (`$(date +"%H:%M")`,
 * `"$(a "$(b)")"`); undefined (not read) for one never closed, or one that holds a `case` (whose
 * `pattern)` would close it early).
 */
function withoutSubstitutions(script: string): string | undefined {
  let out = '';
  let q: string | undefined;
  for (let i = 0; i < script.length; i++) {
    const ch = script[i];
    if (q === "'") {
      if (ch === q) q = undefined;
      out += ch;
      continue;
    }
    if (ch === '\\') {
      out += ch + (script[i + 1] ?? '');
      i++;
      continue;
    }
    if (ch === '$' && script[i + 1] === '(') {
      const end = substitutionEnd(script, i + 2);
      if (end === undefined || /\bcase\b/.test(script.slice(i, end))) return undefined;
      out += SUBST;
      i = end - 1;
      continue;
    }
    if (ch === '`') {
      const j = backtickEnd(script, i);
      if (j === undefined) return undefined;
      out += SUBST;
      i = j;
      continue;
    }
    if (ch === '"') q = q ? undefined : '"';
    else if (ch === "'" && !q) q = "'";
    out += ch;
  }
  return q ? undefined : out;
}

/** The index of the backquote that closes the one at `open` (a backslash escapes the next character); undefined if none. */
function backtickEnd(script: string, open: number): number | undefined {
  let j = open + 1;
  while (j < script.length && script[j] !== '`') j += script[j] === '\\' ? 2 : 1;
  return j < script.length ? j : undefined;
}

/** The index just past the `)` that closes a `$(` whose body starts at `from`; undefined if none. */
function substitutionEnd(script: string, from: number): number | undefined {
  let depth = 1;
  let q: string | undefined;
  for (let i = from; i < script.length; i++) {
    const ch = script[i];
    if (q === "'") {
      if (ch === q) q = undefined;
      continue;
    }
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '$' && script[i + 1] === '(') {
      const end = substitutionEnd(script, i + 2);
      if (end === undefined) return undefined;
      i = end - 1;
      continue;
    }
    if (ch === '`') {
      const j = backtickEnd(script, i);
      if (j === undefined) return undefined;
      i = j;
      continue;
    }
    if (ch === '"') q = q ? undefined : '"';
    else if (q) continue;
    else if (ch === "'") q = "'";
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i + 1;
  }
  return undefined;
}

/** Commands that run after the app has ended (what a script does when it exits), not an app. */
const AFTER = new Set(['exit', 'return', 'kill', 'logger']);

/**
 * The program a script runs in the foreground at its top level (outside any loop or block) before
 * further commands, when nothing after it is an app: only echo, exit and the like, and tail or
 * sleep only inside an `if` or `case` block (pingcap/tidb-operator's pump: `/pump …; if [ $? == 0
 * ]; then echo …; tail -f /dev/null; fi`). No shell replaces itself with a command that is not its
 * last, so the shell, PID 1, waits for it as its child as long as it runs. Undefined when it runs
 * with exec, in the background or in a pipeline, when a later command may be the app (then that
 * one is judged), or when tail or sleep follows at the top level or in a loop (`service x start;
 * tail -f log`, `crond; while true; do sleep 60; done`: the first command may have started a
 * daemon and ended, and what keeps the shell waiting is the tail or sleep).
 */
function foregroundBeforeMore(parts: Part[]): string | undefined {
  const OPEN = new Set(['if', 'while', 'until', 'for', 'select', 'case', '{', '(']);
  const CLOSE = new Set(['fi', 'done', 'esac', '}', ')']);
  const open: string[] = [];
  let found: { k: number; name: string } | undefined;
  let after = false;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k];
    const top = open.length === 0;
    for (const x of p.words) {
      if (OPEN.has(x)) open.push(x);
      else if (CLOSE.has(x)) open.pop();
      else if (!KEYWORDS.has(x)) break;
    }
    const prog = programOf(p);
    const n = prog.name;
    if (n === undefined) continue;
    if (found) after = true;
    if (NO_HANDLER.has(n)) {
      if (found && !open.every((x) => x === 'if' || x === 'case')) return undefined;
      if (found && !open.length) return undefined;
      continue;
    }
    if (HARMLESS.has(n) || SHORT.has(n) || AFTER.has(n)) continue;
    // A later app: the one before it is not what the script waits for.
    found = undefined;
    after = false;
    if (!top || open.length || prog.exec || p.sep === '&' || p.sep === '|' || p.sep === '' || (k > 0 && parts[k - 1].sep === '|')) continue;
    found = { k, name: n };
  }
  return found && after && !open.length ? found.name : undefined;
}
