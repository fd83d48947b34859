/**
 * Containers that do no work a termination can interrupt, so that no grace period, preStop delay or
 * readiness probe changes anything for them:
 * - the pause image (registry.k8s.io/pause and its mirrors): it only waits for a signal and exits on
 *   SIGTERM (kubernetes build/pause/linux/pause.c: sigaction for SIGINT and SIGTERM, then pause());
 *   JupyterHub's user placeholders and image pullers run it to hold capacity or pull images;
 * - a container whose whole command is a sleep forever (`sleep infinity`, `tail -f /dev/null`),
 *   the shape of client and debug pods such as Istio's samples/curl and samples/sleep. As PID 1 it
 *   has no handler for SIGTERM, and the kernel delivers no signal without a handler to a PID
 *   namespace's init (pid_namespaces(7)), so it never reacts: a grace period only delays the
 *   SIGKILL, which is why those samples set terminationGracePeriodSeconds: 0. A Service that
 *   selects it is a name for the mesh: nothing listens.
 */
import { isObject, Json, JsonObject } from './types';

/**
 * The pause image, by its repository's last path segment (registry.k8s.io/pause, k8s.gcr.io/pause-amd64,
 * rancher/mirrored-pause), with any tag or digest. The admission policies use the same pattern.
 */
export const PAUSE_IMAGE = /^(?:[^@]*\/)?(?:mirrored-)?pause(?:-(?:amd64|arm64|arm|ppc64le|s390x|windows))?(?::[^/@]*)?(?:@.*)?$/;

/** The program of a `sh -c` script that only sleeps forever (the admission policies use the same pattern). */
export const SLEEP_FOREVER_SCRIPT = /^\s*(?:exec\s+)?(?:(?:\S*\/)?sleep\s+(?:infinity|inf)|(?:\S*\/)?tail\s+-f\s+\/dev\/null)\s*$/;
/** Program paths: `sleep`, `/bin/sleep`, ... (same in the admission policies). */
export const SLEEP_PROGRAM = /^(?:\S*\/)?sleep$/;
export const TAIL_PROGRAM = /^(?:\S*\/)?tail$/;
export const SHELL_PROGRAM = /^(?:\S*\/)?(?:ba|da|a)?sh$/;

function words(v: Json | undefined): string[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v)) return undefined;
  const out: string[] = [];
  for (const x of v) {
    if (typeof x !== 'string') return undefined;
    out.push(x);
  }
  return out;
}

/** Whether the image is the pause image. */
export function isPauseImage(image: Json | undefined): boolean {
  return typeof image === 'string' && PAUSE_IMAGE.test(image);
}

/**
 * Whether a container (its raw object) does no work a termination can interrupt (see above): the
 * pause image with its own entrypoint (no command, no args), or a command line (command then args,
 * as the kubelet runs them) that is `sleep infinity`, `tail -f /dev/null`, or `sh -c` with a script
 * that is only one of those.
 */
export function isIdleContainer(raw: JsonObject): boolean {
  if (!isObject(raw)) return false;
  const command = words(raw.command);
  const args = words(raw.args);
  if (command === undefined || args === undefined) return false;
  if (!command.length) return !args.length && isPauseImage(raw.image);
  const argv = [...command, ...args];
  if (argv.length === 2) return SLEEP_PROGRAM.test(argv[0]) && (argv[1] === 'infinity' || argv[1] === 'inf');
  if (argv.length === 3) {
    if (TAIL_PROGRAM.test(argv[0])) return argv[1] === '-f' && argv[2] === '/dev/null';
    return SHELL_PROGRAM.test(argv[0]) && argv[1] === '-c' && SLEEP_FOREVER_SCRIPT.test(argv[2]);
  }
  return false;
}
