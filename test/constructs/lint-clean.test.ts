/**
 * The constructs' output is clean by construction: zero findings (errors, warnings, and info raised
 * to warnings) under policies/strict.yaml with every rule of the catalog (ALL_RULES), for the
 * example apps and for a matrix of configurations and target versions.
 */
import { Chart, Size, Testing, Yaml } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { APPS } from '../../charts-src/apps';
import {
  AwsPodReadinessGateNamespace,
  GracefulDaemonSet,
  GracefulDeployment,
  GracefulDeploymentProps,
  GracefulStatefulSet,
  LoadBalancer,
  Mesh,
  RolloutProfile,
} from '../../lib/constructs';
import { ALL_RULES } from '../../lib/rules';
import { describeFindings, lintChart, lintYaml } from './helpers';

const READY = kplus.Probe.fromHttpGet('/readyz', { port: 8080 });
const LIVE = kplus.Probe.fromHttpGet('/livez', { port: 8080, failureThreshold: 6 });
const APP = { name: 'app', image: 'example/web:1', ports: [{ name: 'http', number: 8080 }], readiness: READY, liveness: LIVE };
const SIDECAR = { name: 'proxy', image: 'example/proxy:1', ports: [{ name: 'admin', number: 9901 }], startupProbe: { httpGet: { path: '/ready', port: 'admin' } } };

test('the catalog is loaded (the strict lint below runs every rule)', () => {
  expect(ALL_RULES.length).toBeGreaterThanOrEqual(19);
});

describe('example apps (charts-src)', () => {
  test('at least five apps, each one chart', () => {
    expect(Object.keys(APPS).length).toBeGreaterThanOrEqual(5);
    expect(Object.keys(APPS)).toEqual(expect.arrayContaining(['http-api', 'tunnel-proxy', 'datastore', 'mesh-api', 'node-agent']));
  });

  for (const [name, build] of Object.entries(APPS)) {
    test(`${name} lints clean under strict`, () => {
      const chart = build(Testing.app(), name);
      expect(chart.node.id).toBe(name);
      const text = Yaml.stringify(...Testing.synth(chart));
      expect(describeFindings(lintYaml(text))).toEqual([]);
    });
  }
});

type Case = [string, Partial<GracefulDeploymentProps>];
const DEPLOYMENT_CASES: Case[] = [
  ['defaults', {}],
  ['one replica', { replicas: 1 }],
  ['five replicas', { replicas: 5 }],
  ['fan-in', { replicas: 3, rollout: RolloutProfile.fanIn() }],
  ['fan-in, exponential backoff, P 0.5', { replicas: 4, rollout: RolloutProfile.fanIn({ reconnectProbability: 0.5, backoff: 'exponential:1-30' }) }],
  ['long-lived', { rollout: RolloutProfile.longLived({ minReadySeconds: 20 }) }],
  ['exclusive volume', { replicas: 1, rollout: RolloutProfile.exclusiveVolume() }],
  ['long drain', { drainSeconds: 60, preStopSeconds: 15 }],
  ['ALB', { service: { loadBalancer: LoadBalancer.awsAlbIp({ targetGroupBinding: 'web-tg' }) } }],
  ['NLB', { replicas: 3, service: { loadBalancer: LoadBalancer.awsNlbIp({ targetGroupBinding: 'web-tg' }) } }],
  ['GKE NEG', { service: { loadBalancer: LoadBalancer.gkeNeg() } }],
  ['Linkerd classic', { mesh: Mesh.linkerd() }],
  ['Linkerd classic, fan-in', { replicas: 3, mesh: Mesh.linkerd(), rollout: RolloutProfile.fanIn() }],
  ['Istio classic', { mesh: Mesh.istio() }],
  ['Istio classic, exit on zero connections', { mesh: Mesh.istio({ exitOnZeroActiveConnections: true }) }],
];
const NATIVE_CASES: Case[] = [
  ['native sidecar', { sidecars: [SIDECAR] }],
  ['two native sidecars', { sidecars: [SIDECAR, { name: 'shipper', image: 'example/shipper:1', drainSeconds: 10 }] }],
  ['Linkerd native', { mesh: Mesh.linkerd({ nativeSidecar: true }) }],
  ['Linkerd native, long-lived', { mesh: Mesh.linkerd({ nativeSidecar: true }), rollout: RolloutProfile.longLived() }],
  ['Istio native', { mesh: Mesh.istio({ nativeSidecar: true }) }],
  ['sidecar and Linkerd', { mesh: Mesh.linkerd(), sidecars: [SIDECAR] }],
];

function deploymentChart(version: string, props: Partial<GracefulDeploymentProps>): Chart {
  const chart = new Chart(Testing.app(), 'c', { namespace: 'shop' });
  new AwsPodReadinessGateNamespace(chart, 'ns', { metadata: { name: 'shop' } });
  new GracefulDeployment(chart, 'web', { kubernetesVersion: version, containers: [APP], service: {}, ...props });
  return chart;
}

describe.each(['1.26', '1.29', '1.30', '1.37'])('GracefulDeployment on %s', (version) => {
  const cases = version >= '1.29' ? [...DEPLOYMENT_CASES, ...NATIVE_CASES] : DEPLOYMENT_CASES;
  test.each(cases)('%s', (_name, props) => {
    expect(describeFindings(lintChart(deploymentChart(version, props), version))).toEqual([]);
  });
});

describe.each(['1.25', '1.29', '1.37'])('GracefulStatefulSet on %s', (version) => {
  test.each([
    ['defaults', {}],
    ['three members with claims', { replicas: 3, volumeClaimTemplates: [{ name: 'data', storage: Size.gibibytes(5), mountPath: '/data' }] }],
    ['fan-in', { replicas: 3, rollout: RolloutProfile.fanIn() }],
    ['behind a NEG', { replicas: 2, clientService: { loadBalancer: LoadBalancer.gkeNeg() } }],
    ['Istio', { replicas: 3, mesh: Mesh.istio() }],
  ] as [string, object][])('%s', (_name, props) => {
    const chart = Testing.chart();
    new GracefulStatefulSet(chart, 'db', { kubernetesVersion: version, containers: [APP], ...props });
    expect(describeFindings(lintChart(chart, version))).toEqual([]);
  });
});

describe.each(['1.22', '1.29', '1.37'])('GracefulDaemonSet on %s', (version) => {
  test.each([
    ['defaults', {}],
    ['node-local Service', { service: {} }],
    ['no surge', { maxSurge: 0 }],
    ['Linkerd', { mesh: Mesh.linkerd(), service: {} }],
  ] as [string, object][])('%s', (_name, props) => {
    const chart = Testing.chart();
    new GracefulDaemonSet(chart, 'agent', { kubernetesVersion: version, containers: [APP], ...props });
    expect(describeFindings(lintChart(chart, version))).toEqual([]);
  });
});
