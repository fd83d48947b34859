/**
 * Measuring aid, not loaded by default: per test file, the CPU seconds of the jest worker and of
 * every child process it waited for (helm, npm, tsc, the CLI), user + system, from
 * /proc/self/stat (utime, stime, cutime, cstime), appended as one JSON line to the file named by
 * KUBEGRACE_TEST_CPU_LOG. jest.config.js adds this file to setupFilesAfterEnv only when that
 * variable is set:
 *   KUBEGRACE_TEST_CPU_LOG=/tmp/cpu.jsonl npx jest ...
 * Linux only (it records nothing where /proc/self/stat is missing). The test file's own
 * transformation and loading happen after this file runs, so they are counted.
 */
import * as fs from 'fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function cpuTicks(): { self: number; children: number } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which is in parentheses and may contain spaces).
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
  const f = (n: number): number => Number(rest[n - 3]);
  return { self: f(14) + f(15), children: f(16) + f(17) };
}

const logFile = process.env.KUBEGRACE_TEST_CPU_LOG;
const start = cpuTicks();
const startWall = Date.now();

afterAll(() => {
  const end = cpuTicks();
  if (!logFile || !start || !end) return;
  const self = (end.self - start.self) / TICKS_PER_SECOND;
  const children = (end.children - start.children) / TICKS_PER_SECOND;
  const line = {
    file: expect.getState().testPath,
    cpu: Math.round((self + children) * 100) / 100,
    self,
    children,
    wall: (Date.now() - startWall) / 1000,
    // When and in which worker it ran: gaps between a worker's files show it idle (or loading).
    start: startWall,
    worker: process.pid,
    load: fs.existsSync('/proc/loadavg') ? fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0] : '',
  };
  fs.appendFileSync(logFile, JSON.stringify(line) + '\n');
});
