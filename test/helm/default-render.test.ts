/**
 * A chart `kubegrace chart generate` agrees to write renders with its default values, and what it
 * refuses, it refuses with where, which guard, what to change and the override (lib/helm/refusals.ts):
 *
 * - the charts-src apps, through the built CLI: each renders with `helm template RELEASE CHART -n NS`
 *   (helm 3.10.1's own Kubernetes version, 1.25) and at 1.33, and linting the rendering with the built
 *   CLI reports nothing the manifests do not;
 * - hostile manifests that trip each guard: refused with exit 1 and file:line:column; where the guard
 *   can be acknowledged, the rule named in the object's `kubegrace.dev/ignore` makes the chart default
 *   that acknowledge value to true, the chart renders, and turning the value off trips exactly that
 *   guard in the real helm (so the refusal was right);
 * - the generator's reading of the guards agrees with the Go templates over random values;
 * - one kind and name in two namespaces (the same Deployment and Service in a and b; kube-prometheus's
 *   RoleBindings in monitoring, default and kube-system) is generated: the chart renders in the main
 *   namespace and in others, and fails with the release-namespace guard where a release would hold
 *   two objects of one name; the same object twice in one namespace is refused. One chart per
 *   namespace (`--namespace`), and manifests whose second namespace holds other names, install as
 *   releases in several namespaces with no kind/namespace/name collision among all rendered objects.
 */
import fc from 'fast-check';
import * as fs from 'fs';
import * as path from 'path';
import { App } from 'cdk8s';
import { parse } from 'yaml';
import { APPS } from '../../charts-src/apps';
import { analyze, readObjects, workloadKeys } from '../../lib/helm/analyze';
import { buildChartFiles, generateChart } from '../../lib/helm/generate';
import { guardTrips, releaseNamespaceCollisions } from '../../lib/helm/refusals';
import { JsonObject } from '../../lib/model/types';
import { ObjectGraph } from '../../lib/model/graph';
import { runCli, runCliAsync } from '../helpers/cli';
import { docs, HELM, idOf, KUBE, makeHelm, merge, tmpDir, valuesFile } from './generate-helpers';

const work = tmpDir('kg-chart-defaults-');
const helm = makeHelm(path.join(work, 'helm-home'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const env = { ...process.env, PATH: `${path.dirname(HELM)}${path.delimiter}${process.env.PATH}` };

async function generate(files: string[], name: string, extra: string[] = []): Promise<{ status: number; stdout: string; stderr: string }> {
  const r = await runCliAsync(['chart', 'generate', ...files, '--name', name, '--out', 'charts', ...extra], { cwd: work, env });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function write(file: string, text: string): string {
  fs.writeFileSync(path.join(work, file), text);
  return file;
}

/** Unsuppressed findings of the built CLI's lint (json), as `rule kind severity` strings, sorted. */
function lintKeys(input: { file?: string; text?: string }, kube: string): string[] {
  const r = runCli(['lint', input.file ?? '-', '--format', 'json', '--kube-version', kube, '--fail-on', 'never'], { cwd: work, env, ...(input.text !== undefined ? { input: input.text } : {}) });
  expect(r.stderr).toBe('');
  const report = JSON.parse(r.stdout) as { errors: unknown[]; findings: { ruleId: string; severity: string; suppressed: boolean; object: { kind: string } }[] };
  expect(report.errors).toEqual([]);
  return report.findings.filter((f) => !f.suppressed).map((f) => `${f.ruleId} ${f.object.kind} ${f.severity}`).sort();
}

/** The rendering reports nothing the manifests do not (as a multiset of rule, kind and severity). */
function expectNothingNew(manifestFile: string, rendered: string, kube: string): void {
  const before = lintKeys({ file: manifestFile }, kube);
  const after = lintKeys({ text: rendered }, kube);
  const left = [...before];
  const extra = after.filter((k) => {
    const i = left.indexOf(k);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
  expect({ manifestFile, extra }).toEqual({ manifestFile, extra: [] });
}

function render(chartDir: string, release: string, ns: string, extra: string[] = []) {
  return helm(['template', release, path.join(work, chartDir), '--namespace', ns, ...extra]);
}

describe('the charts-src apps', () => {
  const names = Object.keys(APPS);
  beforeAll(() => {
    const app = new App({ outdir: path.join(work, 'manifests'), outputFileExtension: '.yaml' });
    for (const [name, build] of Object.entries(APPS)) build(app, name);
    app.synth();
  }, 120_000);

  test.each(names)('%s: generated through the CLI, renders with its defaults (helm\'s own version and 1.33) and lints no worse than its manifests', async (name) => {
    const g = await generate([`manifests/${name}.yaml`], name);
    expect(g.stderr).toBe('');
    expect(g.status).toBe(0);
    // A chart that refuses release namespaces (objects kept there share kind and name with ones of the main
    // namespace) renders with its defaults in the main namespace, and fails with the guard in those.
    const a = analyze(readObjects(fs.readFileSync(path.join(work, `manifests/${name}.yaml`), 'utf8')));
    const refused = releaseNamespaceCollisions(a).map((c) => c.namespace);
    const ns = refused.length ? a.primaryNamespace! : 'prod';
    for (const n of refused) expect(render(`charts/${name}`, 'rel', n, ['--kube-version', KUBE]).stderr).toContain(`kubegrace guard: release namespace ${JSON.stringify(n)}: `);
    const plain = render(`charts/${name}`, 'rel', ns);
    expect({ status: plain.status, stderr: plain.stderr }).toEqual({ status: 0, stderr: '' });
    const r = render(`charts/${name}`, 'rel', ns, ['--kube-version', KUBE]);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expectNothingNew(`manifests/${name}.yaml`, r.stdout, '1.33');
  });
});

// ---------------------------------------------------------------------------------------------
// Manifests that trip the chart's guards

interface Knobs {
  grace?: number;
  preStop?: JsonObject;
  drain?: number;
  replicas?: number;
  strategy?: JsonObject;
  minReady?: number;
  deadline?: number;
  podAnnotations?: Record<string, string>;
  annotations?: Record<string, string>;
  pdb?: JsonObject;
  pdbAnnotations?: Record<string, string>;
  hpa?: { min: number; max: number };
}

/** A served Deployment `web` (Service, optional PDB and HPA) in namespace shop. */
function app(k: Knobs): string {
  const ann = { ...(k.annotations ?? {}), ...(k.drain !== undefined ? { 'kubegrace.dev/drain-seconds': String(k.drain) } : {}) };
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', ...(Object.keys(ann).length ? { annotations: ann } : {}) },
    spec: {
      replicas: k.replicas ?? 3,
      ...(k.strategy ? { strategy: k.strategy } : {}),
      ...(k.minReady !== undefined ? { minReadySeconds: k.minReady } : {}),
      ...(k.deadline !== undefined ? { progressDeadlineSeconds: k.deadline } : {}),
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' }, ...(k.podAnnotations ? { annotations: k.podAnnotations } : {}) },
        spec: {
          terminationGracePeriodSeconds: k.grace ?? 30,
          containers: [
            {
              name: 'web',
              image: 'example/web:1.2.3',
              ports: [{ containerPort: 8080 }],
              readinessProbe: { httpGet: { path: '/ready', port: 8080 } },
              lifecycle: { preStop: k.preStop ?? { exec: { command: ['sleep', '5'] } } },
            },
          ],
        },
      },
    },
  };
  const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] } };
  const out: JsonObject[] = [deployment, service];
  if (k.pdb) out.push({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: 'shop', ...(k.pdbAnnotations ? { annotations: k.pdbAnnotations } : {}) }, spec: { selector: { matchLabels: { app: 'web' } }, ...k.pdb } });
  if (k.hpa) out.push({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'shop' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: k.hpa.min, maxReplicas: k.hpa.max } });
  // Block-style JSON documents: every object starts at column 1 of its own line.
  return out.map((o) => JSON.stringify(o, null, 2)).join('\n---\n') + '\n';
}

/** The line of the n-th document's start in the text `app` writes. */
function docLine(text: string, n: number): number {
  let line = 1;
  let seen = 0;
  for (const l of text.split('\n')) {
    if (l === '---') seen++;
    if (seen === n && l !== '---') return line;
    line++;
  }
  throw new Error(`no document ${n}`);
}

interface AckCase {
  title: string;
  knobs: Knobs;
  ack: string;
  rule: string;
  /** The object whose kubegrace.dev/ignore accepts it: the Deployment (0) or the PDB (2). */
  on: 0 | 2;
  says: string;
}

const IGNORE = 'kubegrace.dev/ignore';
const REASON = { 'kubegrace.dev/ignore-reason': 'accepted in review' };

const ACK_CASES: AckCase[] = [
  { title: 'an exec preStop sleep 40 under a grace period of 30', knobs: { preStop: { exec: { command: ['sleep', '40'] } } }, ack: 'gracePeriodBudget', rule: 'grace-period-budget', on: 0, says: 'preStop delay 40s >= terminationGracePeriodSeconds 30s' },
  { title: 'preStop 5 + drain 30 over a grace period of 30', knobs: { drain: 30 }, ack: 'gracePeriodBudget', rule: 'grace-period-budget', on: 0, says: 'preStop 5s + drain 30s = 35s exceeds terminationGracePeriodSeconds 30s' },
  { title: 'Recreate with 3 replicas', knobs: { strategy: { type: 'Recreate' } }, ack: 'rolloutOutage', rule: 'recreate-strategy', on: 0, says: 'strategy Recreate with 3 replicas' },
  { title: 'maxUnavailable 100% without surge', knobs: { replicas: 2, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '100%' } } }, ack: 'rolloutOutage', rule: 'rollout-full-outage', on: 0, says: 'maxSurge 0 and maxUnavailable 100% with 2 replicas' },
  { title: 'a PDB with maxUnavailable 0', knobs: { pdb: { maxUnavailable: 0 } }, ack: 'pdbBlocksEviction', rule: 'pdb-blocks-eviction', on: 2, says: 'PodDisruptionBudget maxUnavailable 0 allows no voluntary eviction' },
  { title: 'a PDB with minAvailable 100%', knobs: { pdb: { minAvailable: '100%' } }, ack: 'pdbBlocksEviction', rule: 'pdb-blocks-eviction', on: 2, says: 'minAvailable 100% with replicas 3 keeps 3 pods available' },
  {
    title: 'a Linkerd proxy wait at the grace period',
    knobs: { grace: 15, podAnnotations: { 'linkerd.io/inject': 'enabled', 'config.alpha.linkerd.io/proxy-wait-before-exit-seconds': '15' } },
    ack: 'meshDrain',
    rule: 'linkerd-proxy-drain',
    on: 0,
    says: 'the Linkerd proxy waits preStop + drain = 15s before it exits, at or above terminationGracePeriodSeconds 15s',
  },
];

describe('chart generate refuses manifests its own guards would refuse with the default values', () => {
  test.each(ACK_CASES.map((c, i) => [c.title, c, i] as const))('%s: refused with file:line:column and the override; accepted when the manifests suppress the rule, and the chart then renders', async (_t, c, i) => {
    const refused = write(`ack-${i}.yaml`, app(c.knobs));
    const g = await generate([refused], `ack-${i}`);
    expect(g.status).toBe(1);
    const where = c.on === 0 ? `${refused}:1:1` : `${refused}:${docLine(app(c.knobs), 2)}:1`;
    expect(g.stderr).toContain(`kubegrace chart generate: the manifests hold values that the chart's own guards (or the API server) refuse`);
    expect(g.stderr).toContain(`  - ${where}: Deployment shop/web`);
    expect(g.stderr).toContain(c.says);
    expect(g.stderr).toContain(`(guard workloads.web.acknowledge.${c.ack})`);
    expect(g.stderr).toMatch(new RegExp(`add [a-z, -]*${c.rule}[a-z, -]* to the kubegrace\\.dev/ignore annotation of ${c.on === 0 ? 'Deployment' : 'PodDisruptionBudget'} "web"`));
    expect(fs.existsSync(path.join(work, 'charts', `ack-${i}`))).toBe(false);

    // The same manifests with the rule suppressed on the object: the chart acknowledges it by default.
    const suppress = { [IGNORE]: c.rule, ...REASON };
    const knobs: Knobs = c.on === 0 ? { ...c.knobs, annotations: suppress } : { ...c.knobs, pdbAnnotations: suppress };
    const accepted = write(`ack-${i}-ok.yaml`, app(knobs));
    const ok = await generate([accepted], `ack-${i}-ok`);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    const values = parse(fs.readFileSync(path.join(work, 'charts', `ack-${i}-ok`, 'values.yaml'), 'utf8')) as JsonObject;
    expect(((values.workloads as JsonObject).web as JsonObject).acknowledge).toMatchObject({ [c.ack]: true });
    for (const flags of [[], ['--kube-version', KUBE]]) {
      const r = render(`charts/ack-${i}-ok`, 'rel', 'prod', flags);
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    }
    const r = render(`charts/ack-${i}-ok`, 'rel', 'prod', ['--kube-version', KUBE]);
    expectNothingNew(accepted, r.stdout, '1.33');
    // Without the acknowledgement, the real chart refuses exactly as the generator said.
    const off = render(`charts/ack-${i}-ok`, 'rel', 'prod', ['--kube-version', KUBE, '--set', `workloads.web.acknowledge.${c.ack}=false`]);
    expect(off.status).toBe(1);
    expect(off.stderr).toContain('kubegrace guard: Deployment shop/web: ');
    expect(off.stderr).toContain(`set workloads.web.acknowledge.${c.ack}=true to accept it`);
  });

  test('`kubegrace.dev/ignore: all` on the object accepts it too (the linter reads it so)', async () => {
    const f = write('ack-all.yaml', app({ preStop: { exec: { command: ['sleep', '40'] } }, annotations: { [IGNORE]: 'all', ...REASON } }));
    const g = await generate([f], 'ack-all');
    expect(g.status).toBe(0);
    expect(render('charts/ack-all', 'rel', 'prod').status).toBe(0);
  });

  test('another rule in kubegrace.dev/ignore does not accept the guard', async () => {
    const f = write('ack-other.yaml', app({ preStop: { exec: { command: ['sleep', '40'] } }, annotations: { [IGNORE]: 'pdb-missing, replicas-not-spread', ...REASON } }));
    const g = await generate([f], 'ack-other');
    expect(g.status).toBe(1);
    expect(g.stderr).toContain('(guard workloads.web.acknowledge.gracePeriodBudget)');
  });

  test('the one default that depends on the cluster: a native sidecar of an unknown image refuses Kubernetes < 1.29 (classicFallback refuse) and renders from 1.29', async () => {
    const text = app({}).replace('"containers": [', '"initContainers": [{"name": "proxy", "image": "example/proxy:1", "restartPolicy": "Always"}],\n          "containers": [');
    const f = write('sidecar.yaml', text);
    const g = await generate([f], 'sidecar');
    expect(g.status).toBe(0);
    for (const v of ['1.29.0', KUBE]) expect(render('charts/sidecar', 'rel', 'prod', ['--kube-version', v]).status).toBe(0);
    const old = render('charts/sidecar', 'rel', 'prod');
    expect(old.status).toBe(1);
    expect(old.stderr).toContain('kubegrace guard: Deployment shop/web: Kubernetes v1.25.0 has no native sidecars (>= 1.29)');
    expect(old.stderr).toContain('set workloads.web.containers.proxy.classicFallback to execSleep');
    expect(render('charts/sidecar', 'rel', 'prod', ['--set', 'workloads.web.containers.proxy.classicFallback=stopAtOnce']).status).toBe(0);
  });

  test('the chart refuses a preStop sleep action longer than the grace period on >= 1.30 even when acknowledged (the API would reject it); below, exec sleep renders', async () => {
    const f = write('sleep-ok.yaml', app({ preStop: { sleep: { seconds: 5 } } }));
    expect((await generate([f], 'sleep-ok')).status).toBe(0);
    const set = ['--set', 'workloads.web.preStop.delaySeconds=40', '--set', 'workloads.web.acknowledge.gracePeriodBudget=true'];
    const at133 = render('charts/sleep-ok', 'rel', 'prod', ['--kube-version', KUBE, ...set]);
    expect(at133.status).toBe(1);
    expect(at133.stderr).toContain('kubegrace guard: Deployment shop/web: preStop.delaySeconds 40 > terminationGracePeriodSeconds 30: the API rejects a preStop sleep action longer than the grace period');
    const at129 = render('charts/sleep-ok', 'rel', 'prod', ['--kube-version', '1.29.0', ...set]);
    expect({ status: at129.status, stderr: at129.stderr }).toEqual({ status: 0, stderr: '' });
    expect(at129.stdout).toContain('- "40"');
    // At the grace period itself the API accepts it (seconds <= terminationGracePeriodSeconds).
    expect(render('charts/sleep-ok', 'rel', 'prod', ['--kube-version', KUBE, '--set', 'workloads.web.preStop.delaySeconds=30', '--set', 'workloads.web.acknowledge.gracePeriodBudget=true']).status).toBe(0);
  });

  const API_CASES: [string, Knobs, string][] = [
    ['maxSurge and maxUnavailable both 0', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } }, 'rollingUpdate maxSurge and maxUnavailable are both 0 (the API rejects it)'],
    ['minReadySeconds at the progress deadline', { minReady: 600, deadline: 600 }, 'minReadySeconds 600 >= progressDeadlineSeconds 600 (the API rejects it)'],
    ['HPA minReplicas above maxReplicas', { hpa: { min: 5, max: 3 } }, 'HorizontalPodAutoscaler minReplicas 5 > maxReplicas 3 (the API rejects it)'],
    ['a PDB with both fields', { pdb: { minAvailable: 1, maxUnavailable: 1 } }, 'the PodDisruptionBudget sets both minAvailable and maxUnavailable (the API rejects it)'],
    ['a preStop sleep action longer than the grace period', { preStop: { sleep: { seconds: 40 } } }, 'preStop sleep action of 40s > terminationGracePeriodSeconds 30: the API server rejects a sleep action longer than the grace period'],
  ];
  test.each(API_CASES)('%s: refused with no override, even with every rule suppressed', async (title, knobs, says) => {
    const f = write(`api-${title.replace(/\W+/g, '-')}.yaml`, app({ ...knobs, annotations: { [IGNORE]: 'all', ...REASON }, pdbAnnotations: { [IGNORE]: 'all', ...REASON } }));
    const g = await generate([f], 'api-case');
    expect(g.status).toBe(1);
    expect(g.stderr).toContain(`${f}:`);
    expect(g.stderr).toContain(says);
    expect(g.stderr).not.toContain('to accept the risk');
  });
});

// ---------------------------------------------------------------------------------------------
// The generator's reading of the guards = the Go templates'

test('over random values, the generator\'s guard evaluation agrees with helm on whether the chart renders', async () => {
  const text = app({ drain: 10, pdb: { maxUnavailable: 1 }, podAnnotations: { 'linkerd.io/inject': 'enabled', 'config.alpha.linkerd.io/proxy-wait-before-exit-seconds': '15' } });
  const hpaText = app({ drain: 10, hpa: { min: 2, max: 5 } });
  /** The documents of `app`, edited (the first is the Deployment). */
  const variant = (t: string, edit: (d: JsonObject) => void) => {
    const ds = t.trim().split('\n---\n').map((x) => JSON.parse(x) as JsonObject);
    edit(ds[0]);
    return ds.map((o) => JSON.stringify(o, null, 2)).join('\n---\n') + '\n';
  };
  const spec = (d: JsonObject) => d.spec as JsonObject;
  const sts = variant(app({ drain: 10, pdb: { minAvailable: 1 } }), (d) => {
    d.kind = 'StatefulSet';
    spec(d).serviceName = 'web';
  });
  const ds = variant(app({ drain: 10 }), (d) => {
    d.kind = 'DaemonSet';
    delete spec(d).replicas;
    spec(d).updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } };
  });
  // A native sidecar (its drain adds to the budget) and no declared drain time.
  const sidecar = variant(app({}), (d) => {
    const ps = (spec(d).template as JsonObject).spec as JsonObject;
    ps.initContainers = [{ name: 'proxy', image: 'example/proxy:1', restartPolicy: 'Always' }];
  });
  const sleepAction = app({ drain: 10, preStop: { sleep: { seconds: 5 } } });
  // (generate: the chart command in this process, awaited one at a time; runCli spawned a node per chart.)
  const charts: { dir: string; text: string; a: ReturnType<typeof analyze>; defaults: JsonObject }[] = [];
  for (const c of [
    { dir: 'agree-f', text: sleepAction },
    { dir: 'agree-a', text },
    { dir: 'agree-b', text: hpaText },
    { dir: 'agree-c', text: sts },
    { dir: 'agree-d', text: ds },
    { dir: 'agree-e', text: sidecar },
  ]) {
    write(`${c.dir}.yaml`, c.text);
    const r = await generate([`${c.dir}.yaml`], c.dir);
    expect(r.status).toBe(0);
    const defaults = parse(fs.readFileSync(path.join(work, 'charts', c.dir, 'values.yaml'), 'utf8')) as JsonObject;
    charts.push({ ...c, a: analyze(readObjects(c.text)), defaults });
  }
  const intOrPct = fc.oneof(fc.constantFrom(0, 1, 2, 3), fc.constantFrom('0%', '25%', '50%', '100%'));
  const web = fc.record(
    {
      replicas: fc.integer({ min: 0, max: 4 }),
      // Ranges that trip a guard in about half of the runs: both sides get exercised.
      terminationGracePeriodSeconds: fc.integer({ min: 1, max: 90 }),
      preStop: fc.record({ delaySeconds: fc.integer({ min: 0, max: 25 }) }),
      drainSeconds: fc.integer({ min: 0, max: 20 }),
      minReadySeconds: fc.integer({ min: 0, max: 30 }),
      progressDeadlineSeconds: fc.integer({ min: 1, max: 600 }),
      strategy: fc.record({ type: fc.constantFrom('RollingUpdate', 'RollingUpdate', 'RollingUpdate', 'Recreate'), maxSurge: fc.oneof(intOrPct, fc.constant(1)), maxUnavailable: intOrPct }),
      updateStrategy: fc.record({ type: fc.constantFrom('RollingUpdate', 'RollingUpdate', 'OnDelete'), maxSurge: intOrPct, maxUnavailable: intOrPct }),
      pdb: fc.oneof(
        fc.record({ enabled: fc.boolean(), minAvailable: intOrPct, maxUnavailable: fc.constant(null) }),
        fc.record({ enabled: fc.boolean(), minAvailable: fc.constant(null), maxUnavailable: intOrPct }),
        fc.record({ enabled: fc.boolean(), minAvailable: intOrPct, maxUnavailable: intOrPct }),
      ),
      autoscaling: fc.record({ minReplicas: fc.integer({ min: 1, max: 6 }), maxReplicas: fc.integer({ min: 1, max: 6 }) }),
      acknowledge: fc.record({ gracePeriodBudget: fc.boolean(), rolloutOutage: fc.boolean(), pdbBlocksEviction: fc.boolean(), meshDrain: fc.boolean(), preStopMissing: fc.boolean() }, { requiredKeys: [] }),
    },
    { requiredKeys: [] },
  );
  let refusals = 0;
  let renders = 0;
  fc.assert(
    fc.property(fc.nat({ max: charts.length - 1 }), web, (ci, w) => {
      const c = charts[ci];
      const own = (c.defaults.workloads as JsonObject).web as JsonObject;
      // Only the keys this chart has (the schema refuses others): replicas or autoscaling, the PDB group,
      // a StatefulSet's updateStrategy (partition, no maxSurge).
      const override: JsonObject = Object.fromEntries(Object.entries(w).filter(([k]) => k in own && !(k === 'updateStrategy' && c.dir === 'agree-c'))) as JsonObject;
      if (override.acknowledge) override.acknowledge = Object.fromEntries(Object.entries(override.acknowledge as JsonObject).filter(([k]) => k in (own.acknowledge as JsonObject)));
      const values = merge(c.defaults, { workloads: { web: override } });
      const expected = guardTrips(c.a, values);
      const r = helm(['template', 'rel', path.join(work, 'charts', c.dir), '--namespace', 'prod', '--kube-version', KUBE, '-f', valuesFile(path.join(work, 'agree-values'), { workloads: { web: override } })]);
      if (expected.length) {
        refusals++;
        expect({ values: override, status: r.status }).toEqual({ values: override, status: 1 });
        expect(r.stderr).toMatch(/kubegrace guard: (Deployment|StatefulSet|DaemonSet) shop\/web: /);
      } else {
        renders++;
        expect({ values: override, status: r.status, stderr: r.stderr }).toEqual({ values: override, status: 0, stderr: '' });
      }
    }),
    { numRuns: 120, seed: 20261124 },
  );
  // Both sides were exercised.
  expect(refusals).toBeGreaterThan(5);
  expect(renders).toBeGreaterThan(5);
});

// ---------------------------------------------------------------------------------------------
// One name in two namespaces

describe('objects in two namespaces', () => {
  const inNs = (ns: string, image: string) =>
    app({})
      .replace(/"namespace": "shop"/g, `"namespace": "${ns}"`)
      .replace('example/web:1.2.3', image);
  const both = () => `${inNs('a', 'example/web:1.0.0')}---\n${inNs('b', 'example/web:2.0.0')}`;

  /** Kind/namespace/name of every rendered object, with no duplicate. */
  const uniqueIds = (...outputs: string[]) => {
    const ids = outputs.flatMap((o) => docs(o).map(idOf));
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    return ids;
  };

  test('the same Deployment and Service in namespaces a and b: generated; installs into a (the main namespace) and c, and the chart refuses b, naming both objects and what to do', async () => {
    const f = write('two-ns.yaml', both());
    const g = await generate([f], 'two-ns');
    expect(g.stderr).toBe('');
    expect(g.status).toBe(0);
    expect(g.stdout).toContain('install it into namespace "a" (the manifests\' main namespace) or another than "b"');
    expect(releaseNamespaceCollisions(analyze(readObjects(both()))).map((c) => c.namespace)).toEqual(['b']);
    const inA = render('charts/two-ns', 'rel', 'a', ['--kube-version', KUBE]);
    expect({ status: inA.status, stderr: inA.stderr }).toEqual({ status: 0, stderr: '' });
    expect(uniqueIds(inA.stdout).sort()).toEqual(['Deployment/a/rel-two-ns-web', 'Deployment/b/rel-two-ns-web', 'Service/a/rel-two-ns-web', 'Service/b/rel-two-ns-web']);
    const inC = render('charts/two-ns', 'rel', 'c', ['--kube-version', KUBE]);
    expect({ status: inC.status, stderr: inC.stderr }).toEqual({ status: 0, stderr: '' });
    expect(uniqueIds(inC.stdout).sort()).toEqual(['Deployment/b/rel-two-ns-web', 'Deployment/c/rel-two-ns-web', 'Service/b/rel-two-ns-web', 'Service/c/rel-two-ns-web']);
    // Each copy keeps its own image: a's copy goes to the release namespace, b's stays in b.
    const image = (out: string, ns: string) => JSON.stringify(docs(out).find((o) => o.kind === 'Deployment' && (o.metadata as JsonObject).namespace === ns));
    expect(image(inC.stdout, 'c')).toContain('example/web:1.0.0');
    expect(image(inC.stdout, 'b')).toContain('example/web:2.0.0');
    for (const [helmNs, flags] of [['b', ['--kube-version', KUBE]], ['b', []]] as const) {
      const inB = render('charts/two-ns', 'rel', helmNs, [...flags]);
      expect(inB.status).toBe(1);
      expect(inB.stderr).toContain(
        'kubegrace guard: release namespace "b": the chart keeps the objects the manifests put into namespace "b" there and puts those of their main namespace "a" into the release namespace, so a release installed into "b" would hold two objects of one kind and name: ' +
          'Deployment "web" of namespace "b" and Deployment "web" of "a", both named "rel-two-ns-web"; Service "web" of namespace "b" and Service "web" of "a", both named "rel-two-ns-web"; ' +
          'helm install would fail on the second ("already exists"), and the two are different objects. Install into namespace "a" (the manifests\' main namespace) or another namespace than "b"; ' +
          'or regenerate the chart with kubegrace chart generate --namespace a, which keeps only the objects of "a"',
      );
    }
    // No override: the guard has no acknowledge value (values.schema.json refuses unknown keys anyway).
    expect(fs.readFileSync(path.join(work, 'charts/two-ns/templates/_guards.tpl'), 'utf8')).toMatch(/define "two-ns\.guards\.release-namespace" -}}\n\{\{- if eq \.Release\.Namespace "b" -}}/);
    // The chart's README names the namespace to install into and the one it refuses; NOTES say it after install.
    const readme = fs.readFileSync(path.join(work, 'charts/two-ns/README.md'), 'utf8');
    expect(readme).toContain('helm install RELEASE ./two-ns --namespace a ');
    expect(readme).toContain('**Install into "a"**, the manifests\' main namespace, or into any namespace but "b".');
    expect(readme).toContain('- "b": Deployment "web", Service "web"');
    const notes = fs.readFileSync(path.join(work, 'charts/two-ns/templates/NOTES.txt'), 'utf8');
    expect(notes).toContain('The chart refuses "b" as release namespace (each would hold two objects of one name); it is meant for "a", the manifests\' main namespace.');
    // Linting the renderings adds nothing to what the manifests get.
    expectNothingNew(f, inA.stdout, '1.33');
    expectNothingNew(f, inC.stdout, '1.33');
  });

  test('two releases with different names in two namespaces (a and c) render with no kind/namespace/name collision among all their objects', async () => {
    const f = write('two-ns.yaml', both());
    expect((await generate([f], 'two-ns')).status).toBe(0);
    const one = render('charts/two-ns', 'one', 'a', ['--kube-version', KUBE]);
    const two = render('charts/two-ns', 'two', 'c', ['--kube-version', KUBE]);
    for (const r of [one, two]) expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const ids = uniqueIds(one.stdout, two.stdout);
    expect(ids.length).toBe(8);
    expect(ids).toEqual(expect.arrayContaining(['Deployment/b/one-two-ns-web', 'Deployment/b/two-two-ns-web', 'Deployment/a/one-two-ns-web', 'Deployment/c/two-two-ns-web']));
  });

  test('kube-prometheus (the corpus): generated; in monitoring it renders with no duplicate and keeps the RoleBindings of default and kube-system; default and kube-system fail with the guard; lint adds nothing', async () => {
    const corpus = path.resolve(__dirname, '../../../shared/corpus/rendered/kube-prometheus.yaml');
    if (!fs.existsSync(corpus)) throw new Error(`${corpus} is missing: the shared corpus is needed for this test`);
    fs.copyFileSync(corpus, path.join(work, 'kube-prometheus.yaml'));
    const g = await generate(['kube-prometheus.yaml'], 'kp');
    expect(g.stderr).toBe('');
    expect(g.status).toBe(0);
    expect(g.stdout).toContain('install it into namespace "monitoring" (the manifests\' main namespace) or another than "default", "kube-system"');
    const mon = render('charts/kp', 'r', 'monitoring', ['--kube-version', KUBE]);
    expect({ status: mon.status, stderr: mon.stderr }).toEqual({ status: 0, stderr: '' });
    const ids = uniqueIds(mon.stdout);
    // prometheus-operator labels the pods with the resource's name (app.kubernetes.io/instance: main), which the
    // manifests' alertmanager-main Service and PDB select: the resources keep their names.
    expect(ids).toEqual(expect.arrayContaining(['Alertmanager/monitoring/main', 'Prometheus/monitoring/k8s']));
    expect(ids).toEqual(expect.arrayContaining(['RoleBinding/default/r-kp-prometheus-k8s', 'RoleBinding/kube-system/r-kp-prometheus-k8s', 'RoleBinding/monitoring/r-kp-prometheus-k8s', 'Role/default/r-kp-prometheus-k8s', 'Role/kube-system/r-kp-prometheus-k8s']));
    // Every object of the manifests (List items too) but the Namespace (namespace.create is false by default).
    expect(ids.length).toBe(readObjects(fs.readFileSync(corpus, 'utf8')).filter((o) => o.kind !== 'Namespace').length);
    // The kept RoleBindings grant the Prometheus ServiceAccount of the release, in the release namespace.
    const rb = docs(mon.stdout).find((o) => idOf(o) === 'RoleBinding/default/r-kp-prometheus-k8s')!;
    expect(rb.subjects).toEqual([{ kind: 'ServiceAccount', name: 'r-kp-prometheus-k8s', namespace: 'monitoring' }]);
    expect(rb.roleRef).toMatchObject({ kind: 'Role', name: 'r-kp-prometheus-k8s' });
    for (const ns of ['default', 'kube-system']) {
      const r = render('charts/kp', 'r', ns, ['--kube-version', KUBE]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`kubegrace guard: release namespace "${ns}": `);
      expect(r.stderr).toContain(`RoleBinding "prometheus-k8s" of namespace "${ns}" and RoleBinding "prometheus-k8s" of "monitoring", both named "r-kp-prometheus-k8s"`);
      expect(r.stderr).toContain('Install into namespace "monitoring" (the manifests\' main namespace) or another namespace than "default" or "kube-system"');
    }
    // helm template without --namespace renders into default: refused, with the same message.
    const plain = helm(['template', 'r', path.join(work, 'charts/kp'), '--kube-version', KUBE]);
    expect(plain.status).toBe(1);
    expect(plain.stderr).toContain('kubegrace guard: release namespace "default": ');
    const other = render('charts/kp', 'r', 'observability', ['--kube-version', KUBE]);
    expect({ status: other.status, stderr: other.stderr }).toEqual({ status: 0, stderr: '' });
    uniqueIds(other.stdout);
    expectNothingNew('kube-prometheus.yaml', mon.stdout, '1.33');
    expectNothingNew('kube-prometheus.yaml', other.stdout, '1.33');
  }, 120_000);

  test('one ConfigMap name in two namespaces that are not the main one: generated, both kept, and every release namespace renders (neither goes to the release namespace)', () => {
    const cm = (ns: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: ns }, data: { a: '1' } });
    const text = `${app({})}---\n${cm('x')}\n---\n${cm('y')}\n`;
    expect(releaseNamespaceCollisions(analyze(readObjects(text)))).toEqual([]);
    const dir = generateChart(text, { name: 'cfg2', version: '0.1.0', appVersion: '1', description: 'd' }, path.join(work, 'charts')).dir;
    for (const ns of ['shop', 'x', 'y']) {
      const r = helm(['template', 'rel', dir, '--namespace', ns, '--kube-version', KUBE]);
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      expect(uniqueIds(r.stdout)).toEqual(expect.arrayContaining(['ConfigMap/x/rel-cfg2-cfg', 'ConfigMap/y/rel-cfg2-cfg', `Deployment/${ns}/rel-cfg2-web`]));
    }
  });

  test('the same object twice in one namespace is refused (a release would hold it twice), also one naming no namespace next to one of the main namespace; an empty document between two `---` is skipped', () => {
    const spec = { name: 'c', version: '0.1.0', appVersion: '1', description: 'd' };
    const svc = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { app: 'web' }, ports: [{ port: 81 }] } });
    expect(() => buildChartFiles(`${app({})}---\n${svc}\n`, spec)).toThrow(/Service "web" in namespace "shop" \(manifests line \d+, column 1\), Service "web" in namespace "shop" \(manifests line \d+, column 1\): in one namespace, so a release would hold two Service <release>-<chart>-web/);
    const bare = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 81 }] } });
    expect(() => buildChartFiles(`${app({})}---\n${bare}\n`, spec)).toThrow(/Service "web" in namespace "shop" \(manifests line \d+, column 1\), Service "web" \(manifests line \d+, column 1\): in one namespace/);
    const role = (ns: string) => JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r', ...(ns ? { namespace: ns } : {}) }, rules: [] });
    expect(() => buildChartFiles(`${app({})}---\n${role('shop')}\n---\n${role('other')}\n`, spec)).toThrow(/ClusterRole "r" \(manifests line \d+, column 1\), ClusterRole "r" \(manifests line \d+, column 1\): in one namespace/);
    expect(buildChartFiles(`${app({})}---\n---\n# nothing\n---\n`, spec).has('templates/deployment-web.yaml')).toBe(true);
  });

  test('different names in two namespaces: the second namespace is kept, and releases in two namespaces render with no kind/namespace/name collision', async () => {
    const text = `${inNs('a', 'example/web:1.0.0')}---\n${inNs('a', 'example/web:1.0.0').replace(/"web"/g, '"api"').replace(/"app": "web"/g, '"app": "api"')}---\n${inNs('b', 'example/web:2.0.0').replace(/"web"/g, '"jobs"')}`;
    const f = write('kept-ns.yaml', text);
    const g = await generate([f], 'kept');
    expect(g.stderr).toBe('');
    expect(g.status).toBe(0);
    const renderings = [render('charts/kept', 'one', 'a', ['--kube-version', KUBE]), render('charts/kept', 'two', 'c', ['--kube-version', KUBE]), render('charts/kept', 'three', 'b', ['--kube-version', KUBE])];
    const ids: string[] = [];
    for (const r of renderings) {
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      ids.push(...docs(r.stdout).map(idOf));
    }
    expect(ids.length).toBe(18);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids).toEqual(expect.arrayContaining(['Deployment/c/two-kept-web', 'Deployment/c/two-kept-api', 'Deployment/b/two-kept-jobs', 'Deployment/b/three-kept-web', 'Deployment/b/three-kept-jobs']));
    expectNothingNew(f, renderings[0].stdout, '1.33');
  });

  test('one chart per namespace (--namespace): releases in two namespaces, and two in one, render with no kind/namespace/name collision, and lint no worse than the manifests', async () => {
    const f = write('two-ns.yaml', both());
    for (const ns of ['a', 'b']) {
      const g = await generate([f], `web-${ns}`, ['--namespace', ns]);
      expect(g.stderr).toBe('');
      expect(g.status).toBe(0);
    }
    const aImage = JSON.stringify(((parse(fs.readFileSync(path.join(work, 'charts/web-a/values.yaml'), 'utf8')) as JsonObject).workloads as JsonObject).web);
    expect(aImage).toContain('"tag":"1.0.0"');
    const renderings = [
      render('charts/web-a', 'web', 'a', ['--kube-version', KUBE]),
      render('charts/web-b', 'web', 'b', ['--kube-version', KUBE]),
      render('charts/web-b', 'canary', 'a', ['--kube-version', KUBE]),
      render('charts/web-a', 'web', 'c', ['--kube-version', KUBE]),
    ];
    const ids: string[] = [];
    for (const r of renderings) {
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      ids.push(...docs(r.stdout).map(idOf));
    }
    expect(ids.length).toBe(8); // a Deployment and a Service per release (the optional PDB is off by default)
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids).toEqual(expect.arrayContaining(['Deployment/a/web-web-a-web', 'Deployment/b/web-web-b-web', 'Deployment/a/canary-web-b-web', 'Deployment/c/web-web-a-web']));
    write('web-a-only.yaml', inNs('a', 'example/web:1.0.0'));
    expectNothingNew('web-a-only.yaml', renderings[0].stdout, '1.33');
  });

  test('--namespace with a namespace the manifests do not use is refused, naming the ones they use', async () => {
    const f = write('two-ns.yaml', both());
    const g = await generate([f], 'web-x', ['--namespace', 'x']);
    expect(g.status).toBe(1);
    expect(g.stderr).toContain('no object of the manifests is in namespace "x" (they use "a", "b")');
  });

  test('values keys do not depend on the order of the manifests (cdk8s names that differ only in their hash)', () => {
    const cdk8s = (hash: string, kind: string) =>
      JSON.stringify({ apiVersion: 'apps/v1', kind, metadata: { name: `api-${hash}`, namespace: 'shop', labels: { 'cdk8s.io/x': 'y' } }, spec: { selector: { matchLabels: { app: hash } }, template: { metadata: { labels: { app: hash } }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } } });
    const objs = [cdk8s('c8f8f8d3', 'Deployment'), cdk8s('1234abcd', 'Deployment'), cdk8s('0badf00d', 'StatefulSet')];
    const keysOf = (order: string[]) => {
      const g = new ObjectGraph(readObjects(order.join('\n---\n')));
      return Object.fromEntries([...workloadKeys(g.workloads).entries()].map(([w, k]) => [`${w.kind}/${w.obj.name}`, k]));
    };
    const forward = keysOf(objs);
    expect(keysOf([...objs].reverse())).toEqual(forward);
    expect(new Set(Object.values(forward)).size).toBe(3);
    expect(forward['StatefulSet/api-0badf00d']).toBe('apiStatefulSet');
  });
});
