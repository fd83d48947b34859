import { daemonsetSurge } from '../../lib/rules/daemonset-surge';
import { fixTester, fixWith } from '../helpers/fix-tester';
import { runRule } from '../helpers/rule-tester';

function ds(o: { name?: string; containers: string; strategy?: string; podSpec?: string }): string {
  const name = o.name ?? 'ztunnel';
  return `# node proxy of the ambient mesh
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ${name}
  namespace: istio-system
spec:
  selector:
    matchLabels: {app: ${name}}
${o.strategy ?? ''}  template:
    metadata:
      labels: {app: ${name}}
    spec:
${o.podSpec ?? ''}      containers:
${o.containers}`;
}
const ZTUNNEL = '      - name: istio-proxy # ztunnel binary\n        image: docker.io/istio/ztunnel:1.24.0\n';
const strategy = (lines: string) => `  updateStrategy:\n    type: RollingUpdate # explicit\n    rollingUpdate:\n${lines}`;

fixTester(daemonsetSurge, [
  {
    name: 'ztunnel with the default strategy (maxSurge 0): surge first added',
    yaml: ds({ containers: ZTUNNEL }),
    proposals: true,
    contains: ['maxSurge: 1', 'maxUnavailable: 0'],
  },
  {
    name: 'ztunnel with an explicit maxSurge 0 / maxUnavailable 1: edited in place',
    yaml: ds({ containers: ZTUNNEL, strategy: strategy('      maxSurge: 0 # old chart\n      maxUnavailable: 1 # one node at a time\n') }),
    proposals: true,
    contains: ['      maxSurge: 1 # old chart', '      maxUnavailable: 0 # one node at a time'],
  },
  {
    name: 'a DaemonSet behind an internalTrafficPolicy: Local Service',
    yaml:
      ds({ name: 'otel-agent', containers: '      - {name: agent, image: otel/opentelemetry-collector:0.100.0, ports: [{name: otlp, containerPort: 4317}]}\n' }) +
      `---
apiVersion: v1
kind: Service
metadata: {name: otlp, namespace: istio-system}
spec:
  internalTrafficPolicy: Local # stay on the node
  selector: {app: otel-agent}
  ports: [{name: otlp, port: 4317}]
`,
    proposals: true,
    contains: ['maxSurge: 1', 'maxUnavailable: 0'],
  },
  {
    name: 'error: maxSurge 1 with maxUnavailable absent (defaults to 1): maxUnavailable 0',
    yaml: ds({ containers: ZTUNNEL, strategy: strategy('      maxSurge: 1 # hand over\n') }),
    proposals: true,
    contains: ['      maxSurge: 1 # hand over\n      maxUnavailable: 0'],
  },
  {
    name: 'error on a hostPort DaemonSet: surge cannot schedule, so maxSurge 0',
    yaml: ds({
      name: 'ingress-nginx-controller',
      containers: '      - {name: controller, image: registry.k8s.io/ingress-nginx/controller:v1.11.0, ports: [{containerPort: 80, hostPort: 80}]}\n',
      strategy: strategy('      maxSurge: 1 # tried surge\n      maxUnavailable: 1\n'),
    }),
    proposals: true,
    contains: ['      maxSurge: 0 # tried surge\n      maxUnavailable: 1'],
  },
  {
    name: 'error below 1.22: maxSurge with maxUnavailable 0 is rejected: back to maxUnavailable 1',
    yaml: ds({ containers: ZTUNNEL, strategy: strategy('      maxUnavailable: 0 # no downtime\n') .replace('    rollingUpdate:\n', '    rollingUpdate:\n      maxSurge: 1\n') }),
    kubeVersion: '1.21',
    proposals: true,
    contains: ['      maxUnavailable: 1 # no downtime'],
  },
]);

describe('daemonset-surge fix details', () => {
  test('a strategy change is a proposal: a plain --fix changes nothing', () => {
    const yaml = ds({ containers: ZTUNNEL });
    const r = fixWith(daemonsetSurge, yaml);
    expect(r.files[0].text).toBe(yaml);
    expect(r.skipped.map((s) => s.finding.fix?.description)).toEqual(['set updateStrategy.rollingUpdate to maxSurge 1, maxUnavailable 0']);
  });

  test('host network without declared ports: reported, but no fix (surge needs SO_REUSEPORT, not visible here)', () => {
    const got = runRule(daemonsetSurge, ds({ containers: ZTUNNEL, podSpec: '      hostNetwork: true\n' }));
    expect(got.map((f) => [f.severity, f.fix])).toEqual([['warning', undefined]]);
  });

  test('surge ignored below 1.22 (warning): no fix, it takes effect after the upgrade', () => {
    const got = runRule(daemonsetSurge, ds({ containers: ZTUNNEL, strategy: strategy('      maxSurge: 1\n') }), '1.21');
    expect(got.map((f) => [f.severity, f.fix])).toEqual([['warning', undefined]]);
  });
});
