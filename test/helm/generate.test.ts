/**
 * The chart generator on the example apps, checked with the real helm 3.10.1 binary:
 * `helm lint --strict`, the default rendering (the synthesized manifests, named after the release, in
 * the release namespace, with the Helm labels), lint-clean at every supported Kubernetes version, two
 * releases side by side, a matrix of value combinations that all render and lint with zero errors,
 * every guard refusing its unsafe values and accepting them when acknowledged, and the values schema
 * refusing bad types, ranges, enums and unknown keys. One helm process per rendering (schema
 * violations that set different paths are refused together, helm listing each: see that test).
 */
import Ajv from 'ajv';
import { App } from 'cdk8s';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { APPS } from '../../charts-src/apps';
import { generateChart } from '../../lib/helm/generate';
import { HelmRun } from '../../lib/helm/helm-bin';
import { HELM_LABELS, INSTANCE_LABEL } from '../../lib/helm/templates';
import { isObject, Json, JsonObject } from '../../lib/model/types';
import { byId, docs, errorsOf, expectedRendering, idOf, KUBE, lintRendered, makeHelm, merge, normalized, tmpDir, valuesFile } from './generate-helpers';
import { lintSources } from '../../lib/engine/run';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { ALL_RULES } from '../../lib/rules';

const work = tmpDir('kg-chart-gen-');
const helm = makeHelm(path.join(work, 'helm-home'));

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const manifests = new Map<string, string>();
const charts = new Map<string, string>();

beforeAll(() => {
  // Exactly what `npm run synth` writes to dist/manifests (charts-src/main.ts under `cdk8s synth`).
  const out = path.join(work, 'manifests');
  const app = new App({ outdir: out, outputFileExtension: '.yaml' });
  for (const [name, build] of Object.entries(APPS)) build(app, name);
  app.synth();
  for (const name of Object.keys(APPS)) {
    const text = fs.readFileSync(path.join(out, `${name}.yaml`), 'utf8');
    manifests.set(name, text);
    charts.set(name, generateChart(text, { name, version: '0.3.0', appVersion: '1.0.0', description: `${name} example app` }, path.join(work, 'charts')).dir);
  }
}, 120_000);

function template(app: string, extra: string[] = []): HelmRun {
  return helm(['template', 'rel', charts.get(app)!, '--kube-version', KUBE, ...extra]);
}

function renderWith(app: string, values: JsonObject): HelmRun {
  return template(app, ['-f', valuesFile(path.join(work, 'values', app), values)]);
}

function defaults(app: string): JsonObject {
  return parse(fs.readFileSync(path.join(charts.get(app)!, 'values.yaml'), 'utf8')) as JsonObject;
}

function workloadsOf(app: string): [string, JsonObject][] {
  return Object.entries(defaults(app).workloads as JsonObject) as [string, JsonObject][];
}

function w(key: string, values: JsonObject): JsonObject {
  return { workloads: { [key]: values } };
}

function num(v: Json | undefined): number {
  return typeof v === 'number' ? v : 0;
}

/** The rendered workload object a values key belongs to (its kind and synthesized name). */
function workloadOut(objs: JsonObject[], kind: string): JsonObject {
  const o = objs.find((x) => x.kind === kind);
  if (!o) throw new Error(`no ${kind} in the rendering`);
  return o;
}

/** The paths a values object sets (an empty object, an array or a scalar ends a path). */
function leafPaths(v: Json, base = ''): string[] {
  if (!isObject(v) || Object.keys(v).length === 0) return [base];
  return Object.entries(v).flatMap(([k, x]) => leafPaths(x, `${base}/${k}`));
}

/** Cases grouped so that no two in a group set the same path or one inside the other (in order). */
function disjointGroups<T extends [JsonObject, ...unknown[]]>(cases: T[]): T[][] {
  const groups: { cases: T[]; paths: string[] }[] = [];
  const clash = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
  for (const c of cases) {
    const paths = leafPaths(c[0]);
    const g = groups.find((x) => !x.paths.some((p) => paths.some((q) => clash(p, q))));
    if (g) {
      g.cases.push(c);
      g.paths.push(...paths);
    } else groups.push({ cases: [c], paths });
  }
  return groups.map((g) => g.cases);
}

function kindOf(d: JsonObject): 'Deployment' | 'StatefulSet' | 'DaemonSet' {
  if (isObject(d.strategy)) return 'Deployment';
  return isObject(d.updateStrategy) && 'partition' in d.updateStrategy ? 'StatefulSet' : 'DaemonSet';
}

/** Budget facts of a workload from its defaults: the constructs set grace = preStop + drain + addend + 5. */
function budget(d: JsonObject): { pre: number; drain: number; grace: number; addend: number } {
  const pre = num((d.preStop as JsonObject | undefined)?.delaySeconds);
  const drain = num(d.drainSeconds);
  const grace = num(d.terminationGracePeriodSeconds);
  return { pre, drain, grace, addend: grace - pre - drain - 5 };
}

const APP_NAMES = Object.keys(APPS);
const VERSIONS = ['1.25', '1.28', '1.29', '1.30', '1.33'];
const MIN_KUBE: Record<string, string> = { datastore: '1.23', 'node-agent': '1.22' };
const STRICT = loadPolicy('strict', ALL_RULES);

function containersOf(o: JsonObject): JsonObject[] {
  const ps = ((o.spec as JsonObject | undefined)?.template as JsonObject | undefined)?.spec as JsonObject | undefined;
  return ps ? [...((ps.containers as JsonObject[]) ?? []), ...((ps.initContainers as JsonObject[]) ?? [])] : [];
}

/** The label maps of an object's selectors that select pods (workload, Service, PDB, spread). */
function selectorsOf(o: JsonObject): JsonObject[] {
  const spec = (o.spec ?? {}) as JsonObject;
  const out: JsonObject[] = [];
  if (o.kind === 'Service' && isObject(spec.selector)) out.push(spec.selector);
  else if (isObject(spec.selector) && isObject(spec.selector.matchLabels)) out.push(spec.selector.matchLabels);
  const ps = (spec.template as JsonObject | undefined)?.spec as JsonObject | undefined;
  for (const t of (ps?.topologySpreadConstraints as JsonObject[] | undefined) ?? []) out.push((t.labelSelector as JsonObject).matchLabels as JsonObject);
  if (isObject(spec.template)) out.push((spec.template.metadata as JsonObject).labels as JsonObject);
  return out;
}


test('the example apps are covered', () => {
  expect(APP_NAMES).toEqual(expect.arrayContaining(['http-api', 'tunnel-proxy', 'datastore', 'mesh-api', 'node-agent', 'storefront']));
});

describe.each(APP_NAMES)('%s', (app) => {
  test('helm lint --strict passes', () => {
    const r = helm(['lint', '--strict', charts.get(app)!]);
    expect(r.stdout + r.stderr).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(r.status).toBe(0);
  });

  test('Chart.yaml: apiVersion v2, the spec, the true minimum kubeVersion, Artifact Hub annotations', () => {
    const chart = parse(fs.readFileSync(path.join(charts.get(app)!, 'Chart.yaml'), 'utf8')) as JsonObject;
    expect(chart).toMatchObject({ apiVersion: 'v2', name: app, version: '0.3.0', appVersion: '1.0.0', type: 'application', description: `${app} example app` });
    // The sleep action, matchLabelKeys, unhealthyPodEvictionPolicy and native sidecars (mesh-api: a classic
    // container with drain flags below 1.29) are chosen by the cluster's version, so only StatefulSet
    // minReadySeconds (1.23) and DaemonSet maxSurge (1.22) raise the minimum above the constructs' 1.21.
    const expected = `>=${MIN_KUBE[app] ?? '1.21'}.0-0`;
    expect(chart.kubeVersion).toBe(expected);
    const annotations = chart.annotations as JsonObject;
    expect(annotations['kubegrace.dev/generated-by']).toBe('kubegrace');
    expect(annotations['artifacthub.io/prerelease']).toBe('false');
    const images = parse(String(annotations['artifacthub.io/images'])) as JsonObject[];
    expect(images.length).toBeGreaterThan(0);
    for (const i of images) expect(manifests.get(app)!).toContain(`image: ${String(i.image)}`);
    // Below the minimum, helm refuses to render, naming the constraint.
    const r = helm(['template', 'rel', charts.get(app)!, '--kube-version', '1.20.0']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`chart requires kubeVersion: ${expected} which is incompatible with Kubernetes v1.20.0`);
  });

  test('the default rendering is the synthesized manifests, named after the release, in the release namespace, and lints like them', () => {
    const r = template(app, ['--namespace', 'prod']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const rendered = docs(r.stdout);
    const expected = expectedRendering(manifests.get(app)!, app, 'rel', 'prod');
    expect(rendered.length).toBe(expected.length);
    const want = byId(expected);
    for (const o of rendered) {
      expect({ id: idOf(o), known: want.has(idOf(o)) }).toEqual({ id: idOf(o), known: true });
      expect(normalized(o)).toEqual(want.get(idOf(o)));
      // The standard labels are in metadata.labels of every object...
      const labels = (o.metadata as JsonObject).labels as JsonObject;
      expect(Object.keys(labels)).toEqual(expect.arrayContaining(HELM_LABELS));
      expect(labels).toMatchObject({ 'app.kubernetes.io/instance': 'rel', 'app.kubernetes.io/managed-by': 'Helm', 'app.kubernetes.io/name': app, 'helm.sh/chart': `${app}-0.3.0` });
    }
    // ...and nowhere else: selectors and pod templates get only the instance label (fixed for a release's life).
    expect(r.stdout.split('helm.sh/chart').length - 1).toBe(rendered.length);
    const describe = (fs: ReturnType<typeof lintRendered>) => fs.map((f) => `${f.severity} ${f.ruleId} ${f.object.kind} ${f.pointer}`).sort();
    const findings = lintRendered(r.stdout);
    expect(errorsOf(findings)).toEqual([]);
    expect(describe(findings)).toEqual(describe(lintRendered(manifests.get(app)!)));
  });

  test.each(VERSIONS)('Kubernetes %s: renders (or the chart refuses the version by its kubeVersion) and lints clean at that version', (v) => {
    const r = helm(['template', 'rel', charts.get(app)!, '--namespace', 'prod', '--kube-version', `${v}.0`]);
    const min = KubeVersion.parse(MIN_KUBE[app] ?? '1.21');
    const version = KubeVersion.parse(v);
    if (!version.atLeast(min.major, min.minor)) {
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`which is incompatible with Kubernetes v${v}.0`);
      return;
    }
    expect(r.stderr).toBe('');
    const result = lintSources([{ file: 'rendered.yaml', text: r.stdout }], { rules: ALL_RULES, policy: STRICT, version });
    expect(result.errors).toEqual([]);
    expect(result.findings.filter((f) => !f.suppressed).map((f) => `${f.severity} ${f.ruleId} ${f.message}`)).toEqual([]);
    const objs = docs(r.stdout);
    const hooks = objs.flatMap((o) => containersOf(o)).map((c) => (c.lifecycle as JsonObject | undefined)?.preStop as JsonObject | undefined).filter((h): h is JsonObject => h !== undefined);
    for (const h of hooks) {
      if (version.atLeast(1, 30)) expect(h.exec === undefined || !String((h.exec as JsonObject).command).startsWith('sleep')).toBe(true);
      else expect(h.sleep).toBeUndefined();
    }
    if (!version.atLeast(1, 27)) {
      expect(r.stdout).not.toContain('matchLabelKeys');
      expect(r.stdout).not.toContain('unhealthyPodEvictionPolicy');
    }
  });

  test('two releases in one namespace (and two namespaces) share no kind/namespace/name, and select only their own pods', () => {
    const a = docs(helm(['template', 'blue', charts.get(app)!, '--namespace', 'shared', '--kube-version', KUBE]).stdout);
    const b = docs(helm(['template', 'green', charts.get(app)!, '--namespace', 'shared', '--kube-version', KUBE]).stdout);
    const c = docs(helm(['template', 'blue', charts.get(app)!, '--namespace', 'other', '--kube-version', KUBE]).stdout);
    expect(a.length).toBeGreaterThan(0);
    const ids = (objs: JsonObject[]) => new Set(objs.map(idOf));
    for (const [x, y] of [[a, b], [a, c]]) {
      const clash = [...ids(x)].filter((id) => ids(y).has(id));
      expect(clash).toEqual([]);
    }
    for (const o of a) expect((o.metadata as JsonObject).namespace).toBe('shared');
    for (const o of c) expect((o.metadata as JsonObject).namespace).toBe('other');
    // Every selector holds the release's instance label, so green's Services and budgets never pick blue's pods.
    for (const o of a) {
      for (const sel of selectorsOf(o)) expect(sel[INSTANCE_LABEL]).toBe('blue');
    }
  });

  test('a matrix of at least 10 value combinations renders and lints with zero errors', () => {
    const base = template(app).stdout;
    let combos = 0;
    for (const [key, d] of workloadsOf(app)) {
      const kind = kindOf(d);
      const b = budget(d);
      const cases: [string, JsonObject, ((objs: JsonObject[]) => void)?][] = [];
      const wl = (objs: JsonObject[]) => workloadOut(objs, kind);
      const pod = (objs: JsonObject[]) => ((wl(objs).spec as JsonObject).template as JsonObject).spec as JsonObject;
      const main = (objs: JsonObject[]) => (pod(objs).containers as JsonObject[])[0];
      if ('replicas' in d) {
        cases.push(['replicas 5', w(key, { replicas: 5 }), (o) => expect((wl(o).spec as JsonObject).replicas).toBe(5)]);
        const other = num(d.replicas) === 2 ? 4 : 2;
        cases.push([`replicas ${other}`, w(key, { replicas: other }), (o) => expect((wl(o).spec as JsonObject).replicas).toBe(other)]);
      }
      if (kind === 'Deployment') {
        cases.push(['surge and unavailable as percentages', w(key, { strategy: { maxSurge: '50%', maxUnavailable: '25%' } }), (o) => expect((wl(o).spec as JsonObject).strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '50%', maxUnavailable: '25%' } })]);
        cases.push(['no surge, one unavailable', w(key, { strategy: { maxSurge: 0, maxUnavailable: 1 } })]);
        cases.push(['Recreate, acknowledged', w(key, { strategy: { type: 'Recreate' }, acknowledge: { rolloutOutage: true } }), (o) => expect((wl(o).spec as JsonObject).strategy).toEqual({ type: 'Recreate' })]);
        cases.push(['slower rollout', w(key, { minReadySeconds: 30, progressDeadlineSeconds: 900 }), (o) => expect((wl(o).spec as JsonObject).progressDeadlineSeconds).toBe(900)]);
      } else if (kind === 'DaemonSet') {
        cases.push(['surge as a percentage', w(key, { updateStrategy: { maxSurge: '25%', maxUnavailable: 0 } })]);
        cases.push(['no surge, one unavailable', w(key, { updateStrategy: { maxSurge: 0, maxUnavailable: 1 } }), (o) => expect((wl(o).spec as JsonObject).updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } })]);
        cases.push(['OnDelete', w(key, { updateStrategy: { type: 'OnDelete' } }), (o) => expect((wl(o).spec as JsonObject).updateStrategy).toEqual({ type: 'OnDelete' })]);
        cases.push(['minReadySeconds 15', w(key, { minReadySeconds: 15 })]);
      } else {
        cases.push(['canary partition', w(key, { updateStrategy: { partition: 1 } }), (o) => expect(((wl(o).spec as JsonObject).updateStrategy as JsonObject).rollingUpdate).toEqual({ partition: 1 })]);
        cases.push(['OnDelete', w(key, { updateStrategy: { type: 'OnDelete' } })]);
        cases.push(['minReadySeconds 15', w(key, { minReadySeconds: 15 })]);
      }
      if (d.preStop) {
        cases.push(['grace and preStop raised together', w(key, { preStop: { delaySeconds: b.pre + 20 }, terminationGracePeriodSeconds: b.grace + 20 }), (o) => expect(pod(o).terminationGracePeriodSeconds).toBe(b.grace + 20)]);
        cases.push(['preStop 0 removes the hook (acknowledged)', w(key, { preStop: { delaySeconds: 0 }, acknowledge: { preStopMissing: true } }), (o) => expect(main(o).lifecycle).toBeUndefined()]);
      }
      cases.push(['drain and grace raised together', w(key, { drainSeconds: b.drain + 30, terminationGracePeriodSeconds: b.grace + 30 }), (o) => expect((wl(o).metadata as JsonObject).annotations).toMatchObject({ 'kubegrace.dev/drain-seconds': String(b.drain + 30) })]);
      cases.push(['grace raised alone', w(key, { terminationGracePeriodSeconds: b.grace + 60 })]);
      cases.push([
        'another image',
        w(key, { image: { registry: 'registry.example.com', repository: 'team/app', tag: '9.9.9', digest: `sha256:${'a'.repeat(64)}`, pullPolicy: 'IfNotPresent' } }),
        (o) => expect(main(o)).toMatchObject({ image: `registry.example.com/team/app:9.9.9@sha256:${'a'.repeat(64)}`, imagePullPolicy: 'IfNotPresent' }),
      ]);
      cases.push(['other resources', w(key, { resources: { requests: { cpu: '2', memory: '1Gi' }, limits: { memory: '1Gi' } } }), (o) => expect(main(o).resources).toMatchObject({ requests: { cpu: '2', memory: '1Gi' }, limits: { memory: '1Gi' } })]);
      const baseName = String((workloadOut(docs(base), kind).metadata as JsonObject).name);
      cases.push(['fullnameOverride', { fullnameOverride: 'blue' }, (o) => expect((wl(o).metadata as JsonObject).name).toBe(baseName.replace(`rel-${app}`, 'blue'))]);
      cases.push(['nameOverride', { nameOverride: 'shop' }, (o) => expect((wl(o).metadata as JsonObject).name).toBe(baseName.replace(`rel-${app}`, 'rel-shop'))]);
      if (manifests.get(app)!.includes('kind: Namespace')) {
        cases.push(['namespace.create', { namespace: { create: true } }, (o) => expect(o.filter((x) => x.kind === 'Namespace').map((x) => (x.metadata as JsonObject).name)).toEqual(['default'])]);
      }
      cases.push([
        'scheduling and pod values (per workload)',
        w(key, {
          nodeSelector: { pool: 'web' },
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
          affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'arch', operator: 'In', values: ['arm64'] }] }] } } },
          podAnnotations: { 'example.com/a': 'b' },
          podLabels: { team: 'web' },
          priorityClassName: 'high',
          serviceAccountName: 'runner',
          imagePullSecrets: ['regcred', { name: 'other' }],
          podSecurityContext: { runAsNonRoot: true, runAsUser: 1000 },
          topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'example.com/rack', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { team: 'web' } } }],
        }),
        (o) => {
          expect(pod(o)).toMatchObject({ nodeSelector: { pool: 'web' }, priorityClassName: 'high', serviceAccountName: 'runner', imagePullSecrets: [{ name: 'regcred' }, { name: 'other' }], securityContext: { runAsUser: 1000 } });
          expect(pod(o).tolerations).toEqual([expect.objectContaining({ key: 'dedicated' })]);
          expect(pod(o).topologySpreadConstraints).toEqual(expect.arrayContaining([expect.objectContaining({ topologyKey: 'example.com/rack' })]));
          const meta = ((wl(o).spec as JsonObject).template as JsonObject).metadata as JsonObject;
          expect(meta.annotations).toMatchObject({ 'example.com/a': 'b' });
          expect(meta.labels).toMatchObject({ team: 'web', [INSTANCE_LABEL]: 'rel' });
          expect(JSON.stringify((wl(o).spec as JsonObject).selector)).not.toContain('team');
        },
      ]);
      cases.push([
        'chart-wide values: registry mirror, pull secrets, labels, scheduling',
        { global: { imageRegistry: 'mirror.example.com', imagePullSecrets: ['g'] }, imagePullSecrets: ['top'], commonLabels: { env: 'prod' }, nodeSelector: { zone: 'a' }, podLabels: { tier: 'x' } },
        (o) => {
          expect(String(main(o).image).startsWith('mirror.example.com/')).toBe(true);
          expect(pod(o).imagePullSecrets).toEqual(expect.arrayContaining([{ name: 'g' }, { name: 'top' }]));
          expect(pod(o).nodeSelector).toEqual({ zone: 'a' });
          for (const x of o) expect((x.metadata as JsonObject).labels).toMatchObject({ env: 'prod' });
          expect((((wl(o).spec as JsonObject).template as JsonObject).metadata as JsonObject).labels).toMatchObject({ tier: 'x' });
        },
      ]);
      cases.push([
        'container values: numeric tag, extra env, securityContext',
        w(key, { image: { tag: 2 }, extraEnv: [{ name: 'EXTRA', value: '1' }], securityContext: { runAsUser: 7 } }),
        (o) => {
          expect(String(main(o).image)).toMatch(/:2$/);
          expect(main(o).env).toEqual(expect.arrayContaining([{ name: 'EXTRA', value: '1' }]));
          // Maps merge with the defaults, as helm merges values.
          expect(main(o).securityContext).toMatchObject({ runAsUser: 7 });
        },
      ]);
      if (isObject(d.pdb)) {
        cases.push(['PDB minAvailable 50%', w(key, { pdb: { minAvailable: '50%', maxUnavailable: null } }), (o) => expect(o.find((x) => x.kind === 'PodDisruptionBudget')!.spec).toMatchObject({ minAvailable: '50%' })]);
        cases.push(['PDB minAvailable 1', w(key, { pdb: { minAvailable: 1, maxUnavailable: null } })]);
        cases.push(['PDB maxUnavailable 2', w(key, { pdb: { maxUnavailable: 2 } })]);
        cases.push(['PDB off', w(key, { pdb: { enabled: false } }), (o) => expect(o.some((x) => x.kind === 'PodDisruptionBudget')).toBe(false)]);
      }
      if (isObject(d.spread)) {
        cases.push(['spread off', w(key, { spread: { enabled: false } }), (o) => expect(pod(o).topologySpreadConstraints).toBeUndefined()]);
        cases.push([
          'spread over zones only, required',
          w(key, { spread: { maxSkew: 2, whenUnsatisfiable: 'DoNotSchedule', topologyKeys: ['topology.kubernetes.io/zone'] } }),
          (o) => expect(pod(o).topologySpreadConstraints).toEqual([expect.objectContaining({ maxSkew: 2, whenUnsatisfiable: 'DoNotSchedule', topologyKey: 'topology.kubernetes.io/zone' })]),
        ]);
      }
      for (const [name, values, check] of cases) {
        const r = renderWith(app, values);
        expect({ name, status: r.status, stderr: r.stderr }).toEqual({ name, status: 0, stderr: '' });
        expect({ name, changed: r.stdout !== base }).toEqual({ name, changed: true });
        expect({ name, errors: errorsOf(lintRendered(r.stdout)) }).toEqual({ name, errors: [] });
        check?.(docs(r.stdout));
        combos++;
      }
    }
    expect(combos).toBeGreaterThanOrEqual(10);
  });

  test('every guard refuses its unsafe values with its message, and the limits themselves pass', () => {
    for (const [key, d] of workloadsOf(app)) {
      const kind = kindOf(d);
      const b = budget(d);
      const p = `workloads.${key}`;
      const refused = (values: JsonObject, message: RegExp | string) => {
        const r = renderWith(app, values);
        expect({ values, status: r.status }).toEqual({ values, status: 1 });
        expect(r.stderr).toMatch(message);
        expect(r.stderr).toContain('kubegrace guard: ');
      };
      const accepted = (values: JsonObject, lint = true) => {
        const r = renderWith(app, values);
        expect({ values, status: r.status, stderr: r.stderr }).toEqual({ values, status: 0, stderr: '' });
        return lint ? lintRendered(r.stdout) : [];
      };
      if (d.preStop) {
        refused(w(key, { preStop: { delaySeconds: b.grace } }), `preStop delay ${b.grace}s >= terminationGracePeriodSeconds ${b.grace}s`);
        refused(w(key, { preStop: { delaySeconds: b.grace + 30 } }), `raise ${p}.terminationGracePeriodSeconds to at least ${b.grace + 30 + b.drain + b.addend + 5}`);
      }
      // preStop + drain (+ native sidecar drain) > grace: refused one second below the budget, accepted at it,
      // where the linter's grace-period-budget rule is silent too.
      const need = b.pre + b.drain + b.addend;
      refused(w(key, { terminationGracePeriodSeconds: need - 1 }), new RegExp(`preStop ${b.pre}s \\+ drain ${b.drain}s.* = ${need}s exceeds terminationGracePeriodSeconds ${need - 1}s`));
      refused(w(key, { drainSeconds: b.grace - b.pre - b.addend + 1 }), `= ${b.grace + 1}s exceeds terminationGracePeriodSeconds ${b.grace}s`);
      expect(accepted(w(key, { terminationGracePeriodSeconds: need })).filter((f) => f.ruleId === 'grace-period-budget')).toEqual([]);
      if (kind === 'Deployment' || kind === 'DaemonSet') {
        const s = kind === 'Deployment' ? 'strategy' : 'updateStrategy';
        refused(w(key, { [s]: { maxSurge: 0, maxUnavailable: 0 } }), `${p}.${s}.maxSurge and maxUnavailable are both 0`);
        refused(w(key, { [s]: { maxSurge: '0%', maxUnavailable: 0 } }), 'are both 0');
        accepted(w(key, { [s]: { type: kind === 'Deployment' ? 'Recreate' : 'OnDelete', maxSurge: 0, maxUnavailable: 0 }, ...(kind === 'Deployment' ? { acknowledge: { rolloutOutage: true } } : {}) }));
      }
      const ack = (d.acknowledge ?? {}) as JsonObject;
      // Every guard that mirrors a lint finding: refused naming its acknowledge value; accepted with it, the
      // rendered workload then carrying kubegrace.dev/ignore for the rule, so the linter stays quiet.
      const acknowledged = (values: JsonObject, ackKey: string, rule: string) => {
        const findings = accepted(merge(values, w(key, { acknowledge: { [ackKey]: true } })));
        expect(findings.filter((f) => f.ruleId === rule)).toEqual([]);
      };
      expect(Object.keys(ack)).toContain('gracePeriodBudget');
      refused(w(key, { terminationGracePeriodSeconds: need - 1 }), `or set ${p}.acknowledge.gracePeriodBudget=true to accept it`);
      acknowledged(w(key, { terminationGracePeriodSeconds: need - 1 }), 'gracePeriodBudget', 'grace-period-budget');
      if (d.preStop) {
        expect(Object.keys(ack)).toContain('preStopMissing');
        refused(w(key, { preStop: { delaySeconds: 0 } }), `${p}.preStop.delaySeconds 0 removes the preStop hook of a served workload`);
        acknowledged(w(key, { preStop: { delaySeconds: 0 } }), 'preStopMissing', 'prestop-missing');
      }
      if (kind === 'Deployment') {
        const r = num(d.replicas);
        expect(Object.keys(ack)).toContain('rolloutOutage');
        refused(w(key, { strategy: { type: 'Recreate' } }), `${p}.strategy.type Recreate with ${r} replica(s) on a served workload`);
        refused(w(key, { strategy: { maxSurge: 0, maxUnavailable: '100%' } }), `or set ${p}.acknowledge.rolloutOutage=true to accept it`);
        refused(w(key, { strategy: { maxSurge: 0, maxUnavailable: r } }), `maxSurge 0 and maxUnavailable ${r} with ${r} replica(s): all pods can be removed`);
        acknowledged(w(key, { strategy: { type: 'Recreate' } }), 'rolloutOutage', 'recreate-strategy');
        acknowledged(w(key, { strategy: { maxSurge: 0, maxUnavailable: '100%' } }), 'rolloutOutage', 'rollout-full-outage');
        // Just below all replicas (99% of 3 rounds down to 2): no guard, and the linter agrees.
        expect(accepted(w(key, { strategy: { maxSurge: 0, maxUnavailable: '99%' } })).filter((f) => f.ruleId === 'rollout-full-outage')).toEqual([]);
      }
      if ('meshDrain' in ack) {
        const stay = b.pre + Math.max(b.drain, 1);
        refused(w(key, { terminationGracePeriodSeconds: stay, acknowledge: { gracePeriodBudget: true } }), `or set ${p}.acknowledge.meshDrain=true to accept it`);
        acknowledged(w(key, { terminationGracePeriodSeconds: stay, acknowledge: { gracePeriodBudget: true } }), 'meshDrain', 'linkerd-proxy-drain');
      }
      if (kind === 'Deployment') {
        refused(w(key, { minReadySeconds: 600, progressDeadlineSeconds: 600 }), `${p}.minReadySeconds 600 >= progressDeadlineSeconds 600`);
        refused(w(key, { minReadySeconds: 700 }), 'raise workloads.');
        accepted(w(key, { minReadySeconds: 599, progressDeadlineSeconds: 600 }));
      }
      if (isObject(d.pdb)) {
        const r = num(d.replicas);
        refused(w(key, { pdb: { maxUnavailable: 0 } }), `${p}.pdb.maxUnavailable 0 allows no voluntary eviction`);
        refused(w(key, { pdb: { maxUnavailable: '0%' } }), 'maxUnavailable 0% allows no voluntary eviction');
        refused(w(key, { pdb: { minAvailable: r, maxUnavailable: null } }), `${p}.pdb.minAvailable ${r} with ${r} replica(s) keeps ${r} pods available`);
        // Percentages round up, as in the disruption controller: 90% of 3 is ceil(2.7) = 3.
        refused(w(key, { replicas: 3, pdb: { minAvailable: '90%', maxUnavailable: null } }), 'minAvailable 90% with 3 replica(s) keeps 3 pods available');
        refused(w(key, { replicas: 1, pdb: { minAvailable: 1, maxUnavailable: null } }), 'minAvailable 1 with 1 replica(s)');
        refused(w(key, { pdb: { minAvailable: 1 } }), 'sets both minAvailable and maxUnavailable');
        refused(w(key, { pdb: { maxUnavailable: null } }), 'sets neither minAvailable nor maxUnavailable');
        refused(w(key, { pdb: { maxUnavailable: 0 } }), `or set ${p}.acknowledge.pdbBlocksEviction=true to accept it`);
        acknowledged(w(key, { pdb: { maxUnavailable: 0 } }), 'pdbBlocksEviction', 'pdb-blocks-eviction');
        // At the limit: the rule pdb-blocks-eviction is silent as well.
        expect(accepted(w(key, { replicas: 3, pdb: { minAvailable: '60%', maxUnavailable: null } })).filter((f) => f.ruleId === 'pdb-blocks-eviction')).toEqual([]);
        expect(accepted(w(key, { pdb: { minAvailable: r - 1, maxUnavailable: null } })).filter((f) => f.ruleId === 'pdb-blocks-eviction')).toEqual([]);
        // A disabled budget is not judged; replicas 0 (scaled down) neither.
        accepted(w(key, { pdb: { enabled: false, maxUnavailable: 0 } }));
        // Rendered only: the linter's min-ready-seconds rule throws on a fan-in Deployment with 0 replicas
        // (estimateReconnect refuses replicas < 1), reported to the lead.
        accepted(w(key, { replicas: 0, pdb: { minAvailable: 1, maxUnavailable: null } }), false);
      }
    }
  });

  test('values that violate the schema are refused by helm with the schema message (and by ajv alike)', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(charts.get(app)!, 'values.schema.json'), 'utf8')) as JsonObject;
    // What lets the violations be checked in groups (see below): no keyword that ties one value's verdict to another's.
    expect(JSON.stringify(schema)).not.toMatch(/"(if|then|else|oneOf|not|dependencies|dependentRequired|dependentSchemas|\$ref)":/);
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    const d0 = defaults(app);
    expect(validate(d0)).toBe(true);
    for (const [key, d] of workloadsOf(app)) {
      const cases: [JsonObject, string][] = [
        [w(key, { terminationGracePeriodSeconds: 0 }), `workloads.${key}.terminationGracePeriodSeconds: Must be greater than or equal to 1`],
        [w(key, { terminationGracePeriodSeconds: 'long' }), `workloads.${key}.terminationGracePeriodSeconds: Invalid type. Expected: integer, given: string`],
        [w(key, { minReadySeconds: 1.5 }), `workloads.${key}.minReadySeconds: Invalid type. Expected: integer, given: number`],
        [w(key, { drainSeconds: -1 }), `workloads.${key}.drainSeconds: Must be greater than or equal to 0`],
        [w(key, { image: { pullPolicy: 'Sometimes' } }), `workloads.${key}.image.pullPolicy: workloads.${key}.image.pullPolicy must be one of the following: "", "Always", "IfNotPresent", "Never"`],
        [w(key, { replica: 3 }), `workloads.${key}: Additional property replica is not allowed`],
        [{ workloads: { nope: {} } }, 'workloads: Additional property nope is not allowed'],
        [{ fullnameOverride: 'Blue_' }, 'fullnameOverride: Does not match pattern'],
        [{ nodeSelector: { a: 1 } }, 'nodeSelector.a: Invalid type. Expected: string, given: integer'],
        [w(key, { tolerations: {} }), `workloads.${key}.tolerations: Invalid type. Expected: array, given: object`],
        [w(key, { image: { tag: true } }), `workloads.${key}.image.tag: Invalid type. Expected: [string,number], given: boolean`],
        [w(key, { acknowledge: { everything: true } }), `workloads.${key}.acknowledge: Additional property everything is not allowed`],
      ];
      if ('replicas' in d) cases.push([w(key, { replicas: -1 }), `workloads.${key}.replicas: Must be greater than or equal to 0`]);
      if (isObject(d.strategy)) {
        cases.push([w(key, { strategy: { type: 'BlueGreen' } }), `workloads.${key}.strategy.type must be one of the following: "RollingUpdate", "Recreate"`]);
        cases.push([w(key, { strategy: { maxSurge: 'lots' } }), `workloads.${key}.strategy.maxSurge: Does not match pattern '^[0-9]+%$'`]);
        cases.push([w(key, { strategy: { maxUnavailable: '150%' } }), `workloads.${key}.strategy.maxUnavailable: Does not match pattern`]);
      }
      if (isObject(d.pdb)) {
        cases.push([w(key, { pdb: { unhealthyPodEvictionPolicy: 'Never' } }), `workloads.${key}.pdb.unhealthyPodEvictionPolicy must be one of the following`]);
        cases.push([w(key, { pdb: { maxUnavailable: -1 } }), `workloads.${key}.pdb.maxUnavailable: Must be greater than or equal to 0`]);
      }
      if (isObject(d.spread)) cases.push([w(key, { spread: { whenUnsatisfiable: 'Sometimes' } }), `workloads.${key}.spread.whenUnsatisfiable must be one of the following: "ScheduleAnyway", "DoNotSchedule"`]);
      if (isObject(d.preStop)) cases.push([w(key, { preStop: { delaySeconds: -5 } }), `workloads.${key}.preStop.delaySeconds: Must be greater than or equal to 0`]);
      for (const [values] of cases) expect({ values, ajv: validate(merge(d0, values)) }).toEqual({ values, ajv: false });
      // helm checks the values against the schema before rendering and lists every violation, each
      // under its own path; the schema has no conditionals (if/then, oneOf, dependencies: checked at
      // the top of this test), so a value's verdict does not depend on the other values. Cases that set no common
      // path are therefore checked together, one helm process per group instead of one per case:
      // each case's own message must be in the group's list.
      for (const group of disjointGroups(cases)) {
        const r = renderWith(app, group.reduce<JsonObject>((all, [values]) => merge(all, values), {}));
        expect({ group: group.map(([v]) => v), status: r.status }).toEqual({ group: group.map(([v]) => v), status: 1 });
        expect(r.stderr).toContain("values don't meet the specifications of the schema(s)");
        for (const [values, message] of group) expect({ values, stderr: r.stderr }).toEqual({ values, stderr: expect.stringContaining(message) });
      }
    }
  });
});
