/**
 * Property/fuzz suite for chart generation (issue 12 acceptance): random and mutated manifests,
 * with hostile names, namespaces, labels and annotations (`{{`, `}}`, `%`, quotes, newlines,
 * unicode) and random termination knobs.
 *
 * - In process, many runs: `buildChartFiles` returns a chart or refuses with a plain Error saying
 *   what is wrong: never a TypeError, RangeError or stack overflow, never past a time bound.
 * - With the built CLI and real helm 3.10.1, few runs (spawning helm is slow), each one chart with
 *   many workloads: `kubegrace chart generate` writes a chart that passes `helm lint --strict`
 *   (but for its warning that a hostile name is no Kubernetes name) and renders with
 *   `helm template` (release name and namespace) by default; the rendering holds
 *   every input workload with the same termination values (grace period, preStop, drain, rollout
 *   strategy, minReadySeconds, replicas) and every manifest string verbatim (nothing is run as
 *   template code). Unsafe knobs: `chart generate` refuses them (exit 1, a clear message), or
 *   writes a chart that renders with its default values (no template fails, not even a guard) in
 *   a namespace it does not refuse; mutated manifests can copy an object into another namespace,
 *   and every release namespace the chart refuses for that fails with the release-namespace guard.
 *
 * Fixed seed; KUBEGRACE_FUZZ_RUNS (and KUBEGRACE_FUZZ_SEED) for longer runs: RUNS / 10 charts in
 * process (at least 6), RUNS / 30 through helm (at least 2) for each helm property.
 */
import { spawnSync } from 'child_process';
import { runCli, runCliAsync } from '../helpers/cli';
import fc from 'fast-check';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAllDocuments, stringify } from 'yaml';
import { analyze, readObjects } from '../../lib/helm/analyze';
import { buildChartFiles } from '../../lib/helm/generate';
import { releaseNamespaceCollisions } from '../../lib/helm/refusals';
import { isObject, Json, JsonObject } from '../../lib/model/types';
import { cpuMs } from '../helpers/cpu';

const RUNS = Number(process.env.KUBEGRACE_FUZZ_RUNS ?? 60);
const SEED = Number(process.env.KUBEGRACE_FUZZ_SEED ?? 20261124);
/** Replays one counterexample: fast-check prints its seed and path (KUBEGRACE_FUZZ_PATH=8). */
const REPLAY = process.env.KUBEGRACE_FUZZ_PATH !== undefined ? { path: process.env.KUBEGRACE_FUZZ_PATH } : {};
/** Charts generated in process (~0.2-0.4 s each: the generator compiles each chart's values schema with Ajv). */
const GEN_RUNS = Math.max(6, Math.floor(RUNS / 10));
/** Charts taken through the CLI and helm (~1-2 s each). */
const HELM_RUNS = Math.max(2, Math.floor(RUNS / 30));
const BOUND_MS = 3000;

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'build/lib/cli/main.js');
const HELM_DIR = path.join(ROOT, 'node_modules/.bin');
const HELM = path.join(HELM_DIR, 'helm');
const KUBE = '1.33.0';
const CHART = 'fz';
const RELEASE = 'rel';
const RELEASE_NS = 'fuzz-release-ns';
const DRAIN = 'kubegrace.dev/drain-seconds';

let work: string;
let helmEnv: NodeJS.ProcessEnv;
beforeAll(() => {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` (npm test does it)`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-chart-fuzz-'));
  helmEnv = { ...process.env, HELM_CACHE_HOME: path.join(work, 'helm/cache'), HELM_CONFIG_HOME: path.join(work, 'helm/config'), HELM_DATA_HOME: path.join(work, 'helm/data') };
});
// KUBEGRACE_FUZZ_KEEP=1 keeps the generated charts (their directory is in each failure message).
afterAll(() => process.env.KUBEGRACE_FUZZ_KEEP || fs.rmSync(work, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Pieces that are template code, printf verbs, YAML syntax, quotes, line breaks, controls, unicode. */
const NASTY = ['{{', '}}', '{{ fail "inj" }}', '{{ "INJ" }}', '{{- /* c */ -}}', '{{ .Release.Name }}', '{{ include "fz.fullname" . }}', '%d', '%s', '%!v', '%%', '%', '"', "'", '\\', '\n', '\r\n', '\t', '`', '*/', '/*', '$', '.Values', 'é', '日本', '😀', '\u202e', '\u001b[31m', '\u0007', '\u007f', '\u0085', '\u0090', '\u2028', '\ufeff', ' ', ': ', '#', '- ', '&a', '*a', '!!str', '---', '|', '>', 'true', '010', 'null', '~', '<<'];

const hostile = fc
  .array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 4 }), fc.stringMatching(/^[a-z0-9-]{1,8}$/)), { minLength: 1, maxLength: 5 })
  .map((a) => a.join(''));
/** A name: plain, hostile, or long (helm truncates object names to 63 bytes: the long part is ASCII). */
const nameArb = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/), hostile, hostile.map((s) => `${'l'.repeat(52)}${s.replace(/[^\x20-\x7e]/g, '')}`));
const dict = fc.dictionary(hostile, hostile, { maxKeys: 3 });

interface Knobs {
  kind: 'Deployment' | 'StatefulSet' | 'DaemonSet';
  name: string;
  namespace?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  podAnnotations: Record<string, string>;
  replicas?: number;
  grace?: number;
  drain?: { where: 'metadata' | 'template'; seconds: number };
  minReady?: number;
  strategy?: JsonObject;
  containers: { name: string; image: string; preStop?: JsonObject }[];
  sidecar?: { name: string; preStop?: JsonObject };
}

const preStopArb = (n: fc.Arbitrary<number>) =>
  fc.oneof(
    fc.constant(undefined),
    n.map((s) => ({ exec: { command: ['sleep', String(s)] } })),
    n.map((s) => ({ exec: { command: ['/bin/sh', '-c', `sleep ${s}`] } })),
    n.map((s) => ({ sleep: { seconds: s } })),
    hostile.map((p) => ({ httpGet: { path: `/${p}`, port: 8080 } })),
  );

const delayOf = (p: JsonObject | undefined): number => {
  if (!p) return 0;
  if (isObject(p.sleep)) return Number(p.sleep.seconds);
  const cmd = isObject(p.exec) ? (p.exec.command as string[]) : undefined;
  const m = cmd ? /(\d+)\s*$/.exec(cmd[cmd.length - 1]) : null;
  return m ? Number(m[1]) : 0;
};

const intOrPercent = (max: number) => fc.oneof(fc.integer({ min: 0, max }), fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`));
const isZero = (v: Json | undefined) => v === 0 || v === '0%';

/**
 * One workload's knobs. `safe`: a combination no guard refuses (grace covers preStop + drain, a
 * Deployment always surges, keeps a pod, or has one replica under Recreate, no native sidecar); else
 * anything goes.
 */
function workloadArb(safe: boolean): fc.Arbitrary<Knobs> {
  const seconds = fc.integer({ min: 0, max: safe ? 40 : 400 });
  return fc
    .record({
      kind: fc.constantFrom('Deployment', 'StatefulSet', 'DaemonSet') as fc.Arbitrary<Knobs['kind']>,
      name: nameArb,
      namespace: fc.option(fc.oneof(fc.constant('apps'), hostile), { nil: undefined }),
      labels: dict,
      annotations: dict,
      podAnnotations: dict,
      replicas: fc.integer({ min: 1, max: 4 }),
      graceExtra: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }),
      rawGrace: fc.option(fc.integer({ min: 0, max: 600 }), { nil: undefined }),
      drain: fc.option(fc.record({ where: fc.constantFrom('metadata', 'template') as fc.Arbitrary<'metadata' | 'template'>, seconds }), { nil: undefined }),
      minReady: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
      strategyPick: fc.nat(4),
      surge: intOrPercent(3),
      unavailable: intOrPercent(3),
      // Safe: a hostile repository (the tag and digest have patterns in the values schema, which refuses others).
      containers: fc.uniqueArray(fc.record({ name: hostile, image: fc.oneof(fc.constant('example/app:1.2'), hostile.map((h) => `example/${safe ? h.replace(/[@:]/g, '') : h}`)), preStop: preStopArb(seconds) }), { minLength: 1, maxLength: 2, selector: (c) => c.name }),
      sidecar: safe ? fc.constant(undefined) : fc.option(fc.record({ name: fc.constant('side'), preStop: preStopArb(seconds) }), { nil: undefined }),
    })
    .map((r) => {
      // Safe: no DEL or C1 control in a name or namespace (refused: Kubernetes refuses them, helm cannot render them).
      const clean = (x: string) => (safe ? x.replace(/[\x7f-\x9f]/g, '') : x);
      const k: Knobs = { kind: r.kind, name: clean(r.name), namespace: r.namespace === undefined ? undefined : clean(r.namespace), labels: r.labels, annotations: r.annotations, podAnnotations: r.podAnnotations, containers: r.containers, sidecar: r.sidecar };
      if (r.kind !== 'DaemonSet') k.replicas = r.replicas;
      k.drain = r.drain;
      k.minReady = r.minReady;
      const budget = Math.max(...r.containers.map((c) => delayOf(c.preStop))) + (r.drain?.seconds ?? 10);
      if (safe) k.grace = r.graceExtra === undefined && budget + 1 <= 30 ? undefined : budget + 1 + (r.graceExtra ?? 0);
      else k.grace = r.rawGrace;
      // Safe: a served Deployment (a port and a readiness probe) never stops all its pods first, so
      // Recreate only with one replica and always some surge (maxSurge rounds up).
      const surge = safe && isZero(r.surge) ? 1 : r.surge;
      // Safe: maxUnavailable below the replicas (the guard counts maxUnavailable >= replicas as an outage, surge or not).
      const unavailable = !safe ? r.unavailable : typeof r.unavailable === 'number' ? Math.min(r.unavailable, r.replicas - 1) : `${Math.min(Number(r.unavailable.slice(0, -1)), 99)}%`;
      if (r.kind === 'Deployment') {
        const recreate = safe && r.replicas > 1 ? { type: 'RollingUpdate' } : { type: 'Recreate' };
        k.strategy = [undefined, recreate, { type: 'RollingUpdate' }, { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } }, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: unavailable } }][r.strategyPick];
      } else if (r.kind === 'StatefulSet') {
        k.strategy = [undefined, { type: 'OnDelete' }, { type: 'RollingUpdate' }, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }, undefined][r.strategyPick];
      } else {
        k.strategy = [undefined, { type: 'OnDelete' }, { type: 'RollingUpdate' }, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: isZero(r.unavailable) ? 1 : r.unavailable, maxSurge: 0 } }, undefined][r.strategyPick];
      }
      return k;
    });
}

/** Workloads with distinct kind/name (and distinct names across namespaces: one release namespace). */
const appArb = (safe: boolean, max: number) =>
  fc.uniqueArray(workloadArb(safe), { minLength: 1, maxLength: max, selector: (w) => `${w.kind}/${w.name}` }).map((ws) => {
    // Long names that share their first 56 bytes would be the same object name after helm's trunc 63.
    const seen = new Set<string>();
    return ws.filter((w) => {
      const t = `${w.kind}/${renderedName(w.name)}`;
      if (seen.has(t)) return false;
      seen.add(t);
      return true;
    });
  });

function manifestOf(k: Knobs): JsonObject {
  const selector = { app: 'fz' };
  const annotations: Record<string, string> = { ...k.annotations };
  const podAnnotations: Record<string, string> = { ...k.podAnnotations };
  delete annotations[DRAIN];
  delete podAnnotations[DRAIN];
  if (k.drain) (k.drain.where === 'metadata' ? annotations : podAnnotations)[DRAIN] = String(k.drain.seconds);
  const podSpec: JsonObject = {
    containers: k.containers.map((c) => ({ name: c.name, image: c.image, ports: [{ containerPort: 8080 }], readinessProbe: { httpGet: { path: '/ready', port: 8080 } }, ...(c.preStop ? { lifecycle: { preStop: c.preStop } } : {}) })),
  };
  if (k.sidecar) podSpec.initContainers = [{ name: k.sidecar.name, image: 'example/side:1', restartPolicy: 'Always', ...(k.sidecar.preStop ? { lifecycle: { preStop: k.sidecar.preStop } } : {}) }];
  if (k.grace !== undefined) podSpec.terminationGracePeriodSeconds = k.grace;
  const spec: JsonObject = { selector: { matchLabels: selector }, template: { metadata: { labels: { ...selector }, ...(Object.keys(podAnnotations).length ? { annotations: podAnnotations } : {}) }, spec: podSpec } };
  if (k.replicas !== undefined) spec.replicas = k.replicas;
  if (k.minReady !== undefined) spec.minReadySeconds = k.minReady;
  if (k.strategy) spec[k.kind === 'Deployment' ? 'strategy' : 'updateStrategy'] = k.strategy;
  if (k.kind === 'StatefulSet') spec.serviceName = 'headless';
  const metadata: JsonObject = { name: k.name };
  if (k.namespace !== undefined) metadata.namespace = k.namespace;
  if (Object.keys(k.labels).length) metadata.labels = k.labels;
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  return { apiVersion: 'apps/v1', kind: k.kind, metadata, spec };
}

/** Manifests as YAML: each document as JSON (flow) or as block YAML, alternately. */
const manifestsText = (ws: Knobs[]) => ws.map((w, i) => (i % 2 ? JSON.stringify(manifestOf(w), null, 1) + '\n' : blockYaml(manifestOf(w)))).join('---\n');

/**
 * Block YAML meaning the same to Kubernetes (YAML 1.1: `y` and `on` are booleans, `010` is 8, so they are
 * quoted) and with a `<<` key quoted (the yaml package writes it plain, which YAML 1.1 reads as a merge).
 */
function blockYaml(o: JsonObject): string {
  return stringify(o, { version: '1.1' }).replace(/^(\s*(?:- )?)<<:/gm, '$1"<<":');
}

/** Mutated manifests: YAML-level edits of a generated app (the parser's job to refuse or read). */
const textMutated = fc.tuple(appArb(false, 3), fc.array(fc.tuple(fc.nat(), fc.constantFrom(...NASTY, 'kind: Pod', 'metadata: {}', 'name: 5', 'spec: []', 'apiVersion: v1', '- x', '{', 'replicas: -1', 'terminationGracePeriodSeconds: "5"')), { maxLength: 4 })).map(([ws, edits]) => {
  const lines = manifestsText(ws).split('\n');
  for (const [at, tok] of edits) {
    const i = at % lines.length;
    lines[i] = at % 3 === 0 ? tok : at % 3 === 1 ? lines[i] + tok : lines[i].replace(/:\s.*$/, `: ${tok}`);
  }
  return lines.join('\n');
});

// ---------------------------------------------------------------------------------------------
// Helpers

/** helm's object name for a workload: <release>-<chart>-<name>, trunc 63 (sprig trunc counts bytes), trimSuffix "-". */
function renderedName(name: string): string {
  if (name === CHART) return `${RELEASE}-${CHART}`;
  const full = Buffer.from(`${RELEASE}-${CHART}-${name}`);
  const cut = full.length > 63 ? full.subarray(0, 63).toString() : full.toString();
  return cut.endsWith('-') ? cut.slice(0, -1) : cut;
}

const crashLike = /Cannot read|undefined is not|is not a function|is not iterable|Maximum call stack|of undefined|of null|\binternal error\b/;

function expectClearRefusal(e: unknown): void {
  expect(e).toBeInstanceOf(Error);
  // A plain Error from the generator's checks, not a TypeError/RangeError from a bug.
  expect((e as Error).constructor).toBe(Error);
  expect((e as Error).message).not.toMatch(crashLike);
  expect((e as Error).message.length).toBeGreaterThan(15);
}

function cliOptions() {
  const env: NodeJS.ProcessEnv = { ...helmEnv, NO_COLOR: '', FORCE_COLOR: '', PATH: `${HELM_DIR}${path.delimiter}${process.env.PATH ?? ''}` };
  delete env.HELM_BIN;
  return { cwd: work, encoding: 'utf8' as const, env, maxBuffer: 64 * 1024 * 1024 };
}

function cli(args: string[]) {
  return runCli(args, cliOptions());
}

function helm(args: string[]) {
  return spawnSync(HELM, args, { encoding: 'utf8', env: helmEnv, maxBuffer: 64 * 1024 * 1024 });
}

let chartCount = 0;
/** Writes the manifests and runs `kubegrace chart generate`; returns the chart directory. */
async function generate(text: string): Promise<string> {
  const dir = path.join(work, `c${chartCount++}`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'manifests.yaml'), text);
  // In this process (test/helpers/cli.ts; KUBEGRACE_TEST_SPAWN=1 spawns the bin).
  const r = await runCliAsync(['chart', 'generate', path.join(dir, 'manifests.yaml'), '--name', CHART, '--app-version', '1.0.0', '--out', dir], cliOptions());
  if (r.status !== 0) throw new Error(`chart generate failed (${r.status}): ${r.stderr}\n--- manifests:\n${text}`);
  return path.join(dir, CHART);
}

const docsOf = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as unknown).filter(isObject) as JsonObject[];
const at = (o: Json | undefined, ...p: string[]): Json | undefined => p.reduce<Json | undefined>((v, k) => (isObject(v) ? v[k] : undefined), o);

/** The rollout strategy with the API's defaults filled in (an absent field and its default are the same). */
function effectiveStrategy(kind: Knobs['kind'], s: Json | undefined): Json {
  const type = (isObject(s) && s.type) || (kind === 'StatefulSet' || kind === 'DaemonSet' || kind === 'Deployment' ? 'RollingUpdate' : undefined);
  if (type !== 'RollingUpdate') return { type: type ?? null };
  const ru = (isObject(s) && isObject(s.rollingUpdate) ? s.rollingUpdate : {}) as JsonObject;
  if (kind === 'Deployment') return { type, maxSurge: ru.maxSurge ?? '25%', maxUnavailable: ru.maxUnavailable ?? '25%' };
  if (kind === 'DaemonSet') return { type, maxSurge: ru.maxSurge ?? 0, maxUnavailable: ru.maxUnavailable ?? 1 };
  return { type, partition: ru.partition ?? 0, maxUnavailable: ru.maxUnavailable ?? 1 };
}

function effectiveDrain(o: JsonObject): string {
  const v = at(o, 'spec', 'template', 'metadata', 'annotations', DRAIN) ?? at(o, 'metadata', 'annotations', DRAIN);
  return typeof v === 'string' ? v : '10';
}

/** The termination-relevant values of a workload, with the API's defaults filled in. */
function terminationValues(kind: Knobs['kind'], o: JsonObject): JsonObject {
  const ps = at(o, 'spec', 'template', 'spec') as JsonObject;
  const containers = (ps.containers as JsonObject[]).map((c) => ({ name: c.name, image: c.image, preStop: at(c, 'lifecycle', 'preStop') ?? null }));
  return {
    grace: (ps.terminationGracePeriodSeconds as number | undefined) ?? 30,
    drain: effectiveDrain(o),
    strategy: effectiveStrategy(kind, at(o, 'spec', kind === 'Deployment' ? 'strategy' : 'updateStrategy')),
    minReady: (at(o, 'spec', 'minReadySeconds') as number | undefined) ?? 0,
    replicas: kind === 'DaemonSet' ? null : ((at(o, 'spec', 'replicas') as number | undefined) ?? 1),
    containers,
  };
}

/** Real manifests: the repository's fixtures and the smallest manifests of the shared corpus (when present). */
const SEEDS = [
  path.join(ROOT, 'test/fixtures/good.yaml'),
  path.join(ROOT, 'test/fixtures/bad-grace.yaml'),
  path.join(ROOT, 'test/explain/fixtures/sidecar-overlong.yaml'),
  ...(() => {
    const dir = path.resolve(ROOT, '../shared/corpus/rendered');
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => path.join(dir, f))
      .sort((a, b) => fs.statSync(a).size - fs.statSync(b).size || (a < b ? -1 : 1))
      .slice(0, 4);
  })(),
].map((f) => fs.readFileSync(f, 'utf8'));

type Edit = [number, 'name' | 'namespace' | 'copy' | 'label' | 'annotation' | 'grace' | 'preStop' | 'drain' | 'replicas', string, number];
/** Object-level edits of a seed's documents: hostile names and metadata, random termination knobs. */
const seedMutated = fc
  .tuple(
    fc.constantFrom(...SEEDS),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom('name', 'namespace', 'copy', 'label', 'annotation', 'grace', 'preStop', 'drain', 'replicas'), hostile, fc.integer({ min: 0, max: 400 })) as fc.Arbitrary<Edit>, { maxLength: 6 }),
  )
  .map(([text, edits]) => {
    const objs = docsOf(text);
    for (const [i, what, str, n] of edits) {
      if (!objs.length) break;
      const o = objs[i % objs.length];
      const m = (isObject(o.metadata) ? o.metadata : (o.metadata = {})) as JsonObject;
      const ps = at(o, 'spec', 'template', 'spec');
      const cs = isObject(ps) && Array.isArray(ps.containers) ? (ps.containers as Json[]).filter(isObject) : [];
      if (what === 'name') m.name = str;
      else if (what === 'namespace') m.namespace = str;
      // The same kind and name in another namespace (kube-prometheus's RoleBindings): the chart refuses that release namespace.
      else if (what === 'copy') objs.push({ ...o, metadata: { ...m, namespace: n % 3 ? str : 'default' } });
      else if (what === 'label') m.labels = { ...(isObject(m.labels) ? m.labels : {}), [str]: str };
      else if (what === 'annotation') m.annotations = { ...(isObject(m.annotations) ? m.annotations : {}), [str]: str };
      else if (what === 'drain') m.annotations = { ...(isObject(m.annotations) ? m.annotations : {}), [DRAIN]: String(n % 90) };
      else if (what === 'grace' && isObject(ps)) ps.terminationGracePeriodSeconds = n;
      else if (what === 'preStop' && cs.length) cs[n % cs.length].lifecycle = { preStop: n % 2 ? { sleep: { seconds: n % 60 } } : { exec: { command: ['sleep', String(n % 60)] } } };
      else if (what === 'replicas' && isObject(o.spec) && o.kind !== 'DaemonSet') o.spec.replicas = n % 6;
    }
    return objs.map((o) => blockYaml(o)).join('---\n');
  });

// ---------------------------------------------------------------------------------------------
// Properties

describe('fuzz: chart generation in process', () => {
  test('random, hostile and mutated manifests: a chart or a plain Error saying what to fix, within a time bound', () => {
    const spec = { name: CHART, version: '0.1.0', appVersion: '1', description: 'fuzz {{ fail "d" }} %d' };
    fc.assert(
      fc.property(fc.oneof(appArb(false, 4).map(manifestsText), appArb(true, 4).map(manifestsText), textMutated, seedMutated), (text) => {
        const c0 = cpuMs();
        try {
          const files = buildChartFiles(text, spec);
          expect(files.has('Chart.yaml')).toBe(true);
          expect(files.has('values.schema.json')).toBe(true);
        } catch (e) {
          expectClearRefusal(e);
        }
        expect(cpuMs() - c0).toBeLessThan(BOUND_MS);
      }),
      { numRuns: GEN_RUNS, seed: SEED, ...REPLAY },
    );
  });
});

describe('fuzz: generated charts with real helm', () => {
  test('safe knobs, hostile strings: helm lint --strict passes (hostile names aside); helm template renders every workload with its termination values and every string verbatim', async () => {
    let workloads = 0;
    await fc.assert(
      fc.asyncProperty(appArb(true, 10), async (ws) => {
        const text = manifestsText(ws);
        const dir = await generate(text);
        const lint = helm(['lint', '--strict', dir]);
        const out0 = lint.stdout + lint.stderr;
        // An injected `fail` would print "Fail:"; an injected `{{ "INJ" }}` would change a string checked below.
        expect(out0).not.toMatch(/Fail:|error calling/);
        // The only complaint allowed: a hostile name that is no Kubernetes name (kept verbatim and inert,
        // as the manifests wrote it; the API server would refuse it, as it would the manifests).
        const problems = out0.split('\n').filter((l) => /^\[(ERROR|WARNING)\]/.test(l));
        expect({ dir, problems: problems.filter((l) => !/^\[WARNING\] templates\/[^:]*: object name does not conform to Kubernetes naming requirements: /.test(l)) }).toEqual({ dir, problems: [] });
        const invalidNames = ws.some((w) => !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(`test-release-${CHART}-${w.name}`));
        expect(lint.status).toBe(problems.length && invalidNames ? 1 : 0);
        const r = helm(['template', RELEASE, dir, '--namespace', RELEASE_NS, '--kube-version', KUBE]);
        expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
        const out = docsOf(r.stdout);
        const rendered = out.filter((o) => ['Deployment', 'StatefulSet', 'DaemonSet'].includes(String(o.kind)));
        expect(rendered).toHaveLength(ws.length);
        for (const w of ws) {
          const input = manifestOf(w);
          const got = rendered.find((o) => o.kind === w.kind && at(o, 'metadata', 'name') === renderedName(w.name));
          if (!got) throw new Error(`${w.kind} ${JSON.stringify(w.name)} is not in the rendering as ${JSON.stringify(renderedName(w.name))}: ${rendered.map((o) => `${String(o.kind)}/${JSON.stringify(at(o, 'metadata', 'name'))}`).join(', ')}`);
          expect(terminationValues(w.kind, got)).toEqual(terminationValues(w.kind, input));
          // Namespaced into the release namespace, or kept where the manifests put a second namespace.
          expect([RELEASE_NS, w.namespace]).toContain(at(got, 'metadata', 'namespace'));
          // Every manifest string, verbatim: not run as template code, not re-quoted, not truncated.
          expect(at(got, 'metadata', 'labels')).toMatchObject(w.labels);
          expect(at(got, 'metadata', 'annotations') ?? {}).toMatchObject(at(input, 'metadata', 'annotations') ?? {});
          expect(at(got, 'spec', 'template', 'metadata', 'annotations') ?? {}).toMatchObject(at(input, 'spec', 'template', 'metadata', 'annotations') ?? {});
        }
        workloads += ws.length;
      }),
      // No shrinking: each step spawns the CLI and helm (minutes); the counterexample is printed whole.
      { numRuns: HELM_RUNS, seed: SEED, endOnFailure: true, ...REPLAY },
    );
    expect(workloads).toBeGreaterThanOrEqual(HELM_RUNS);
  });

  test('any knobs, and mutated fixture and corpus manifests: generate refuses (exit 1, a clear message) or writes a chart that renders with its default values, every template (in a namespace it does not refuse; the refused ones fail with the guard)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(appArb(false, 6).map(manifestsText), seedMutated), async (text) => {
        let dir: string;
        try {
          dir = await generate(text);
        } catch (e) {
          // A refusal must be a clear message on stderr with exit 1, never a crash.
          expect((e as Error).message).toMatch(/^chart generate failed \(1\): kubegrace chart generate: /);
          expect((e as Error).message).not.toMatch(crashLike);
          return;
        }
        // Release namespaces the chart refuses (an object kept there shares kind and name with one of the main namespace).
        const a = analyze(readObjects(text));
        const refused = releaseNamespaceCollisions(a).map((c) => c.namespace);
        const ns = refused.includes(RELEASE_NS) ? a.primaryNamespace! : RELEASE_NS;
        const r = cli(['lint', dir, '--format', 'json', '--kube-version', '1.33', '--release', RELEASE, `--namespace=${ns}`, '--fail-on', 'never']);
        const report = JSON.parse(r.stdout) as { errors: { file: string; message: string }[] };
        // The generator refuses what the chart's guards would refuse with its defaults (lib/helm/refusals.ts).
        expect({ dir, errors: report.errors }).toEqual({ dir, errors: [] });
        expect(r.status).toBe(0);
        for (const n of refused) {
          const t = helm(['template', RELEASE, dir, `--namespace=${n}`, '--kube-version', KUBE]);
          expect({ dir, n, status: t.status }).toEqual({ dir, n, status: 1 });
          expect(t.stderr).toMatch(/^Error: execution error at \([^)]*\): kubegrace guard: release namespace /);
          expect(t.stderr).toContain(`kubegrace guard: release namespace ${JSON.stringify(n)}: `);
        }
      }),
      { numRuns: HELM_RUNS, seed: SEED, endOnFailure: true, ...REPLAY },
    );
  });
});
