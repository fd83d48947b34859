import { ApiObject, Chart, Duration, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { GracefulStatefulSet, GracefulStatefulSetProps, LoadBalancer, Mesh, RolloutProfile } from '../../lib/constructs';
import { HINT } from '../../lib/model/graph';
import { JsonObject } from '../../lib/model/types';
import { estimateReconnect } from '../../lib/timeline/reconnect';
import { byKind, container, describeFindings, lintChart, podSpec, synth } from './helpers';

const PORTS = [
  { name: 'client', number: 5432 },
  { name: 'peer', number: 5433 },
];
const READY = kplus.Probe.fromTcpSocket({ port: 5432 });

function store(chart: Chart, props: Partial<GracefulStatefulSetProps> = {}): GracefulStatefulSet {
  return new GracefulStatefulSet(chart, 'db', {
    containers: [{ name: 'db', image: 'example/db:1', ports: PORTS, readiness: READY }],
    ...props,
  });
}

function sts(chart: Chart): JsonObject {
  return byKind(synth(chart), 'StatefulSet');
}

function services(chart: Chart): JsonObject[] {
  return synth(chart).filter((m) => m.kind === 'Service');
}

describe('GracefulStatefulSet defaults', () => {
  const chart = Testing.chart();
  const s = store(chart);
  const all = synth(chart);
  const m = byKind(all, 'StatefulSet');
  const spec = m.spec as JsonObject;

  test('1 replica, Parallel pod management, rolling update with partition 0, minReadySeconds 0', () => {
    expect(spec.replicas).toBe(1);
    expect(spec.podManagementPolicy).toBe('Parallel');
    expect(spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    expect(spec.minReadySeconds).toBe(0);
    expect(s.partition).toBe(0);
  });

  test('a headless peer Service that publishes unready pods, named by serviceName', () => {
    const peers = services(chart).find((x) => (x.spec as JsonObject).clusterIP === 'None')!;
    expect((peers.spec as JsonObject).publishNotReadyAddresses).toBe(true);
    expect((peers.spec as JsonObject).ports).toEqual([
      { name: 'client', port: 5432, targetPort: 5432 },
      { name: 'peer', port: 5433, targetPort: 5433 },
    ]);
    expect(spec.serviceName).toBe((peers.metadata as JsonObject).name);
    expect(s.peerService).toBe(s.service);
  });

  test('a client Service on every port, not headless, never publishing unready pods', () => {
    const client = services(chart).find((x) => (x.spec as JsonObject).clusterIP === undefined)!;
    expect((client.spec as JsonObject).publishNotReadyAddresses).toBeUndefined();
    expect((client.spec as JsonObject).type).toBe('ClusterIP');
    expect((client.spec as JsonObject).selector).toEqual((spec.selector as JsonObject).matchLabels);
    expect(s.clientService).toBeDefined();
  });

  test('preStop sleep, grace = 10 + 10 + 5, drain hint', () => {
    expect((container(m, 'db').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 10 } });
    expect(podSpec(m).terminationGracePeriodSeconds).toBe(25);
    expect((m.metadata as JsonObject).annotations).toEqual({ [HINT.drainSeconds]: '10' });
    expect(s.budget().gracePeriodSeconds).toBe(25);
  });

  test('one replica: no PodDisruptionBudget, no spreading', () => {
    expect(all.map((x) => x.kind).sort()).toEqual(['Service', 'Service', 'StatefulSet']);
    expect(podSpec(m).topologySpreadConstraints).toBeUndefined();
    expect(s.disruptionBudget).toBeUndefined();
  });

  test('lints clean under the strict policy', () => {
    expect(describeFindings(lintChart(chart))).toEqual([]);
  });
});

describe('GracefulStatefulSet props', () => {
  test('replicas 3: PodDisruptionBudget with IfHealthyBudget, spreading without matchLabelKeys', () => {
    const chart = Testing.chart();
    const s = store(chart, { replicas: 3 });
    const all = synth(chart);
    const m = byKind(all, 'StatefulSet');
    expect(byKind(all, 'PodDisruptionBudget').spec).toEqual({
      maxUnavailable: 1,
      unhealthyPodEvictionPolicy: 'IfHealthyBudget',
      selector: { matchLabels: ((m.spec as JsonObject).selector as JsonObject).matchLabels },
    });
    const spread = podSpec(m).topologySpreadConstraints as JsonObject[];
    expect(spread.map((c) => c.topologyKey)).toEqual(['topology.kubernetes.io/zone', 'kubernetes.io/hostname']);
    expect(spread.every((c) => c.matchLabelKeys === undefined && c.whenUnsatisfiable === 'ScheduleAnyway')).toBe(true);
    expect(s.disruptionBudget?.unhealthyPodEvictionPolicy).toBe('IfHealthyBudget');
    expect(describeFindings(lintChart(chart))).toEqual([]);
  });

  test('disruptionBudget options and false; topologySpread false', () => {
    const chart = Testing.chart();
    store(chart, { replicas: 3, disruptionBudget: { unhealthyPodEvictionPolicy: 'AlwaysAllow' }, topologySpread: false });
    const all = synth(chart);
    expect((byKind(all, 'PodDisruptionBudget').spec as JsonObject).unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
    expect(podSpec(byKind(all, 'StatefulSet')).topologySpreadConstraints).toBeUndefined();
    const chart2 = Testing.chart();
    store(chart2, { replicas: 3, disruptionBudget: false });
    expect(synth(chart2).some((x) => x.kind === 'PodDisruptionBudget')).toBe(false);
  });

  test('podManagementPolicy OrderedReady (the linter advises about stuck rollouts)', () => {
    const chart = Testing.chart();
    store(chart, { replicas: 3, podManagementPolicy: kplus.PodManagementPolicy.ORDERED_READY });
    expect((sts(chart).spec as JsonObject).podManagementPolicy).toBe('OrderedReady');
    expect(lintChart(chart).map((f) => f.ruleId)).toEqual(['statefulset-ordered-ready']);
  });

  test('partition for a staged rollout (reported while it is left in place)', () => {
    const chart = Testing.chart();
    const s = store(chart, { replicas: 3, partition: 2 });
    expect((sts(chart).spec as JsonObject).updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 2 } });
    expect(s.partition).toBe(2);
    expect(lintChart(chart).map((f) => f.ruleId)).toEqual(['statefulset-partition']);
    expect(() => store(Testing.chart(), { partition: -1 })).toThrow(/partition must be a whole number/);
  });

  test('rollout fanIn: minReadySeconds from the reconnect model, hints', () => {
    const chart = Testing.chart();
    const s = store(chart, { replicas: 3, rollout: RolloutProfile.fanIn() });
    const m = sts(chart);
    expect((m.spec as JsonObject).minReadySeconds).toBe(estimateReconnect(3).suggestedMinReadySeconds);
    expect(((m.metadata as JsonObject).annotations as JsonObject)[HINT.connectionPattern]).toBe('fan-in');
    expect(s.reconnectEstimate).toEqual(estimateReconnect(3));
    expect(describeFindings(lintChart(chart))).toEqual([]);
  });

  test('rollout exclusiveVolume is refused', () => {
    expect(() => store(Testing.chart(), { rollout: RolloutProfile.exclusiveVolume() })).toThrow(/for Deployments/);
  });

  test('explicit minReady', () => {
    const chart = Testing.chart();
    const s = store(chart, { minReady: Duration.seconds(15) });
    expect((sts(chart).spec as JsonObject).minReadySeconds).toBe(15);
    expect(s.minReadySeconds).toBe(15);
  });

  test('peerService name and publishNotReadyAddresses false', () => {
    const chart = Testing.chart();
    store(chart, { peerService: { name: 'db-peers', publishNotReadyAddresses: false } });
    const peers = services(chart).find((x) => (x.metadata as JsonObject).name === 'db-peers')!;
    expect((peers.spec as JsonObject).publishNotReadyAddresses).toBe(false);
    expect((sts(chart).spec as JsonObject).serviceName).toBe('db-peers');
  });

  test('clientService options and false', () => {
    const chart = Testing.chart();
    store(chart, { clientService: { name: 'db', ports: [{ name: 'client', port: 5432, targetPort: 5432 }], annotations: { a: 'b' } } });
    const client = services(chart).find((x) => (x.metadata as JsonObject).name === 'db')!;
    expect((client.spec as JsonObject).ports).toEqual([{ name: 'client', port: 5432, targetPort: 5432 }]);
    expect((client.metadata as JsonObject).annotations).toEqual({ a: 'b' });
    const chart2 = Testing.chart();
    const s = store(chart2, { clientService: false });
    expect(services(chart2)).toHaveLength(1);
    expect(s.clientService).toBeUndefined();
  });

  test('clientService behind a load balancer: preStop = propagation window, minReady 10', () => {
    const chart = Testing.chart();
    store(chart, { clientService: { loadBalancer: LoadBalancer.awsAlbIp() } });
    const m = sts(chart);
    expect((container(m, 'db').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 30 } });
    expect((m.spec as JsonObject).minReadySeconds).toBe(10);
  });

  test('volumeClaimTemplates: one claim per pod, mounted where asked', () => {
    const chart = Testing.chart();
    store(chart, {
      containers: [
        { name: 'db', image: 'example/db:1', ports: PORTS, readiness: READY },
        { name: 'backup', image: 'example/backup:1' },
      ],
      volumeClaimTemplates: [
        { name: 'data', storage: Size.gibibytes(20), mountPath: '/var/lib/db', containers: ['db'], storageClassName: 'fast' },
        { name: 'wal', storage: Size.mebibytes(512), accessModes: ['ReadWriteOncePod'], mountPath: '/wal' },
        { name: 'spare', storage: Size.gibibytes(1) },
      ],
    });
    const m = sts(chart);
    expect((m.spec as JsonObject).volumeClaimTemplates).toEqual([
      { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } }, storageClassName: 'fast' } },
      { metadata: { name: 'wal' }, spec: { accessModes: ['ReadWriteOncePod'], resources: { requests: { storage: '512Mi' } } } },
      { metadata: { name: 'spare' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    ]);
    expect(container(m, 'db').volumeMounts).toEqual([
      { mountPath: '/var/lib/db', name: 'data' },
      { mountPath: '/wal', name: 'wal' },
    ]);
    expect(container(m, 'backup').volumeMounts).toEqual([{ mountPath: '/wal', name: 'wal' }]);
    expect(describeFindings(lintChart(chart))).toEqual([]);
  });

  test('a claim mounted in a missing container is refused at synthesis', () => {
    const chart = Testing.chart();
    store(chart, { volumeClaimTemplates: [{ name: 'data', storage: Size.gibibytes(1), mountPath: '/d', containers: ['nope'] }] });
    expect(() => synth(chart)).toThrow(/container "nope", which does not exist/);
  });

  test('sidecars, mesh, drainSeconds and preStopSeconds work as on a Deployment', () => {
    const chart = Testing.chart();
    const s = store(chart, {
      replicas: 3,
      drainSeconds: 30,
      preStopSeconds: 5,
      mesh: Mesh.istio(),
      sidecars: [{ name: 'backup-agent', image: 'example/agent:1' }],
    });
    const m = sts(chart);
    expect(container(m, 'backup-agent', 'initContainers').restartPolicy).toBe('Always');
    expect((container(m, 'db').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 5 } });
    expect(podSpec(m).terminationGracePeriodSeconds).toBe(45);
    expect(((((m.spec as JsonObject).template as JsonObject).metadata as JsonObject).annotations as JsonObject)['proxy.istio.io/config']).toBe('terminationDrainDuration: 35s\n');
    expect(s.budget()).toMatchObject({ preStopSeconds: 5, drainSeconds: 30, addendSeconds: 5 });
    expect(describeFindings(lintChart(chart))).toEqual([]);
  });

  test('a container behind the peer Service without a readiness probe fails validation', () => {
    const chart = Testing.chart();
    new GracefulStatefulSet(chart, 'db', { containers: [{ name: 'db', image: 'example/db:1', ports: PORTS }] });
    expect(() => synth(chart)).toThrow(/container "db" receives Service traffic but has no readiness probe/);
  });

  test('the L1 object', () => {
    const chart = Testing.chart();
    const s = store(chart);
    expect(ApiObject.of(s).kind).toBe('StatefulSet');
  });
});
