/**
 * The built CLI (build/lib/cli/main.js, what `npm test` builds first and the `kubegrace` bin runs)
 * for end-to-end tests, run in this process through its exported `main(argv, io)` instead of a new
 * node process per call: a test file pays node's start-up and the CLI's module loading once, not
 * once per command (issue 16: `npm test` <= 3 min).
 *
 * The call is made as the bin would make it: the same compiled code, the working directory changed
 * to `cwd` (process.chdir, restored after), the environment replaced by `env` for the duration of
 * the call (as spawnSync's `env` replaces it), stdin the `input` (empty without one, as a spawned
 * child with a pipe gets), stdout and stderr not terminals, and the exit code main returns (what the
 * bin sets as process.exitCode). The result has spawnSync's shape, so a test switches by replacing
 * `spawnSync(process.execPath, [BIN, ...args], opts)` with `runCli(args, opts)`.
 *
 * `chart` is asynchronous (tar streams): runCli spawns it, runCliAsync runs it in this process too
 * (awaiting main's promise with the working directory and environment of the call in place). What
 * needs a real process stays spawned: whatever a test checks about the process itself (signals,
 * EPIPE, FIFOs: test/cli/hardening-e2e.test.ts).
 * KUBEGRACE_TEST_SPAWN=1 runs every call as a child process (`node build/lib/cli/main.js`), to
 * check that both ways give the same results.
 */
import { spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '../..');
export const BIN = path.join(ROOT, 'build/lib/cli/main.js');

export interface RunOptions {
  cwd?: string;
  /** Bytes or text on stdin; none is an empty stdin. */
  input?: string | Buffer;
  /** The whole environment of the call (like spawnSync's env); the current one when absent. */
  env?: NodeJS.ProcessEnv;
  /** Only for spawned calls. */
  maxBuffer?: number;
  encoding?: 'utf8';
}

type Main = (argv: string[], io: import('../../lib/cli/io').CliIO) => number | Promise<number>;
let builtMain: Main | undefined;

function loadMain(): Main {
  if (!builtMain) {
    if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does it)`);
    builtMain = (require(BIN) as { main: Main }).main;
  }
  return builtMain;
}

/** Spawned when a real process is asked for, or when the command is asynchronous (`chart`). */
function needsProcess(args: readonly string[]): boolean {
  return process.env.KUBEGRACE_TEST_SPAWN === '1' || args[0] === 'chart';
}

export function spawnCli(args: readonly string[], opts: RunOptions = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [BIN, ...args], { cwd: opts.cwd, input: opts.input, env: opts.env, encoding: 'utf8', maxBuffer: opts.maxBuffer ?? 256 * 1024 * 1024 });
}

/** Replaces process.env's contents with `env` and returns a function that puts the old ones back. */
function swapEnv(env: NodeJS.ProcessEnv): () => void {
  const saved = { ...process.env };
  const set = (to: NodeJS.ProcessEnv) => {
    for (const k of Object.keys(process.env)) if (!(k in to)) delete process.env[k];
    for (const [k, v] of Object.entries(to)) if (v !== undefined) process.env[k] = v;
  };
  set(env);
  return () => set(saved);
}

/** main with the call's working directory and environment in place; `finish` puts them back. */
function startMain(args: readonly string[], opts: RunOptions): { result: number | Promise<number>; out: string[]; err: string[]; finish: () => void } {
  const main = loadMain();
  const out: string[] = [];
  const err: string[] = [];
  const cwd = path.resolve(opts.cwd ?? process.cwd());
  const restoreEnv = opts.env ? swapEnv(opts.env) : () => undefined;
  const before = process.cwd();
  const finish = () => {
    process.chdir(before);
    restoreEnv();
  };
  try {
    process.chdir(cwd);
    const result = main([...args], {
      cwd,
      stdout: (s) => out.push(s),
      stderr: (s) => err.push(s),
      readStdin: () => opts.input ?? '',
      stdoutIsTTY: false,
      stderrIsTTY: false,
    });
    return { result, out, err, finish };
  } catch (e) {
    finish();
    throw e;
  }
}

function result(status: number, out: string[], err: string[]): SpawnSyncReturns<string> {
  const stdout = out.join('');
  const stderr = err.join('');
  return { pid: 0, output: [null, stdout, stderr], stdout, stderr, status, signal: null };
}

/** `kubegrace ARGS` with the built CLI: in this process (see above) or, where needed, as a child. */
export function runCli(args: readonly string[], opts: RunOptions = {}): SpawnSyncReturns<string> {
  if (needsProcess(args)) return spawnCli(args, opts);
  const { result: r, out, err, finish } = startMain(args, opts);
  finish();
  if (typeof r !== 'number') throw new Error(`kubegrace ${args.join(' ')} is asynchronous: run it with runCliAsync`);
  return result(r, out, err);
}

/**
 * runCli for every command, `chart` included: in this process, awaiting main's promise (the working
 * directory and environment of the call stay in place until it settles; jest runs a file's tests one
 * at a time), or as a child with KUBEGRACE_TEST_SPAWN=1.
 */
export async function runCliAsync(args: readonly string[], opts: RunOptions = {}): Promise<SpawnSyncReturns<string>> {
  if (process.env.KUBEGRACE_TEST_SPAWN === '1') return spawnCli(args, opts);
  const { result: r, out, err, finish } = startMain(args, opts);
  try {
    return result(await r, out, err);
  } finally {
    finish();
  }
}
