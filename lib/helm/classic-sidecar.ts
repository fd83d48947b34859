/**
 * How a generated chart runs a native sidecar (an init container with `restartPolicy: Always`) on a
 * Kubernetes version without native sidecars (< 1.29; `SidecarContainers` beta, on, in 1.29): as a
 * classic container in `containers`, with settings that keep it serving while the app drains.
 *
 * A classic sidecar gets its stop at the same moment as the app (graceful-termination.md section 1:
 * containers without a hook are signalled at once, in no defined order), while a native sidecar is
 * signalled only after the main containers have exited. So the classic copy must keep working for
 * the app's preStop + drain (N seconds) after the start of termination, then finish its own drain.
 * Per sidecar (the chart value `classicFallback`):
 *
 * - `drainFlags`: the program has its own flag for that (a table below, each with its source).
 * - `execSleep`: a preStop `exec: [sleep, N]`; only for images with a `sleep` binary (there is no
 *   preStop sleep action below 1.30 either, so a shell-less image cannot wait this way), which the
 *   generator cannot know: the user asserts it by choosing this value.
 * - `stopAtOnce`: a plain classic container; the user accepts that it may stop before the app drains.
 * - `refuse`: the chart refuses to render below 1.29, naming the value (default when nothing is known).
 *
 * Pure; no I/O.
 */
import { parseGoDuration } from '../timeline/duration';

export type ClassicFallback = 'drainFlags' | 'execSleep' | 'stopAtOnce' | 'refuse';

/** A sidecar program whose own flags keep it serving for a while after SIGTERM. */
export interface DrainFlagProgram {
  id: string;
  title: string;
  /** Matches `registry/repository` of the image (no tag or digest). */
  image: RegExp;
  /** First release with both flags. */
  minVersion: [number, number, number];
  /** Keeps accepting new connections this long after SIGTERM (a Go duration). */
  acceptFlag: string;
  /** Then waits at most this long for open connections to close (a Go duration). */
  drainFlag: string;
  source: string[];
}

export const DRAIN_FLAG_PROGRAMS: readonly DrainFlagProgram[] = [
  {
    id: 'cloud-sql-proxy',
    title: 'Cloud SQL Auth Proxy v2',
    image: /(^|\/)cloud-sql-connectors\/cloud-sql-proxy$/,
    minVersion: [2, 12, 0],
    acceptFlag: '--min-sigterm-delay',
    drainFlag: '--max-sigterm-delay',
    source: [
      'GoogleCloudPlatform/cloud-sql-proxy v2.14.1 cmd/root.go (--min-sigterm-delay: "The number of seconds to accept new connections after receiving a TERM signal"; --max-sigterm-delay: "Maximum number of seconds to wait for connections to close after receiving a TERM signal"; on SIGTERM it sleeps WaitBeforeClose, then Close())',
      'GoogleCloudPlatform/cloud-sql-proxy v2.14.1 internal/proxy/proxy.go (Client.Close: closes the dialer, then waits up to WaitOnClose while connections are open, returning as soon as none are, then closes the listeners)',
      'GoogleCloudPlatform/cloud-sql-proxy CHANGELOG.md 2.12.0 (2024-07-17): "Add parameter --min-sigterm-delay"',
    ],
  },
];

/** `X.Y.Z` at the start of an image tag (`v` prefix and suffixes like `-alpine` allowed), or undefined. */
export function tagVersion(tag: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+.].*)?$/.exec(tag);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

function atLeast(v: [number, number, number], min: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i] > min[i];
  return true;
}

export interface ProgramMatch {
  program: DrainFlagProgram;
  /** The tag's version when it has one. */
  version?: [number, number, number];
  /** The version has both flags (false: older; undefined: the tag does not say). */
  versionOk?: boolean;
}

/** The drain-flag program an image runs, from `registry/repository` and the tag. */
export function drainFlagProgram(parts: { registry: string; repository: string; tag: string }): ProgramMatch | undefined {
  const name = `${parts.registry ? `${parts.registry}/` : ''}${parts.repository}`;
  const program = DRAIN_FLAG_PROGRAMS.find((p) => p.image.test(name));
  if (!program) return undefined;
  const version = tagVersion(parts.tag);
  return { program, version, versionOk: version ? atLeast(version, program.minVersion) : undefined };
}

export interface SplitArgs {
  /** The args without the program's two flags (and their separate values). */
  kept: string[];
  /** Seconds of the accept flag as written, if present and readable. */
  acceptSeconds?: number;
  /** Seconds of the drain flag as written, if present and readable. */
  drainSeconds?: number;
  /** A flag whose value cannot be read (then the args are not rewritten). */
  unreadable?: string;
}

/** Takes the accept and drain flags out of args (`--flag=v` or `--flag v`), reading their values. */
export function splitDrainArgs(args: string[], program: DrainFlagProgram): SplitArgs {
  const out: SplitArgs = { kept: [] };
  const names = new Map([
    [program.acceptFlag.replace(/^-+/, ''), 'acceptSeconds'],
    [program.drainFlag.replace(/^-+/, ''), 'drainSeconds'],
  ] as const);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const m = /^--([A-Za-z0-9-]+)(?:=(.*))?$/.exec(a);
    const which = m ? names.get(m[1]) : undefined;
    if (!m || !which) {
      out.kept.push(a);
      continue;
    }
    let value = m[2];
    if (value === undefined) {
      value = args[i + 1];
      i++;
    }
    const seconds = value === undefined ? undefined : parseGoDuration(value);
    if (seconds === undefined) out.unreadable = a;
    else out[which] = seconds;
  }
  return out;
}
