/**
 * Generated workloads: fast-check builds pod templates from the pieces the exported policies read
 * (preStop handlers and commands, grace periods, hints, native sidecars, mesh annotations, probes
 * and their ports, declared ports, accelerator requests, claims, rollout and DaemonSet update
 * strategies, node-proxy names and images, spread constraints, suppression), and each must get the same verdicts and
 * repairs from the policies as from the linter (./differential.ts), with no CEL evaluation error.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { check, report, subjectsOf } from './differential';

const num = fc.integer({ min: 0, max: 90 });
const seconds = fc.oneof(num.map(String), fc.constantFrom('1.5', '2m', '1.5m', '90s', '1m30s', '500ms', '0', 'abc', '-5', '1d', ''));
const command = fc.oneof(
  fc.tuple(fc.constantFrom('sleep', '/bin/sleep', '/usr/bin/sleep', 'sleepy'), seconds).map(([a, b]) => [a, b]),
  fc.tuple(fc.constantFrom('sh', '/bin/sh', 'bash', 'zsh'), fc.constantFrom('-c', '-ec'), fc.tuple(fc.constantFrom('sleep ', 'exec sleep ', ' sleep\t', 'echo '), seconds, fc.constantFrom('', ';', ' ;', '; kill 1', ' && nginx -s quit', '&&x'))).map(([a, b, c]) => [a, b, c.join('')]),
  fc.tuple(fc.constantFrom('teleport', '/usr/local/bin/teleport'), seconds).map(([a, s]) => [a, 'wait', 'duration', s]),
  fc.constant(['/app/drain']),
);
const preStop = fc.oneof(
  fc.constant(undefined),
  num.map((s) => ({ sleep: { seconds: s } })),
  command.map((c) => ({ exec: { command: c } })),
  fc.constant({ httpGet: { path: '/drain', port: 8080 } }),
  fc.constant({ tcpSocket: { port: 8080 } }),
);
const image = fc.constantFrom('example/app:1', 'gcr.io/distroless/static:nonroot', 'gcr.io/distroless/base:debug', 'cgr.dev/chainguard/static:latest', 'docker.io/istio/ztunnel:1.24@sha256:ab', 'localhost:5000/Envoy');
/** Declared ports: traffic, metrics and operator names, UDP, host ports. */
const port = fc.record(
  {
    name: fc.constantFrom('http', 'metrics', 'http-metrics', 'admin', 'grpc', 'dns', 'Prom-stats'),
    containerPort: fc.constantFrom(8080, 9090, 53),
    protocol: fc.constantFrom('TCP', 'UDP'),
    hostPort: fc.constantFrom(8080, 9090),
  },
  { requiredKeys: ['containerPort'] },
);
/** A probe port: declared or not, by name or number, or a quoted number. */
const probePortValue = fc.constantFrom<number | string>(8080, 9090, 1234, 'http', 'metrics', 'web', '8080');
const probe = fc.oneof(
  probePortValue.map((p) => ({ httpGet: { path: '/healthz', port: p } })),
  fc.tuple(probePortValue, fc.constantFrom('', 'other.example')).map(([p, host]) => ({ httpGet: { path: '/healthz', port: p, host } })),
  probePortValue.map((p) => ({ tcpSocket: { port: p } })),
  fc.constantFrom(8080, 1234).map((p) => ({ grpc: { port: p } })),
);
const resources = fc.constantFrom(
  { limits: { 'nvidia.com/gpu': 1 } },
  { requests: { 'nvidia.com/gpu': '0' }, limits: { 'nvidia.com/gpu': 1 } },
  { requests: { 'amd.com/gpu': '1' } },
  { limits: { 'example.com/widget': 2, cpu: '1' } },
);
const container = (name: string) =>
  fc.record(
    {
      name: fc.constant(name),
      image,
      lifecycle: preStop.map((p) => (p ? { preStop: p } : undefined)),
      ports: fc.array(port, { maxLength: 2 }),
      resources,
      env: fc.constantFrom([{ name: 'LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD', value: '20s' }], [{ name: 'LINKERD2_PROXY_SHUTDOWN_GRACE_PERIOD', value: 'soon' }], [{ name: 'OTHER', value: 'x' }]),
      livenessProbe: fc.option(fc.record({ httpGet: fc.constant({ path: '/livez', port: 8080 }), initialDelaySeconds: fc.integer({ min: 0, max: 120 }) }), { nil: undefined }),
      readinessProbe: probe,
      startupProbe: fc.option(fc.oneof(fc.record({ tcpSocket: fc.constant({ port: 8080 }), failureThreshold: fc.integer({ min: 1, max: 40 }) }), probe), { nil: undefined }),
    },
    { requiredKeys: ['name', 'image'] },
  );
const annotations = fc.record(
  {
    'kubegrace.dev/drain-seconds': seconds,
    'kubegrace.dev/sidecar-drain-seconds': fc.constantFrom('3', 'proxy=8', 'proxy=8,logs=0', 'bad', '2, logs=1m'),
    'kubegrace.dev/prestop-seconds': fc.constantFrom('40', 'app=25', 'app=x', '=5', '1m'),
    'kubegrace.dev/served': fc.constantFrom('true', 'false', 'TRUE '),
    'kubegrace.dev/ignore': fc.constantFrom('grace-period-budget', 'all', 'zero-grace-period,prestop-handler'),
    'linkerd.io/inject': fc.constantFrom('enabled', 'disabled'),
    'config.linkerd.io/proxy-enable-native-sidecar': fc.constantFrom('true', 'false'),
    'config.beta.linkerd.io/proxy-enable-native-sidecar': fc.constantFrom('true', ' false ', 'maybe'),
    'config.alpha.linkerd.io/proxy-wait-before-exit-seconds': fc.constantFrom('0', '20', '40', '90', 'x', '2.5'),
    'config.linkerd.io/shutdown-grace-period': fc.constantFrom('30s', '2m', '1m30s', 'abc', '0', '45'),
    'kubegrace.dev/connection-pattern': fc.constantFrom('long-lived', ' Fan-In', 'short'),
    'sidecar.istio.io/inject': fc.constantFrom('true', 'false'),
    'sidecar.istio.io/nativeSidecar': fc.constantFrom('true', 'false'),
  },
  { requiredKeys: [] },
);
const intOrPercent = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('0%', '25%', '50%', '100%', '1'));
const spread = fc.record({
  maxSkew: fc.constant(1),
  // Well-known keys, reserved keys no node carries by default, open namespaces, an admin's own key.
  topologyKey: fc.constantFrom('kubernetes.io/hostname', 'topology.kubernetes.io/zone', 'kubernetes.io/zone', 'k8s.io/rack', 'node.kubernetes.io/pool', 'kops.k8s.io/instancegroup', 'example.com/rack'),
  whenUnsatisfiable: fc.option(fc.constantFrom('DoNotSchedule', 'ScheduleAnyway'), { nil: undefined }),
  labelSelector: fc.constantFrom({ matchLabels: { app: 'gen' } }, { matchLabels: { app: 'other' } }, { matchExpressions: [{ key: 'app', operator: 'In', values: ['gen'] }] }, { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }),
  matchLabelKeys: fc.option(fc.constantFrom(['pod-template-hash'], ['version']), { nil: undefined }),
});

const workload = fc
  .record({
    kind: fc.constantFrom('Deployment', 'StatefulSet', 'DaemonSet', 'Pod', 'Job'),
    grace: fc.option(fc.constantFrom(0, 10, 20, 30, 45, 60, 120), { nil: undefined }),
    name: fc.constantFrom('gen', 'envoy-node', 'ztunnel'),
    containers: fc.array(fc.constantFrom('app', 'worker', 'linkerd-proxy', 'haproxy'), { minLength: 1, maxLength: 3 }).chain((names) => fc.tuple(...[...new Set(names)].map((n) => container(n)))),
    sidecars: fc.array(fc.constantFrom('proxy', 'logs', 'istio-proxy', 'linkerd-proxy'), { maxLength: 2 }),
    annotations,
    replicas: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
    maxSurge: fc.option(intOrPercent, { nil: undefined }),
    maxUnavailable: fc.option(intOrPercent, { nil: undefined }),
    minReadySeconds: fc.option(fc.constantFrom(0, 30, 700), { nil: undefined }),
    progressDeadlineSeconds: fc.option(fc.constantFrom(30, 600), { nil: undefined }),
    partition: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
    spread: fc.array(spread, { maxLength: 2 }),
    hostNetwork: fc.option(fc.boolean(), { nil: undefined }),
    claim: fc.boolean(),
    dsStrategy: fc.option(fc.record({ type: fc.constantFrom('RollingUpdate', 'OnDelete'), rollingUpdate: fc.record({ maxSurge: fc.oneof(intOrPercent, fc.constant('x')), maxUnavailable: fc.oneof(intOrPercent, fc.constant('x')) }, { requiredKeys: [] }) }, { requiredKeys: ['rollingUpdate'] }), { nil: undefined }),
  })
  .map((w) => {
    const podSpec: Record<string, unknown> = { containers: w.containers };
    if (w.grace !== undefined) podSpec.terminationGracePeriodSeconds = w.grace;
    const sidecars = [...new Set(w.sidecars)];
    if (sidecars.length) podSpec.initContainers = sidecars.map((n) => ({ name: n, image: 'x', restartPolicy: 'Always' }));
    if (w.hostNetwork !== undefined) podSpec.hostNetwork = w.hostNetwork;
    if (w.claim) podSpec.volumes = [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }];
    if (w.spread.length) podSpec.topologySpreadConstraints = w.spread.map((c) => JSON.parse(JSON.stringify(c)) as unknown);
    const meta = { labels: { app: 'gen' }, annotations: w.annotations };
    if (w.kind === 'Pod') return { apiVersion: 'v1', kind: 'Pod', metadata: { name: w.name, ...meta }, spec: podSpec };
    if (w.kind === 'Job') return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: w.name }, spec: { template: { metadata: meta, spec: { ...podSpec, restartPolicy: 'Never' } } } };
    const spec: Record<string, unknown> = { selector: { matchLabels: { app: 'gen' } }, template: { metadata: meta, spec: podSpec } };
    if (w.kind !== 'DaemonSet' && w.replicas !== undefined) spec.replicas = w.replicas;
    if (w.kind === 'Deployment') {
      const ru: Record<string, unknown> = {};
      if (w.maxSurge !== undefined) ru.maxSurge = w.maxSurge;
      if (w.maxUnavailable !== undefined) ru.maxUnavailable = w.maxUnavailable;
      if (Object.keys(ru).length) spec.strategy = { type: 'RollingUpdate', rollingUpdate: ru };
      if (w.minReadySeconds !== undefined) spec.minReadySeconds = w.minReadySeconds;
      if (w.progressDeadlineSeconds !== undefined) spec.progressDeadlineSeconds = w.progressDeadlineSeconds;
    }
    if (w.kind === 'DaemonSet' && w.dsStrategy !== undefined) spec.updateStrategy = w.dsStrategy;
    if (w.kind === 'StatefulSet' && w.partition !== undefined) spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: w.partition } };
    return { apiVersion: 'apps/v1', kind: w.kind, metadata: { name: w.name }, spec };
  });

describe('generated workloads: the policies agree with the linter', () => {
  test.each(['1.30', '1.34'])('%s', (version) => {
    fc.assert(
      fc.property(workload, (obj) => {
        const subjects = subjectsOf(stringify(obj), 'generated', version);
        const { divergences } = check(subjects);
        expect(report(divergences)).toEqual([]);
      }),
      { numRuns: 150, seed: 15 },
    );
  });
});
