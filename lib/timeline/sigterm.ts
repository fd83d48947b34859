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
  /** The program that does not handle SIGTERM (`tail`, `sleep`, or `sh` waiting for them). */
  program: string;
  /** Why no handler takes SIGTERM, for messages. */
  noHandler: string;
  /** How it runs, for messages: `tail as PID 1`, `sh -c with only tail under it and no TERM trap`. */
  how: string;
  /** The field that makes it PID 1 (`args` alone on a base image without ENTRYPOINT). */
  field: 'command' | 'args';
}

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Whether the container's PID 1 is a program known to ignore SIGTERM, and which. */
export function sigtermIgnored(w: Pick<Workload, 'podSpec'>, c: ContainerView): SigtermIgnored | undefined {
  if (get(w.podSpec, 'shareProcessNamespace') === true) return undefined;
  const strings = (v: unknown): string[] | undefined => (v === undefined || v === null ? [] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);
  const command = strings(get(c.raw, 'command'));
  const args = strings(get(c.raw, 'args'));
  if (!command || !args) return undefined;
  // Without `command`, args run under the image's ENTRYPOINT: known to be none only for the base images.
  if (!command.length && !NO_ENTRYPOINT.has(imageRepository(c.image).path)) return undefined;
  let argv = [...command, ...args];
  if (!argv.length) return undefined;
  // `busybox tail ...`: the applet runs in the busybox process itself.
  if (base(argv[0]) === 'busybox' && argv.length > 1) argv = argv.slice(1);
  const first = base(argv[0]);
  const field = command.length ? 'command' : 'args';
  if (NO_HANDLER.has(first)) return { program: first, how: `${first} as PID 1`, noHandler: `${first} does not handle SIGTERM`, field };
  if (!SHELLS.has(first)) return undefined;
  // `sh -c SCRIPT` (also with other single-letter options: `-ec`, `-x -c`).
  let i = 1;
  let c_ = false;
  for (; i < argv.length && /^-[a-z]+$/.test(argv[i]); i++) if (argv[i].includes('c')) c_ = true;
  if (!c_ || i >= argv.length) return undefined;
  const waitedFor = scriptWaitsOnly(argv[i]);
  if (!waitedFor) return undefined;
  return {
    program: first,
    how: `${first} -c as PID 1 with only ${waitedFor} under it and no TERM trap`,
    noHandler: `neither ${first} without a trap nor ${waitedFor} handles SIGTERM (whether ${first} execs the last command or waits for it)`,
    field,
  };
}

/**
 * The programs a shell script runs when it runs nothing but programs without a SIGTERM handler
 * (`tail -F a & tail -F b & wait`, `while true; do sleep 30; done`, `exec sleep infinity`), and no
 * `trap`; undefined otherwise. Whether the shell execs its last command (bash and dash do, for a
 * simple one) or waits for it, PID 1 then has no handler.
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
