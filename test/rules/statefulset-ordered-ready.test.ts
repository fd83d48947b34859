import { statefulsetOrderedReady } from '../../lib/rules/statefulset-ordered-ready';
import { ruleTester } from '../helpers/rule-tester';

interface Opts {
  replicas?: number;
  spec?: string;
  annotations?: string;
  extra?: string;
}

function sts(o: Opts = {}): string {
  return `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
${o.replicas === undefined ? '' : `  replicas: ${o.replicas}\n`}${o.spec ?? ''}  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata:
      labels: {app: db}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
      containers: [{name: db, image: db:1}]
${o.extra ?? ''}`;
}

const hpa = (min: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: db}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}
  minReplicas: ${min}
  maxReplicas: 5
`;

ruleTester(statefulsetOrderedReady, {
  valid: [
    { name: 'single replica (default): ordinary, not reported by default', yaml: sts() },
    { name: 'explicit replicas 1', yaml: sts({ replicas: 1 }) },
    { name: 'scaled to 0', yaml: sts({ replicas: 0 }), params: { minReplicas: 0 } },
    { name: 'Parallel pod management', yaml: sts({ replicas: 3, spec: '  podManagementPolicy: Parallel\n' }) },
    { name: 'OnDelete updates', yaml: sts({ replicas: 3, spec: '  updateStrategy: {type: OnDelete}\n' }) },
    { name: 'HPA minReplicas 1 overrides spec.replicas 3', yaml: sts({ replicas: 3, extra: hpa(1) }) },
    {
      name: 'not a StatefulSet',
      yaml: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: app, image: web:1}]
`,
    },
  ],
  invalid: [
    {
      name: 'defaults with replicas 3: info at /spec',
      yaml: sts({ replicas: 3 }),
      findings: [{ severity: 'info', pointer: '/spec', object: 'StatefulSet/db', message: 'podManagementPolicy OrderedReady (default) with updateStrategy RollingUpdate (default) and replicas 3' }],
    },
    {
      name: 'message explains the manual pod deletion (kubernetes#67250)',
      yaml: sts({ replicas: 2 }),
      findings: [{ severity: 'info', message: /reverting the template does not heal it.*deleted by hand \(kubernetes\/kubernetes#67250\)/ }],
    },
    {
      name: 'explicit OrderedReady: pointer at the field',
      yaml: sts({ replicas: 3, spec: '  podManagementPolicy: OrderedReady\n' }),
      findings: [{ severity: 'info', pointer: '/spec/podManagementPolicy', message: 'podManagementPolicy OrderedReady with' }],
    },
    {
      name: 'explicit RollingUpdate type: pointer at the type',
      yaml: sts({ replicas: 3, spec: '  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: 0}}\n' }),
      findings: [{ severity: 'info', pointer: '/spec/updateStrategy/type', message: 'updateStrategy RollingUpdate and' }],
    },
    {
      name: 'HPA minReplicas 2 counts',
      yaml: sts({ extra: hpa(2) }),
      findings: [{ severity: 'info', message: 'HPA minReplicas 2 (HorizontalPodAutoscaler/db)' }],
    },
    {
      name: 'minReplicas param 1 includes single replicas',
      yaml: sts(),
      params: { minReplicas: 1 },
      findings: [{ severity: 'info', message: 'replicas 1 (default)' }],
    },
    {
      name: 'suppressed',
      yaml: sts({ replicas: 3, annotations: '"kubegrace.dev/ignore": "statefulset-ordered-ready"' }),
      findings: [{ severity: 'info', suppressed: true }],
    },
  ],
});
