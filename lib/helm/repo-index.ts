import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { Document, parse } from 'yaml';
import { buildDate, ChartError, ChartMetadata, LOOSE_SEMVER, PackagedFiles, parseChartYaml, readPackagedFiles } from './package';

/*
 * Helm's chart repository index (`helm repo index`): `apiVersion: v1`, `entries` keyed by chart
 * name, each a list of chart versions (newest first) with the Chart.yaml metadata, `urls`,
 * `created` and `digest` (sha256 of the .tgz), and `generated`. Keys are sorted at every level and
 * times are RFC 3339 strings, as helm writes them. Unlike helm, the times are not "now": they come
 * from `opts.generated`, SOURCE_DATE_EPOCH or a fixed date, so the same packages give the same index.
 */

export interface RepoIndexOptions {
  /** Base URL of the repository; chart URLs are relative file names without it. */
  url?: string;
  /** `generated`, and `created` of new entries (default buildDate()). */
  generated?: Date;
  /**
   * An existing index.yaml to merge: its entries for name/version pairs not among the packages are
   * kept as they are; a package already listed with the same digest keeps its `created`.
   */
  merge?: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

/** Go's RFC3339Nano rendering of a time.Time in UTC: no fraction when it is zero. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.(\d*?)0*Z$/, (_, frac: string) => (frac ? `.${frac}Z` : 'Z'));
}

/** The metadata part of an index entry: Helm's chart.Metadata as JSON (empty fields left out). */
function metadataJson(meta: ChartMetadata): JsonObject {
  return JSON.parse(JSON.stringify(meta)) as JsonObject;
}

function sortKeysDeep(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  if (v && typeof v === 'object') {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeysDeep(v[k]);
    return out;
  }
  return v;
}

interface ParsedVersion {
  nums: [number, number, number];
  pre: string[];
}

function parseVersion(v: string): ParsedVersion | undefined {
  const m = LOOSE_SEMVER.exec(v);
  if (!m) return undefined;
  return { nums: [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)], pre: m[4] ? m[4].split('.') : [] };
}

/** SemVer 2 precedence (build metadata ignored); unparsable versions sort after all others, by text. */
export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (!pa || !pb) return pa ? -1 : pb ? 1 : a < b ? -1 : a > b ? 1 : 0;
  for (let i = 0; i < 3; i++) if (pa.nums[i] !== pb.nums[i]) return pa.nums[i] - pb.nums[i];
  if (!pa.pre.length || !pb.pre.length) return pb.pre.length - pa.pre.length;
  for (let i = 0; i < Math.max(pa.pre.length, pb.pre.length); i++) {
    const x = pa.pre[i];
    const y = pb.pre[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn && Number(x) !== Number(y)) return Number(x) - Number(y);
    if (xn !== yn) return xn ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function chartUrl(rel: string, base: string | undefined): string {
  if (!base) return rel;
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    throw new ChartError(`repository URL "${base}" is not an absolute URL (e.g. https://example.com/charts)`);
  }
  u.pathname = path.posix.join(u.pathname, rel);
  return u.toString();
}

/** The .tgz files helm's IndexDirectory looks at (in the directory and one level below), as sorted relative paths. */
function findPackages(dir: string): string[] {
  const out: string[] = [];
  const visible = (n: string) => !n.startsWith('.');
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!visible(e.name)) continue;
    if (e.isFile() && e.name.endsWith('.tgz')) out.push(e.name);
    else if (e.isDirectory()) {
      for (const f of fs.readdirSync(path.join(dir, e.name), { withFileTypes: true })) {
        if (visible(f.name) && f.isFile() && f.name.endsWith('.tgz')) out.push(`${e.name}/${f.name}`);
      }
    }
  }
  return out.sort();
}

function readMergeIndex(file: string): Map<string, JsonObject[]> {
  const entries = new Map<string, JsonObject[]>();
  if (!fs.existsSync(file)) return entries;
  let doc: unknown;
  try {
    doc = parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ChartError(`${file}: not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const d = doc as { apiVersion?: unknown; entries?: unknown } | null;
  if (!d || typeof d !== 'object' || d.apiVersion !== 'v1' || !d.entries || typeof d.entries !== 'object' || Array.isArray(d.entries)) {
    throw new ChartError(`${file}: not a Helm repository index (apiVersion: v1 with entries)`);
  }
  for (const [name, list] of Object.entries(d.entries as Record<string, unknown>)) {
    if (!Array.isArray(list)) throw new ChartError(`${file}: entries.${name} must be a list of chart versions`);
    entries.set(name, list.filter((x): x is JsonObject => !!x && typeof x === 'object' && !Array.isArray(x)));
  }
  return entries;
}

/** The index.yaml text for the packages in `packagesDir` (nothing is written). */
export async function buildRepoIndex(packagesDir: string, opts: RepoIndexOptions = {}): Promise<string> {
  const dir = path.resolve(packagesDir);
  const generated = rfc3339(opts.generated ?? buildDate());
  const rels = findPackages(dir);
  const bytes = rels.map((r) => fs.readFileSync(path.join(dir, r)));
  // One archive at a time, so a broken one is named in the message.
  const read: PackagedFiles[] = [];
  for (const [i, b] of bytes.entries()) {
    try {
      read.push(...(await readPackagedFiles([b], ['Chart.yaml'])));
    } catch (e) {
      throw new ChartError(`${path.join(dir, rels[i])}: not a chart package (gzipped tar): ${(e as Error).message}`);
    }
  }
  const old = opts.merge ? readMergeIndex(path.resolve(opts.merge)) : new Map<string, JsonObject[]>();

  const entries = new Map<string, JsonObject[]>();
  const fresh = new Set<string>();
  rels.forEach((rel, i) => {
    const file = path.join(dir, rel);
    const chartYaml = read[i].found['Chart.yaml'];
    if (chartYaml === undefined) throw new ChartError(`${file}: not a chart package: no <chart>/Chart.yaml entry`);
    const meta = parseChartYaml(chartYaml, `${file}!Chart.yaml`, { existing: true });
    const digest = createHash('sha256').update(bytes[i]).digest('hex');
    const previous = old.get(meta.name)?.find((e) => e.version === meta.version && e.digest === digest);
    const created = typeof previous?.created === 'string' ? previous.created : generated;
    const entry: JsonObject = { ...metadataJson(meta), urls: [chartUrl(rel, opts.url)], created, digest };
    fresh.add(`${meta.name}\0${meta.version}`);
    entries.set(meta.name, [...(entries.get(meta.name) ?? []), entry]);
  });
  for (const [name, list] of old) {
    for (const e of list) {
      if (fresh.has(`${name}\0${String(e.version)}`)) continue;
      entries.set(name, [...(entries.get(name) ?? []), e]);
    }
  }
  const sortedEntries: JsonObject = {};
  for (const name of [...entries.keys()].sort()) {
    const firstUrl = (e: JsonObject) => (Array.isArray(e.urls) ? String(e.urls[0] ?? '') : '');
    sortedEntries[name] = entries
      .get(name)!
      .slice()
      .sort((a, b) => compareVersions(String(b.version), String(a.version)) || (firstUrl(a) < firstUrl(b) ? -1 : firstUrl(a) > firstUrl(b) ? 1 : 0))
      .map(sortKeysDeep);
  }
  const index: JsonObject = { apiVersion: 'v1', entries: sortedEntries, generated };
  // YAML 1.1 quoting (timestamps, yes/no/on/off, octal-looking strings) keeps values strings for
  // helm's Go YAML reader; no folding, sequences not indented under their key, as helm writes.
  return new Document(index, { version: '1.1' }).toString({ lineWidth: 0, indentSeq: false });
}

/**
 * Writes `<packagesDir>/index.yaml` for the chart packages in it (and one directory level below, as
 * `helm repo index` does); returns its path. Written atomically.
 */
export async function writeRepoIndex(packagesDir: string, opts: RepoIndexOptions = {}): Promise<string> {
  const text = await buildRepoIndex(packagesDir, opts);
  const file = path.join(path.resolve(packagesDir), 'index.yaml');
  const tmp = path.join(path.dirname(file), `.index.yaml.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.writeFileSync(tmp, text, { mode: 0o644 });
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  return file;
}
