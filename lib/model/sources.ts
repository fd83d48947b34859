import { isAscii, isUtf8 } from 'buffer';
import * as fs from 'fs';
import * as path from 'path';
import { InputError } from './types';

/** A unit of input text: a file, stdin, or a rendered Helm chart. */
export interface Source {
  /** The name used in output: relative to the working directory when under it. */
  file: string;
  text: string;
  /** Absolute path on disk, if the text came from one file (absent for stdin and renders). */
  path?: string;
  /** Set for sources rendered from a Helm chart: the chart directory. */
  chart?: string;
  /**
   * The namespace the source's namespaced objects without metadata.namespace are created in: the
   * release namespace of a chart rendered with --namespace (helm install -n puts them there).
   */
  namespace?: string;
  /**
   * The namespace a file's namespaced objects without metadata.namespace are applied into
   * (`lint --namespace`, as `kubectl apply -n`): their identity only, the manifest as written (a
   * repair must not write the namespace into it, nor say that the manifest names it).
   */
  applyNamespace?: string;
  /** Set for a chart rendered without some of its templates (they failed to render): they are named. */
  partial?: string[];
  /**
   * Why --fix must not write this source back although it came from a file: some of its
   * documents could not be read (binary or non-UTF-8 bytes) and are blanked in `text`.
   */
  unwritable?: string;
  /** The exact bytes read (kept to check, before --fix renames, that the file did not change). */
  bytes?: Buffer;
}

/** Sources whose `text` is still exactly their bytes decoded as UTF-8 (see utf8Source). */
const UNDECODED = new WeakSet<Source>();
/** The bytes of such a source read as Latin-1 (one character a byte), once asked for. */
const LATIN1 = new WeakMap<Source, string>();

/**
 * A source whose text is its bytes decoded as UTF-8, decoded only when first asked for, so that a
 * reader that works from the bytes (a large JSON List: fast-json.ts; YAML: fast-yaml.ts) never
 * makes the whole text. The bytes may be traded for their Latin-1 reading (latin1Of).
 */
export function utf8Source(file: string, bytes: Buffer, path?: string): Source {
  let text: string | undefined;
  const src = { file, bytes } as Source;
  if (path !== undefined) src.path = path;
  Object.defineProperty(src, 'text', {
    enumerable: true,
    configurable: true,
    get: () => (text ??= decodeUtf8(src)),
    set: (v: string) => {
      UNDECODED.delete(src);
      LATIN1.delete(src);
      text = v;
    },
  });
  UNDECODED.add(src);
  return src;
}

/** Bytes decodeUtf8 checks at a time for characters outside ASCII. */
const ASCII_BLOCK = 64 * 1024;

/**
 * A utf8Source's text. From its Latin-1 reading when there is one (after the YAML fast path read
 * it): the ASCII characters are the text's, and each run of other bytes is whole UTF-8 sequences
 * (the bytes are valid UTF-8, and no sequence holds an ASCII byte), decoded alone, which costs
 * less than decoding the whole file when such runs are few (beyond one per 4 KiB on average, the
 * whole bytes are decoded).
 */
function decodeUtf8(src: Source): string {
  const l = LATIN1.get(src);
  if (l === undefined) return src.bytes!.toString('utf8');
  const whole = () => (src.bytes ?? Buffer.from(l, 'latin1')).toString('utf8');
  const re = /[\x80-\xff]+/g;
  const parts: string[] = [];
  const most = 64 + (l.length >> 12);
  let at = 0;
  // Blocks whose bytes are all ASCII are passed over by a native check; without the bytes, the
  // whole text is one block. (A run found past the block is found again from the next one.)
  const b = src.bytes;
  const block = b ? ASCII_BLOCK : l.length;
  for (let start = 0; start < l.length; start += block) {
    if (b && isAscii(b.subarray(start, start + block))) continue;
    re.lastIndex = Math.max(start, at);
    for (let m = re.exec(l); m && m.index < start + block; m = re.exec(l)) {
      if (parts.length > 2 * most) return whole();
      parts.push(l.slice(at, m.index), Buffer.from(m[0], 'latin1').toString('utf8'));
      at = re.lastIndex;
    }
  }
  if (!parts.length) return l;
  parts.push(l.slice(at));
  return parts.join('');
}

/**
 * The bytes of a source whose text is exactly their UTF-8 decoding (a utf8Source whose text was
 * not replaced; a copy made with another text is not one), else undefined.
 */
export function utf8Bytes(s: Source): Buffer | undefined {
  return UNDECODED.has(s) ? s.bytes : undefined;
}

/**
 * The bytes of such a source read as Latin-1: a one-byte string as long as the file, where every
 * ASCII character is where it is in the bytes and the bytes come back exactly with
 * Buffer.from(x, 'latin1'). With `release`, the source keeps that string instead of its bytes
 * (`bytes` is dropped: only --fix needs them, to check the file before writing it), so the file
 * is not held twice.
 */
export function latin1Of(s: Source, release: boolean): string | undefined {
  if (!UNDECODED.has(s)) return undefined;
  let l = LATIN1.get(s);
  if (l === undefined) {
    if (!s.bytes) return undefined;
    l = s.bytes.toString('latin1');
    LATIN1.set(s, l);
  }
  if (release) s.bytes = undefined;
  return l;
}

/**
 * The Latin-1 reading of a utf8Source's bytes when a reader has made it already (latin1Of), and
 * its text is still their decoding; else undefined. Nothing is made here.
 */
export function latin1Made(s: Source): string | undefined {
  return UNDECODED.has(s) ? LATIN1.get(s) : undefined;
}

/** Files read in chunks (fileSource): where they are, how they were when checked, and whether JSON. */
interface Streamed {
  path: string;
  size: number;
  mtimeMs: number;
  /** The first character after a byte-order mark and blanks is `{`. */
  json: boolean;
}
const STREAMED = new WeakMap<Source, Streamed>();

/**
 * A large file checked to be UTF-8 without NUL bytes, but not kept: a reader that can read it
 * in chunks (a JSON List: fast-json.ts's parseJsonListFile; YAML: fast-yaml.ts's parseYamlFile)
 * reads it from disk, and its text is read whole only if asked for. Only for the plain lint
 * (`stream`): --fix compares the bytes it read with the file before writing.
 */
function fileSource(file: string, stamp: Streamed): Source {
  let text: string | undefined;
  const src = { file, path: stamp.path } as Source;
  Object.defineProperty(src, 'text', {
    enumerable: true,
    configurable: true,
    get: () => (text ??= fs.readFileSync(stamp.path).toString('utf8')),
    set: (v: string) => {
      STREAMED.delete(src);
      text = v;
    },
  });
  STREAMED.set(src, stamp);
  return src;
}

/** The file behind a source read in chunks, while its text is the file's. */
export function streamedFile(s: Source): Streamed | undefined {
  return STREAMED.get(s);
}

/** Files from this size up are checked in chunks and not kept, when `stream`. */
export const STREAM_FROM_BYTES = 32 * 1024 * 1024;

/**
 * Whether the file at `fd` (of `size` bytes) is UTF-8 without NUL bytes throughout, read in
 * chunks and not kept: 'json' when it starts like JSON (`{` after a byte-order mark and
 * blanks), else 'yaml'; undefined when it is not plain UTF-8.
 */
function plainUtf8File(fd: number, size: number): 'json' | 'yaml' | undefined {
  const CHUNK = 8 * 1024 * 1024;
  const buf = Buffer.allocUnsafe(CHUNK + 4);
  let carry = 0;
  let at = 0;
  let kind: 'json' | 'yaml' | undefined;
  for (;;) {
    const n = fs.readSync(fd, buf, carry, CHUNK, at);
    at += n;
    const len = carry + n;
    if (kind === undefined) {
      let i = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
      while (i < len && (buf[i] === 0x20 || buf[i] === 0x0a || buf[i] === 0x0d || buf[i] === 0x09)) i++;
      kind = i < len && buf[i] === 0x7b ? 'json' : 'yaml';
    }
    if (n === 0) return carry === 0 && at === size ? kind : undefined;
    // Keep an incomplete UTF-8 sequence at the end for the next chunk (at most 3 bytes).
    let end = len;
    if (at < size) {
      let k = len - 1;
      while (k > len - 4 && k >= 0 && (buf[k] & 0xc0) === 0x80) k--;
      if (k >= 0 && buf[k] >= 0xc0) {
        const need = buf[k] >= 0xf0 ? 4 : buf[k] >= 0xe0 ? 3 : 2;
        if (len - k < need) end = k;
      }
    }
    const part = buf.subarray(0, end);
    if (part.includes(0) || !isUtf8(part)) return undefined;
    carry = len - end;
    buf.copy(buf, 0, end, len);
  }
}

/** Bytes that decode as UTF-8 exactly (no NUL, valid UTF-8: decodeBytes's common case). */
export function isPlainUtf8(bytes: Buffer): boolean {
  return !bytes.includes(0) && isUtf8(bytes);
}

/** Files larger than this are refused unless --max-file-size says otherwise. */
export const DEFAULT_MAX_FILE_SIZE = 64 * 1024 * 1024;

export const STDIN_NAME = '<stdin>';
const MANIFEST_EXT = /\.(ya?ml|json)$/i;

export interface ChartRenderer {
  (chartDir: string, displayName: string): { sources: Source[]; errors: InputError[] };
}

export interface CollectOptions {
  cwd?: string;
  /** stdin: bytes (checked like a file) or, from tests, text. */
  readStdin?: () => string | Buffer;
  /** Renders a Helm chart directory; without it a chart directory is an error. */
  renderChart?: ChartRenderer;
}

export function displayName(p: string, cwd: string): string {
  const rel = path.relative(cwd, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : p;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function lineColAt(bytes: Buffer, at: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = bytes.indexOf(10); i !== -1 && i < at; i = bytes.indexOf(10, i + 1)) {
    line++;
    lineStart = i + 1;
  }
  // Columns count characters; the bytes before `at` on this line are valid UTF-8 up to the bad one.
  const before = bytes.subarray(lineStart, at).toString('utf8');
  return { line, column: [...before].length + 1 };
}

/** Offset of the first byte that is not valid UTF-8 (or -1). */
function firstInvalidUtf8(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    let n = 0;
    let min = 0;
    if (c < 0x80) {
      i++;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) (n = 1), (min = 0x80);
    else if (c >= 0xe0 && c <= 0xef) (n = 2), (min = 0x800);
    else if (c >= 0xf0 && c <= 0xf4) (n = 3), (min = 0x10000);
    else return i;
    if (i + n >= b.length) return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || (d & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}

/** Byte offsets where YAML documents start: 0 and each line that begins with `---`. */
function documentStarts(b: Buffer): number[] {
  const starts = [0];
  let i = 0;
  while (i < b.length) {
    const nl = b.indexOf(10, i);
    const next = nl === -1 ? b.length : nl + 1;
    if (i > 0 && b[i] === 0x2d && b[i + 1] === 0x2d && b[i + 2] === 0x2d && (i + 3 >= b.length || [0x20, 0x09, 0x0a, 0x0d].includes(b[i + 3]))) starts.push(i);
    i = next;
  }
  return starts;
}

export interface Decoded {
  /** The text, with unreadable documents replaced by as many empty lines (positions stay). */
  text?: string;
  /** The whole input is unreadable (binary, UTF-16): one problem for the file. */
  problem?: string;
  /** Documents that could not be read, located; the others are in `text`. */
  errors: Array<{ line: number; column: number; message: string }>;
}

/**
 * Decodes bytes as UTF-8 text. Binary data, UTF-16 and invalid UTF-8 are refused per YAML
 * document: a document with a NUL byte or a Latin-1 character becomes an error at that byte,
 * and the other documents of the file are still read.
 */
export function decodeBytes(bytes: Buffer): Decoded {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { problem: 'UTF-16 text (byte-order mark), not UTF-8: Kubernetes manifests must be UTF-8; re-encode the file, e.g. iconv -f UTF-16 -t UTF-8', errors: [] };
  }
  if (bytes.length >= 4 && ((bytes[0] !== 0 && bytes[1] === 0 && bytes[2] !== 0 && bytes[3] === 0) || (bytes[0] === 0 && bytes[1] !== 0 && bytes[2] === 0 && bytes[3] !== 0))) {
    return { problem: 'UTF-16 text (no byte-order mark), not UTF-8: Kubernetes manifests must be UTF-8; re-encode the file, e.g. iconv -f UTF-16 -t UTF-8', errors: [] };
  }
  // The common case, checked natively: no NUL byte and valid UTF-8 (surrogates and overlong forms
  // refused, as firstInvalidUtf8 does).
  if (isPlainUtf8(bytes)) return { text: bytes.toString('utf8'), errors: [] };
  const starts = documentStarts(bytes);
  const parts: string[] = [];
  const errors: Decoded['errors'] = [];
  for (let d = 0; d < starts.length; d++) {
    const chunk = bytes.subarray(starts[d], d + 1 < starts.length ? starts[d + 1] : bytes.length);
    const nul = chunk.indexOf(0);
    const bad = nul !== -1 ? nul : firstInvalidUtf8(chunk);
    if (bad === -1) {
      parts.push(UTF8.decode(chunk));
      continue;
    }
    const pos = lineColAt(bytes, starts[d] + bad);
    if (nul !== -1) {
      if (starts.length === 1) return { problem: 'binary file (contains NUL bytes), not YAML or JSON; remove it from the paths to lint', errors: [] };
      errors.push({ ...pos, message: `this document contains a NUL byte, so it is not YAML text; the other documents of the file are still linted (remove the bytes, or the document)` });
    } else {
      errors.push({ ...pos, message: `this document is not valid UTF-8 (byte 0x${chunk[bad].toString(16).toUpperCase().padStart(2, '0')}; Latin-1?): Kubernetes manifests must be UTF-8; re-encode the file (e.g. iconv -f LATIN1 -t UTF-8); the other documents are still linted` });
    }
    let lines = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    parts.push('\n'.repeat(lines));
  }
  return { text: parts.join(''), errors };
}

/** Decodes bytes as UTF-8 text; refuses binary data and invalid UTF-8 (the whole input). */
export function decodeText(bytes: Buffer): { text?: string; problem?: string } {
  const d = decodeBytes(bytes);
  if (d.problem) return { problem: d.problem };
  if (d.errors.length) return { problem: d.errors[0].message };
  return { text: d.text };
}

function errnoMessage(e: unknown, what: string): string {
  const code = (e as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory; check the path';
    case 'ELOOP':
      return 'symbolic link loop (too many levels of symbolic links); fix or remove the link';
    case 'EACCES':
    case 'EPERM':
      return `permission denied: cannot read this ${what}; check its permissions (the other paths are still linted)`;
    case 'ENOTDIR':
      return 'a path component is not a directory; check the path';
    case 'EISDIR':
      return 'is a directory';
    default:
      return `cannot read this ${what}: ${code ?? (e as Error).message}; check the path and its permissions`;
  }
}

function kindOf(st: fs.Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

function formatSize(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(n % (1024 * 1024) ? 1 : 0)} MB` : `${Math.ceil(n / 1024)} KB`;
}

/**
 * What to do about an input over the limit: the --max-file-size that reads it (the next power of
 * two in MB at or above its size, as `--max-file-size` writes sizes), when its size is known and
 * within the option's 4GB bound.
 */
function raiseLimit(size: number | undefined): string {
  const mb = size === undefined ? undefined : 2 ** Math.ceil(Math.log2(Math.max(1, size / 1024 ** 2)));
  if (mb === undefined || mb > 4096) return 'raise --max-file-size if it is genuine';
  return `if it is genuine, raise the limit: --max-file-size ${mb >= 1024 ? `${mb / 1024}GB` : `${mb}MB`}`;
}

interface WalkOut {
  files: Array<{ path: string; st: fs.Stats; link: boolean }>;
  charts: string[];
  errors: InputError[];
}

function walk(dir: string, seen: Set<string>, out: WalkOut, cwd: string): void {
  let real: string;
  try {
    real = fs.realpathSync(dir);
  } catch (e) {
    out.errors.push({ file: displayName(dir, cwd), line: 1, column: 1, message: errnoMessage(e, 'directory') });
    return;
  }
  if (seen.has(real)) return;
  seen.add(real);
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (e) {
    out.errors.push({ file: displayName(dir, cwd), line: 1, column: 1, message: errnoMessage(e, 'directory') });
    return;
  }
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    if (!e.isDirectory() && !e.isSymbolicLink() && !MANIFEST_EXT.test(e.name)) continue;
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch (err) {
      // A dangling link or a loop: only worth an error when it looks like a manifest.
      if (MANIFEST_EXT.test(e.name)) out.errors.push({ file: displayName(p, cwd), line: 1, column: 1, message: errnoMessage(err, 'file') });
      continue;
    }
    if (st.isDirectory()) {
      if (fs.existsSync(path.join(p, 'Chart.yaml'))) out.charts.push(p);
      else walk(p, seen, out, cwd);
    } else if (MANIFEST_EXT.test(e.name)) {
      out.files.push({ path: p, st, link: e.isSymbolicLink() });
    }
  }
}

/** The Helm chart whose templates/ directory holds `abs` (or is it), if any. */
export function chartOfTemplates(abs: string): string | undefined {
  let dir = abs;
  for (;;) {
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    if (path.basename(dir) === 'templates' && fs.existsSync(path.join(parent, 'Chart.yaml'))) return parent;
    dir = parent;
  }
}

export interface ReadLimits {
  /** Largest file read, in bytes. */
  maxFileSize?: number;
  /**
   * A file from `streamFrom` bytes (STREAM_FROM_BYTES) up is checked in chunks and not kept in
   * memory (fileSource): the plain lint, which writes nothing back.
   */
  stream?: boolean;
  streamFrom?: number;
}

/**
 * Expands the CLI's PATH arguments into sources. Unreadable paths become errors; every readable
 * file is still returned, so one bad path never hides the findings of the others. The same file
 * named twice (`dir dir/a.yaml`, `a.yaml ./a.yaml`, a link to it) is read once.
 */
export function collectSources(paths: string[], opts: CollectOptions & ReadLimits = {}): { sources: Source[]; errors: InputError[] } {
  const cwd = opts.cwd ?? process.cwd();
  const maxSize = opts.maxFileSize ?? DEFAULT_MAX_FILE_SIZE;
  const sources: Source[] = [];
  const errors: InputError[] = [];
  const seenFiles = new Set<string>();
  const seenDirs = new Set<string>();
  const seenCharts = new Set<string>();
  const addDecoded = (bytes: Buffer, shown: string, abs?: string): void => {
    if (isPlainUtf8(bytes)) {
      sources.push(utf8Source(shown, bytes, abs));
      return;
    }
    const d = decodeBytes(bytes);
    if (d.problem) {
      errors.push({ file: shown, line: 1, column: 1, message: d.problem });
      return;
    }
    for (const e of d.errors) errors.push({ file: shown, ...e });
    const src: Source = { file: shown, text: d.text!, bytes };
    if (abs !== undefined) src.path = abs;
    if (d.errors.length) src.unwritable = 'some of its documents could not be read (see the errors above), so --fix leaves the file as it is';
    sources.push(src);
  };
  const readFile = (abs: string, shown: string, st: fs.Stats): void => {
    const id = `${st.dev}:${st.ino}`;
    if (seenFiles.has(id)) return;
    seenFiles.add(id);
    if (!st.isFile()) {
      errors.push({ file: shown, line: 1, column: 1, message: `${kindOf(st)}, not a regular file: kubegrace reads only regular files (and - for stdin); pipe it in with - if you mean it` });
      return;
    }
    if (st.size > maxSize) {
      errors.push({ file: shown, line: 1, column: 1, message: `file is ${formatSize(st.size)}, over the size limit of ${formatSize(maxSize)}; split it, or ${raiseLimit(st.size)}` });
      return;
    }
    if (opts.stream && st.size >= (opts.streamFrom ?? STREAM_FROM_BYTES)) {
      let fd: number | undefined;
      try {
        fd = fs.openSync(abs, 'r');
        const now = fs.fstatSync(fd);
        const kind = plainUtf8File(fd, now.size);
        if (kind) {
          sources.push(fileSource(shown, { path: abs, size: now.size, mtimeMs: now.mtimeMs, json: kind === 'json' }));
          return;
        }
      } catch {
        // Read whole below, where a problem is reported.
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    }
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(abs);
    } catch (e) {
      errors.push({ file: shown, line: 1, column: 1, message: errnoMessage(e, 'file') });
      return;
    }
    if (bytes.length > maxSize) {
      errors.push({ file: shown, line: 1, column: 1, message: `file is ${formatSize(bytes.length)}, over the size limit of ${formatSize(maxSize)}; split it, or ${raiseLimit(bytes.length)}` });
      return;
    }
    addDecoded(bytes, shown, abs);
  };
  const renderChart = (dir: string): void => {
    let real = dir;
    try {
      real = fs.realpathSync(dir);
    } catch {
      /* rendered anyway; the renderer reports it */
    }
    if (seenCharts.has(real)) return;
    seenCharts.add(real);
    const shown = displayName(dir, cwd);
    if (!opts.renderChart) {
      errors.push({ file: shown, line: 1, column: 1, message: 'this is a Helm chart directory; rendering charts is not available here, lint `helm template` output instead' });
      return;
    }
    const r = opts.renderChart(dir, shown);
    sources.push(...r.sources);
    errors.push(...r.errors);
  };
  let stdinRead = false;
  // Links found while walking come last, so a file reached both directly and through a link
  // is reported under its own name.
  const walkedLinks: Array<{ path: string; st: fs.Stats }> = [];
  for (const p of paths) {
    if (p === '-') {
      if (stdinRead) continue;
      stdinRead = true;
      const raw = (opts.readStdin ?? (() => fs.readFileSync(0)))();
      // (A reader that gives text, as tests and API callers may, is held to the limit in UTF-8 bytes too.)
      const size = typeof raw === 'string' ? Buffer.byteLength(raw, 'utf8') : raw.length;
      if (size > maxSize) errors.push({ file: STDIN_NAME, line: 1, column: 1, message: `stdin is ${formatSize(size)}, over the size limit of ${formatSize(maxSize)}; ${raiseLimit(size)}` });
      else if (typeof raw === 'string') sources.push({ file: STDIN_NAME, text: raw });
      else addDecoded(raw, STDIN_NAME);
      continue;
    }
    const abs = path.resolve(cwd, p);
    // Chart templates are Go templates, not YAML: one clear error instead of a syntax error per template.
    const chart = chartOfTemplates(abs);
    if (chart !== undefined) {
      const shown = displayName(chart, cwd);
      errors.push({ file: p, line: 1, column: 1, message: `this is inside the templates/ directory of the Helm chart ${shown}: templates are not YAML until rendered; lint the chart directory instead: kubegrace lint ${shown}` });
      continue;
    }
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch (e) {
      errors.push({ file: p, line: 1, column: 1, message: errnoMessage(e, 'file') });
      continue;
    }
    if (st.isDirectory()) {
      if (fs.existsSync(path.join(abs, 'Chart.yaml'))) {
        renderChart(abs);
        continue;
      }
      const out: WalkOut = { files: [], charts: [], errors: [] };
      walk(abs, seenDirs, out, cwd);
      errors.push(...out.errors);
      for (const f of out.files) {
        if (f.link) walkedLinks.push(f);
        else readFile(f.path, displayName(f.path, cwd), f.st);
      }
      for (const c of out.charts) renderChart(c);
    } else {
      readFile(abs, displayName(abs, cwd), st);
    }
  }
  for (const f of walkedLinks) readFile(f.path, displayName(f.path, cwd), f.st);
  return { sources, errors };
}
