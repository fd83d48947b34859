import { pdbUnhealthyEvictionPolicy } from '../../lib/rules/pdb-unhealthy-eviction-policy';
import { loadPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { ALL_RULES } from '../../lib/rules';
import { ruleTester, runRule } from '../helpers/rule-tester';

/** A workload; a StatefulSet keeps data (a volumeClaimTemplate) unless `stateless`. */
function wl(kind: string, stateless = false): string {
  return `apiVersion: apps/v1
kind: ${kind}
metadata: {name: web}
spec:
  replicas: 3
${kind === 'StatefulSet' && !stateless ? '  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]\n' : ''}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers: [{name: app, image: web:1}]
`;
}

function pdb(policy?: string, annotations = ''): string {
  return `---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
${annotations ? `  annotations: {${annotations}}\n` : ''}spec:
  maxUnavailable: 1
${policy ? `  unhealthyPodEvictionPolicy: ${policy}\n` : ''}  selector: {matchLabels: {app: web}}
`;
}

const alertmanager = `apiVersion: monitoring.coreos.com/v1
kind: Alertmanager
metadata: {name: main}
spec: {replicas: 3, podMetadata: {labels: {app: web}}}
`;

ruleTester(pdbUnhealthyEvictionPolicy, {
  valid: [
    { name: '1.26: the field is alpha (off), nothing to advise', yaml: wl('Deployment') + pdb(), kubeVersion: '1.26' },
    { name: '1.26.15 patch release is still below the gate', yaml: wl('Deployment') + pdb('IfHealthyBudget'), kubeVersion: '1.26.15' },
    { name: 'AlwaysAllow on 1.27', yaml: wl('Deployment') + pdb('AlwaysAllow'), kubeVersion: '1.27' },
    { name: 'explicit IfHealthyBudget over the StatefulSet prometheus-operator makes from an Alertmanager', yaml: alertmanager + pdb('IfHealthyBudget'), kubeVersion: '1.31' },
    // (The GracefulStatefulSet construct writes it whatever its volumes: an explicit choice either way.)
    { name: 'explicit IfHealthyBudget on a StatefulSet that keeps no data: the choice made', yaml: wl('StatefulSet', true) + pdb('IfHealthyBudget') },
    { name: 'explicit IfHealthyBudget on a StatefulSet (data store, on purpose)', yaml: wl('StatefulSet') + pdb('IfHealthyBudget'), kubeVersion: '1.31' },
    // Review round 35, report p53 item 3 (bitnami postgresql-ha's witness budget without the witness):
    // pdb-selector warns it protects nothing; no pod to evict, no policy to advise.
    {
      name: 'a budget that selects no workload of the set, which holds workloads: nothing to advise',
      yaml: wl('StatefulSet') + pdb('IfHealthyBudget') + pdb().replace('name: web', 'name: web-witness').replace('{app: web}', '{app: web, role: witness}'),
      kubeVersion: '1.31',
    },
    // Review round 34, report p51 item 8 (z2jh's proxy.chp.pdb): the API server rejects it, pdb-missing says so.
    { name: 'a budget with both minAvailable and maxUnavailable never exists: nothing to advise', yaml: wl('Deployment') + pdb().replace('  maxUnavailable: 1\n', '  maxUnavailable: 1\n  minAvailable: 1\n'), kubeVersion: '1.31' },
  ],
  invalid: [
    {
      name: 'absent over an Alertmanager\'s pods: the StatefulSet prometheus-operator makes is named as a possible data store',
      yaml: alertmanager + pdb(),
      findings: [{ severity: 'info', message: 'If StatefulSet/alertmanager-main (of Alertmanager/main) is a data store where evicting a recovering member is risky' }],
    },
    {
      name: 'absent on 1.27: info at /spec',
      yaml: wl('Deployment') + pdb(),
      kubeVersion: '1.27',
      findings: [{ severity: 'info', pointer: '/spec', object: 'PodDisruptionBudget/web', message: 'unhealthyPodEvictionPolicy is not set (behaves as IfHealthyBudget)' }],
    },
    {
      name: 'absent on a StatefulSet\'s PDB: info, pointing to the explicit opt-out',
      yaml: wl('StatefulSet') + pdb(),
      findings: [{ severity: 'info', message: 'If StatefulSet/web is a data store where evicting a recovering member is risky, set unhealthyPodEvictionPolicy: IfHealthyBudget explicitly' }],
    },
    {
      // Review round 22 (Quickwit's searchers: emptyDir caches only): not a data store.
      name: 'absent on a StatefulSet that keeps no data: info, without the data-store opt-out',
      yaml: wl('StatefulSet', true) + pdb(),
      findings: [{ severity: 'info', message: /set unhealthyPodEvictionPolicy: AlwaysAllow \(available since 1\.27\)\.$/ }],
    },
    {
      name: 'explicit IfHealthyBudget on a Deployment: info at the field',
      yaml: wl('Deployment') + pdb('IfHealthyBudget'),
      kubeVersion: '1.27',
      findings: [{ severity: 'info', pointer: '/spec/unhealthyPodEvictionPolicy', message: 'unhealthyPodEvictionPolicy IfHealthyBudget on pods that are not a StatefulSet\'s' }],
    },
    { name: 'absent on a PDB matching nothing in the set', yaml: pdb(), kubeVersion: '1.31', findings: [{ severity: 'info', message: /AlwaysAllow \(available since 1\.27\)\.$/ }] },
    {
      name: 'maxUnavailable 1 over one replica: it requires no healthy pod, yet blocks a crash-looping one (eviction.go: DesiredHealthy > 0)',
      yaml: wl('Deployment').replace('replicas: 3', 'replicas: 1') + pdb(),
      kubeVersion: '1.31',
      findings: [{ severity: 'info', message: /\(This budget requires no healthy pod of 1, yet it still blocks the eviction of a not-Ready one: .*so it lets a drain evict the healthy pod but not a crash-looping one\.\)$/ }],
    },
    {
      name: 'explicit IfHealthyBudget with maxUnavailable covering all replicas: the same note',
      yaml: wl('Deployment').replace('replicas: 3', 'replicas: 1') + pdb('IfHealthyBudget'),
      kubeVersion: '1.31',
      findings: [{ severity: 'info', pointer: '/spec/unhealthyPodEvictionPolicy', message: 'This budget requires no healthy pod of 1' }],
    },
    {
      name: 'suppressed with kubegrace.dev/ignore',
      yaml: wl('Deployment') + pdb(undefined, '"kubegrace.dev/ignore": "pdb-unhealthy-eviction-policy"'),
      findings: [{ severity: 'info', suppressed: true }],
    },
  ],
});

// Review round 34, report p51 item 1: pause placeholders never sit Running-but-not-Ready.
test('pdb-unhealthy-eviction-policy: no finding on a budget over pause placeholders; one working container keeps it', () => {
  const sts = (containers: string) => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: user-placeholder}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 0
      containers: [${containers}]
`;
  const pause = '{name: pause, image: "registry.k8s.io/pause:3.10"}';
  expect(runRule(pdbUnhealthyEvictionPolicy, sts(pause) + pdb(), '1.31')).toEqual([]);
  expect(runRule(pdbUnhealthyEvictionPolicy, sts(`${pause}, {name: app, image: web:1}`) + pdb(), '1.31')).toHaveLength(1);
  // A pause container in a pod that asks for an injected proxy (Kuma's zone ingress: the injected kuma-dp does the work).
  expect(runRule(pdbUnhealthyEvictionPolicy, sts(pause).replace('labels: {app: web}}', 'labels: {app: web, kuma.io/sidecar-injection: enabled}}') + pdb(), '1.31')).toHaveLength(1);
  expect(runRule(pdbUnhealthyEvictionPolicy, sts(pause).replace('labels: {app: web}}', 'labels: {app: web, sidecar.istio.io/inject: "false"}}') + pdb(), '1.31')).toEqual([]);
  // An idle container with a readiness probe can be not Ready.
  expect(runRule(pdbUnhealthyEvictionPolicy, sts('{name: s, image: busybox, command: [sleep, infinity], readinessProbe: {exec: {command: [cat, /tmp/ready]}}}') + pdb(), '1.31')).toHaveLength(1);
});

describe('a budget whose workload may be in what the input lacks', () => {
  // The budget selects no workload of the file, but a document of the file could not be read: the
  // workload may be there (pdb-selector's warning is withheld as info the same way), so the advice stays.
  const OPTS = { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.31') };
  const other = wl('Deployment').replace(/web/g, 'api');
  const ids = (text: string) => lintSources([{ file: 'f.yaml', text }], OPTS).findings.filter((f) => f.ruleId === 'pdb-unhealthy-eviction-policy').map((f) => `${f.object.kind}/${f.object.name}`);
  test('beside an unreadable document: reported', () => {
    expect(ids(`${other}${pdb()}---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web\n`)).toEqual(['PodDisruptionBudget/web']);
  });
  test('every document read: not reported (pdb-selector warns that it protects nothing)', () => {
    expect(ids(`${other}${pdb()}`)).toEqual([]);
  });
});
