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

const etcd = (probe: string, spec = '', replicas = 3) =>
  sts({ replicas, spec }).replace('containers: [{name: db, image: db:1}]', `containers: [{name: etcd, image: registry.k8s.io/etcd:3.5.21-0, readinessProbe: {httpGet: {path: "${probe}", port: 2381}}}]`);

ruleTester(statefulsetOrderedReady, {
  valid: [
    { name: 'single replica (default): ordinary, not reported by default', yaml: sts() },
    // Review round 26 (karmada's etcd): the quorum deadlock needs OrderedReady, 2+ replicas and a quorum check.
    { name: 'etcd under Parallel with /readyz: no deadlock', yaml: etcd('/readyz', '  podManagementPolicy: Parallel\n') },
    { name: 'etcd OrderedReady OnDelete with a member check (/readyz?exclude=linearizable_read, /health?serializable=true)', yaml: etcd('/readyz?exclude=linearizable_read', '  updateStrategy: {type: OnDelete}\n') + '---\n' + etcd('/health?serializable=true', '  updateStrategy: {type: OnDelete}\n').replace(/\bdb\b/g, 'db1') },
    { name: 'a single etcd member with /readyz', yaml: etcd('/readyz', '', 1) },

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
      // Review round 26 (karmada): 3 etcd members, OrderedReady (default), readiness on /readyz.
      name: 'etcd with OrderedReady (default) and a readiness that needs the quorum: error, the cluster never forms (besides the rollout info)',
      yaml: etcd('/readyz'),
      findings: [
        {
          severity: 'error',
          pointer: '/spec',
          message:
            'podManagementPolicy OrderedReady (default) with replicas 3, and container "etcd" reports Ready only when the etcd cluster has a leader (readinessProbe httpGet /readyz, whose linearizable_read check needs the cluster\'s quorum): the StatefulSet controller creates pod 1 only once pod 0 is Ready, and pod 0 alone never has a leader, so the cluster never forms',
        },
        { severity: 'info', message: /^podManagementPolicy OrderedReady \(default\) with updateStrategy RollingUpdate/ },
      ],
    },
    {
      name: 'etcd /health under an explicit OrderedReady and OnDelete: the error alone',
      yaml: etcd('/health', '  podManagementPolicy: OrderedReady\n  updateStrategy: {type: OnDelete}\n', 2),
      findings: [{ severity: 'error', pointer: '/spec/podManagementPolicy', message: /^podManagementPolicy OrderedReady with replicas 2, and container "etcd" reports Ready only when the etcd cluster has a leader \(readinessProbe httpGet \/health, which answers 503 while the member has no leader\)/ }],
    },
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
      // Review round 31 (bitnami mysql renders podManagementPolicy: ""): SetDefaults_StatefulSet gives "" its default.
      name: 'podManagementPolicy "" and updateStrategy.type "": the API defaults, as when absent',
      yaml: sts({ replicas: 2, spec: '  podManagementPolicy: ""\n  updateStrategy: {type: ""}\n' }),
      findings: [{ severity: 'info', pointer: '/spec', message: 'podManagementPolicy OrderedReady (default) with updateStrategy RollingUpdate (default) and replicas 2' }],
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
