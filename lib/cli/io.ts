import * as fs from 'fs';
import * as path from 'path';

/** The CLI's edges, injectable for tests. */
export interface CliIO {
  cwd: string;
  stdout(s: string): void;
  stderr(s: string): void;
  readStdin(): string;
  stdoutIsTTY: boolean;
  stderrIsTTY?: boolean;
  /** Terminal width (columns), when known. */
  columns?: number;
}

/** Wrong flags or arguments: exit 2 with the message. */
export class UsageError extends Error {}

export function processIO(): CliIO {
  return {
    cwd: process.cwd(),
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    readStdin: () => fs.readFileSync(0, 'utf8'),
    stdoutIsTTY: !!process.stdout.isTTY,
    stderrIsTTY: !!process.stderr.isTTY,
    columns: process.stdout.columns || process.stderr.columns || undefined,
  };
}

/** Writes via a temporary file in the same directory and a rename, keeping the mode of an existing file. */
export function writeAtomic(file: string, text: string): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  let mode: number | undefined;
  try {
    mode = fs.statSync(file).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  try {
    fs.writeFileSync(tmp, text, mode === undefined ? undefined : { mode });
    if (mode !== undefined) fs.chmodSync(tmp, mode);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** Files before the progress indicator appears. */
export const PROGRESS_MIN_FILES = 20;

/**
 * A one-line progress indicator on stderr, only on a terminal and only for many files; it
 * redraws at most every 100 ms and erases itself when done.
 */
export function progress(io: CliIO, total: number): { update(done: number, total: number): void; done(): void } | undefined {
  if (!io.stderrIsTTY || total < PROGRESS_MIN_FILES) return undefined;
  let last = 0;
  return {
    update(done, all) {
      const now = Date.now();
      if (now - last < 100 && done < all) return;
      last = now;
      const width = 24;
      const fill = Math.round((done / all) * width);
      io.stderr(`\r\u001b[2Klinting [${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${done}/${all} files`);
    },
    done() {
      io.stderr('\r\u001b[2K');
    },
  };
}
