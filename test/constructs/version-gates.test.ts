/**
 * Version-gated output: every field newer than Kubernetes 1.27 (which cdk8s-plus-27 would drop)
 * reaches the synthesized YAML through ManifestOverlay, is snapshot-tested, and is replaced or
 * refused when kubernetesVersion is older; the other gated fields follow their gates too.
 */
import { Chart, Duration, Size, Testing, Yaml } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { GracefulDaemonSet, GracefulDeployment, GracefulStatefulSet, LoadBalancer, Mesh, preStopHandler } from '../../lib/constructs';
import { KubeVersion } from '../../lib/engine/version';
import { JsonObject } from '../../lib/model/types';
import { byKind, container, describeFindings, lintChart, podSpec, synth } from './helpers';

const READY = kplus.Probe.fromHttpGet('/readyz', { port: 8080 });
const SIDECAR = {
  name: 'proxy',
  image: 'example/proxy:1',
  ports: [{ name: 'admin', number: 15000 }],
  startupProbe: { httpGet: { path: '/ready', port: 'admin' }, periodSeconds: 1, failureThreshold: 30 },
  readinessProbe: { httpGet: { path: '/ready', port: 'admin' }, periodSeconds: 5 },
  livenessProbe: { tcpSocket: { port: 'admin' }, failureThreshold: 6 },
};

function deployment(kubernetesVersion: string, extra: Record<string, unknown> = {}): { chart: Chart; d: GracefulDeployment } {
  const chart = Testing.chart();
  const d = new GracefulDeployment(chart, 'web', {
    kubernetesVersion,
    replicas: 3,
    containers: [{ name: 'app', image: 'example/web:1', portNumber: 8080, readiness: READY }],
    service: {},
    ...extra,
  });
  return { chart, d };
}

describe('preStop sleep action (PodLifecycleSleepAction, >= 1.30)', () => {
  test('>= 1.30: lifecycle.preStop.sleep is in the YAML', () => {
    const { chart } = deployment('1.30');
    const dep = byKind(synth(chart), 'Deployment');
    expect(container(dep, 'app').lifecycle).toMatchSnapshot();
    expect(Yaml.stringify(...synth(chart))).toMatch(/preStop:\n\s+sleep:\n\s+seconds: 10\n/);
    expect(describeFindings(lintChart(chart, '1.30'))).toEqual([]);
  });

  test('< 1.30: replaced by exec sleep', () => {
    const { chart } = deployment('1.29');
    const dep = byKind(synth(chart), 'Deployment');
    expect(container(dep, 'app').lifecycle).toMatchSnapshot();
    expect(Yaml.stringify(...synth(chart))).not.toContain('sleep:');
    expect(describeFindings(lintChart(chart, '1.29'))).toEqual([]);
  });

  test('preStopHandler picks the form by version', () => {
    expect(preStopHandler(7, KubeVersion.parse('1.30'))).toEqual({ sleep: { seconds: 7 } });
    expect(preStopHandler(7, KubeVersion.parse('1.29.9'))).toEqual({ exec: { command: ['sleep', '7'] } });
    expect(() => preStopHandler(0, KubeVersion.parse('1.37'))).toThrow(/> 0/);
  });

  test('the StatefulSet and the DaemonSet follow the same gate', () => {
    for (const [v, expected] of [
      ['1.30', { sleep: { seconds: 10 } }],
      ['1.29', { exec: { command: ['sleep', '10'] } }],
    ] as const) {
      const chart = Testing.chart();
      new GracefulStatefulSet(chart, 'db', { kubernetesVersion: v, containers: [{ name: 'db', image: 'x', portNumber: 8080, readiness: READY }] });
      new GracefulDaemonSet(chart, 'agent', { kubernetesVersion: v, containers: [{ name: 'agent', image: 'x', portNumber: 9000 }] });
      const all = synth(chart);
      expect((container(byKind(all, 'StatefulSet'), 'db').lifecycle as JsonObject).preStop).toEqual(expected);
      expect((container(byKind(all, 'DaemonSet'), 'agent').lifecycle as JsonObject).preStop).toEqual(expected);
      expect(describeFindings(lintChart(chart, v))).toEqual([]);
    }
  });
});

describe('native sidecars (SidecarContainers, >= 1.29)', () => {
  test('>= 1.29: restartPolicy Always and probes on the init container are in the YAML', () => {
    const { chart } = deployment('1.29', { sidecars: [SIDECAR] });
    const dep = byKind(synth(chart), 'Deployment');
    expect(container(dep, 'proxy', 'initContainers')).toMatchSnapshot();
    const yaml = Yaml.stringify(...synth(chart));
    expect(yaml).toMatch(/initContainers:\n(?:.*\n)*?\s+restartPolicy: Always\n/);
    expect(yaml).toContain('startupProbe:');
    expect(describeFindings(lintChart(chart, '1.29'))).toEqual([]);
  });

  test('< 1.29: refused with what to do', () => {
    expect(() => deployment('1.28', { sidecars: [SIDECAR] })).toThrow(
      'GracefulDeployment test/web: sidecar "proxy": native sidecars (init containers with restartPolicy: Always): requires Kubernetes >= 1.29 (SidecarContainers, beta (on) in 1.29), but kubernetesVersion is 1.28; run it as a regular container (addContainer) or raise kubernetesVersion',
    );
    const { d } = deployment('1.28');
    expect(() => d.addSidecar(SIDECAR)).toThrow(/requires Kubernetes >= 1.29/);
    expect(() => new GracefulStatefulSet(Testing.chart(), 'db', { kubernetesVersion: '1.27', containers: [{ image: 'x', portNumber: 1 }], sidecars: [SIDECAR] })).toThrow(/requires Kubernetes >= 1.29/);
    expect(() => new GracefulDaemonSet(Testing.chart(), 'a', { kubernetesVersion: '1.25', sidecars: [SIDECAR] })).toThrow(/requires Kubernetes >= 1.29/);
  });

  test('native-sidecar mesh proxies are refused before 1.29 too', () => {
    expect(() => deployment('1.28', { mesh: Mesh.linkerd({ nativeSidecar: true }) })).toThrow(/native sidecars .* requires Kubernetes >= 1.29.*Mesh.linkerd\(\{ nativeSidecar: false \}\)/);
    expect(() => deployment('1.28', { mesh: Mesh.istio({ nativeSidecar: true }) })).toThrow(/Mesh.istio\(\{ nativeSidecar: false \}\)/);
    const { chart } = deployment('1.28', { mesh: Mesh.linkerd() });
    expect(describeFindings(lintChart(chart, '1.28'))).toEqual([]);
  });
});

describe('fields of the 1.27 schema with a version gate', () => {
  test('unhealthyPodEvictionPolicy and matchLabelKeys: written on >= 1.27, omitted on 1.26', () => {
    const { chart: at27 } = deployment('1.27');
    const all27 = synth(at27);
    expect((byKind(all27, 'PodDisruptionBudget').spec as JsonObject).unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
    expect((podSpec(byKind(all27, 'Deployment')).topologySpreadConstraints as JsonObject[])[0].matchLabelKeys).toEqual(['pod-template-hash']);
    expect(describeFindings(lintChart(at27, '1.27'))).toEqual([]);

    const { chart: at26, d } = deployment('1.26');
    const all26 = synth(at26);
    expect(byKind(all26, 'PodDisruptionBudget').spec).not.toHaveProperty('unhealthyPodEvictionPolicy');
    expect((podSpec(byKind(all26, 'Deployment')).topologySpreadConstraints as JsonObject[])[0]).not.toHaveProperty('matchLabelKeys');
    expect(d.disruptionBudget?.unhealthyPodEvictionPolicy).toBeUndefined();
    expect(describeFindings(lintChart(at26, '1.26'))).toEqual([]);
  });

  test('an explicit unhealthyPodEvictionPolicy on < 1.27 is refused', () => {
    expect(() => deployment('1.26', { disruptionBudget: { unhealthyPodEvictionPolicy: 'AlwaysAllow' } })).toThrow(
      /PodDisruptionBudget unhealthyPodEvictionPolicy: requires Kubernetes >= 1.27 .* leave unhealthyPodEvictionPolicy unset/,
    );
  });

  test('DaemonSet maxSurge: refused before 1.22, fine with maxSurge 0', () => {
    expect(() => new GracefulDaemonSet(Testing.chart(), 'a', { kubernetesVersion: '1.21' })).toThrow(/DaemonSet rollingUpdate.maxSurge: requires Kubernetes >= 1.22.*set maxSurge: 0 and maxUnavailable: 1/);
    expect(() => new GracefulDaemonSet(Testing.chart(), 'a', { kubernetesVersion: '1.21', maxSurge: 0 })).not.toThrow();
  });

  test('StatefulSet minReadySeconds: refused before 1.23 when > 0', () => {
    const props = { containers: [{ image: 'x', portNumber: 1, readiness: READY }] };
    expect(() => new GracefulStatefulSet(Testing.chart(), 'db', { ...props, kubernetesVersion: '1.22', minReady: Duration.seconds(10) })).toThrow(/StatefulSet minReadySeconds: requires Kubernetes >= 1.23/);
    expect(() => new GracefulStatefulSet(Testing.chart(), 'db', { ...props, kubernetesVersion: '1.22' })).not.toThrow();
  });

  test('the oldest supported target (1.21) lints clean', () => {
    const chart = Testing.chart();
    new GracefulDeployment(chart, 'web', { kubernetesVersion: '1.21', replicas: 3, containers: [{ name: 'app', image: 'x', portNumber: 8080, readiness: READY }], service: { loadBalancer: LoadBalancer.gkeNeg() } });
    new GracefulDaemonSet(chart, 'agent', { kubernetesVersion: '1.21', maxSurge: 0, containers: [{ name: 'agent', image: 'x' }] });
    expect(describeFindings(lintChart(chart, '1.21'))).toEqual([]);
  });
});

describe('every field the overlay writes, by construct (snapshots)', () => {
  test('Deployment pod template fields', () => {
    const { chart } = deployment('1.37', { sidecars: [SIDECAR], mesh: Mesh.istio(), service: { loadBalancer: LoadBalancer.gkeNeg() } });
    const ps = podSpec(byKind(synth(chart), 'Deployment'));
    expect({
      terminationGracePeriodSeconds: ps.terminationGracePeriodSeconds,
      readinessGates: ps.readinessGates,
      topologySpreadConstraints: ps.topologySpreadConstraints,
      initContainers: ps.initContainers,
      lifecycle: container(byKind(synth(chart), 'Deployment'), 'app').lifecycle,
    }).toMatchSnapshot();
  });

  test('StatefulSet: peer Service publishNotReadyAddresses, volumeClaimTemplates', () => {
    const chart = Testing.chart();
    new GracefulStatefulSet(chart, 'db', {
      containers: [{ name: 'db', image: 'x', portNumber: 5432, readiness: READY }],
      volumeClaimTemplates: [{ name: 'data', storage: Size.gibibytes(10), mountPath: '/data' }],
    });
    const all = synth(chart);
    const peers = all.find((m) => m.kind === 'Service' && (m.spec as JsonObject).clusterIP === 'None')!;
    expect({ publishNotReadyAddresses: (peers.spec as JsonObject).publishNotReadyAddresses, volumeClaimTemplates: (byKind(all, 'StatefulSet').spec as JsonObject).volumeClaimTemplates }).toMatchSnapshot();
  });

  test('DaemonSet: updateStrategy and the node-local Service', () => {
    const chart = Testing.chart();
    new GracefulDaemonSet(chart, 'agent', { containers: [{ name: 'agent', image: 'x', portNumber: 4317, readiness: READY }], service: {} });
    const all = synth(chart);
    expect({ updateStrategy: (byKind(all, 'DaemonSet').spec as JsonObject).updateStrategy, internalTrafficPolicy: (byKind(all, 'Service').spec as JsonObject).internalTrafficPolicy }).toMatchSnapshot();
  });
});
