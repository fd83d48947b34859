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
]);

describe('spread-blocks-surge fix: safety', () => {
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
