import { parseAllDocuments } from 'yaml';
import { pdbMissing } from '../../lib/rules/pdb-missing';
import { loadPolicy } from '../../lib/engine/policy';
import { KubeVersion } from '../../lib/engine/version';
import { fixSources } from '../../lib/fix';
import { ALL_RULES } from '../../lib/rules';
import { fixTester, fixWith } from '../helpers/fix-tester';

function wl(kind: string, o: { ns?: string; selector?: string; extra?: string } = {}): string {
  return `# ${kind} web
apiVersion: apps/v1
kind: ${kind}
metadata:
  name: web
${o.ns ? `  namespace: ${o.ns}\n` : ''}spec:
  replicas: 3 # HA
  selector: ${o.selector ?? '{matchLabels: {app: web}}'}
  template:
    metadata:
      labels: {app: web, tier: front}
    spec:
      containers: [{name: app, image: web:1}]
${o.extra ?? ''}`;
}
const CM = `---
# unrelated config
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data: {a: "1"}
`;

fixTester(pdbMissing, [
  {
    name: 'Deployment: a PDB document right after the workload, before the next document',
    yaml: wl('Deployment', { ns: 'shop' }) + CM,
    proposals: true,
    contains: [
      '      containers: [{name: app, image: web:1}]\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  maxUnavailable: 1\n  unhealthyPodEvictionPolicy: AlwaysAllow\n  selector:\n    matchLabels:\n      app: web\n---\n# unrelated config\n',
    ],
  },
  {
    // IfHealthyBudget stated: pdb-unhealthy-eviction-policy takes it as the choice made, where it reported
    // the budget it had just proposed (review round 14: woodpecker-agent, topolvm, juicefs).
    name: 'StatefulSet (data store): IfHealthyBudget stated, no AlwaysAllow; matchExpressions selector copied',
    yaml: wl('StatefulSet', { selector: '{matchExpressions: [{key: app, operator: In, values: [web]}]}' }).replace('  replicas: 3 # HA\n', '  replicas: 3 # HA\n  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]\n'),
    proposals: true,
    contains: ['  maxUnavailable: 1\n  unhealthyPodEvictionPolicy: IfHealthyBudget\n  selector:\n', 'matchExpressions:', 'operator: In'],
  },
  {
    // Review round 22 (Quickwit's searchers): a StatefulSet with no volume keeps no data: AlwaysAllow.
    name: 'a StatefulSet that keeps no data (no claim, no hostPath): AlwaysAllow',
    yaml: wl('StatefulSet'),
    proposals: true,
    contains: ['  maxUnavailable: 1\n  unhealthyPodEvictionPolicy: AlwaysAllow\n  selector:\n'],
  },
  {
    name: 'before 1.27: no unhealthyPodEvictionPolicy',
    yaml: wl('Deployment'),
    kubeVersion: '1.26',
    proposals: true,
    contains: ['maxUnavailable: 1\n  selector:'],
  },
  {
    name: 'file without a trailing newline',
    yaml: wl('Deployment').replace(/\n$/, ''),
    proposals: true,
    contains: ['kind: PodDisruptionBudget'],
  },
]);

describe('pdb-missing fix', () => {
  test('is a proposal: plain --fix leaves the file alone and says why', () => {
    const r = fixWith(pdbMissing, wl('Deployment'));
    expect(r.files[0].text).toBe(wl('Deployment'));
    expect(r.skipped.map((s) => s.reason)).toEqual([expect.stringContaining('--fix-proposals')]);
  });
  test('the new PDB never blocks eviction and selects exactly the workload', () => {
    const r = fixWith(pdbMissing, wl('Deployment'), { proposals: true });
    const docs = parseAllDocuments(r.files[0].text) as unknown as { toJS(): Record<string, unknown> }[];
    expect(docs[1].toJS()).toEqual({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web' },
      spec: { maxUnavailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow', selector: { matchLabels: { app: 'web' } } },
    });
    expect(r.files[0].text.endsWith('\n')).toBe(true);
  });
  test('a PDB name already taken in the namespace gets a suffix', () => {
    const other = `---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec: {maxUnavailable: 1, selector: {matchLabels: {app: other}}}\n`;
    const r = fixWith(pdbMissing, wl('Deployment') + other, { proposals: true });
    expect(r.files[0].text).toContain('name: web-pdb\n');
  });
  test('keeps "no trailing newline" when the PDB lands at the end of the file', () => {
    const r = fixWith(pdbMissing, wl('Deployment').replace(/\n$/, ''), { proposals: true });
    expect(r.files[0].text.endsWith('app: web')).toBe(true);
  });
});

describe('pdb-missing fix: prometheus-operator resources', () => {
  const cr = (kind: string, spec: string) => `apiVersion: monitoring.coreos.com/v1
kind: ${kind}
metadata: {name: main, namespace: monitoring}
spec: ${spec}
`;
  const docsOf = (text: string) => (parseAllDocuments(text) as unknown as { toJS(): Record<string, unknown> }[]).map((d) => d.toJS());
  test('an Alertmanager gets a budget named after its StatefulSet, selecting the operator\'s pod labels, IfHealthyBudget stated (a StatefulSet)', () => {
    const r = fixWith(pdbMissing, cr('Alertmanager', '{replicas: 3}'), { proposals: true });
    expect(docsOf(r.files[0].text)[1]).toEqual({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'alertmanager-main', namespace: 'monitoring' },
      spec: { maxUnavailable: 1, unhealthyPodEvictionPolicy: 'IfHealthyBudget', selector: { matchLabels: { 'app.kubernetes.io/name': 'alertmanager', alertmanager: 'main' } } },
    });
  });
  test('a sharded Prometheus with shard 0 protected: one budget per other shard, with its shard label as a string', () => {
    const pdb0 = `---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p0, namespace: monitoring}\nspec: {maxUnavailable: 1, selector: {matchLabels: {prometheus: main, operator.prometheus.io/shard: "0"}}}\n`;
    const r = fixWith(pdbMissing, cr('Prometheus', '{replicas: 2, shards: 3}') + pdb0, { proposals: true });
    const docs = docsOf(r.files[0].text);
    expect(docs.slice(1, 3).map((d) => [(d.metadata as { name: string }).name, (d.spec as { selector: { matchLabels: Record<string, unknown> } }).selector.matchLabels])).toEqual([
      ['prometheus-main-shard-1', { 'app.kubernetes.io/name': 'prometheus', 'operator.prometheus.io/name': 'main', 'operator.prometheus.io/shard': '1' }],
      ['prometheus-main-shard-2', { 'app.kubernetes.io/name': 'prometheus', 'operator.prometheus.io/name': 'main', 'operator.prometheus.io/shard': '2' }],
    ]);
    // Applied, the input then has a budget on every shard.
    expect(fixWith(pdbMissing, r.files[0].text, { proposals: true }).files[0].applied).toEqual([]);
  });
});

describe('pdb-missing fix with every rule of the recommended policy', () => {
  // Review round 14 (woodpecker-agent, topolvm-controller, juicefs-csi-controller): the budget proposed
  // for a StatefulSet was reported by pdb-unhealthy-eviction-policy in the lint after the repair.
  test.each(['StatefulSet', 'Deployment'])('the budget proposed for a %s draws no finding from another rule', (kind) => {
    const r = fixSources([{ file: 'test.yaml', text: wl(kind) }], { rules: ALL_RULES, policy: loadPolicy('recommended', ALL_RULES), version: KubeVersion.parse('1.31'), proposals: true });
    expect(r.files[0].applied.map((a) => a.ruleId)).toContain('pdb-missing');
    expect(r.lint.findings.filter((f) => f.object.kind === 'PodDisruptionBudget').map((f) => `${f.ruleId}: ${f.message}`)).toEqual([]);
  });
});
