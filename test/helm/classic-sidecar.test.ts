/**
 * Native sidecars below Kubernetes 1.29 (issue 14, "version-adaptive"): the generated chart writes
 * each native sidecar as a classic container with drain settings on older clusters, chosen per
 * sidecar by its `classicFallback` value (drain flags of a known program, a preStop exec sleep, no
 * drain, or a refusal naming the value), keeps native sidecars on >= 1.29, and lowers its
 * kubeVersion to what it can really render. Unit tests of the pieces, then real helm 3.10 renderings
 * at 1.25, 1.28, 1.29 and 1.30, linted at the same version.
 */
import { Chart, Testing, Yaml } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { lintSources } from '../../lib/engine/run';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { GracefulDeployment, Mesh } from '../../lib/constructs';
import { analyze, readObjects } from '../../lib/helm/analyze';
import { DRAIN_FLAG_PROGRAMS, drainFlagProgram, splitDrainArgs, tagVersion } from '../../lib/helm/classic-sidecar';
import { buildChartFiles, generateChart } from '../../lib/helm/generate';
import { JsonObject } from '../../lib/model/types';
import { ALL_RULES } from '../../lib/rules';
import { docs, makeHelm, tmpDir, valuesFile } from './generate-helpers';

const work = tmpDir('kg-classic-sidecar-');
const helm = makeHelm(path.join(work, 'helm-home'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const CSP = DRAIN_FLAG_PROGRAMS.find((p) => p.id === 'cloud-sql-proxy')!;

/** A served Deployment with a Cloud SQL Auth Proxy native sidecar, sized as the constructs size it. */
function proxyApp(opts: { tag?: string; args?: string[]; extraInit?: boolean; name?: string } = {}): string {
  const args = opts.args ?? ['--port=5432', '--health-check', '--http-address=0.0.0.0', '--http-port=9090', '--exit-zero-on-sigterm', 'proj:region:db'];
  return `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${opts.name ?? 'orders'}
  namespace: shop
  annotations:
    kubegrace.dev/drain-seconds: "20"
    kubegrace.dev/sidecar-drain-seconds: cloud-sql-proxy=5
spec:
  replicas: 3
  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}
  selector: {matchLabels: {app: orders}}
  template:
    metadata: {labels: {app: orders}}
    spec:
      terminationGracePeriodSeconds: 40
      topologySpreadConstraints:
        - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: orders}}}
      initContainers:
${opts.extraInit ? '        - {name: migrate, image: "example/migrate:1", args: [up]}\n' : ''}        - name: cloud-sql-proxy
          image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:${opts.tag ?? '2.14.1'}
          restartPolicy: Always
          args: ${JSON.stringify(args)}
          ports: [{name: proxy-health, containerPort: 9090}]
          startupProbe: {httpGet: {path: /startup, port: 9090}, periodSeconds: 1, failureThreshold: 60}
      containers:
        - name: orders
          image: example/orders:2.8.0
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /readyz, port: 8080}, periodSeconds: 5}
          livenessProbe: {httpGet: {path: /livez, port: 8080}, failureThreshold: 6}
          lifecycle: {preStop: {sleep: {seconds: 10}}}
---
apiVersion: v1
kind: Service
metadata: {name: orders, namespace: shop}
spec:
  selector: {app: orders}
  ports: [{name: http, port: 80, targetPort: 8080}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: orders, namespace: shop}
spec:
  maxUnavailable: 1
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector: {matchLabels: {app: orders}}
`;
}

/** A Deployment with a native sidecar nothing is known about (a log shipper image). */
const UNKNOWN = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  annotations: {kubegrace.dev/drain-seconds: "10"}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 30
      initContainers:
        - name: logs
          image: example/log-shipper:3
          restartPolicy: Always
      containers:
        - name: app
          image: example/app:1
          lifecycle: {preStop: {exec: {command: [sleep, "5"]}}}
`;

const SPEC = { version: '0.1.0', appVersion: '1', description: 'native sidecar fallback' };
const STRICT = loadPolicy('strict', ALL_RULES);

function chartOf(name: string, manifests: string): string {
  return generateChart(manifests, { ...SPEC, name }, path.join(work, 'charts')).dir;
}

function render(dir: string, kube: string, values: JsonObject = {}) {
  return helm(['template', 'rel', dir, '--namespace', 'prod', '--kube-version', kube, '-f', valuesFile(path.join(work, 'values'), values)]);
}

function podSpecOf(text: string): JsonObject {
  const dep = docs(text).find((o) => o.kind === 'Deployment')!;
  return ((dep.spec as JsonObject).template as JsonObject).spec as JsonObject;
}

function names(list: unknown): string[] {
  return ((list as JsonObject[] | undefined) ?? []).map((c) => String(c.name));
}

function lintAt(text: string, v: string): string[] {
  const r = lintSources([{ file: 'rendered.yaml', text }], { rules: ALL_RULES, policy: STRICT, version: KubeVersion.parse(v) });
  expect(r.errors).toEqual([]);
  return r.findings.filter((f) => !f.suppressed).map((f) => `${f.severity} ${f.ruleId} ${f.message}`);
}

/** NOTES.txt as rendered (helm 3.10 renders NOTES only on install: render it as a template of a copy of the chart). */
function notesOf(dir: string): (kube: string, values?: JsonObject) => string {
  const copy = path.join(work, 'notes-copy', path.basename(dir));
  fs.cpSync(dir, copy, { recursive: true });
  const notes = fs.readFileSync(path.join(copy, 'templates/NOTES.txt'), 'utf8');
  fs.rmSync(path.join(copy, 'templates/NOTES.txt'));
  fs.writeFileSync(path.join(copy, 'templates/_notes.tpl'), `{{- define "notes" -}}\n${notes}{{- end -}}\n`);
  fs.writeFileSync(path.join(copy, 'templates/notes.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ include "notes" . | toJson }}\n');
  return (kube, values = {}) => {
    const r = helm(['template', 'rel', copy, '--kube-version', kube, '--show-only', 'templates/notes.yaml', '-f', valuesFile(path.join(work, 'values'), values)]);
    expect(r.stderr).toBe('');
    return String((docs(r.stdout)[0].data as JsonObject).notes);
  };
}

describe('classic-sidecar pieces', () => {
  test('tagVersion reads X.Y.Z at the start of a tag, with a v prefix or a suffix, and nothing else', () => {
    expect(tagVersion('2.14.1')).toEqual([2, 14, 1]);
    expect(tagVersion('v2.12.0')).toEqual([2, 12, 0]);
    expect(tagVersion('2.14.1-alpine')).toEqual([2, 14, 1]);
    expect(tagVersion('2.14')).toBeUndefined();
    expect(tagVersion('latest')).toBeUndefined();
    expect(tagVersion('')).toBeUndefined();
  });

  test('drainFlagProgram knows the Cloud SQL Auth Proxy v2 image, from 2.12.0 on', () => {
    const csp = (tag: string) => drainFlagProgram({ registry: 'gcr.io', repository: 'cloud-sql-connectors/cloud-sql-proxy', tag });
    expect(csp('2.14.1')).toMatchObject({ program: CSP, version: [2, 14, 1], versionOk: true });
    expect(csp('2.12.0')?.versionOk).toBe(true);
    expect(csp('2.11.4')?.versionOk).toBe(false);
    expect(csp('latest')).toMatchObject({ program: CSP, version: undefined, versionOk: undefined });
    expect(drainFlagProgram({ registry: 'eu.gcr.io', repository: 'cloud-sql-connectors/cloud-sql-proxy', tag: '2.14.1' })?.program).toBe(CSP);
    // v1 (gce-proxy) has other flags; look-alike names do not match.
    expect(drainFlagProgram({ registry: 'gcr.io', repository: 'cloudsql-docker/gce-proxy', tag: '1.33.2' })).toBeUndefined();
    expect(drainFlagProgram({ registry: '', repository: 'example/cloud-sql-proxy-fork', tag: '2.14.1' })).toBeUndefined();
  });

  test('splitDrainArgs takes both flags out (= and separate-value forms) and reads their durations', () => {
    expect(splitDrainArgs(['--port=5432', '--max-sigterm-delay=30s', '--min-sigterm-delay', '5s', 'p:r:i'], CSP)).toEqual({ kept: ['--port=5432', 'p:r:i'], acceptSeconds: 5, drainSeconds: 30 });
    expect(splitDrainArgs(['--port=5432', 'p:r:i'], CSP)).toEqual({ kept: ['--port=5432', 'p:r:i'] });
    expect(splitDrainArgs(['--max-sigterm-delay=1m30s'], CSP).drainSeconds).toBe(90);
    expect(splitDrainArgs(['--max-sigterm-delay=soon'], CSP).unreadable).toBe('--max-sigterm-delay=soon');
    expect(splitDrainArgs(['--min-sigterm-delay'], CSP).unreadable).toBe('--min-sigterm-delay');
  });
});

describe('generator: which sidecars get which fallback, and the kubeVersion that follows', () => {
  test('a Cloud SQL Auth Proxy >= 2.12 defaults to its drain flags; the chart renders down to 1.21', () => {
    const a = analyze(readObjects(proxyApp()));
    expect(a.workloads[0].nativeSidecars).toEqual([
      expect.objectContaining({ name: 'cloud-sql-proxy', index: 0, defaultMode: 'drainFlags', modes: ['drainFlags', 'execSleep', 'stopAtOnce', 'refuse'], drain: 5, valuesPath: 'workloads.orders.containers.cloudSqlProxy' }),
    ]);
    expect(a.workloads[0].nativeSidecars[0].flags).toMatchObject({ program: CSP, extraAcceptSeconds: 0, drainSeconds: 5 });
    const files = buildChartFiles(proxyApp(), { ...SPEC, name: 'orders' });
    const chart = parse(files.get('Chart.yaml')!) as JsonObject;
    expect(chart.kubeVersion).toBe('>=1.21.0-0');
    expect(String((chart.annotations as JsonObject)['kubegrace.dev/kube-version-adaptive'])).toContain('native sidecars (init containers with restartPolicy: Always) (>= 1.29, older clusters get a regular container');
    const values = parse(files.get('values.yaml')!) as JsonObject;
    expect(((((values.workloads as JsonObject).orders as JsonObject).containers as JsonObject).cloudSqlProxy as JsonObject).classicFallback).toBe('drainFlags');
    const schema = JSON.parse(files.get('values.schema.json')!) as JsonObject;
    expect(JSON.stringify(schema)).toContain('"enum":["drainFlags","execSleep","stopAtOnce","refuse"]');
    const readme = files.get('README.md')!;
    expect(readme).toContain('## Native sidecars below Kubernetes 1.29');
    expect(readme).toMatch(/\| Deployment shop\/orders \| `cloud-sql-proxy` \(`workloads\.orders\.containers\.cloudSqlProxy\.classicFallback`\) \| `drainFlags` \| Cloud SQL Auth Proxy v2 2\.14\.1 \(>= 2\.12\.0\) has --min-sigterm-delay/);
    expect(readme).toContain('Start-up order is lost below 1.29');
    expect(readme).toContain('an `execSleep` rendering can show `grace-period-budget`');
  });

  test('an older or unversioned proxy, an unknown image and unreadable flags default to refuse', () => {
    const mode = (m: string) => analyze(readObjects(m)).workloads[0].nativeSidecars.map((n) => [n.defaultMode, n.modes.join(',')]);
    expect(mode(proxyApp({ tag: '2.11.4' }))).toEqual([['refuse', 'drainFlags,execSleep,stopAtOnce,refuse']]);
    expect(mode(proxyApp({ tag: 'latest' }))).toEqual([['refuse', 'drainFlags,execSleep,stopAtOnce,refuse']]);
    expect(mode(UNKNOWN)).toEqual([['refuse', 'execSleep,stopAtOnce,refuse']]);
    expect(mode(proxyApp({ args: ['--max-sigterm-delay=later', 'p:r:i'] }))).toEqual([['refuse', 'execSleep,stopAtOnce,refuse']]);
    // The chart still renders below 1.29 once the value is set, so its kubeVersion is not raised.
    expect(parse(buildChartFiles(UNKNOWN, { ...SPEC, name: 'web' }).get('Chart.yaml')!)).toMatchObject({ kubeVersion: '>=1.21.0-0' });
  });

  test('native sidecars outside a Deployment/StatefulSet/DaemonSet (a Job) keep the chart at >= 1.29', () => {
    const job = `${UNKNOWN}---
apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: shop}
spec:
  template:
    spec:
      restartPolicy: Never
      initContainers: [{name: proxy, image: "example/proxy:1", restartPolicy: Always}]
      containers: [{name: work, image: "example/work:1"}]
`;
    const chart = parse(buildChartFiles(job, { ...SPEC, name: 'job' }).get('Chart.yaml')!) as JsonObject;
    expect(chart.kubeVersion).toBe('>=1.29.0-0');
    expect(String((chart.annotations as JsonObject)['kubegrace.dev/kube-version-from'])).toContain('native sidecars');
  });
});

describe('real helm 3.10: the classic container below 1.29, native sidecars from 1.29', () => {
  let dir = '';
  beforeAll(() => {
    dir = chartOf('orders', proxyApp({ extraInit: true }));
  });

  test.each(['1.25', '1.28'])('Kubernetes %s: the proxy is a classic container with its drain flags, and the rendering lints clean', (v) => {
    const r = render(dir, `${v}.0`);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const ps = podSpecOf(r.stdout);
    // The classic init container stays; the native sidecar moved to containers, after the app.
    expect(names(ps.initContainers)).toEqual(['migrate']);
    expect(names(ps.containers)).toEqual(['orders', 'cloud-sql-proxy']);
    const proxy = (ps.containers as JsonObject[])[1];
    expect(proxy.restartPolicy).toBeUndefined();
    expect(proxy.lifecycle).toBeUndefined();
    // It keeps accepting connections through the app's preStop (10) + drain (20), then drains 5s.
    expect(proxy.args).toEqual(['--port=5432', '--health-check', '--http-address=0.0.0.0', '--http-port=9090', '--exit-zero-on-sigterm', 'proj:region:db', '--min-sigterm-delay=30s', '--max-sigterm-delay=5s']);
    expect(proxy).toMatchObject({ image: 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1', ports: [{ name: 'proxy-health', containerPort: 9090 }], startupProbe: { httpGet: { path: '/startup', port: 9090 } } });
    // ...and the grace period still covers preStop + drain + the proxy's own drain.
    expect(ps.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(10 + 20 + 5);
    expect(lintAt(r.stdout, v)).toEqual([]);
  });

  test.each(['1.29', '1.30'])('Kubernetes %s: the proxy stays a native sidecar, unchanged', (v) => {
    const r = render(dir, `${v}.0`);
    expect(r.stderr).toBe('');
    const ps = podSpecOf(r.stdout);
    expect(names(ps.initContainers)).toEqual(['migrate', 'cloud-sql-proxy']);
    expect(names(ps.containers)).toEqual(['orders']);
    const proxy = (ps.initContainers as JsonObject[])[1];
    expect(proxy.restartPolicy).toBe('Always');
    expect(proxy.args).not.toContain('--min-sigterm-delay=30s');
    expect(lintAt(r.stdout, v)).toEqual([]);
  });

  test('the accept delay follows the preStop and drain values; settings already in the args are kept in it', () => {
    const r = render(dir, '1.28.0', { workloads: { orders: { preStop: { delaySeconds: 15 }, drainSeconds: 25, terminationGracePeriodSeconds: 50 } } });
    expect(r.stderr).toBe('');
    expect((podSpecOf(r.stdout).containers as JsonObject[])[1].args).toEqual(expect.arrayContaining(['--min-sigterm-delay=40s', '--max-sigterm-delay=5s']));
    expect(lintAt(r.stdout, '1.28')).toEqual([]);
    // A native-mode min delay runs after the app has exited: classic, it is added to preStop + drain; the max is kept.
    const own = chartOf('own-flags', proxyApp({ args: ['--max-sigterm-delay=30s', '--min-sigterm-delay', '5s', 'p:r:i'] }));
    const r2 = render(own, '1.28.0', { workloads: { orders: { terminationGracePeriodSeconds: 70 } } });
    expect(r2.stderr).toBe('');
    expect((podSpecOf(r2.stdout).containers as JsonObject[])[1].args).toEqual(['p:r:i', '--min-sigterm-delay=35s', '--max-sigterm-delay=30s']);
    const r3 = render(own, '1.29.0', { workloads: { orders: { terminationGracePeriodSeconds: 70 } } });
    expect((podSpecOf(r3.stdout).initContainers as JsonObject[])[0].args).toEqual(['--max-sigterm-delay=30s', '--min-sigterm-delay', '5s', 'p:r:i']);
  });

  test('execSleep and stopAtOnce: a preStop exec sleep of preStop + drain, or nothing', () => {
    const sleep = render(dir, '1.28.0', { workloads: { orders: { containers: { cloudSqlProxy: { classicFallback: 'execSleep' } } } } });
    expect(sleep.stderr).toBe('');
    const p1 = (podSpecOf(sleep.stdout).containers as JsonObject[])[1];
    expect(p1.lifecycle).toEqual({ preStop: { exec: { command: ['sleep', '30'] } } });
    expect(p1.args).not.toContain('--min-sigterm-delay=30s');
    const none = render(dir, '1.28.0', { workloads: { orders: { containers: { cloudSqlProxy: { classicFallback: 'stopAtOnce' } } } } });
    const p2 = (podSpecOf(none.stdout).containers as JsonObject[])[1];
    expect(p2.lifecycle).toBeUndefined();
    expect(p2.args).not.toContain('--min-sigterm-delay=30s');
    expect(lintAt(none.stdout, '1.28')).toEqual([]);
  });

  test('refuse fails below 1.29 naming the sidecar and the value, and is ignored from 1.29', () => {
    const values = { workloads: { orders: { containers: { cloudSqlProxy: { classicFallback: 'refuse' } } } } };
    const r = render(dir, '1.28.0', values);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('kubegrace guard: Deployment shop/orders: Kubernetes v1.28.0 has no native sidecars (>= 1.29), so init container "cloud-sql-proxy" (restartPolicy: Always) would run as a regular container');
    expect(r.stderr).toContain('set workloads.orders.containers.cloudSqlProxy.classicFallback to drainFlags');
    expect(render(dir, '1.29.0', values).status).toBe(0);
  });

  test('drainFlags with an image tag older than the flags is refused; a tag without a version is accepted', () => {
    const old = render(dir, '1.28.0', { workloads: { orders: { containers: { cloudSqlProxy: { image: { tag: '2.11.4' } } } } } });
    expect(old.status).toBe(1);
    expect(old.stderr).toContain('workloads.orders.containers.cloudSqlProxy.classicFallback drainFlags needs Cloud SQL Auth Proxy v2 >= 2.12.0 (the first release with --min-sigterm-delay), but workloads.orders.containers.cloudSqlProxy.image.tag is 2.11.4');
    expect(render(dir, '1.29.0', { workloads: { orders: { containers: { cloudSqlProxy: { image: { tag: '2.11.4' } } } } } }).status).toBe(0);
    expect(render(dir, '1.28.0', { workloads: { orders: { containers: { cloudSqlProxy: { image: { tag: 'latest' } } } } } }).status).toBe(0);
  });

  test('an unknown sidecar: refused below 1.29 by default with the values to choose; execSleep renders the hook', () => {
    const u = chartOf('web', UNKNOWN);
    const r = render(u, '1.28.0');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('init container "logs" (restartPolicy: Always) would run as a regular container');
    expect(r.stderr).toContain('(no drain setting is known for image example/log-shipper:3, and a preStop sleep needs a sleep binary in the image, which the manifests do not tell); set workloads.web.containers.logs.classicFallback to execSleep (only if its image has a sleep binary), or stopAtOnce');
    expect(render(u, '1.29.0').status).toBe(0);
    const s = render(u, '1.25.0', { workloads: { web: { containers: { logs: { classicFallback: 'execSleep' } } } } });
    expect(s.stderr).toBe('');
    const ps = podSpecOf(s.stdout);
    expect(ps.initContainers).toBeUndefined();
    expect((ps.containers as JsonObject[]).map((c) => [c.name, c.lifecycle])).toEqual([
      ['app', { preStop: { exec: { command: ['sleep', '5'] } } }],
      ['logs', { preStop: { exec: { command: ['sleep', '15'] } } }],
    ]);
    // Nothing left to sleep for: no hook at all.
    const z = render(u, '1.28.0', { workloads: { web: { preStop: { delaySeconds: 0 }, drainSeconds: 0, containers: { logs: { classicFallback: 'execSleep' } } } } });
    expect(z.stderr).toBe('');
    expect((podSpecOf(z.stdout).containers as JsonObject[]).map((c) => c.lifecycle)).toEqual([undefined, undefined]);
  });

  test('NOTES below 1.29 say how the sidecar is kept up and that start-up order is lost', () => {
    const text = notesOf(dir);
    const old = text('1.28.0');
    expect(old).toContain('Native sidecar:      Kubernetes v1.28.0 has none (>= 1.29), so "cloud-sql-proxy" runs as a regular container and gets SIGTERM with the app: it keeps accepting connections for the app\'s preStop + drain = 30s after SIGTERM (--min-sigterm-delay), then waits up to 5s for open ones (--max-sigterm-delay).');
    expect(old).toContain('Start-up order:      lost below 1.29: regular containers start together, so the app may start before "cloud-sql-proxy" is ready');
    expect(text('1.28.0', { workloads: { orders: { containers: { cloudSqlProxy: { classicFallback: 'execSleep' } } } } })).toContain('its preStop sleeps the app\'s preStop + drain = 30s first.');
    expect(text('1.28.0', { workloads: { orders: { containers: { cloudSqlProxy: { classicFallback: 'stopAtOnce' } } } } })).toContain('it is not kept up (classicFallback stopAtOnce) and may stop before the app has drained.');
    expect(text('1.29.0')).not.toContain('Native sidecar:');
  });
});

describe('mesh proxies asked for as native sidecars (annotation "true") below 1.29', () => {
  /** Deployments whose injected proxy the constructs ask for in native mode, and one hand-written Istio config. */
  function meshManifests(): string {
    const chart = new Chart(Testing.app(), 'm', { namespace: 'shop' });
    const app = { name: 'app', image: 'example/web:1.0', ports: [{ name: 'http', number: 8080 }], readiness: kplus.Probe.fromHttpGet('/readyz', { port: 8080 }), liveness: kplus.Probe.fromHttpGet('/livez', { port: 8080, failureThreshold: 6 }) };
    new GracefulDeployment(chart, 'lk', { metadata: { name: 'lk' }, replicas: 2, containers: [app], mesh: Mesh.linkerd({ nativeSidecar: true }), service: { name: 'lk' } });
    new GracefulDeployment(chart, 'is', { metadata: { name: 'is' }, replicas: 2, containers: [{ ...app, name: 'app2' }], mesh: Mesh.istio({ nativeSidecar: true }), service: { name: 'is' } });
    return Yaml.stringify(...Testing.synth(chart));
  }
  const HELD = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: held, namespace: shop, annotations: {kubegrace.dev/drain-seconds: "10"}}
spec:
  selector: {matchLabels: {app: held}}
  template:
    metadata:
      labels: {app: held, sidecar.istio.io/inject: "true"}
      annotations:
        sidecar.istio.io/nativeSidecar: "true"
        proxy.istio.io/config: |
          holdApplicationUntilProxyStarts: true
    spec:
      terminationGracePeriodSeconds: 30
      containers: [{name: app, image: "example/held:1", lifecycle: {preStop: {exec: {command: [sleep, "5"]}}}}]
`;
  let dir = '';
  beforeAll(() => {
    dir = chartOf('meshes', `${meshManifests()}---${HELD}`);
  });

  function annotationsAt(kube: string): Map<string, JsonObject> {
    const r = render(dir, kube);
    expect(r.stderr).toBe('');
    return new Map(
      docs(r.stdout)
        .filter((o) => o.kind === 'Deployment')
        .map((o) => [String((o.metadata as JsonObject).name), (((o.spec as JsonObject).template as JsonObject).metadata as JsonObject).annotations as JsonObject]),
    );
  }

  test('the chart does not need 1.29 for them; its README says what happens below', () => {
    expect(parse(fs.readFileSync(path.join(dir, 'Chart.yaml'), 'utf8'))).toMatchObject({ kubeVersion: '>=1.21.0-0' });
    const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    expect(readme).toContain('Mesh proxies asked for as native sidecars (Deployment shop/lk, Deployment shop/is, Deployment shop/held) are asked for as regular containers below 1.29');
    expect(readme).not.toContain('classicFallback');
  });

  test.each(['1.25', '1.28'])('Kubernetes %s: classic proxies with the classic drain (preStop + drain), and the rendering lints clean', (v) => {
    const a = annotationsAt(`${v}.0`);
    expect(a.get('rel-meshes-lk')).toMatchObject({ 'config.linkerd.io/proxy-enable-native-sidecar': 'false', 'config.alpha.linkerd.io/proxy-wait-before-exit-seconds': '20' });
    expect(a.get('rel-meshes-is')).toMatchObject({ 'sidecar.istio.io/nativeSidecar': 'false', 'proxy.istio.io/config': 'terminationDrainDuration: 20s\n' });
    // A config of its own keeps its settings; the drain is added to it.
    expect(a.get('rel-meshes-held')).toMatchObject({ 'sidecar.istio.io/nativeSidecar': 'false', 'proxy.istio.io/config': 'terminationDrainDuration: 15s\nholdApplicationUntilProxyStarts: true\n' });
    expect(lintAt(render(dir, `${v}.0`).stdout, v)).toEqual([]);
  });

  test.each(['1.29', '1.30'])('Kubernetes %s: native mode as written, no classic drain annotations', (v) => {
    const a = annotationsAt(`${v}.0`);
    expect(a.get('rel-meshes-lk')!['config.linkerd.io/proxy-enable-native-sidecar']).toBe('true');
    expect(a.get('rel-meshes-lk')!['config.alpha.linkerd.io/proxy-wait-before-exit-seconds']).toBeUndefined();
    expect(a.get('rel-meshes-is')!['sidecar.istio.io/nativeSidecar']).toBe('true');
    expect(a.get('rel-meshes-is')!['proxy.istio.io/config']).toBeUndefined();
    expect(a.get('rel-meshes-held')!['proxy.istio.io/config']).toBe('holdApplicationUntilProxyStarts: true\n');
  });

  test('the classic drain follows the values', () => {
    const r = render(dir, '1.28.0', { workloads: { lk: { preStop: { delaySeconds: 12 }, drainSeconds: 15, terminationGracePeriodSeconds: 40 }, is: { drainSeconds: 0 } } });
    expect(r.stderr).toBe('');
    const deps = docs(r.stdout).filter((o) => o.kind === 'Deployment');
    const ann = (n: string) => (((deps.find((o) => (o.metadata as JsonObject).name === n)!.spec as JsonObject).template as JsonObject).metadata as JsonObject).annotations as JsonObject;
    expect(ann('rel-meshes-lk')['config.alpha.linkerd.io/proxy-wait-before-exit-seconds']).toBe('27');
    // Drain 0: the proxy still stays a second longer than the preStop (constructs/mesh.ts proxyStaySeconds).
    expect(ann('rel-meshes-is')['proxy.istio.io/config']).toBe('terminationDrainDuration: 11s\n');
  });

  test('NOTES below 1.29 say the proxy is injected classic, with its drain', () => {
    const text = notesOf(dir);
    const old = text('1.28.0');
    expect(old).toContain('Mesh proxy:          Kubernetes v1.28.0 has no native sidecars (>= 1.29), so the Linkerd proxy is injected as a regular container (config.linkerd.io/proxy-enable-native-sidecar: "false") that waits preStop + drain = 20s before it exits (config.alpha.linkerd.io/proxy-wait-before-exit-seconds); it starts together with the app.');
    expect(old).toContain('so the Istio proxy is injected as a regular container (sidecar.istio.io/nativeSidecar: "false") that drains for preStop + drain = 15s (terminationDrainDuration)');
    expect(text('1.29.0')).not.toContain('Mesh proxy:');
  });

  test('in a CronJob a classic proxy would keep the job from completing: the chart keeps kubeVersion >= 1.29', () => {
    const cron = `${UNKNOWN}---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: shop}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        metadata: {annotations: {config.linkerd.io/proxy-enable-native-sidecar: "true", linkerd.io/inject: enabled}}
        spec:
          restartPolicy: OnFailure
          containers: [{name: work, image: "example/work:1"}]
`;
    expect(parse(buildChartFiles(cron, { ...SPEC, name: 'cron' }).get('Chart.yaml')!)).toMatchObject({ kubeVersion: '>=1.29.0-0' });
  });
});
