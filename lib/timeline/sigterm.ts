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
 * Judged only where the manifest decides what PID 1 is: `command` set (it replaces the image's
 * ENTRYPOINT, so an init such as tini in the image is gone too), or `args` alone on a base image
 * with no ENTRYPOINT (busybox, alpine, debian, ubuntu), and only for programs known to have no
 * handler. `args` alone on another image run under its ENTRYPOINT, which the manifest does not show.
 */
import { imageRepository } from '../catalog';
import { get, ContainerView, Workload } from '../model/workload';

/** Programs with no SIGTERM handler (GNU coreutils and BusyBox alike). */
const NO_HANDLER = new Set(['tail', 'sleep']);
/** Docker Official Images with no ENTRYPOINT (their CMD is a shell): `args` alone are the command. */
const NO_ENTRYPOINT = new Set(['busybox', 'alpine', 'debian', 'ubuntu']);
const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh']);
/** Words of a shell script's commands that are neither a program nor a reason to doubt (loop syntax, builtins). */
const KEYWORDS = new Set(['do', 'then', 'else', 'while', 'until', '{', '(']);
const HARMLESS = new Set(['wait', 'true', ':', 'done', '}', ')', 'echo', 'printf', 'set', 'cd', 'export', 'mkdir', 'touch']);

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
function wrapperHeld(script: string, server: string, how: string, field: SigtermIgnored['field']): SigtermIgnored {
  return {
    kind: 'shell-holds',
    program: script,
    under: server,
    how,
    noHandler: `${script} is a bash script that starts ${server} without exec and has no SIGTERM handler`,
    advice: WRAPPER_ADVICE(script, server),
    field,
  };
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
  // Without `command`, args run under the image's ENTRYPOINT: known to be none only for the base images.
  const repo = imageRepository(c.image).path;
  const wrappers = NON_EXEC_WRAPPERS.get(repo);
  if (!command.length && !args.length && wrappers) {
    // The image's own CMD, with no ENTRYPOINT above it.
    const cmd = IMAGE_CMD.get(repo)!;
    return wrapperHeld(cmd, wrappers.get(cmd)!, `${cmd} as PID 1 (the image's CMD)`, 'image');
  }
  if (!command.length && !NO_ENTRYPOINT.has(repo)) return undefined;
  let argv = [...command, ...args];
  if (!argv.length) return undefined;
  // `busybox tail ...`: the applet runs in the busybox process itself.
  if (base(argv[0]) === 'busybox' && argv.length > 1) argv = argv.slice(1);
  const first = base(argv[0]);
  const field = command.length ? 'command' : 'args';
  if (wrappers?.has(first)) return wrapperHeld(first, wrappers.get(first)!, `${first} as PID 1`, field);
  if (NO_HANDLER.has(first)) return { kind: 'no-handler', program: first, how: `${first} as PID 1`, noHandler: `${first} does not handle SIGTERM`, advice: NO_HANDLER_ADVICE, field };
  if (!SHELLS.has(first)) return undefined;
  // `sh -c SCRIPT` (also with other single-letter options: `-ec`, `-x -c`).
  let i = 1;
  let c_ = false;
  for (; i < argv.length && /^-[a-z]+$/.test(argv[i]); i++) if (argv[i].includes('c')) c_ = true;
  if (!c_ || i >= argv.length) return undefined;
  const script = argv[i];
  // `sh -c '…; exec run-server.sh'`: the script's shell replaces sh as PID 1, and holds the signal.
  const parts = wrappers && !/\btrap\b/.test(script) ? splitScript(script) : undefined;
  const last = parts?.length ? programOf(parts[parts.length - 1]) : undefined;
  if (last?.exec && last.name && wrappers!.has(last.name)) return wrapperHeld(last.name, wrappers!.get(last.name)!, `${last.name} as PID 1 (${first} -c execs it)`, field);
  const waitedFor = scriptWaitsOnly(script);
  if (!waitedFor) {
    const held = shellHolds(script, first, c.image);
    if (!held) return undefined;
    return {
      kind: 'shell-holds',
      program: first,
      under: held.under,
      how: `${first} -c as PID 1 (${held.why})`,
      noHandler: `${first} has no SIGTERM handler and does not pass the signal on`,
      advice: held.advice,
      field,
    };
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
  const programs = new Set<string>();
  for (const part of script.split(/;|&&|\|\||\||&|\n/)) {
    const words = part.trim().split(/\s+/).filter((x) => x !== '');
    while (words.length && KEYWORDS.has(words[0])) words.shift();
    if (words[0] === 'exec') words.shift();
    if (words.length > 1 && base(words[0]) === 'busybox') words.shift();
    if (!words.length || HARMLESS.has(words[0])) continue;
    const p = base(words[0]);
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
 */
const DERIVED_DASH_IMAGES = new Map([['apache/superset', 'python']]);
/**
 * Scripts that images ship as their server command and that start the server without exec, so that
 * an `exec` of the script leaves the script's shell as PID 1, still holding the signal: by image
 * path, the script's name and the program it starts. apache/superset's /usr/bin/run-server.sh is a
 * bash script whose last command is `gunicorn --bind … "${FLASK_APP}"`, no exec
 * (apache/superset@b0312e9f docker/run-server.sh; @1917ac50 docker/entrypoints/run-server.sh, which
 * the Dockerfile copies to /usr/bin/): bash runs the last command of a script file as its child.
 */
const NON_EXEC_WRAPPERS = new Map([['apache/superset', new Map([['run-server.sh', 'gunicorn']])]]);
/**
 * The CMD of images in NON_EXEC_WRAPPERS, which have no ENTRYPOINT: apache/superset's
 * `CMD ["/usr/bin/run-server.sh"]` (@b86efe80 Dockerfile; `/app/docker/entrypoints/run-server.sh` on
 * current master), under python's ENTRYPOINT, which is none.
 */
const IMAGE_CMD = new Map([['apache/superset', 'run-server.sh']]);
const COMPOUND_END = /(?:^|[\s;])(?:done|fi|esac|\}|\))$/;

/** A command of a script and the separator after it (`;`, `&&`, `||`, `|`, `&`, a line end, or none at the end). */
interface Part {
  words: string[];
  sep: string;
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
    if (two === '&&' || two === '||') {
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
  return parts;
}

/** A command's program: its first word past keywords, `exec`, `busybox` and variable assignments. */
function programOf(p: Part): { name?: string; exec: boolean } {
  const w = [...p.words];
  while (w.length && (KEYWORDS.has(w[0]) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0]))) w.shift();
  const exec = w[0] === 'exec';
  if (exec) w.shift();
  if (w.length > 1 && base(w[0]) === 'busybox') w.shift();
  return { name: w.length ? base(w[0]) : undefined, exec };
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
  if (/\btrap\b/.test(script) || /[`$]\(|`/.test(script)) return undefined;
  const parts = splitScript(script);
  if (!parts || !parts.length) return undefined;
  const named = (ps: Part[]) => [...new Set(ps.map((p) => programOf(p).name).filter((n): n is string => n !== undefined && !HARMLESS.has(n) && !KEYWORDS.has(n)))];
  const bg = parts.filter((p) => p.sep === '&');
  if (bg.length && parts.some((p, k) => k > parts.indexOf(bg[0]) && programOf(p).name === 'wait')) {
    const under = named(bg);
    if (under.length) return { why: `it runs ${under.join(', ')} in the background and waits`, under: under.join(', '), advice: TRAP_ADVICE };
  }
  const last = parts[parts.length - 1];
  if (programOf(last).exec) return undefined;
  if (COMPOUND_END.test(script.trim().replace(/[;\s]+$/, ''))) {
    const under = named(parts);
    if (under.length) return { why: `it runs ${under.join(', ')} in a loop or block, which no shell replaces itself with`, under: under.join(', '), advice: TRAP_ADVICE };
    return undefined;
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
    const p = programOf(last).name;
    const on = from ? `${repo.path}, built FROM ${from} on Debian` : repo.path;
    const why = p && `on ${on}, /bin/sh is dash, which runs even the last command ${p} as its child instead of replacing itself with it`;
    const server = p && NON_EXEC_WRAPPERS.get(repo.path)?.get(p);
    if (why && server) return { why, under: `${server} (which ${p}, a bash script, also starts without exec)`, advice: WRAPPER_ADVICE(p, server) };
    if (why && !HARMLESS.has(p) && p !== 'wait') return { why, under: p, advice: EXEC_ADVICE(p) };
  }
  return undefined;
}
