import { parseDocument } from 'yaml';
import { replicasNotSpread } from '../../lib/rules/replicas-not-spread';
import { fixTester, fixWith } from '../helpers/fix-tester';

function wl(kind: string, podExtra = '', labels = '{app: web, version: v1}'): string {
  return `apiVersion: apps/v1
kind: ${kind}
metadata: {name: web}
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels: ${labels}
    spec:
${podExtra}      containers:
      - name: app # the app
        image: web:1
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
}

fixTester(replicasNotSpread, [
  {
    name: 'Deployment >= 1.27: hostname spread with matchLabelKeys, over the selector labels',
    yaml: wl('Deployment'),
    proposals: true,
    contains: [
      '      topologySpreadConstraints:\n      - maxSkew: 1\n        topologyKey: kubernetes.io/hostname\n        whenUnsatisfiable: ScheduleAnyway\n        labelSelector:\n          matchLabels:\n            app: web\n        matchLabelKeys:\n        - pod-template-hash\n',
    ],
  },
  {
    name: 'StatefulSet: no matchLabelKeys',
    yaml: wl('StatefulSet'),
    proposals: true,
    contains: ['whenUnsatisfiable: ScheduleAnyway'],
  },
  {
    name: 'an existing zone-less constraint list gains the hostname one',
    yaml: wl('Deployment', '      topologySpreadConstraints:\n      - {maxSkew: 1, topologyKey: example.com/rack, labelSelector: {matchLabels: {app: web}}}\n'),
    proposals: true,
    contains: ['topologyKey: example.com/rack', 'topologyKey: kubernetes.io/hostname'],
  },
]);

describe('replicas-not-spread fix', () => {
  test('before 1.27 a Deployment gets no matchLabelKeys; it is a proposal', () => {
    expect(fixWith(replicasNotSpread, wl('Deployment'), { kubeVersion: '1.26' }).files[0].applied).toEqual([]);
    const r = fixWith(replicasNotSpread, wl('Deployment'), { kubeVersion: '1.26', proposals: true });
    const tsc = parseDocument(r.files[0].text).getIn(['spec', 'template', 'spec', 'topologySpreadConstraints']) as { toJSON(): unknown };
    expect(tsc.toJSON()).toEqual([{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } } }]);
  });
  test('replicas sharing a ReadWriteOnce claim (open-webui) get no hostname spread: it would make the Multi-Attach failure certain', () => {
    const claim = '      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]\n';
    const pvc = (modes: string) => `---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec: {accessModes: ${modes}, resources: {requests: {storage: 1Gi}}}\n`;
    const shared = fixWith(replicasNotSpread, wl('Deployment', claim) + pvc('[ReadWriteOnce]'), { proposals: true });
    expect(shared.files[0].applied).toEqual([]);
    expect(shared.files[0].text).not.toContain('topologySpreadConstraints');
    // The same workload on ReadWriteMany storage is spread.
    expect(fixWith(replicasNotSpread, wl('Deployment', claim) + pvc('[ReadWriteMany]'), { proposals: true }).files[0].text).toContain('topologyKey: kubernetes.io/hostname');
  });
  test('the spec.selector is never edited', () => {
    const r = fixWith(replicasNotSpread, wl('Deployment'), { proposals: true });
    expect(r.files[0].text).toContain('  selector:\n    matchLabels:\n      app: web\n  template:');
  });
});
