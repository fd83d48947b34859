import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

/** The CLI's edges, injectable for tests. */
export interface CliIO {
  cwd: string;
  stdout(s: string): void;
  stderr(s: string): void;
  readStdin(): string | Buffer;
  stdoutIsTTY: boolean;
  stderrIsTTY?: boolean;
  /** Terminal width (columns), when known. */
  columns?: number;
}

/** Wrong flags or arguments: exit 2 with the message. */
export class UsageError extends Error {}

/**
 * A writer that goes quiet once its reader has gone (`kubegrace lint | head -1`): EPIPE, thrown
 * by a synchronous write or emitted later, ends the output without a stack trace, as other
 * command-line tools do.
 */
function pipeWriter(stream: NodeJS.WriteStream): (s: string) => void {
  let closed = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') closed = true;
    else throw e;
  });
  return (s) => {
    if (closed) return;
    try {
      stream.write(s);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EPIPE') closed = true;
      else throw e;
    }
  };
}

export function processIO(): CliIO {
  return {
    cwd: process.cwd(),
    stdout: pipeWriter(process.stdout),
    stderr: pipeWriter(process.stderr),
    readStdin: () => fs.readFileSync(0),
    stdoutIsTTY: !!process.stdout.isTTY,
    stderrIsTTY: !!process.stderr.isTTY,
    columns: process.stdout.columns || process.stderr.columns || undefined,
  };
}

/** A temporary file next to `target`, created exclusively (O_EXCL) under a random name. */
function createTemp(target: string, mode: number): { fd: number; path: string } {
  const dir = path.dirname(target);
  for (let i = 0; ; i++) {
    const tmp = path.join(dir, `.${path.basename(target)}.kubegrace-${crypto.randomBytes(8).toString('hex')}.tmp`);
    try {
      return { fd: fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), mode), path: tmp };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || i >= 5) throw e;
    }
  }
}

export interface AtomicWriteOptions {
  /** Refuse (throw WriteRefused) unless the file still holds exactly these bytes just before the rename. */
  expect?: Buffer;
}

/** A write kubegrace refuses to make, with the reason (not a crash: reported per file). */
export class WriteRefused extends Error {}

/** Characters encoded at a time by writeText. */
export const WRITE_CHUNK_CHARS = 1 << 20;

/**
 * Writes `text` in UTF-8, a chunk of characters at a time through one buffer, rather than as one
 * Buffer of the whole text: a large fixed file (tens of MB) is then neither allocated twice nor
 * copied by the kernel from cold memory. A chunk never ends between the two halves of a
 * surrogate pair, so the bytes are exactly Buffer.from(text, 'utf8') (a lone half is U+FFFD's
 * bytes either way).
 */
export function writeText(fd: number, text: string, chunk = WRITE_CHUNK_CHARS): void {
  // At most 3 bytes per UTF-16 code unit (a pair's 4 bytes are 2 units); a chunk may take one
  // unit more, the low half of a pair its last unit starts.
  const buf = Buffer.allocUnsafe((Math.min(text.length, chunk) + 1) * 3);
  for (let a = 0; a < text.length; ) {
    let b = Math.min(text.length, a + chunk);
    const last = text.charCodeAt(b - 1);
    const next = text.charCodeAt(b);
    if (last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) b++;
    writeAll(fd, buf, buf.write(text.slice(a, b), 0, 'utf8'));
    a = b;
  }
}

/**
 * Writes the UTF-8 of the concatenation of `parts`, part by part (writeText), without making it
 * one string. A surrogate pair that a part boundary splits is written whole.
 */
export function writeTexts(fd: number, parts: readonly string[], chunk = WRITE_CHUNK_CHARS): void {
  let carry = '';
  for (let i = 0; i < parts.length; i++) {
    let t = carry + parts[i];
    carry = '';
    const last = t.charCodeAt(t.length - 1);
    if (i < parts.length - 1 && last >= 0xd800 && last <= 0xdbff) {
      carry = t.slice(-1);
      t = t.slice(0, -1);
    }
    if (t) writeText(fd, t, chunk);
  }
  if (carry) writeText(fd, carry, chunk);
}

function writeAll(fd: number, buf: Buffer, n: number): void {
  for (let at = 0; at < n; ) at += fs.writeSync(fd, buf, at, n - at);
}

/** Bytes compared at a time by fileHolds. */
const COMPARE_CHUNK = 1 << 20;

/**
 * Whether the file's bytes are exactly `bytes` (false when it cannot be read), compared a chunk
 * at a time: reading a large file whole into a new buffer costs several times as much (its pages
 * are touched for the first time), for the same answer.
 */
export function fileHolds(file: string, bytes: Buffer): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    if (fs.fstatSync(fd).size !== bytes.length) return false;
    const buf = Buffer.allocUnsafe(Math.min(COMPARE_CHUNK, Math.max(bytes.length, 1)));
    for (let at = 0; ; ) {
      const n = fs.readSync(fd, buf, 0, buf.length, at);
      if (n === 0) return at === bytes.length;
      if (at + n > bytes.length || buf.compare(bytes, at, at + n, 0, n) !== 0) return false;
      at += n;
    }
  } catch {
    return false;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes via a temporary file in the same directory and a rename: exclusive creation under a
 * random name, the existing file's mode and (where permitted) owner kept, and, with `expect`,
 * a check that nobody changed the file meanwhile.
 */
export function writeAtomic(file: string, text: string | readonly string[] | Buffer, opts: AtomicWriteOptions = {}): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true });
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file);
  } catch {
    st = undefined;
  }
  if (st?.isDirectory()) throw new WriteRefused(`${file} is a directory`);
  const mode = st ? st.mode & 0o7777 : 0o666 & ~process.umask();
  const tmp = createTemp(file, mode);
  try {
    try {
      if (typeof text === 'string') writeText(tmp.fd, text);
      else if (Buffer.isBuffer(text)) writeAll(tmp.fd, text, text.length);
      else writeTexts(tmp.fd, text);
      if (st) {
        fs.fchmodSync(tmp.fd, mode);
        try {
          fs.fchownSync(tmp.fd, st.uid, st.gid);
        } catch {
          // Only root may give a file away: the owner is kept where permitted.
        }
      }
      fs.fsyncSync(tmp.fd);
    } finally {
      fs.closeSync(tmp.fd);
    }
    if (opts.expect && !fileHolds(file, opts.expect)) throw new WriteRefused('the file changed while kubegrace was running; not overwritten (run --fix again)');
    fs.renameSync(tmp.path, file);
  } catch (e) {
    fs.rmSync(tmp.path, { force: true });
    throw e;
  }
}

/**
 * Why --fix cannot replace `file` (already resolved through symbolic links), or undefined: it
 * must be a regular file with one link, writable, in a directory where a temporary file can be
 * created.
 */
export function fixWriteProblem(file: string): string | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (e) {
    return `cannot stat the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  if (!st.isFile()) return 'not a regular file';
  if (st.nlink > 1) return `the file has ${st.nlink} hard links: replacing it would split them, so it is not written (use --fix-dry-run and apply the diff with patch)`;
  // No write bit at all is a read-only file even for root, who may write anything.
  if ((st.mode & 0o222) === 0) return 'the file is read-only: kubegrace does not change permissions (make it writable, or use --fix-dry-run)';
  try {
    fs.accessSync(file, fs.constants.W_OK);
  } catch {
    return 'the file is read-only: kubegrace does not change permissions (make it writable, or use --fix-dry-run)';
  }
  try {
    fs.accessSync(path.dirname(file), fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    return `the directory ${path.dirname(file)} is not writable, so the file cannot be replaced atomically (use --fix-dry-run)`;
  }
  return undefined;
}

/** Why a report cannot be written to `file`, or undefined (checked before linting). */
export function outputProblem(file: string): string | undefined {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file);
  } catch {
    st = undefined;
  }
  if (st?.isDirectory()) return 'is a directory: give a file name';
  if (st && !st.isFile()) return 'is not a regular file';
  // The nearest existing ancestor must let us create what is missing (mkdir -p) and the file.
  let dir = path.dirname(file);
  while (!fs.existsSync(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  try {
    if (!fs.statSync(dir).isDirectory()) return `${dir} is not a directory`;
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    return `the directory ${dir} is not writable`;
  }
  if (st) {
    try {
      fs.accessSync(file, fs.constants.W_OK);
    } catch {
      return 'the file is read-only';
    }
  }
  return undefined;
}

/** How long a run goes before the progress indicator appears (a short run never shows it). */
export const PROGRESS_DELAY_MS = 500;

export interface Progress {
  /** Files done of all (fractional within a large file as it is read), and the objects read so far. */
  update(done: number, total: number, objects?: number): void;
  /** Every file is read: the rules now run over these objects. */
  rules(objects: number): void;
  /** Erases the line, if one was drawn. */
  done(): void;
}

/**
 * A one-line progress indicator on stderr, only on a terminal and only once the run has taken
 * PROGRESS_DELAY_MS: files and objects done and the rate (updated within a large file as its
 * objects are read), then the rules phase; it redraws at most every 100 ms and erases itself
 * when done.
 */
export function progress(io: CliIO, total: number, now: () => number = Date.now): Progress | undefined {
  if (!io.stderrIsTTY || total === 0) return undefined;
  const start = now();
  let last = 0;
  let drawn = false;
  const draw = (line: string) => {
    drawn = true;
    io.stderr(`\r\u001b[2K${line}`);
  };
  const bar = (done: number, all: number) => {
    const width = 24;
    const fill = Math.round((done / all) * width);
    return `linting [${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${Math.floor(done)}/${all} files`;
  };
  return {
    update(done, all, objects) {
      const t = now();
      if (t - start < PROGRESS_DELAY_MS || (t - last < 100 && done < all)) return;
      last = t;
      const secs = (t - start) / 1000;
      const rate = objects !== undefined && secs > 0 ? `, ${Math.round(objects / secs)} objects/s` : '';
      draw(`${bar(done, all)}${objects !== undefined ? `, ${objects} objects` : ''}${rate}`);
    },
    rules(objects) {
      if (now() - start < PROGRESS_DELAY_MS) return;
      draw(`${bar(total, total)}, ${objects} objects read; running the rules`);
    },
    done() {
      if (drawn) io.stderr('\r\u001b[2K');
    },
  };
}
