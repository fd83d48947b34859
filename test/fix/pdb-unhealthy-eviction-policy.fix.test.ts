import { pdbUnhealthyEvictionPolicy } from '../../lib/rules/pdb-unhealthy-eviction-policy';
import { fixTester, fixWith } from '../helpers/fix-tester';

const pdb = (spec: string, target = 'Deployment') => `apiVersion: apps/v1
kind: ${target}
metadata: {name: web}
spec:
  replicas: 3
${target === 'StatefulSet' ? '  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]\n' : ''}  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: web}]}
---
# keep one replica up
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
${spec}`;

fixTester(pdbUnhealthyEvictionPolicy, [
  {
    name: 'absent on >= 1.27: AlwaysAllow added (safe)',
    yaml: pdb('  maxUnavailable: 1 # one at a time\n  selector:\n    matchLabels: {app: web}\n'),
    kubeVersion: '1.27',
    contains: ['  maxUnavailable: 1 # one at a time\n', '  unhealthyPodEvictionPolicy: AlwaysAllow\n'],
  },
  {
    name: 'explicit IfHealthyBudget (not a data store): changed as a proposal',
    yaml: pdb('  maxUnavailable: 1\n  unhealthyPodEvictionPolicy: IfHealthyBudget # default\n  selector: {matchLabels: {app: web}}\n'),
    proposals: true,
    contains: ['unhealthyPodEvictionPolicy: AlwaysAllow # default'],
  },
  {
    name: 'flow-style spec keeps its flow style',
    yaml: pdb('  {maxUnavailable: 1, selector: {matchLabels: {app: web}}}\n'),
    contains: ['{maxUnavailable: 1, selector: {matchLabels: {app: web}}, unhealthyPodEvictionPolicy: AlwaysAllow}'],
  },
]);

describe('pdb-unhealthy-eviction-policy fix: data stores', () => {
  test('a PDB over a StatefulSet gets no AlwaysAllow repair', () => {
    const r = fixWith(pdbUnhealthyEvictionPolicy, pdb('  maxUnavailable: 1\n  selector: {matchLabels: {app: web}}\n', 'StatefulSet'), { proposals: true });
    expect(r.files[0].applied).toEqual([]);
    expect(r.files[0].text).not.toContain('AlwaysAllow');
  });
});

describe('pdb-unhealthy-eviction-policy fix: StatefulSets prometheus-operator makes', () => {
  test('a PDB over an Alertmanager\'s pods (kube-prometheus alertmanager-main) gets no AlwaysAllow repair, and says why', () => {
    const yaml = `apiVersion: monitoring.coreos.com/v1
kind: Alertmanager
metadata: {name: main, namespace: monitoring}
spec: {replicas: 3}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: alertmanager-main, namespace: monitoring}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app.kubernetes.io/name: alertmanager, alertmanager: main}}
`;
    const r = fixWith(pdbUnhealthyEvictionPolicy, yaml, { proposals: true });
    expect(r.files[0].applied).toEqual([]);
    expect(r.files[0].text).not.toContain('AlwaysAllow');
  });
});
