/**
 * The chart generator beyond the example apps: manifests from an app repository (constructs on an
 * older target, a hand-written HPA-managed Deployment, ConfigMaps with Go-template-like text, a
 * CronJob), name prefixes and references, the optional PDB, exec preStop forms, Linkerd-derived
 * annotations and their guard, determinism, README, values comments and NOTES.
 */
import { Chart, Testing, Yaml } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { GracefulDaemonSet, GracefulDeployment, GracefulStatefulSet, LoadBalancer, Mesh, RolloutProfile } from '../../lib/constructs';
import { escapeTemplate, scalarText } from '../../lib/helm/emit';
import { buildChartFiles, ChartSpec, generateChart } from '../../lib/helm/generate';
import { HelmRun } from '../../lib/helm/helm-bin';
import { valueRows } from '../../lib/helm/values';
import { runChart } from '../../lib/cli/chart';
import { analyze, readObjects } from '../../lib/helm/analyze';
import { JsonObject } from '../../lib/model/types';
import { byId, docs, errorsOf, expectedRendering, idOf, KUBE, lintRendered, makeHelm, normalized, tmpDir, valuesFile } from './generate-helpers';
import { expectEqual } from '../helpers/equal';

const work = tmpDir('kg-chart-extras-');
const helm = makeHelm(path.join(work, 'helm-home'));

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const SPEC: ChartSpec = { name: 'shop-extras', version: '1.2.3', appVersion: '2024.1', description: 'app repository manifests', home: 'https://example.com/shop' };
const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

const TRICKY = [
  'yes',
  'on',
  'N',
  '0o10',
  '010',
  '1e3',
  '1_000',
  '12:30',
  ' leading space',
  'a: b',
  '#not a comment',
  '- dash',
  '{{ .Values.secret }}',
  'a }} b {{ c',
  '{{- trim }}',
  '{{/* comment */}}',
  'tab\there',
  'line1\nline2\n',
  'line1\n{{ .Release.Name }}\n',
  'no trailing newline\nsecond',
  'two trailing\n\n',
  '\n  indented first line\n',
  'unicode ✓ \u2028 separator',
  '',
  'null',
  '~',
  '@at',
  '%percent',
];

const HANDWRITTEN = `
apiVersion: v1
kind: ServiceAccount
metadata: {name: worker, namespace: shop}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: worker-config
  namespace: shop
  annotations:
    note: "rendered by {{ .Release.Name }}"
data:
  template.txt: |
    Hello {{ .Values.name }}!
    {{- if true }}kept{{ end }}
  inline: "{{x}} and }} and {{"
  yes: "on"
  "{{key}}": value
---
apiVersion: v1
kind: ConfigMap
metadata: {name: tricky, namespace: shop}
data: ${JSON.stringify(Object.fromEntries(TRICKY.map((s, i) => [`k${i}`, s])))}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker, namespace: shop}
spec:
  selector: {matchLabels: {app: worker}}
  template:
    metadata: {labels: {app: worker}}
    spec:
      serviceAccountName: worker
      containers:
        - name: worker
          image: example/worker@${DIGEST}
          command: [/bin/worker]
          lifecycle:
            preStop:
              exec:
                command: [sh, -c, "sleep 5"]
          volumeMounts: [{name: config, mountPath: /etc/worker}]
      volumes:
        - name: config
          configMap: {name: worker-config}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: worker, namespace: shop}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: worker}
  minReplicas: 2
  maxReplicas: 5
  metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: worker, namespace: shop}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: worker}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cleanup, namespace: shop}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          serviceAccountName: worker
          containers: [{name: cleanup, image: "example/cleanup:1", args: ["--older-than={{ .days }}"]}]
`;

function extrasManifests(): string {
  const chart = new Chart(Testing.app(), 'extras', { namespace: 'shop' });
  const app = {
    name: 'app',
    image: 'example/web:1.0',
    ports: [{ name: 'http', number: 8080 }],
    readiness: kplus.Probe.fromHttpGet('/readyz', { port: 8080 }),
    liveness: kplus.Probe.fromHttpGet('/livez', { port: 8080, failureThreshold: 6 }),
  };
  // An app repository targeting 1.29: exec sleep preStop instead of the sleep action.
  new GracefulDeployment(chart, 'web', { kubernetesVersion: '1.29', metadata: { name: 'web' }, replicas: 2, containers: [app], mesh: Mesh.linkerd(), service: { name: 'web' } });
  new GracefulStatefulSet(chart, 'cache', { kubernetesVersion: '1.29', metadata: { name: 'cache' }, replicas: 3, containers: [{ ...app, name: 'cache', image: 'example/cache:7' }], disruptionBudget: false });
  return `${Yaml.stringify(...Testing.synth(chart))}---${HANDWRITTEN}`;
}

const manifests = extrasManifests();
let dir = '';

beforeAll(() => {
  dir = generateChart(manifests, SPEC, path.join(work, 'charts')).dir;
});

function render(values: JsonObject = {}): HelmRun {
  return helm(['template', 'rel', dir, '--kube-version', KUBE, '-f', valuesFile(path.join(work, 'values'), values)]);
}

function ok(values: JsonObject = {}): JsonObject[] {
  const r = render(values);
  expect({ values, status: r.status, stderr: r.stderr }).toEqual({ values, status: 0, stderr: '' });
  expect({ values, errors: errorsOf(lintRendered(r.stdout)) }).toEqual({ values, errors: [] });
  return docs(r.stdout);
}

function refused(values: JsonObject, message: string): void {
  const r = render(values);
  expect({ values, status: r.status }).toEqual({ values, status: 1 });
  expect(r.stderr).toContain(message);
}

/** An object by kind and name as synthesized: rendered as `rel-<chart>-<name>` (release rel). */
function find(objs: JsonObject[], kind: string, name: string): JsonObject {
  const o = objs.find((x) => x.kind === kind && /^rel-[a-z-]+$/.test(String((x.metadata as JsonObject).name)) && [`rel-shop-extras-${name}`, `rel-meshes-${name}`].includes(String((x.metadata as JsonObject).name)));
  if (!o) throw new Error(`no ${kind}/${name} in ${objs.map(idOf).join(', ')}`);
  return o;
}

function podSpec(o: JsonObject): JsonObject {
  return ((o.spec as JsonObject).template as JsonObject).spec as JsonObject;
}

const wv = (key: string, values: JsonObject): JsonObject => ({ workloads: { [key]: values } });

test('helm lint --strict passes; Chart.yaml carries the spec and the version the features need (adaptive ones aside)', () => {
  const r = helm(['lint', '--strict', dir]);
  expect(r.stdout + r.stderr).toContain('0 chart(s) failed');
  expect(r.status).toBe(0);
  const chart = parse(fs.readFileSync(path.join(dir, 'Chart.yaml'), 'utf8')) as JsonObject;
  // matchLabelKeys and unhealthyPodEvictionPolicy (1.27) are written by the cluster's version; autoscaling/v2 needs 1.23.
  expect(chart).toMatchObject({ apiVersion: 'v2', name: 'shop-extras', version: '1.2.3', appVersion: '2024.1', kubeVersion: '>=1.23.0-0', home: 'https://example.com/shop' });
  expect(buildChartFiles(manifests, { ...SPEC, kubeVersion: '>=1.31.0-0', annotations: { team: 'shop' } }).get('Chart.yaml')).toMatch(/kubeVersion: ">=1\.31\.0-0"[\s\S]*"team": "shop"/);
});

test('the default rendering equals the manifests as a release renders them, with Go-template-like text kept verbatim', () => {
  const r = render();
  expect(r.status).toBe(0);
  const rendered = docs(r.stdout);
  const want = byId(expectedRendering(manifests, SPEC.name, 'rel', 'default'));
  // The plain key `yes` is the boolean true for Kubernetes (YAML 1.1, sigs.k8s.io/yaml), and so for the generator.
  const wantCm = [...want.values()].find((o) => o.kind === 'ConfigMap' && String((o.metadata as JsonObject).name).endsWith('worker-config'))!;
  const data = wantCm.data as JsonObject;
  data.true = data.yes;
  delete data.yes;
  expect(rendered.map(idOf).sort()).toEqual([...want.keys()].sort());
  for (const o of rendered) expect(normalized(o)).toEqual(want.get(idOf(o)));
  const cm = find(rendered, 'ConfigMap', 'worker-config');
  expect(cm.data).toEqual({ 'template.txt': 'Hello {{ .Values.name }}!\n{{- if true }}kept{{ end }}\n', inline: '{{x}} and }} and {{', true: 'on', '{{key}}': 'value' });
  expect((cm.metadata as JsonObject).annotations).toEqual({ note: 'rendered by {{ .Release.Name }}' });
  expect(find(rendered, 'ConfigMap', 'tricky').data).toEqual(Object.fromEntries(TRICKY.map((s, i) => [`k${i}`, s])));
  expect(r.stdout).toContain('--older-than={{ .days }}');
  expect(errorsOf(lintRendered(r.stdout))).toEqual([]);
});

test('scalars are quoted for YAML 1.1 and 1.2 readers, and {{ is escaped', () => {
  expect(scalarText('yes')).toBe('"yes"');
  expect(scalarText('0o10')).toBe('"0o10"');
  expect(scalarText('plain-text')).toBe('plain-text');
  expect(scalarText(3)).toBe('3');
  expect(escapeTemplate('a {{ b }} {{c')).toBe('a {{ "{{" }} b }} {{ "{{" }}c');
  const tpl = fs.readFileSync(path.join(dir, 'templates/configmap-worker-config.yaml'), 'utf8');
  expect(tpl).not.toMatch(/\{\{ \.Values\.name/);
});

test('fullnameOverride renames every object and the references between them, never selectors', () => {
  const base = docs(render().stdout);
  const objs = ok({ fullnameOverride: 'blue' });
  for (const o of objs) expect(String((o.metadata as JsonObject).name).startsWith('blue-')).toBe(true);
  const byName = (kind: string, name: string) => objs.find((o) => o.kind === kind && (o.metadata as JsonObject).name === name)!;
  const worker = byName('Deployment', 'blue-worker');
  expect(podSpec(worker).serviceAccountName).toBe('blue-worker');
  expect((podSpec(worker).volumes as JsonObject[])[0].configMap).toEqual({ name: 'blue-worker-config' });
  expect((worker.spec as JsonObject).selector).toEqual((find(base, 'Deployment', 'worker').spec as JsonObject).selector);
  expect(((byName('HorizontalPodAutoscaler', 'blue-worker').spec as JsonObject).scaleTargetRef as JsonObject).name).toBe('blue-worker');
  expect(JSON.stringify(byName('CronJob', 'blue-cleanup'))).toContain('"serviceAccountName":"blue-worker"');
  const serviceName = String((byName('StatefulSet', 'blue-cache').spec as JsonObject).serviceName);
  expect(serviceName.startsWith('blue-')).toBe(true);
  expect(objs.some((o) => o.kind === 'Service' && (o.metadata as JsonObject).name === serviceName)).toBe(true);
});

test('exec preStop delays are values in the form written (sleep N, sh -c "sleep N"), and the budget follows', () => {
  const files = buildChartFiles(manifests, SPEC);
  const values = parse(files.get('values.yaml')!) as JsonObject;
  const web = (values.workloads as JsonObject).web as JsonObject;
  const worker = (values.workloads as JsonObject).worker as JsonObject;
  expect(web.preStop).toEqual({ delaySeconds: 10 });
  expect(worker.preStop).toEqual({ delaySeconds: 5 });
  // The hand-written worker is HPA-managed: no replicas value, the HPA's range instead.
  expect(worker.replicas).toBeUndefined();
  expect(worker.autoscaling).toEqual({ minReplicas: 2, maxReplicas: 5 });
  const objs = ok(wv('web', { preStop: { delaySeconds: 25 }, terminationGracePeriodSeconds: 60 }));
  const webOut = find(objs, 'Deployment', 'web');
  expect((podSpec(webOut).containers as JsonObject[])[0].lifecycle).toEqual({ preStop: { exec: { command: ['sleep', '25'] } } });
  const objs2 = ok(wv('worker', { preStop: { delaySeconds: 7 } }));
  expect((podSpec(find(objs2, 'Deployment', 'worker')).containers as JsonObject[])[0].lifecycle).toEqual({ preStop: { exec: { command: ['sh', '-c', 'sleep 7'] } } });
  // The worker has neither grace period nor strategy in its manifest: written only when they differ from the API defaults.
  expect(podSpec(find(objs2, 'Deployment', 'worker')).terminationGracePeriodSeconds).toBeUndefined();
  const objs3 = ok(wv('worker', { terminationGracePeriodSeconds: 45, strategy: { maxUnavailable: 0 } }));
  const w3 = find(objs3, 'Deployment', 'worker');
  expect(podSpec(w3).terminationGracePeriodSeconds).toBe(45);
  expect((w3.spec as JsonObject).strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } });
  // Undeclared drain (default 10) with preStop 5 fits the default 30 s; preStop 25 does not.
  refused(wv('worker', { preStop: { delaySeconds: 25 } }), 'kubegrace guard: Deployment shop/worker: preStop 25s + drain 10s = 35s exceeds terminationGracePeriodSeconds 30s');
});

test('Linkerd annotations derive from preStop + drain, and the proxy-wait guard refuses a wait at the grace period', () => {
  const objs = ok(wv('web', { drainSeconds: 30, terminationGracePeriodSeconds: 50 }));
  const ann = ((find(objs, 'Deployment', 'web').spec as JsonObject).template as JsonObject).metadata as JsonObject;
  expect((ann.annotations as JsonObject)['config.alpha.linkerd.io/proxy-wait-before-exit-seconds']).toBe('40');
  // No drain: the proxy still waits one second past the preStop (constructs/mesh.ts), which here reaches the grace period.
  refused(wv('web', { drainSeconds: 0, preStop: { delaySeconds: 29 }, terminationGracePeriodSeconds: 30 }), 'the Linkerd proxy waits preStop + drain = 30s before it exits');
  ok(wv('web', { drainSeconds: 0, preStop: { delaySeconds: 28 }, terminationGracePeriodSeconds: 30 }));
});

test('a workload without a PDB gets an optional one, off by default, that the guard checks when on', () => {
  const a = analyze(readObjects(manifests));
  const cache = a.workloads.find((p) => p.key === 'cache')!;
  expect(cache.pdb?.obj).toBeUndefined();
  expect(docs(render().stdout).some((o) => o.kind === 'PodDisruptionBudget' && (o.metadata as JsonObject).name === 'rel-shop-extras-cache')).toBe(false);
  const r = render(wv('cache', { pdb: { enabled: true } }));
  expect(r.status).toBe(0);
  const objs = docs(r.stdout);
  const pdb = find(objs, 'PodDisruptionBudget', 'cache');
  expect(pdb.spec).toEqual({ maxUnavailable: 1, selector: (find(objs, 'StatefulSet', 'cache').spec as JsonObject).selector, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
  expect(lintRendered(r.stdout).filter((f) => f.ruleId === 'pdb-missing' && f.object.name === 'rel-shop-extras-cache')).toEqual([]);
  expect(lintRendered(render().stdout).filter((f) => f.ruleId === 'pdb-missing' && f.object.name === 'rel-shop-extras-cache').length).toBe(1);
  refused(wv('cache', { pdb: { enabled: true, minAvailable: 3, maxUnavailable: null } }), 'workloads.cache.pdb.minAvailable 3 with 3 replica(s) keeps 3 pods available');
});

test('with an HPA, the PDB guard counts minReplicas, and minReplicas > maxReplicas is refused', () => {
  refused(wv('worker', { autoscaling: { minReplicas: 6 } }), 'workloads.worker.autoscaling.minReplicas 6 > maxReplicas 5');
  refused(wv('worker', { pdb: { minAvailable: 2 } }), 'workloads.worker.pdb.minAvailable 2 with HPA minReplicas (workloads.worker.autoscaling.minReplicas) 2 keeps 2 pods available');
  const objs = ok(wv('worker', { autoscaling: { minReplicas: 3, maxReplicas: 9 }, pdb: { minAvailable: 2 } }));
  expect(find(objs, 'HorizontalPodAutoscaler', 'worker').spec).toMatchObject({ minReplicas: 3, maxReplicas: 9 });
});

test('generation is deterministic and replaces the chart directory', () => {
  const a = buildChartFiles(manifests, SPEC);
  const b = buildChartFiles(manifests, SPEC);
  expect([...a.entries()]).toEqual([...b.entries()]);
  const out1 = path.join(work, 'det1');
  const out2 = path.join(work, 'det2');
  generateChart(manifests, SPEC, out1);
  fs.writeFileSync(path.join(out1, SPEC.name, 'templates', 'stale.yaml'), 'kind: Stale\n');
  const g1 = generateChart(manifests, SPEC, out1);
  const g2 = generateChart(manifests, SPEC, out2);
  expect(g1.files).toEqual([...a.keys()]);
  expect([...g1.files].sort()).toEqual(g1.files);
  expect(fs.existsSync(path.join(out1, SPEC.name, 'templates', 'stale.yaml'))).toBe(false);
  for (const f of g1.files) {
    // Byte for byte (jest's toEqual walks a Buffer element by element: expectEqual compares it at once).
    expectEqual(fs.readFileSync(path.join(g1.dir, f)), fs.readFileSync(path.join(g2.dir, f)));
    expect(fs.readFileSync(path.join(g1.dir, f), 'utf8')).toBe(a.get(f));
  }
});

test('bad input is refused with what to do', () => {
  expect(() => buildChartFiles(manifests, { ...SPEC, name: 'Shop_Extras' })).toThrow(/lowercase letters, digits and dashes/);
  expect(() => buildChartFiles(manifests, { ...SPEC, version: '1.2' })).toThrow(/not SemVer 2/);
  expect(() => buildChartFiles('', SPEC)).toThrow(/no Kubernetes objects/);
  expect(() => buildChartFiles('a: [1\n', SPEC)).toThrow(/manifests line \d+, column \d+: YAML syntax error/);
  expect(() => buildChartFiles(`${manifests}---\nreplicas: 3\n`, SPEC)).toThrow(/is not a Kubernetes object/);
});

test('values.yaml comments every key, README tables every value, and the schema closes every group', () => {
  const files = buildChartFiles(manifests, SPEC);
  const lines = files.get('values.yaml')!.split('\n');
  let keys = 0;
  let knobIndent = -1;
  lines.forEach((line, i) => {
    if (!/^\s*[A-Za-z"][^:#]*:/.test(line) || /^\s*-/.test(line)) return;
    const indent = line.length - line.trimStart().length;
    let j = i - 1;
    while (j >= 0 && lines[j].trim() === '') j--;
    if (j >= 0 && lines[j].trimStart().startsWith('#')) {
      // A knob: its comment block starts with `# --`.
      let k = j;
      while (k > 0 && lines[k - 1].trimStart().startsWith('#') && !lines[k].trimStart().startsWith('# --')) k--;
      expect(lines[k].trimStart().startsWith('# --')).toBe(true);
      knobIndent = indent;
      keys++;
    } else {
      // Otherwise a key inside a knob's default (e.g. resources.limits): indented below that knob.
      expect({ line, inside: indent > knobIndent }).toEqual({ line, inside: true });
    }
  });
  const a = analyze(readObjects(manifests));
  const rows = valueRows(a.values);
  expect(keys).toBeGreaterThanOrEqual(rows.length);
  const readme = files.get('README.md')!;
  expect(readme).toContain('| Key | Type | Default | Description |');
  for (const r of rows) expect(readme).toContain(`| \`${r.key}\` |`);
  expect(readme).toContain('## Guards');
  const schema = JSON.parse(files.get('values.schema.json')!) as JsonObject;
  const closed = (s: JsonObject, at: string): void => {
    if (s.type !== 'object' || !s.properties) return;
    expect({ at, additionalProperties: s.additionalProperties }).toEqual({ at, additionalProperties: false });
    // global is shared with parent and sibling charts (Helm's convention), so it stays open.
    for (const [k, v] of Object.entries(s.properties as JsonObject)) if (k !== 'resources' && k !== 'global') closed(v as JsonObject, `${at}.${k}`);
  };
  closed(schema, '(root)');
});

test('NOTES.txt renders the rollout command and the termination budget of each workload', () => {
  // helm 3.6 renders NOTES only on install; render the same text as a template of a copy of the chart.
  const copy = path.join(work, 'notes-copy', SPEC.name);
  fs.cpSync(dir, copy, { recursive: true });
  const notes = fs.readFileSync(path.join(copy, 'templates/NOTES.txt'), 'utf8');
  fs.rmSync(path.join(copy, 'templates/NOTES.txt'));
  fs.writeFileSync(path.join(copy, 'templates/_notes.tpl'), `{{- define "notes" -}}\n${notes}{{- end -}}\n`);
  fs.writeFileSync(path.join(copy, 'templates/notes.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ include "notes" . | toJson }}\n');
  const r = helm(['template', 'rel', copy, '--kube-version', KUBE, '--show-only', 'templates/notes.yaml']);
  expect(r.stderr).toBe('');
  const text = String((docs(r.stdout)[0].data as JsonObject).notes);
  expect(text).toContain('shop-extras 1.2.3 is installed as release rel in namespace default.');
  expect(text).toContain('kubectl --namespace default rollout status deployment/rel-shop-extras-web --timeout 660s');
  expect(text).toMatch(/Termination budget: +preStop 10s \+ drain 10s = 20s of terminationGracePeriodSeconds 25s/);
  expect(text).toContain('kubectl --namespace default rollout status statefulset/rel-shop-extras-cache');
  expect(text).toContain('Disruption budget:   none (pdb.enabled is false)');
  expect(text).toContain('Disruption budget:   minAvailable 1');
});

test('mesh and load-balancer annotations the constructs derive follow the values (Linkerd fan-in, Istio, ALB)', () => {
  const chart = new Chart(Testing.app(), 'meshes', { namespace: 'mesh' });
  const app = {
    name: 'app',
    image: 'example/app:3',
    ports: [{ name: 'http', number: 8080 }],
    readiness: kplus.Probe.fromHttpGet('/readyz', { port: 8080 }),
    liveness: kplus.Probe.fromHttpGet('/livez', { port: 8080, failureThreshold: 6 }),
  };
  new GracefulDeployment(chart, 'tunnels', { metadata: { name: 'tunnels' }, replicas: 3, containers: [app], mesh: Mesh.linkerd(), rollout: RolloutProfile.fanIn(), service: { name: 'tunnels' } });
  new GracefulStatefulSet(chart, 'ledger', { metadata: { name: 'ledger' }, replicas: 3, containers: [{ ...app, name: 'ledger' }], mesh: Mesh.istio({ exitOnZeroActiveConnections: true }) });
  new GracefulDeployment(chart, 'front', { metadata: { name: 'front' }, replicas: 2, containers: [{ ...app, name: 'front' }], service: { name: 'front', loadBalancer: LoadBalancer.awsAlbIp({ targetGroupBinding: 'front-tg' }) } });
  new GracefulDaemonSet(chart, 'agent', { metadata: { name: 'agent' }, containers: [{ ...app, name: 'agent' }], mesh: Mesh.linkerd(), service: {} });
  const text = Yaml.stringify(...Testing.synth(chart));
  const d = generateChart(text, { name: 'meshes', version: '0.1.0', appVersion: '3', description: 'mesh variants' }, path.join(work, 'meshes')).dir;
  const run = (values: JsonObject) => helm(['template', 'rel', d, '--kube-version', KUBE, '-f', valuesFile(path.join(work, 'values-meshes'), values)]);
  const base = run({});
  expect(base.status).toBe(0);
  const want = byId(expectedRendering(text, 'meshes', 'rel', 'default'));
  for (const o of docs(base.stdout)) expect(normalized(o)).toEqual(want.get(idOf(o)));
  const tplAnn = (o: JsonObject) => (((o.spec as JsonObject).template as JsonObject).metadata as JsonObject).annotations as JsonObject;
  const before = docs(base.stdout);
  expect(tplAnn(find(before, 'Deployment', 'tunnels'))['config.linkerd.io/shutdown-grace-period']).toBeDefined();

  const r = run({
    workloads: {
      tunnels: { preStop: { delaySeconds: 15 }, drainSeconds: 20, terminationGracePeriodSeconds: 90 },
      ledger: { preStop: { delaySeconds: 12 }, drainSeconds: 9, terminationGracePeriodSeconds: 40 },
      front: { preStop: { delaySeconds: 40 }, drainSeconds: 10, terminationGracePeriodSeconds: 60 },
      agent: { preStop: { delaySeconds: 5 }, drainSeconds: 5, terminationGracePeriodSeconds: 20 },
    },
  });
  expect(r.stderr).toBe('');
  const objs = docs(r.stdout);
  // Linkerd classic: wait = preStop + drain; shutdown-grace-period = grace - wait - 5 (constructs/mesh.ts).
  expect(tplAnn(find(objs, 'Deployment', 'tunnels'))).toMatchObject({ 'config.alpha.linkerd.io/proxy-wait-before-exit-seconds': '35', 'config.linkerd.io/shutdown-grace-period': '50s' });
  expect(tplAnn(find(objs, 'DaemonSet', 'agent'))).toMatchObject({ 'config.alpha.linkerd.io/proxy-wait-before-exit-seconds': '10' });
  // Istio: terminationDrainDuration = preStop + drain, the rest of the proxy config kept.
  const proxyConfig = String(tplAnn(find(objs, 'StatefulSet', 'ledger'))['proxy.istio.io/config']);
  expect(proxyConfig).toBe(String(tplAnn(find(before, 'StatefulSet', 'ledger'))['proxy.istio.io/config']).replace(/terminationDrainDuration: \d+s/, 'terminationDrainDuration: 21s'));
  // ALB target group: deregistration delay = preStop + drain + 5.
  const front = find(objs, 'Service', 'front');
  expect(String(((front.metadata as JsonObject).annotations as JsonObject)['alb.ingress.kubernetes.io/target-group-attributes'])).toContain('deregistration_delay.timeout_seconds=55');
  expect(errorsOf(lintRendered(r.stdout))).toEqual([]);
  expect(lintRendered(r.stdout).filter((f) => /linkerd|istio|lb-deregistration|grace-period/.test(f.ruleId))).toEqual([]);
});

describe('chart generate replaces only a directory kubegrace generated (issue 12 item 1)', () => {
  const tree = (root: string): string[] =>
    fs.readdirSync(root, { recursive: true, withFileTypes: true }).map((e) => `${path.relative(root, path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))}${e.isSymbolicLink() ? '@' : ''}`).sort();

  test('an existing directory without the generated-by Chart.yaml is refused and left untouched (--out . --name lib)', () => {
    const repo = path.join(work, 'repo');
    fs.mkdirSync(path.join(repo, 'lib', 'cli'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'lib', 'cli', 'main.ts'), 'precious\n');
    const before = tree(repo);
    expect(() => generateChart(manifests, { ...SPEC, name: 'lib' }, repo)).toThrow(/lib exists and was not generated by kubegrace \(no Chart\.yaml with the annotation kubegrace\.dev\/generated-by: kubegrace\); refusing to replace it/);
    expect(tree(repo)).toEqual(before);
    expect(fs.readFileSync(path.join(repo, 'lib', 'cli', 'main.ts'), 'utf8')).toBe('precious\n');
    // A user's own chart (Chart.yaml without the annotation) is not replaced either.
    fs.mkdirSync(path.join(repo, 'mine'));
    fs.writeFileSync(path.join(repo, 'mine', 'Chart.yaml'), 'apiVersion: v2\nname: mine\nversion: 0.1.0\nannotations: {kubegrace.dev/generated-by: someone-else}\n');
    expect(() => generateChart(manifests, { ...SPEC, name: 'mine' }, repo)).toThrow(/not generated by kubegrace/);
    expect(fs.readdirSync(path.join(repo, 'mine'))).toEqual(['Chart.yaml']);
    // An empty directory, or none, is fine; no temporary directories are left behind.
    fs.mkdirSync(path.join(repo, 'empty'));
    generateChart(manifests, { ...SPEC, name: 'empty' }, repo);
    expect(fs.existsSync(path.join(repo, 'empty', 'Chart.yaml'))).toBe(true);
    expect(fs.readdirSync(repo).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  test('symbolic links are never followed out: a link as the chart dir, or inside a generated chart, is refused', () => {
    const root = path.join(work, 'links');
    const outside = path.join(work, 'outside');
    fs.mkdirSync(path.join(outside, 'keep'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'keep', 'file.txt'), 'keep\n');
    fs.mkdirSync(root, { recursive: true });
    // The chart directory itself is a link to a generated chart elsewhere: refused, the target untouched.
    const elsewhere = path.join(work, 'elsewhere');
    generateChart(manifests, SPEC, elsewhere);
    fs.symlinkSync(path.join(elsewhere, SPEC.name), path.join(root, SPEC.name));
    const target = tree(path.join(elsewhere, SPEC.name));
    expect(() => generateChart(manifests, SPEC, root)).toThrow(/is a symbolic link; kubegrace never replaces a link or what it points to/);
    expect(tree(path.join(elsewhere, SPEC.name))).toEqual(target);
    // A generated chart with a link planted inside (pointing out of it): refused, nothing followed or removed.
    const planted = path.join(work, 'planted');
    generateChart(manifests, SPEC, planted);
    fs.symlinkSync(path.join(outside, 'keep'), path.join(planted, SPEC.name, 'templates', 'evil'));
    expect(() => generateChart(manifests, SPEC, planted)).toThrow(/templates\/evil is not a regular file or directory \(a symbolic link\)/);
    expect(fs.readFileSync(path.join(outside, 'keep', 'file.txt'), 'utf8')).toBe('keep\n');
    expect(fs.lstatSync(path.join(planted, SPEC.name, 'templates', 'evil')).isSymbolicLink()).toBe(true);
    // A generated chart is replaced: its stale files go, the new files come.
    fs.rmSync(path.join(planted, SPEC.name, 'templates', 'evil'));
    fs.writeFileSync(path.join(planted, SPEC.name, 'stale.txt'), 'x');
    generateChart(manifests, SPEC, planted);
    expect(fs.existsSync(path.join(planted, SPEC.name, 'stale.txt'))).toBe(false);
  });

  test('the CLI refuses with exit 1 and the reason', () => {
    const repo = path.join(work, 'cli-repo');
    fs.mkdirSync(path.join(repo, 'lib'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'lib', 'x.ts'), 'x\n');
    fs.writeFileSync(path.join(repo, 'm.yaml'), manifests);
    const out: string[] = [];
    const err: string[] = [];
    const io = { cwd: repo, stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s), readStdin: () => '', stdoutIsTTY: false };
    return runChart(['generate', 'm.yaml', '--name', 'lib', '--out', '.'], io).then((code) => {
      expect(code).toBe(1);
      expect(err.join('')).toContain('not generated by kubegrace');
      expect(fs.readdirSync(path.join(repo, 'lib'))).toEqual(['x.ts']);
    });
  });
});

test('an image the values cannot rebuild (an empty digest `repo@`, `a:b:`) is kept as written, not turned into values that render another image', () => {
  const images = ['example/@', 'example/app@', 'example/app:1@', 'example/a:b:'];
  const text = images
    .map((image, i) => `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w${i}}\nspec:\n  selector: {matchLabels: {app: w${i}}}\n  template:\n    metadata: {labels: {app: w${i}}}\n    spec:\n      containers: [{name: c, image: ${JSON.stringify(image)}}]\n`)
    .join('---\n');
  const dir = generateChart(text, { name: 'imgs', version: '0.1.0', appVersion: '1', description: 'd' }, path.join(work, 'imgs')).dir;
  const r = helm(['template', 'rel', dir, '--kube-version', KUBE]);
  expect(r.stderr).toBe('');
  const got = docs(r.stdout).filter((o) => o.kind === 'Deployment').map((o) => [(o.metadata as JsonObject).name, (((o.spec as JsonObject).template as JsonObject).spec as { containers: JsonObject[] }).containers[0].image]);
  expect(got.sort()).toEqual(images.map((image, i) => [`rel-imgs-w${i}`, image]).sort());
  // An image that splits cleanly is still a value.
  expect(analyze(readObjects(text.replace('example/app:1@', 'example/app:1'))).values).toBeDefined();
});

test('a label or annotation key `<<` is written quoted: helm reads a plain `<<` as a YAML merge key and fails', () => {
  const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: w, labels: {"<<": "x", "a<<": "y"}, annotations: {"<<": "x"}}
spec:
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}, annotations: {"<<": "z"}}
    spec: {containers: [{name: c, image: "example/app:1"}]}
`;
  const dir = generateChart(text, { name: 'merge', version: '0.1.0', appVersion: '1', description: 'd' }, path.join(work, 'merge')).dir;
  const r = helm(['template', 'rel', dir, '--kube-version', KUBE]);
  expect(r.stderr).toBe('');
  const dep = docs(r.stdout).find((o) => o.kind === 'Deployment')!;
  expect((dep.metadata as JsonObject).labels).toMatchObject({ '<<': 'x', 'a<<': 'y' });
  expect((dep.metadata as JsonObject).annotations).toMatchObject({ '<<': 'x' });
  expect(((dep.spec as JsonObject).template as JsonObject).metadata).toMatchObject({ annotations: { '<<': 'z' } });
});

test('multi-line annotations ending in blanks keep them (a literal block before a `{{-` would lose them); a multi-line value in values.yaml too', () => {
  const vals = ['\nhj ', 'a\nb\t', 'x\ny  \n'];
  const image = 'example/r\n';
  const ann = Object.fromEntries(vals.map((v, i) => [`k${i}`, v]));
  const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: w, annotations: ${JSON.stringify(ann)}}
spec:
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}, annotations: ${JSON.stringify(ann)}}
    spec: {containers: [{name: c, image: ${JSON.stringify(image)}}]}
`;
  const dir = generateChart(text, { name: 'blanks', version: '0.1.0', appVersion: '1', description: 'd' }, path.join(work, 'blanks')).dir;
  const r = helm(['template', 'rel', dir, '--kube-version', KUBE]);
  expect(r.stderr).toBe('');
  const dep = docs(r.stdout).find((o) => o.kind === 'Deployment')!;
  expect((dep.metadata as JsonObject).annotations).toMatchObject(ann);
  expect(((dep.spec as JsonObject).template as JsonObject).metadata).toMatchObject({ annotations: ann });
  // A multi-line value in values.yaml (the image repository) stays one line, indented with its key.
  expect((((dep.spec as JsonObject).template as JsonObject).spec as { containers: JsonObject[] }).containers[0].image).toBe(image);
});

test('controls and line-break characters (BEL, CR, DEL, C1, NEL, U+2028, BOM) in container names, annotations and images: values.yaml, Chart.yaml and the templates load in helm and render them verbatim', () => {
  const odd = 'a\u0007b\rc\u007fd\u0085e\u0090f\u2028g\ufeffh';
  const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: w, annotations: {k: ${JSON.stringify(odd)}, ${JSON.stringify(`k${odd}`)}: v}}
spec:
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}, annotations: {p: ${JSON.stringify(odd)}}}
    spec: {containers: [{name: ${JSON.stringify(`c${odd}`)}, image: ${JSON.stringify(`example/r${odd}:1`)}}]}
`;
  const dir = generateChart(text, { name: 'ctl', version: '0.1.0', appVersion: '1', description: `d${odd}` }, path.join(work, 'ctl')).dir;
  const lint = helm(['lint', dir]);
  expect(lint.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
  const r = helm(['template', 'rel', dir, '--kube-version', KUBE]);
  expect(r.stderr).toBe('');
  const dep = docs(r.stdout).find((o) => o.kind === 'Deployment')!;
  expect((dep.metadata as JsonObject).annotations).toMatchObject({ k: odd, [`k${odd}`]: 'v' });
  const pod = (dep.spec as JsonObject).template as JsonObject;
  expect(pod.metadata).toMatchObject({ annotations: { p: odd } });
  expect((pod.spec as { containers: JsonObject[] }).containers[0]).toMatchObject({ name: `c${odd}`, image: `example/r${odd}:1` });
  // values.yaml's comments name the container: no raw control or break character in them.
  for (const line of fs.readFileSync(path.join(dir, 'values.yaml'), 'utf8').split('\n').filter((l) => /^\s*#/.test(l))) {
    // eslint-disable-next-line no-control-regex
    expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]/);
  }
  // An image with DEL or a C1 control stays as written (helm cannot check such a value against the schema).
  expect(fs.readFileSync(path.join(dir, 'values.yaml'), 'utf8')).not.toMatch(/^ *image:/m);
  // A name with one is refused: Kubernetes refuses it, and toJson would write it raw.
  expect(() => buildChartFiles(text.replace('name: w,', `name: ${JSON.stringify('w\u007f')},`), { name: 'ctl', version: '0.1.0', appVersion: '1', description: 'd' })).toThrow(
    'manifests line 1: Deployment metadata.name holds the control character U+007F, which Kubernetes refuses in a name and helm cannot render: fix the manifests',
  );
});

describe('hostile names stay inert in every template they reach (issue 12 item 16)', () => {
  const NS = 'prod{{ fail "ns" }}';
  const OTHER_NS = 'other{{ fail "ons" }}*/}}';
  const NAME = 'web{{ fail "name" }}%d*/';
  const MAIN = 'c{{ fail "c" }}%s */';
  const SIDE = 'side{{ fail "side" }}%v%%';
  const hostile = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${JSON.stringify(NAME)}
  namespace: ${JSON.stringify(NS)}
  labels: {${JSON.stringify('k{{ fail "lk" }}')}: ${JSON.stringify('v{{ fail "lv" }}%d')}}
  annotations: {kubegrace.dev/drain-seconds: "10", ${JSON.stringify('a{{ fail "ak" }}')}: ${JSON.stringify('{{ fail "av" }}')}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 30
      initContainers:
        - name: ${JSON.stringify(SIDE)}
          image: example/side:1
          restartPolicy: Always
      containers:
        - name: ${JSON.stringify(MAIN)}
          image: example/app:1
          ports: [{containerPort: 8080}]
          readinessProbe: {httpGet: {path: /, port: 8080}}
          lifecycle: {preStop: {exec: {command: [sleep, "5"]}}}
---
apiVersion: v1
kind: Service
metadata: {name: ${JSON.stringify(NAME)}, namespace: ${JSON.stringify(NS)}}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ${JSON.stringify('cm{{ fail "cm" }}')}, namespace: ${JSON.stringify(OTHER_NS)}}
data: {${JSON.stringify('{{ fail "dk" }}')}: ${JSON.stringify('{{ fail "dv" }}%d')}}
`;
  let hdir = '';
  let key = '';
  beforeAll(() => {
    hdir = generateChart(hostile, { name: 'hostile', version: '0.1.0', appVersion: '1', description: 'hostile {{ fail "desc" }} %d' }, path.join(work, 'hostile')).dir;
    key = analyze(readObjects(hostile)).workloads[0].key;
  });

  test('helm lint and helm template run no injected action; the text reaches the output verbatim', () => {
    // helm 3.10.1's lint has no --kube-version: with it, lint stopped at "unknown flag" and checked nothing.
    // Its only complaints: the hostile names are no Kubernetes names (kept verbatim, as the manifests wrote them),
    // and the chart's own guard (helm lint renders for Kubernetes 1.25: no native sidecars).
    const lint = helm(['lint', hdir]);
    expect(lint.stdout + lint.stderr).not.toMatch(/error calling|execution error|Fail: (?!kubegrace guard: )/i);
    expect(lint.stdout.split('\n').filter((l) => /^\[(ERROR|WARNING)\]/.test(l) && !/: object name does not conform to Kubernetes naming requirements: /.test(l))).toEqual([]);
    expect(lint.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    const r = helm(['template', 'rel', hdir, '--kube-version', KUBE, '--namespace', 'prod']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const objs = docs(r.stdout);
    const dep = objs.find((o) => o.kind === 'Deployment')!;
    expect((dep.metadata as JsonObject).name).toBe(`rel-hostile-${NAME}`);
    expect((dep.metadata as JsonObject).namespace).toBe('prod');
    expect((dep.metadata as JsonObject).labels).toMatchObject({ 'k{{ fail "lk" }}': 'v{{ fail "lv" }}%d' });
    expect((dep.metadata as JsonObject).annotations).toMatchObject({ 'a{{ fail "ak" }}': '{{ fail "av" }}' });
    const ps = ((dep.spec as JsonObject).template as JsonObject).spec as JsonObject;
    expect((ps.containers as JsonObject[])[0].name).toBe(MAIN);
    expect((ps.initContainers as JsonObject[])[0].name).toBe(SIDE);
    const cm = objs.find((o) => o.kind === 'ConfigMap')!;
    expect(cm.metadata).toMatchObject({ name: 'rel-hostile-cm{{ fail "cm" }}', namespace: OTHER_NS });
    expect(cm.data).toEqual({ '{{ fail "dk" }}': '{{ fail "dv" }}%d' });
  });

  test('one ConfigMap name in two hostile namespaces: the chart refuses the other namespace as release namespace, naming both verbatim; no injected action runs', () => {
    const cm = (ns: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${JSON.stringify('cm{{ fail "cm" }}')}, namespace: ${JSON.stringify(ns)}}\n`;
    const dir = generateChart(`${hostile}---\n${cm(NS)}`, { name: 'hostile', version: '0.1.0', appVersion: '1', description: 'd' }, path.join(work, 'hostile-two')).dir;
    const ok = helm(['template', 'rel', dir, '--kube-version', KUBE, '--namespace', 'prod']);
    expect({ status: ok.status, stderr: ok.stderr }).toEqual({ status: 0, stderr: '' });
    const cms = docs(ok.stdout).filter((o) => o.kind === 'ConfigMap').map((o) => o.metadata);
    expect(cms).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'rel-hostile-cm{{ fail "cm" }}', namespace: OTHER_NS }), expect.objectContaining({ name: 'rel-hostile-cm{{ fail "cm" }}', namespace: 'prod' })]));
    expect(cms).toHaveLength(2);
    const refused = helm(['template', 'rel', dir, '--kube-version', KUBE, '--namespace', OTHER_NS]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`kubegrace guard: release namespace ${JSON.stringify(OTHER_NS)}: `);
    expect(refused.stderr).toContain(`ConfigMap ${JSON.stringify('cm{{ fail "cm" }}')} of namespace ${JSON.stringify(OTHER_NS)} and ConfigMap ${JSON.stringify('cm{{ fail "cm" }}')} of ${JSON.stringify(NS)}, both named ${JSON.stringify('rel-hostile-cm{{ fail "cm" }}')}`);
    expect(refused.stderr).toContain(`kubegrace chart generate --namespace '${NS}'`);
    // The guard's own failure, not an injected `fail` from a name or namespace.
    expect(refused.stderr).toMatch(/^Error: execution error at \([^)]*\): kubegrace guard: release namespace /);
    expect(refused.stderr).not.toMatch(/error calling/);
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain(`- ${JSON.stringify(OTHER_NS).replace(/[|\\`*_<>[\]]/g, (c) => `\\${c}`)}: ConfigMap`);
  });

  test('a guard message prints the names verbatim (a % in a name does not garble printf)', () => {
    const r = helm(['template', 'rel', hdir, '--kube-version', KUBE, '--set', `workloads.${key}.terminationGracePeriodSeconds=6`]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`kubegrace guard: Deployment ${NS}/${NAME}: preStop 5s + drain 10s + native sidecar "${SIDE}" drain 5s = 20s exceeds terminationGracePeriodSeconds 6s`);
    expect(r.stderr).not.toMatch(/%!|MISSING|EXTRA/);
  });

  test('NOTES.txt and _helpers.tpl comments carry no template text from the manifests', () => {
    const helpers = fs.readFileSync(path.join(hdir, 'templates/_helpers.tpl'), 'utf8');
    for (const c of helpers.match(/\{\{\/\*[\s\S]*?\*\/\}\}/g) ?? []) expect(c.slice(3, -3)).not.toMatch(/\{\{|\}\}|\*\//);
    const copy = path.join(work, 'hostile-notes', 'hostile');
    fs.cpSync(hdir, copy, { recursive: true });
    const notes = fs.readFileSync(path.join(copy, 'templates/NOTES.txt'), 'utf8');
    fs.rmSync(path.join(copy, 'templates/NOTES.txt'));
    fs.writeFileSync(path.join(copy, 'templates/_notes.tpl'), `{{- define "notes" -}}\n${notes}{{- end -}}\n`);
    fs.writeFileSync(path.join(copy, 'templates/notes.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ include "notes" . | toJson }}\n');
    const r = helm(['template', 'rel', copy, '--kube-version', KUBE, '--namespace', 'prod', '--show-only', 'templates/notes.yaml']);
    expect(r.stderr).toBe('');
    const text = String((docs(r.stdout)[0].data as JsonObject).notes);
    expect(text).toContain(`Deployment ${NS}/${NAME}`);
    expect(text).toContain(`kubectl --namespace prod rollout status deployment/rel-hostile-${NAME}`);
    expect(text).toContain(`native sidecar "${SIDE}" drain 5s = 20s`);
  });
});

test('value keys come from the workload name, never from the cdk8s construct-path hash', () => {
  const chart = new Chart(Testing.app(), 'shop', { namespace: 'shop' });
  new GracefulDeployment(chart, 'api', { replicas: 2, containers: [{ name: 'api', image: 'example/api:1', ports: [{ name: 'http', number: 8080 }], readiness: kplus.Probe.fromHttpGet('/readyz', { port: 8080 }) }] });
  const a = analyze(readObjects(Yaml.stringify(...Testing.synth(chart))));
  expect(a.workloads[0].name).toMatch(/^shop-api-[0-9a-f]{8}$/);
  expect(a.workloads.map((p) => p.key)).toEqual(['shopApi']);
  // Named constructs (metadata.name, what app repositories should set) key by that name wherever they sit.
  expect(analyze(readObjects(manifests)).workloads.map((p) => p.key)).toEqual(expect.arrayContaining(['web', 'cache', 'worker']));
});
