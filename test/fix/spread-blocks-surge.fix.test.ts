import { spreadBlocksSurge } from '../../lib/rules/spread-blocks-surge';
import { fixTester, fixWith } from '../helpers/fix-tester';

function deploy(podSpec: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
${podSpec}      containers: [{name: app, image: web}]
`;
}
const blockTsc = `      # one per node
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: DoNotSchedule # hard
          labelSelector:
            matchLabels: {app: web}
`;
const requiredAnti = `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: web}} # own pods
            topologyKey: kubernetes.io/hostname
`;

/** Contour's envoy Deployment (examples/render/contour-deployment.yaml): host ports 80/443 rolling surge first. */
const envoy = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: envoy}
spec:
  replicas: ${replicas}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 10% # one pod
  selector: {matchLabels: {app: envoy}}
  template:
    metadata:
      labels: {app: envoy}
    spec:
      containers:
      - name: envoy
        image: envoy
        ports:
        - {name: http, containerPort: 8080, hostPort: 80}
`;

fixTester(spreadBlocksSurge, [
  {
    name: '>= 1.27: matchLabelKeys [pod-template-hash] appended to the constraint (safe)',
    yaml: deploy(blockTsc),
    contains: ['          whenUnsatisfiable: DoNotSchedule # hard\n', '          matchLabelKeys:\n            - pod-template-hash\n'],
  },
  {
    name: 'an existing flow matchLabelKeys list gains the key',
    yaml: deploy('      topologySpreadConstraints:\n      - {maxSkew: 1, topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [version]}\n'),
    contains: ['matchLabelKeys: [version, pod-template-hash]'],
  },
  {
    name: '< 1.27: ScheduleAnyway instead (proposal), minDomains dropped',
    yaml: deploy(blockTsc.replace('          labelSelector:', '          minDomains: 2\n          labelSelector:')),
    kubeVersion: '1.26',
    proposals: true,
    contains: ['whenUnsatisfiable: ScheduleAnyway # hard'],
  },
  {
    name: 'required hostname anti-affinity >= 1.31: matchLabelKeys on the term (safe)',
    yaml: deploy(requiredAnti),
    kubeVersion: '1.31',
    contains: ['- labelSelector: {matchLabels: {app: web}} # own pods', 'matchLabelKeys:'],
  },
  {
    name: 'required hostname anti-affinity < 1.31: moved to preferred (proposal)',
    yaml: deploy(requiredAnti),
    kubeVersion: '1.30',
    proposals: true,
    contains: ['preferredDuringSchedulingIgnoredDuringExecution:', 'weight: 100'],
  },
  {
    name: "haproxytech's kubernetes.io/zone: the well-known topology.kubernetes.io/zone (proposal)",
    yaml: deploy(`      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/zone # from the chart's values example
          whenUnsatisfiable: DoNotSchedule
          labelSelector: {matchLabels: {app: web}}
          matchLabelKeys: [pod-template-hash]
`),
    proposals: true,
    contains: ['          topologyKey: topology.kubernetes.io/zone # from the chart\'s values example\n'],
  },
  {
    name: 'host ports with 2 replicas: maxSurge 0, maxUnavailable 1 (proposal)',
    yaml: envoy(2),
    proposals: true,
    contains: ['      maxSurge: 0 # one pod\n      maxUnavailable: 1\n'],
  },
]);

describe('spread-blocks-surge fix: safety', () => {
  test('the host-port strategy change is only a proposal; with one replica there is none', () => {
    expect(fixWith(spreadBlocksSurge, envoy(2)).files[0].applied).toEqual([]);
    const one = fixWith(spreadBlocksSurge, envoy(1), { proposals: true });
    expect(one.files[0].applied).toEqual([]);
    expect(one.files[0].text).toBe(envoy(1));
  });
  test('retyping a reserved key is only a proposal; a key with no well-known twin gets none', () => {
    const zone = deploy('      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/zone, labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [pod-template-hash]}]\n');
    expect(fixWith(spreadBlocksSurge, zone).files[0].applied).toEqual([]);
    const rack = zone.replace('kubernetes.io/zone', 'topology.kubernetes.io/rack');
    const r = fixWith(spreadBlocksSurge, rack, { proposals: true });
    expect(r.files[0].applied).toEqual([]);
    expect(r.files[0].text).toBe(rack);
  });
  test('ScheduleAnyway (< 1.27) is only a proposal', () => {
    const r = fixWith(spreadBlocksSurge, deploy(blockTsc), { kubeVersion: '1.26' });
    expect(r.files[0].applied).toEqual([]);
  });
  test('moving the term keeps the required list only if other terms remain', () => {
    const two = requiredAnti + '          - labelSelector: {matchLabels: {app: cache}}\n            topologyKey: kubernetes.io/hostname\n';
    const r = fixWith(spreadBlocksSurge, deploy(two), { kubeVersion: '1.30', proposals: true });
    expect(r.files[0].text).toContain('requiredDuringSchedulingIgnoredDuringExecution:\n          - labelSelector: {matchLabels: {app: cache}}');
    expect(r.files[0].text).not.toContain('{app: web}} # own pods\n            topologyKey: kubernetes.io/hostname\n          - labelSelector: {matchLabels: {app: cache}}');
  });
});
