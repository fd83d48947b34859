import { statefulsetPartition } from '../../lib/rules/statefulset-partition';
import { ruleTester } from '../helpers/rule-tester';

function sts(replicas: number | undefined, strategy: string, annotations = '', extra = ''): string {
  return `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
${replicas === undefined ? '' : `  replicas: ${replicas}\n`}  updateStrategy: ${strategy}
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata:
      labels: {app: db}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
      containers: [{name: db, image: db:1}]
${extra}`;
}
const part = (n: number) => `{type: RollingUpdate, rollingUpdate: {partition: ${n}}}`;
const hpa = (max: number) => `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: db}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}
  minReplicas: 2
  maxReplicas: ${max}
`;
const P = '/spec/updateStrategy/rollingUpdate/partition';

ruleTester(statefulsetPartition, {
  valid: [
    { name: 'partition 0', yaml: sts(3, part(0)) },
    { name: 'no rollingUpdate', yaml: sts(3, '{type: RollingUpdate}') },
    { name: 'OnDelete: partition does not apply', yaml: sts(3, '{type: OnDelete}') },
    { name: 'partition 0 with an HPA', yaml: sts(undefined, part(0), '', hpa(5)) },
  ],
  invalid: [
    {
      name: 'partition == replicas: warning',
      yaml: sts(3, part(3)),
      findings: [{ severity: 'warning', pointer: P, object: 'StatefulSet/db', message: 'rollingUpdate.partition 3 >= replicas 3: only ordinals >= 3 are updated, so template changes never reach any pod' }],
    },
    {
      name: 'partition above the default replicas 1: warning',
      yaml: sts(undefined, part(2)),
      findings: [{ severity: 'warning', pointer: P, message: 'replicas 1 (default)' }],
    },
    {
      name: '0 < partition < replicas: leftover canary (info)',
      yaml: sts(5, part(2)),
      findings: [{ severity: 'info', pointer: P, message: 'ordinals 0..1 stay at the old revision' }],
    },
    {
      name: 'partition 1 of 3: ordinal 0 stays',
      yaml: sts(3, part(1)),
      findings: [{ severity: 'info', message: 'ordinal 0 stays' }],
    },
    {
      name: 'type defaults to RollingUpdate',
      yaml: sts(3, '{rollingUpdate: {partition: 4}}'),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'with an HPA, maxReplicas is the bound: partition >= maxReplicas warns',
      yaml: sts(undefined, part(5), '', hpa(5)),
      findings: [{ severity: 'warning', message: 'HPA maxReplicas 5 (HorizontalPodAutoscaler/db)' }],
    },
    {
      name: 'with an HPA, partition below maxReplicas is a canary',
      yaml: sts(undefined, part(3), '', hpa(5)),
      findings: [{ severity: 'info', message: 'HPA maxReplicas 5' }],
    },
    {
      name: 'suppressed',
      yaml: sts(3, part(3), '"kubegrace.dev/ignore": "statefulset-partition"'),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});
