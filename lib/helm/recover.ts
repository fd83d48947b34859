import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseDocument } from 'yaml';
import * as zlib from 'zlib';

/*
 * Per-template recovery for `helm template` (issue 12 item 14). helm executes a chart's templates
 * one after another and stops at the first that fails, so one failing template hides every other
 * template's documents. When a render fails, the failing template is found (helm names it, or a
 * bisection finds it when helm names only a helper), reported, and the chart is rendered again
 * without it, until the render succeeds or a bound on helm runs is reached.
 *
 * "Without it" is a mirror of the chart in a temporary directory: every entry is a symlink to the
 * original, except the directories on the way to a removed template, which are real directories
 * of symlinks. helm's loader follows symlinks, so the mirror is the same chart minus those files,
 * whatever the chart's size; the original is never written. Helpers (`_*.tpl`) are never removed:
 * helm does not render them on their own, and the templates that use them need them.
 */

/** A template helm renders on its own (not a `_*` helper), by its name in helm's messages and on disk. */
export interface ChartTemplate {
  /** The path after the top chart's name in helm's messages and `# Source:`: `templates/x.yaml`, `charts/<sub name>/templates/x.yaml`. */
  helmPath: string;
  /** The path relative to the chart directory (a subchart's directory name can differ from its name). */
  diskPath: string;
  /** In a packaged subchart: the archive (relative to the chart directory) and the entry's path in it. */
  archive?: { file: string; entry: string };
}

/** Directory entries read at most when listing a chart's templates (a bound, not a chart limit). */
const MAX_LISTED = 20000;
/** How deep subcharts (charts/x/charts/y/...) and template directories are followed. */
const MAX_DEPTH = 16;

/** The mirror of a chart could not be made (besides file-system errors, which carry their code). */
export class MirrorError extends Error {}

/** Most bytes unpacked from one packaged subchart (helm itself refuses charts over 20 MB packed). */
const MAX_UNPACKED = 64 * 1024 * 1024;

/** The regular files of a .tgz (ustar, with pax and GNU long names), by path; undefined when it cannot be read. */
export function readTgz(file: string): Map<string, Buffer> | undefined {
  let data: Buffer;
  try {
    data = zlib.gunzipSync(fs.readFileSync(file), { maxOutputLength: MAX_UNPACKED });
  } catch {
    return undefined;
  }
  const out = new Map<string, Buffer>();
  const str = (b: Buffer) => b.toString('utf8').replace(/\0.*$/s, '');
  let longName: string | undefined;
  for (let off = 0; off + 512 <= data.length; ) {
    const h = data.subarray(off, off + 512);
    if (h.every((x) => x === 0)) break;
    const size = parseInt(str(h.subarray(124, 136)).trim() || '0', 8);
    if (!Number.isFinite(size) || size < 0) return undefined;
    const type = String.fromCharCode(h[156] || 48);
    const body = data.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      if (m) longName = m[1];
      continue;
    }
    if (type === 'L') {
      longName = str(body);
      continue;
    }
    const prefix = str(h.subarray(345, 500));
    const name = longName ?? (prefix ? `${prefix}/${str(h.subarray(0, 100))}` : str(h.subarray(0, 100)));
    longName = undefined;
    if (type === '0' || type === '\0' || type === '7') out.set(name.replace(/^\.\//, ''), Buffer.from(body));
  }
  return out;
}

/** A safe relative path inside an archive (no absolute path, no `..`), else undefined. */
function safeEntry(p: string): string | undefined {
  const parts = p.split('/').filter((x) => x !== '' && x !== '.');
  return parts.length && !parts.includes('..') && !p.startsWith('/') ? parts.join('/') : undefined;
}

/** A packaged subchart: its chart name and top directory in the archive, or undefined. */
function tgzChart(files: Map<string, Buffer>): { name: string; top: string } | undefined {
  for (const [p, b] of files) {
    const m = /^([^/]+)\/Chart\.yaml$/.exec(p);
    if (!m) continue;
    try {
      const name = parseDocument(b.toString('utf8')).get('name');
      if (typeof name === 'string' && /^[^/\\\s]+$/.test(name)) return { name, top: m[1] };
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function chartName(dir: string): string | undefined {
  try {
    const name = parseDocument(fs.readFileSync(path.join(dir, 'Chart.yaml'), 'utf8')).get('name');
    return typeof name === 'string' && /^[^/\\\s]+$/.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * The templates helm renders for a chart directory and its subcharts (charts/<dir>/ with a
 * Chart.yaml, and charts/*.tgz), in helm's rendering order (helm 3 engine sortTemplates: more path
 * segments first, then reverse lexical order of the template name). A packaged subchart's templates
 * carry the archive: a mirror leaves them out by unpacking it. Subcharts packaged inside a packaged
 * subchart are not listed.
 */
export function listTemplates(chartDir: string): ChartTemplate[] {
  const out: ChartTemplate[] = [];
  let budget = MAX_LISTED;
  const seen = new Set<string>();
  const walkTemplates = (dir: string, helmPrefix: string, diskPrefix: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    let real: string;
    try {
      real = fs.realpathSync(dir);
    } catch {
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    let names: string[];
    try {
      names = fs.readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (--budget < 0) return;
      const p = path.join(dir, name);
      if (isDir(p)) walkTemplates(p, `${helmPrefix}${name}/`, `${diskPrefix}${name}/`, depth + 1);
      else if (!name.startsWith('_') && isFile(p)) out.push({ helmPath: `${helmPrefix}${name}`, diskPath: `${diskPrefix}${name}` });
    }
  };
  const walkChart = (dir: string, helmPrefix: string, diskPrefix: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    walkTemplates(path.join(dir, 'templates'), `${helmPrefix}templates/`, `${diskPrefix}templates/`, depth);
    let subs: string[];
    try {
      subs = fs.readdirSync(path.join(dir, 'charts')).sort();
    } catch {
      return;
    }
    for (const sub of subs) {
      const subDir = path.join(dir, 'charts', sub);
      if (/\.tgz$/.test(sub) && isFile(subDir)) {
        // A packaged subchart: its templates can be left out by unpacking it into the mirror.
        const files = readTgz(subDir);
        const c = files && tgzChart(files);
        if (!files || !c) continue;
        for (const entry of [...files.keys()].sort()) {
          const e = safeEntry(entry);
          const rest = e?.startsWith(`${c.top}/templates/`) ? e.slice(c.top.length + 1) : undefined;
          if (rest === undefined || path.posix.basename(rest).startsWith('_')) continue;
          out.push({ helmPath: `${helmPrefix}charts/${c.name}/${rest}`, diskPath: `${diskPrefix}charts/${sub}`, archive: { file: `${diskPrefix}charts/${sub}`, entry: rest } });
        }
        continue;
      }
      if (!isDir(subDir)) continue;
      const name = chartName(subDir);
      if (name !== undefined) walkChart(subDir, `${helmPrefix}charts/${name}/`, `${diskPrefix}charts/${sub}/`, depth + 1);
    }
  };
  walkChart(chartDir, '', '', 0);
  const segments = (s: string) => s.split('/').length;
  return out.sort((a, b) => segments(b.helmPath) - segments(a.helmPath) || (a.helmPath < b.helmPath ? 1 : a.helmPath > b.helmPath ? -1 : 0));
}

/**
 * A mirror of `chartDir` in a new temporary directory without the files `removed` (paths relative
 * to chartDir, `/`-separated): symlinks to the originals, real directories only on the way to a
 * removed file. Returns the mirror's chart directory; remove `root` when done (removing a symlink
 * never touches its target).
 */
export function mirrorChart(chartDir: string, removed: string[], unpack: Map<string, Set<string>> = new Map()): { root: string; dir: string } {
  const src = fs.realpathSync(chartDir);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kubegrace-chart-'));
  try {
    const dir = path.join(root, 'chart');
    // The tree of directories to materialise: each removed path's parent directories.
    interface Node {
      dirs: Map<string, Node>;
      drop: Set<string>;
    }
    const tree: Node = { dirs: new Map(), drop: new Set() };
    for (const rel of [...removed, ...unpack.keys()]) {
      const parts = rel.split('/');
      let n = tree;
      for (const part of parts.slice(0, -1)) {
        let next = n.dirs.get(part);
        if (!next) n.dirs.set(part, (next = { dirs: new Map(), drop: new Set() }));
        n = next;
      }
      n.drop.add(parts[parts.length - 1]);
    }
    const build = (from: string, to: string, n: Node): void => {
      fs.mkdirSync(to);
      for (const name of fs.readdirSync(from)) {
        if (n.drop.has(name)) continue;
        const sub = n.dirs.get(name);
        if (sub && isDir(path.join(from, name))) build(path.join(from, name), path.join(to, name), sub);
        else fs.symlinkSync(path.join(from, name), path.join(to, name));
      }
    };
    build(src, dir, tree);
    // Packaged subcharts with templates left out: unpacked next to where the archive was (helm loads
    // a directory in charts/ as it loads an archive), without those templates.
    for (const [archive, skip] of unpack) {
      const files = readTgz(path.join(src, archive));
      const c = files && tgzChart(files);
      if (!files || !c) throw new MirrorError(`cannot read the packaged subchart ${archive} again`);
      const to = path.join(dir, `${archive}.kubegrace-unpacked`);
      for (const [entry, data] of files) {
        const e = safeEntry(entry);
        if (!e || !e.startsWith(`${c.top}/`)) continue;
        const rest = e.slice(c.top.length + 1);
        if (skip.has(rest)) continue;
        fs.mkdirSync(path.dirname(path.join(to, rest)), { recursive: true });
        fs.writeFileSync(path.join(to, rest), data, { flag: 'wx' });
      }
    }
    return { root, dir };
  } catch (e) {
    fs.rmSync(root, { recursive: true, force: true });
    throw e;
  }
}

/** The outcome of one helm run: its output, or its error with the template helm names, if any. */
export type RenderAttempt = { ok: true; stdout: string } | { ok: false; stderr: string };

export interface RecoveryError<E> {
  error: E;
  /** The template left out of the next renders, if one was found. */
  template?: ChartTemplate;
  /** The template was found by bisection: helm's error names another file (a helper). */
  bisected?: boolean;
}

export interface RecoveryResult<E> {
  /** The output of the last, successful render; undefined when no render succeeded. */
  stdout?: string;
  /** Every failure, in the order found; each failing template once. */
  failures: RecoveryError<E>[];
  /** helm runs made. */
  runs: number;
  /** The bound was reached before a render succeeded. */
  exhausted: boolean;
}

export interface RecoveryOptions<E> {
  /** Renders the chart in `dir` (the original or a mirror). */
  render: (dir: string) => RenderAttempt;
  /** helm's error text as an error, and the template path it names (after the chart name), if any. */
  describe: (stderr: string) => { error: E; helmPath?: string };
  /** Most helm runs (the first render included). */
  maxRuns: number;
}

/**
 * Renders `chartDir`, leaving out failing templates one by one. A failure that names a template
 * leaves that template out; a failure that names only a helper (`{{ template "x" . }}` reports the
 * helper's line) or a packaged subchart is bisected over helm's rendering order: the shortest
 * prefix of the templates whose render fails ends in a template that fails on its own.
 */
export function renderWithRecovery<E>(chartDir: string, opts: RecoveryOptions<E>): RecoveryResult<E> {
  const failures: RecoveryError<E>[] = [];
  const removed: ChartTemplate[] = [];
  let runs = 0;
  let templates: ChartTemplate[] | undefined;
  const attempt = (without: ChartTemplate[]): RenderAttempt => {
    runs++;
    if (!without.length) return opts.render(chartDir);
    const unpack = new Map<string, Set<string>>();
    for (const t of without) if (t.archive) unpack.set(t.archive.file, (unpack.get(t.archive.file) ?? new Set()).add(t.archive.entry));
    const m = mirrorChart(
      chartDir,
      without.filter((t) => !t.archive).map((t) => t.diskPath),
      unpack,
    );
    try {
      return opts.render(m.dir);
    } finally {
      fs.rmSync(m.root, { recursive: true, force: true });
    }
  };
  for (;;) {
    if (runs >= opts.maxRuns) return { failures, runs, exhausted: true };
    const r = attempt(removed);
    if (r.ok) return { stdout: r.stdout, failures, runs, exhausted: false };
    const d = opts.describe(r.stderr);
    templates ??= listTemplates(chartDir);
    const named = d.helmPath !== undefined ? templates.find((t) => t.helmPath === d.helmPath && !removed.includes(t)) : undefined;
    if (named) {
      failures.push({ error: d.error, template: named });
      removed.push(named);
      continue;
    }
    // Only a failure at a template position is worth bisecting (a helper, a packaged subchart);
    // a chart-level failure (kubeVersion, dependencies, Chart.yaml) fails with every template left out.
    if (d.helmPath === undefined) {
      failures.push({ error: d.error });
      return { failures, runs, exhausted: false };
    }
    const order = templates.filter((t) => !removed.includes(t));
    // lo: a prefix length whose render succeeds; hi: one whose render fails (the whole order does).
    let lo = 0;
    let hi = order.length;
    let hiFailure = d;
    let bisected = true;
    const probe = (k: number): RenderAttempt | undefined => {
      if (runs >= opts.maxRuns) return undefined;
      return attempt([...removed, ...order.slice(k)]);
    };
    const none = probe(0);
    if (!none || !none.ok) {
      // Fails with every template left out (e.g. a helper that does not parse): nothing to recover.
      failures.push({ error: d.error });
      return { failures, runs, exhausted: !none };
    }
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      const p = probe(mid);
      if (!p) {
        bisected = false;
        break;
      }
      if (p.ok) lo = mid;
      else {
        hi = mid;
        hiFailure = opts.describe(p.stderr);
      }
    }
    if (!bisected || hi === 0) {
      failures.push({ error: d.error });
      return { failures, runs, exhausted: true };
    }
    const culprit = order[hi - 1];
    // The probe's error may name the culprit itself (another template failed first in the original order).
    failures.push({ error: hiFailure.error, template: culprit, bisected: hiFailure.helmPath !== culprit.helmPath });
    removed.push(culprit);
  }
}
