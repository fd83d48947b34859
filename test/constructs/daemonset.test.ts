import { ApiObject, Chart, Duration, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { GracefulDaemonSet, GracefulDaemonSetProps } from '../../lib/constructs';
import { HINT } from '../../lib/model/graph';
import { JsonObject } from '../../lib/model/types';
import { byKind, container, describeFindings, lintChart, podSpec, synth } from './helpers';

const READY = kplus.Probe.fromHttpGet('/healthz', { port: 9000 });

function agent(chart: Chart, props: Partial<GracefulDaemonSetProps> = {}): GracefulDaemonSet {
  return new GracefulDaemonSet(chart, 'agent', {
    containers: [{ name: 'agent', image: 'example/agent:1', ports: [{ name: 'otlp', number: 4317 }, { name: 'health', number: 9000 }], readiness: READY }],
    ...props,
  });
}

function ds(chart: Chart): JsonObject {
  return byKind(synth(chart), 'DaemonSet');
}

describe('GracefulDaemonSet defaults', () => {
  const chart = Testing.chart();
  const d = agent(chart);
  const all = synth(chart);
  const m = byKind(all, 'DaemonSet');

  test('surge rollout: maxSurge 1, maxUnavailable 0', () => {
    expect((m.spec as JsonObject).updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    expect(d.maxSurge).toBe(1);
    expect(d.maxUnavailable).toBe(0);
  });

  test('preStop sleep on the serving container, grace 25, drain hint', () => {
    expect((container(m, 'agent').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 10 } });
    expect(podSpec(m).terminationGracePeriodSeconds).toBe(25);
    expect((m.metadata as JsonObject).annotations).toEqual({ [HINT.drainSeconds]: '10' });
    expect(d.budget().gracePeriodSeconds).toBe(25);
  });

  test('no Service, no PodDisruptionBudget, no spreading', () => {
    expect(all.map((x) => x.kind)).toEqual(['DaemonSet']);
    expect(podSpec(m).topologySpreadConstraints).toBeUndefined();
    expect(d.service).toBeUndefined();
  });

  test('lints clean under the strict policy', () => {
    expect(describeFindings(lintChart(chart))).toEqual([]);
  });
});

describe('GracefulDaemonSet props', () => {
  test('a node-local Service: internalTrafficPolicy Local by default', () => {
    const chart = Testing.chart();
    const d = agent(chart, { service: { ports: [{ name: 'otlp', port: 4317, targetPort: 4317 }] } });
    const svc = byKind(synth(chart), 'Service');
    expect((svc.spec as JsonObject).internalTrafficPolicy).toBe('Local');
    expect((svc.spec as JsonObject).ports).toEqual([{ name: 'otlp', port: 4317, targetPort: 4317 }]);
    expect(d.service).toBeDefined();
    expect(describeFindings(lintChart(chart))).toEqual([]);
  });

  test('internalTrafficPolicy Cluster', () => {
    const chart = Testing.chart();
    agent(chart, { service: { internalTrafficPolicy: 'Cluster' } });
    expect((byKind(synth(chart), 'Service').spec as JsonObject).internalTrafficPolicy).toBe('Cluster');
  });

  test('maxSurge 0 falls back to maxUnavailable 1; both 0 is refused', () => {
    const chart = Testing.chart();
    agent(chart, { maxSurge: 0 });
    expect((ds(chart).spec as JsonObject).updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } });
    expect(() => agent(Testing.chart(), { maxSurge: 0, maxUnavailable: '0%' })).toThrow(/cannot both be 0/);
  });

  test('percentages', () => {
    const chart = Testing.chart();
    agent(chart, { maxSurge: '10%', maxUnavailable: '5%' });
    expect((ds(chart).spec as JsonObject).updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '10%', maxUnavailable: '5%' } });
  });

  test('surge with host networking is refused; with a hostPort it fails validation', () => {
    expect(() => agent(Testing.chart(), { hostNetwork: true })).toThrow(/maxSurge with hostNetwork/);
    const chart = Testing.chart();
    agent(chart, { containers: [{ name: 'agent', image: 'example/agent:1', ports: [{ number: 4317, hostPort: 4317 }] }] });
    expect(() => synth(chart)).toThrow(/container "agent" uses a hostPort/);
    const ok = Testing.chart();
    agent(ok, { maxSurge: 0, containers: [{ name: 'agent', image: 'example/agent:1', ports: [{ number: 4317, hostPort: 4317 }] }] });
    expect(() => synth(ok)).not.toThrow();
  });

  test('minReadySeconds, preStopSeconds, drainSeconds, explicit grace', () => {
    const chart = Testing.chart();
    agent(chart, { minReadySeconds: 5, preStopSeconds: 3, drainSeconds: 2, terminationGracePeriod: Duration.seconds(60) });
    const m = ds(chart);
    expect((m.spec as JsonObject).minReadySeconds).toBe(5);
    expect((container(m, 'agent').lifecycle as JsonObject).preStop).toEqual({ sleep: { seconds: 3 } });
    expect(podSpec(m).terminationGracePeriodSeconds).toBe(60);
  });

  test('native sidecars', () => {
    const chart = Testing.chart();
    const d = agent(chart);
    d.addSidecar({ name: 'shipper', image: 'example/shipper:1' });
    const m = ds(chart);
    expect(container(m, 'shipper', 'initContainers').restartPolicy).toBe('Always');
    expect(podSpec(m).terminationGracePeriodSeconds).toBe(30);
    expect(describeFindings(lintChart(chart))).toEqual([]);
  });

  test('the L1 object', () => {
    expect(ApiObject.of(agent(Testing.chart())).kind).toBe('DaemonSet');
  });
});
