import { hpaReplicas } from '../../lib/rules/hpa-replicas';
import { fixTester, fixWith } from '../helpers/fix-tester';
import { runRule } from '../helpers/rule-tester';

function set(o: { kind?: string; replicas?: number; min?: number | null; max?: number; served?: boolean } = {}): string {
  const kind = o.kind ?? 'Deployment';
  return `# web tier
apiVersion: apps/v1
kind: ${kind}
metadata:
  name: web
spec:
${o.replicas === undefined ? '' : `  # kept for the first deploy\n  replicas: ${o.replicas}\n`}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers: [{name: app, image: web:1, ports: [{containerPort: 8080}]}] # one container
---
# scales web
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: ${kind}, name: web}
${o.min === null ? '' : `  minReplicas: ${o.min ?? 2} # floor\n`}  maxReplicas: ${o.max ?? 10} # ceiling
  metrics:
  - type: Resource # cpu based
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
${o.served === false ? '' : `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`}`;
}

fixTester(hpaReplicas, [
  {
    name: 'spec.replicas on an HPA-managed Deployment: removed, its comments kept',
    yaml: set({ replicas: 3 }),
    proposals: true,
  },
  {
    name: 'spec.replicas on an HPA-managed StatefulSet',
    yaml: set({ kind: 'StatefulSet', replicas: 2 }),
    proposals: true,
  },
  {
    name: 'minReplicas 1 on a served workload: raised to 2',
    yaml: set({ min: 1 }),
    proposals: true,
    contains: ['  minReplicas: 2 # floor', '  maxReplicas: 10 # ceiling'],
  },
  {
    name: 'minReplicas defaulted (absent): written as 2',
    yaml: set({ min: null }),
    proposals: true,
    contains: ['minReplicas: 2'],
  },
  {
    name: 'maxReplicas 1 goes to 2 as well (the API needs maxReplicas >= minReplicas)',
    yaml: set({ min: 1, max: 1 }),
    proposals: true,
    contains: ['  minReplicas: 2 # floor', '  maxReplicas: 2 # ceiling'],
  },
  {
    name: 'both conditions at once',
    yaml: set({ replicas: 1, min: 1 }),
    proposals: true,
    contains: ['  minReplicas: 2 # floor'],
  },
]);

describe('hpa-replicas fix details', () => {
  test('both fixes are proposals: a plain --fix leaves the file alone', () => {
    const yaml = set({ replicas: 3, min: 1 });
    const r = fixWith(hpaReplicas, yaml);
    expect(r.files[0].text).toBe(yaml);
    expect(r.skipped).toHaveLength(2);
  });

  test('edits: remove /spec/replicas on the workload; minReplicas (and maxReplicas) on the HPA', () => {
    const got = runRule(hpaReplicas, set({ replicas: 3, min: 1, max: 1 }));
    expect(got.map((f) => [f.object.kind, f.fix])).toEqual([
      ['Deployment', { description: 'remove spec.replicas (HorizontalPodAutoscaler/web owns the replica count)', safety: 'proposal', edits: [{ op: 'remove', pointer: '/spec/replicas' }] }],
      [
        'HorizontalPodAutoscaler',
        {
          description: 'set minReplicas and maxReplicas to 2',
          safety: 'proposal',
          edits: [
            { op: 'set', pointer: '/spec/minReplicas', value: 2 },
            { op: 'set', pointer: '/spec/maxReplicas', value: 2 },
          ],
        },
      ],
    ]);
  });
});
