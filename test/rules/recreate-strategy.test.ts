import { recreateStrategy } from '../../lib/rules/recreate-strategy';
import { ruleTester } from '../helpers/rule-tester';

interface Opts {
  replicas?: number;
  strategy?: string;
  volumes?: string;
  annotations?: string;
  service?: boolean;
  extra?: string;
}

function deploy(o: Opts = {}): string {
  const svc = o.service === false
    ? ''
    : `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
${o.replicas === undefined ? '' : `  replicas: ${o.replicas}\n`}  strategy: ${o.strategy ?? '{type: Recreate}'}
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
      containers: [{name: app, image: web:1, ports: [{containerPort: 8080}]}]
${o.volumes ? `      volumes: ${o.volumes}\n` : ''}${svc}${o.extra ?? ''}`;
}

const pvc = (name: string, modes?: string) => `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: ${name}}
spec:
${modes ? `  accessModes: ${modes}\n` : ''}  resources: {requests: {storage: 1Gi}}
`;
const claim = (name: string) => `{name: ${name}, persistentVolumeClaim: {claimName: ${name}}}`;
const hpa = (min: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: ${min}
  maxReplicas: 10
`;

ruleTester(recreateStrategy, {
  valid: [
    { name: 'Recreate with replicas 1 (default)', yaml: deploy() },
    { name: 'Recreate with replicas 1', yaml: deploy({ replicas: 1 }) },
    { name: 'RollingUpdate with replicas 3', yaml: deploy({ replicas: 3, strategy: '{type: RollingUpdate}' }) },
    { name: 'Recreate justified by a ReadWriteOnce PVC', yaml: deploy({ replicas: 3, volumes: `[${claim('data')}]`, extra: pvc('data', '[ReadWriteOnce]') }) },
    { name: 'Recreate justified by a ReadWriteOncePod PVC', yaml: deploy({ replicas: 3, volumes: `[${claim('data')}]`, extra: pvc('data', '[ReadWriteOncePod]') }) },
    { name: 'Recreate justified by a claim whose PVC is not in the set (mode unknown)', yaml: deploy({ replicas: 3, volumes: `[${claim('data')}]` }) },
    { name: 'PVC without accessModes: unknown, justified', yaml: deploy({ replicas: 3, volumes: `[${claim('data')}]`, extra: pvc('data') }) },
    { name: 'one RWX and one RWO claim: the RWO one justifies it', yaml: deploy({ replicas: 3, volumes: `[${claim('shared')}, ${claim('data')}]`, extra: pvc('shared', '[ReadWriteMany]') + pvc('data', '[ReadWriteOnce]') }) },
    { name: 'unserved: another Service in the namespace, none selects the pods', yaml: deploy({ replicas: 3, service: false }) + '---\napiVersion: v1\nkind: Service\nmetadata: {name: other}\nspec: {selector: {app: other}, ports: [{port: 80}]}\n' },
    { name: 'served hint "false" wins over the Service', yaml: deploy({ replicas: 3, annotations: '"kubegrace.dev/served": "false"' }) },
    { name: 'HPA minReplicas 1 is what counts, not replicas 3', yaml: deploy({ replicas: 3, extra: hpa(1) }) },
  ],
  invalid: [
    {
      name: 'unknown served (no Service in the set), port 8080 declared: assumed served, and said so',
      yaml: deploy({ replicas: 3, service: false }),
      findings: [{ severity: 'warning', message: /strategy Recreate with replicas 3 on a served workload.*\(served status unknown: no Service in the input selects it, but it declares port 8080/ }],
    },
    {
      name: 'Recreate with replicas 3 on a served Deployment',
      yaml: deploy({ replicas: 3 }),
      findings: [{ severity: 'warning', pointer: '/spec/strategy/type', object: 'Deployment/web', message: 'strategy Recreate with replicas 3 on a served workload: every pod is terminated before any new one starts' }],
    },
    {
      name: 'a ReadWriteMany-only claim does not justify Recreate',
      yaml: deploy({ replicas: 2, volumes: `[${claim('shared')}]`, extra: pvc('shared', '[ReadWriteMany]') }),
      findings: [{ severity: 'warning', message: 'its claims "shared" allow multi-node access' }],
    },
    {
      name: 'an emptyDir is no exclusive volume',
      yaml: deploy({ replicas: 2, volumes: '[{name: tmp, emptyDir: {}}]' }),
      findings: [{ severity: 'warning', message: 'replicas 2' }],
    },
    {
      name: 'HPA minReplicas 2 with spec.replicas 1',
      yaml: deploy({ replicas: 1, extra: hpa(2) }),
      findings: [{ severity: 'warning', message: 'strategy Recreate with HPA minReplicas 2 (HorizontalPodAutoscaler/web)' }],
    },
    {
      name: 'served by the hint alone',
      yaml: deploy({ replicas: 2, service: false, annotations: '"kubegrace.dev/served": "true"' }),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'suppressed with kubegrace.dev/ignore',
      yaml: deploy({ replicas: 2, annotations: '"kubegrace.dev/ignore": "recreate-strategy", "kubegrace.dev/ignore-reason": "schema migrations need a single version"' }),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});
