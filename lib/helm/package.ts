import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as tarStream from 'tar-stream';
import * as zlib from 'zlib';
import { isAlias, isMap, isScalar, LineCounter, parseDocument } from 'yaml';

/*
 * Reproducible chart packages in the layout `helm package` writes: a gzipped tar of
 * `<name>/<path>` entries, regular files only (helm writes no directory entries), mode 0644,
 * uid/gid 0, empty uname/gname. Unlike `helm package` (which stamps time.Now() into every entry),
 * every entry gets one fixed mtime, entries are sorted, and the gzip header carries no time, so
 * the same chart gives the same bytes on every run.
 */

/** A chart that cannot be packaged or read: the message names the file and what to fix. */
export class ChartError extends Error {}

/** Default timestamp for packages and indexes when SOURCE_DATE_EPOCH is unset (the zip epoch). */
export const FIXED_DATE = new Date('1980-01-01T00:00:00Z');

/**
 * The build timestamp: SOURCE_DATE_EPOCH (https://reproducible-builds.org/specs/source-date-epoch/,
 * integer seconds since 1970) if set, else FIXED_DATE. A malformed value is an error, as the spec asks.
 */
export function buildDate(env: NodeJS.ProcessEnv = process.env): Date {
  const raw = env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === '') return FIXED_DATE;
  if (!/^\d+$/.test(raw.trim())) throw new ChartError(`SOURCE_DATE_EPOCH=${raw} is not an integer number of seconds since 1970-01-01; fix or unset it`);
  return new Date(Number(raw.trim()) * 1000);
}

// ---------------------------------------------------------------------------------------------
// Chart.yaml

export interface ChartMaintainer {
  name?: string;
  email?: string;
  url?: string;
}

export interface ChartDependency {
  name: string;
  version?: string;
  repository: string;
  condition?: string;
  tags?: string[];
  enabled?: boolean;
  'import-values'?: unknown[];
  'export-values'?: unknown[];
  alias?: string;
}

/** The fields of Helm's chart.Metadata (JSON names); other Chart.yaml keys are dropped, as helm does. */
export interface ChartMetadata {
  apiVersion: string;
  name: string;
  version: string;
  appVersion?: string;
  description?: string;
  kubeVersion?: string;
  type?: string;
  home?: string;
  icon?: string;
  condition?: string;
  tags?: string;
  sources?: string[];
  keywords?: string[];
  maintainers?: ChartMaintainer[];
  annotations?: Record<string, string>;
  deprecated?: boolean;
  dependencies?: ChartDependency[];
}

/** https://semver.org/#is-there-a-suggested-regular-expression-regex-to-check-a-semver-string */
export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** Masterminds/semver's loose form, which helm accepts in charts it did not build: `v1.2`, `1.2.3-rc.1`. */
export const LOOSE_SEMVER = /^v?(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** The characters `helm create` accepts in a chart name (pkg/chartutil chartName); "." and ".." are refused by helm's loader. */
export const CHART_NAME = /^[a-zA-Z0-9._-]+$/;
const MAX_NAME = 250;

/** Helm's sanitizeString: whitespace becomes a space, other non-printable characters go. */
function sanitize(s: string): string {
  return s.replace(/\s/g, ' ').replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cn}]/gu, '');
}

/**
 * Reads a Chart.yaml into Helm's metadata shape and validates what a package needs: apiVersion v2,
 * a name helm accepts, a SemVer 2 version, a known type. Scalars are read as written (an unquoted
 * `appVersion: 1.10` stays "1.10", not the number 1.1). `existing: true` is for archives built
 * elsewhere (the repository index): Helm 2 `apiVersion: v1` and helm's loose versions (`v1.2.3`) pass.
 */
export function parseChartYaml(text: string, file: string, opts: { existing?: boolean } = {}): ChartMetadata {
  const lc = new LineCounter();
  const doc = parseDocument(text.replace(/^\uFEFF/, ''), { lineCounter: lc, prettyErrors: false });
  const where = (offset: number | undefined): string => {
    if (offset === undefined) return file;
    const p = lc.linePos(offset);
    return `${file}:${p.line}:${p.col}`;
  };
  if (doc.errors.length) throw new ChartError(`${where(doc.errors[0].pos[0])}: not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
  if (!isMap(doc.contents)) throw new ChartError(`${file}: must be a YAML mapping with apiVersion, name and version`);
  const top = doc.contents;
  // Aliases (`version: *version`) resolve to the anchored node.
  const nodeAt = (key: string): unknown => {
    const n: unknown = top.get(key, true);
    return isAlias(n) ? n.resolve(doc) : n;
  };
  const offsetOf = (key: string): number | undefined => {
    const n = nodeAt(key) as { range?: [number, number, number] } | undefined;
    return n?.range?.[0];
  };
  /** A scalar's text as written, so numbers keep their spelling. */
  const scalarText = (n: unknown, key: string): string | undefined => {
    if (n === undefined || n === null) return undefined;
    if (!isScalar(n)) throw new ChartError(`${where((n as { range?: number[] }).range?.[0])}: ${key} must be a string`);
    if (n.value === null) return undefined;
    if (typeof n.value === 'string') return n.value;
    return n.source ?? String(n.value);
  };
  const str = (key: string): string | undefined => {
    const v = scalarText(nodeAt(key), key);
    return v === undefined ? undefined : sanitize(v);
  };
  const strList = (v: unknown, key: string): string[] | undefined => {
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) throw new ChartError(`${where(offsetOf(key))}: ${key} must be a list of strings`);
    return v.map((x) => sanitize(String(x)));
  };
  const js = doc.toJS() as Record<string, unknown>;

  const apiVersion = str('apiVersion');
  if (!apiVersion) throw new ChartError(`${file}: apiVersion is missing; set apiVersion: v2`);
  if (apiVersion !== 'v2' && !(opts.existing && apiVersion === 'v1')) throw new ChartError(`${where(offsetOf('apiVersion'))}: apiVersion ${apiVersion} is not supported; charts must be apiVersion: v2 (Helm 3)`);
  const name = str('name');
  if (!name) throw new ChartError(`${file}: name is missing; set the chart name`);
  if (!CHART_NAME.test(name) || name === '.' || name === '..' || name.length > MAX_NAME) {
    throw new ChartError(`${where(offsetOf('name'))}: chart name "${name}" is invalid: use letters, digits, ".", "_" and "-" (Helm recommends lower case and dashes), at most ${MAX_NAME} characters`);
  }
  const versionNode = nodeAt('version');
  if (versionNode === undefined) throw new ChartError(`${file}: version is missing; set a SemVer 2 version such as 0.1.0`);
  if (isScalar(versionNode) && typeof versionNode.value !== 'string' && !opts.existing) {
    throw new ChartError(`${where(offsetOf('version'))}: version must be a SemVer 2 string such as 1.2.3 (got ${versionNode.source ?? String(versionNode.value)}, which YAML reads as a ${typeof versionNode.value})`);
  }
  const version = scalarText(versionNode, 'version') ?? '';
  if (!(opts.existing ? LOOSE_SEMVER : SEMVER).test(version)) throw new ChartError(`${where(offsetOf('version'))}: version "${version}" is not SemVer 2 (MAJOR.MINOR.PATCH with optional -prerelease and +build, no leading "v")`);

  const meta: ChartMetadata = { apiVersion, name, version };
  for (const key of ['appVersion', 'description', 'kubeVersion', 'type', 'home', 'icon', 'condition', 'tags'] as const) {
    const v = str(key);
    if (v) meta[key] = v;
  }
  if (meta.type !== undefined && meta.type !== 'application' && meta.type !== 'library') {
    throw new ChartError(`${where(offsetOf('type'))}: type must be application or library (got "${meta.type}")`);
  }
  const sources = strList(js.sources, 'sources');
  if (sources?.length) meta.sources = sources;
  const keywords = strList(js.keywords, 'keywords');
  if (keywords?.length) meta.keywords = keywords;
  if (js.deprecated !== undefined && js.deprecated !== null) {
    if (typeof js.deprecated !== 'boolean') throw new ChartError(`${where(offsetOf('deprecated'))}: deprecated must be true or false`);
    if (js.deprecated) meta.deprecated = true;
  }
  if (js.annotations !== undefined && js.annotations !== null) {
    if (typeof js.annotations !== 'object' || Array.isArray(js.annotations)) throw new ChartError(`${where(offsetOf('annotations'))}: annotations must be a mapping of strings`);
    const ann: Record<string, string> = {};
    const annNode = nodeAt('annotations');
    for (const [k, v] of Object.entries(js.annotations as Record<string, unknown>)) {
      const n = isMap(annNode) ? annNode.get(k, true) : undefined;
      ann[k] = isScalar(n) && typeof n.value !== 'string' && n.source !== undefined ? n.source : String(v ?? '');
    }
    if (Object.keys(ann).length) meta.annotations = ann;
  }
  if (js.maintainers !== undefined && js.maintainers !== null) {
    if (!Array.isArray(js.maintainers)) throw new ChartError(`${where(offsetOf('maintainers'))}: maintainers must be a list`);
    meta.maintainers = js.maintainers.map((m, i) => {
      if (!m || typeof m !== 'object') throw new ChartError(`${where(offsetOf('maintainers'))}: maintainers[${i}] must be a mapping with name, email, url`);
      const out: ChartMaintainer = {};
      for (const k of ['name', 'email', 'url'] as const) {
        const v = (m as Record<string, unknown>)[k];
        if (v !== undefined && v !== null && v !== '') out[k] = sanitize(String(v));
      }
      return out;
    });
  }
  if (js.dependencies !== undefined && js.dependencies !== null) {
    if (!Array.isArray(js.dependencies)) throw new ChartError(`${where(offsetOf('dependencies'))}: dependencies must be a list`);
    meta.dependencies = js.dependencies.map((d, i) => {
      const o = (d && typeof d === 'object' ? d : {}) as Record<string, unknown>;
      if (typeof o.name !== 'string' || !o.name) throw new ChartError(`${where(offsetOf('dependencies'))}: dependencies[${i}] needs a name`);
      const dep: ChartDependency = { name: sanitize(o.name), repository: sanitize(String(o.repository ?? '')) };
      if (o.version !== undefined && o.version !== null && o.version !== '') dep.version = sanitize(String(o.version));
      if (typeof o.condition === 'string' && o.condition) dep.condition = sanitize(o.condition);
      if (Array.isArray(o.tags) && o.tags.length) dep.tags = o.tags.map((t) => sanitize(String(t)));
      if (o.enabled === true) dep.enabled = true;
      if (Array.isArray(o['import-values']) && o['import-values'].length) dep['import-values'] = o['import-values'];
      if (Array.isArray(o['export-values']) && o['export-values'].length) dep['export-values'] = o['export-values'];
      if (typeof o.alias === 'string' && o.alias) dep.alias = o.alias;
      return dep;
    });
  }
  return meta;
}

// ---------------------------------------------------------------------------------------------
// .helmignore

interface IgnoreRule {
  raw: string;
  negate: boolean;
  mustDir: boolean;
  /** 'base': match the file name only; 'path': match the path relative to the chart. */
  scope: 'base' | 'path';
  re: RegExp;
}

/**
 * Go's path/filepath.Match pattern as an anchored RegExp: `*` and `?` never match "/", `[...]`
 * classes with ranges and `^` negation, `\` escapes. A malformed pattern throws, as helm refuses it.
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\') {
      if (i + 1 >= glob.length) throw new Error('syntax error in pattern (trailing \\)');
      re += escapeRe(glob[++i]);
    } else if (c === '[') {
      let j = i + 1;
      let cls = '';
      if (glob[j] === '^') {
        cls += '^';
        j++;
      }
      let ranges = 0;
      for (;;) {
        if (j >= glob.length) throw new Error('syntax error in pattern (unclosed [)');
        if (glob[j] === ']' && ranges > 0) break;
        let lo = glob[j++];
        if (lo === '\\') {
          if (j >= glob.length) throw new Error('syntax error in pattern');
          lo = glob[j++];
        } else if (lo === ']' || lo === '-') throw new Error('syntax error in pattern');
        cls += escapeClass(lo);
        if (glob[j] === '-' && glob[j + 1] !== undefined && glob[j + 1] !== ']') {
          j++;
          let hi = glob[j++];
          if (hi === '\\') hi = glob[j++] ?? '';
          if (!hi || hi === ']' || hi === '-') throw new Error('syntax error in pattern (bad range)');
          // Go accepts a reversed range and it matches nothing; a RegExp would throw.
          if (hi >= lo) cls += `-${escapeClass(hi)}`;
          else cls = cls.slice(0, -escapeClass(lo).length);
        }
        ranges++;
      }
      // Go's classes never match the separator either.
      re += `(?!/)[${cls}]`;
      i = j;
    } else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`, 'u');
}

function escapeRe(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

function escapeClass(c: string): string {
  return /[\]\\^-]/.test(c) ? `\\${c}` : c;
}

function parseRule(line: string): IgnoreRule | undefined {
  let rule = line.trim();
  if (!rule || rule.startsWith('#')) return undefined;
  if (rule.includes('**')) throw new Error('double-star (**) syntax is not supported');
  const raw = rule;
  const negate = rule.startsWith('!');
  if (negate) rule = rule.slice(1);
  const mustDir = rule.endsWith('/');
  if (mustDir) rule = rule.slice(0, -1);
  let scope: IgnoreRule['scope'] = 'base';
  if (rule.startsWith('/')) {
    scope = 'path';
    rule = rule.slice(1);
  } else if (rule.includes('/')) scope = 'path';
  return { raw, negate, mustDir, scope, re: globToRegExp(rule) };
}

/**
 * Parses .helmignore text with the semantics of Helm 3's pkg/ignore (not .gitignore's): one glob per
 * line (Go filepath.Match: `*`, `?`, `[...]`, `\`), `#` comments, a trailing `/` matches directories
 * only, a pattern without `/` matches the base name at any depth, one with `/` (or a leading `/`)
 * matches the whole path from the chart root, `**` is an error. Rules are evaluated in order and the
 * first match wins; a `!pattern` rule, as in helm, ignores every path that does NOT match it.
 * Helm's default rule `templates/.?*` (dot files in templates/) is appended.
 */
export function parseHelmignore(text: string, file = '.helmignore'): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    try {
      const r = parseRule(line);
      if (r) rules.push(r);
    } catch (e) {
      throw new ChartError(`${file}:${i + 1}: ${(e as Error).message}: "${line.trim()}"`);
    }
  });
  rules.push(parseRule('templates/.?*')!);
  return rules;
}

/** Whether the chart-relative path (with "/") is ignored; the order of evaluation is helm's. */
export function isIgnored(rules: IgnoreRule[], rel: string, isDir: boolean): boolean {
  if (rel === '' || rel === '.' || rel === './') return false;
  for (const r of rules) {
    const subject = r.scope === 'base' ? rel.slice(rel.lastIndexOf('/') + 1) : rel;
    if (r.negate) {
      if (r.mustDir && !isDir) return true;
      if (!r.re.test(subject)) return true;
      continue;
    }
    if (r.mustDir && !isDir) continue;
    if (r.re.test(subject)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Files of a chart

export interface ChartFile {
  /** Path relative to the chart directory, with "/". */
  rel: string;
  data: Buffer;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The files `helm package` would put in the archive: everything under the chart directory except
 * what .helmignore (and helm's default rule) excludes, symlinks followed, a UTF-8 BOM stripped as
 * helm's loader does; sorted by path. `exclude` holds absolute paths to leave out (the output file
 * when it lies inside the chart).
 */
export function collectChartFiles(chartDir: string, exclude: Set<string> = new Set()): ChartFile[] {
  const root = path.resolve(chartDir);
  const ignoreFile = path.join(root, '.helmignore');
  const rules = fs.existsSync(ignoreFile) ? parseHelmignore(fs.readFileSync(ignoreFile, 'utf8'), ignoreFile) : parseHelmignore('');
  const out: ChartFile[] = [];
  const seen = new Set<string>();
  const walk = (dir: string, relDir: string): void => {
    const real = fs.realpathSync(dir);
    if (seen.has(real)) return;
    seen.add(real);
    for (const name of fs.readdirSync(dir).sort()) {
      const abs = path.join(dir, name);
      const rel = relDir ? `${relDir}/${name}` : name;
      let st: fs.Stats;
      try {
        st = fs.statSync(abs);
      } catch {
        throw new ChartError(`${abs}: broken symbolic link; remove it or add it to .helmignore`);
      }
      if (st.isDirectory()) {
        if (!isIgnored(rules, rel, true)) walk(abs, rel);
        continue;
      }
      if (isIgnored(rules, rel, false) || exclude.has(abs)) continue;
      if (!st.isFile()) throw new ChartError(`${abs}: not a regular file (device, socket or pipe); remove it or add it to .helmignore`);
      let data = fs.readFileSync(abs);
      if (data.subarray(0, 3).equals(UTF8_BOM)) data = data.subarray(3);
      out.push({ rel, data });
    }
  };
  walk(root, '');
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------
// tar via tar-stream

/** A tar-stream failure, named for the operation so the caller's message says what broke. */
function tarError(op: 'pack' | 'read', e: unknown): ChartError {
  return new ChartError(`tar ${op} failed: ${e instanceof Error ? e.message : String(e)}`);
}

/** A ustar archive of regular files with the fixed, reproducible header fields. */
export function tarFiles(files: { name: string; data: Buffer }[], mtime: Date): Promise<Buffer> {
  // One promise for the whole job: a synchronous throw from entry() and a later 'error' event
  // settle the same promise, so nothing is left to reject unhandled.
  return new Promise<Buffer>((resolve, reject) => {
    const pack = tarStream.pack();
    const chunks: Buffer[] = [];
    const fail = (e: unknown) => {
      reject(tarError('pack', e));
      pack.destroy();
    };
    pack.on('data', (d: unknown) => chunks.push(d as Buffer));
    pack.on('error', fail);
    pack.on('end', () => resolve(Buffer.concat(chunks)));
    try {
      for (const f of files) pack.entry({ name: f.name, size: f.data.length, mode: 0o644, mtime, uid: 0, gid: 0, uname: '', gname: '', type: 'file' }, f.data);
      pack.finalize();
    } catch (e) {
      fail(e);
    }
  });
}

/** gzip with a header that does not depend on the platform: mtime 0 (zlib's default) and OS 255 ("unknown", as Go writes). */
export function gzipReproducible(data: Buffer): Buffer {
  const gz = zlib.gzipSync(data, { level: 9 });
  gz[9] = 0xff;
  return gz;
}

export interface PackagedFiles {
  /** Every entry name in the archive, in order. */
  names: string[];
  /** The wanted `<top>/<file>` entries' text, by file name. */
  found: Record<string, string>;
}

/** The entry names of one (uncompressed) tar and the text of its `<dir>/<file>` entries for `files`. */
function readTar(tar: Buffer, files: string[]): Promise<PackagedFiles> {
  return new Promise<PackagedFiles>((resolve, reject) => {
    const ex = tarStream.extract();
    const names: string[] = [];
    const found: Record<string, string> = {};
    const fail = (e: unknown) => {
      reject(tarError('read', e));
      ex.destroy();
    };
    ex.on('entry', (h, stream, next) => {
      names.push(h.name);
      const parts = h.name.split('/');
      const want = h.type === 'file' && parts.length === 2 && files.includes(parts[1]) && !Object.prototype.hasOwnProperty.call(found, parts[1]);
      const bufs: Buffer[] = [];
      stream.on('data', (d: unknown) => {
        if (want) bufs.push(d as Buffer);
      });
      stream.on('end', () => {
        if (want) found[parts[1]] = Buffer.concat(bufs).toString('utf8');
        next();
      });
      stream.on('error', fail);
      stream.resume();
    });
    ex.on('error', fail);
    ex.on('finish', () => resolve({ names, found }));
    ex.end(tar);
  });
}

/** Reads the top-level files named `files` (e.g. Chart.yaml) from chart archives (.tgz bytes). */
export async function readPackagedFiles(tgzs: Buffer[], files: string[]): Promise<PackagedFiles[]> {
  // Every archive is gunzipped before any is read, so a non-gzip input fails first with zlib's message.
  const tars = tgzs.map((b) => zlib.gunzipSync(b));
  const out: PackagedFiles[] = [];
  for (const t of tars) out.push(await readTar(t, files));
  return out;
}

// ---------------------------------------------------------------------------------------------
// packageChart

export interface PackageResult {
  /** Absolute path of the written archive. */
  file: string;
  name: string;
  version: string;
  /** sha256 of the archive, hex. */
  digest: string;
}

/** Dependencies named in Chart.yaml must be vendored under charts/, or helm refuses to install. */
function checkDependencies(meta: ChartMetadata, files: ChartFile[], chartYaml: string): void {
  const provided = new Set<string>();
  const tgzs: string[] = [];
  for (const f of files) {
    const m = /^charts\/([^/]+)\/Chart\.yaml$/.exec(f.rel);
    if (m) {
      // A subchart may be a Helm 2 (apiVersion v1) chart: read its name loosely.
      const name: unknown = parseDocument(f.data.toString('utf8')).get('name');
      provided.add(typeof name === 'string' ? name : m[1]);
    }
    const t = /^charts\/([^/]+)\.tgz$/.exec(f.rel);
    if (t) tgzs.push(t[1]);
  }
  const missing = (meta.dependencies ?? []).filter((d) => !provided.has(d.name) && !tgzs.some((t) => t === d.name || (t.startsWith(`${d.name}-`) && /^\d/.test(t.slice(d.name.length + 1)))));
  if (missing.length) {
    throw new ChartError(`${chartYaml}: ${missing.map((d) => d.name).join(', ')} ${missing.length === 1 ? 'is' : 'are'} listed in dependencies but missing in charts/; run \`helm dependency update\` first`);
  }
}

function writeFileAtomic(file: string, data: Buffer): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.writeFileSync(tmp, data, { mode: 0o644 });
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Packages a chart directory into `<outDir>/<name>-<version>.tgz`, reproducibly: sorted entries,
 * mode 0644, uid/gid 0, no user/group names, every mtime = `opts.mtime` or buildDate()
 * (SOURCE_DATE_EPOCH, else 1980-01-01T00:00:00Z), gzip without a timestamp. Chart.yaml is packaged
 * as written (helm re-serializes it; both load the same). Written atomically.
 */
export async function packageChart(chartDir: string, outDir: string, opts: { mtime?: Date } = {}): Promise<PackageResult> {
  const root = path.resolve(chartDir);
  const chartYaml = path.join(root, 'Chart.yaml');
  if (!fs.existsSync(chartYaml)) throw new ChartError(`${root}: no Chart.yaml; this is not a Helm chart directory`);
  const meta = parseChartYaml(fs.readFileSync(chartYaml, 'utf8'), chartYaml);
  const mtime = opts.mtime ?? buildDate();
  if (Number.isNaN(mtime.getTime()) || mtime.getTime() < 0) throw new ChartError(`invalid package timestamp ${String(mtime)}`);
  const out = path.resolve(outDir);
  const file = path.join(out, `${meta.name}-${meta.version}.tgz`);
  const files = collectChartFiles(root, new Set([file]));
  checkDependencies(meta, files, chartYaml);
  const tgz = gzipReproducible(await tarFiles(files.map((f) => ({ name: `${meta.name}/${f.rel}`, data: f.data })), mtime));
  fs.mkdirSync(out, { recursive: true });
  writeFileAtomic(file, tgz);
  return { file, name: meta.name, version: meta.version, digest: createHash('sha256').update(tgz).digest('hex') };
}
