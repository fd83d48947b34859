import { KubeVersion } from '../../lib/engine/version';
import { maxUnavailableGate, statefulsetMaxUnavailable } from '../../lib/rules/statefulset-max-unavailable';
import { ruleTester } from '../helpers/rule-tester';

function sts(maxUnavailable?: string, annotations = ''): string {
  return `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 5
  podManagementPolicy: Parallel
  updateStrategy:
    type: RollingUpdate
${maxUnavailable === undefined ? '' : `    rollingUpdate: {maxUnavailable: ${maxUnavailable}}\n`}  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata:
      labels: {app: db}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
      containers: [{name: db, image: db:1}]
`;
}
const P = '/spec/updateStrategy/rollingUpdate/maxUnavailable';

describe('maxUnavailableGate', () => {
  test.each([
    ['1.23', 'off'],
    ['1.24', 'off'],
    ['1.34', 'off'],
    ['1.34.9', 'off'],
    ['1.35.0', 'on'],
    ['1.35.3', 'on'],
    ['1.35.4', 'off'],
    ['1.35', 'depends-on-patch'],
    ['1.36', 'off'],
    ['1.36.7', 'off'],
    ['1.37', 'on'],
    ['1.37.0', 'on'],
    ['1.40', 'on'],
  ])('%s -> %s', (v, want) => {
    expect(maxUnavailableGate(KubeVersion.parse(v))).toBe(want);
  });
});

ruleTester(statefulsetMaxUnavailable, {
  valid: [
    { name: 'field absent (1.34)', yaml: sts(), kubeVersion: '1.34' },
    { name: 'field absent (1.35 ambiguous)', yaml: sts(), kubeVersion: '1.35' },
    { name: 'gate on at 1.35.0', yaml: sts('2'), kubeVersion: '1.35.0' },
    { name: 'gate on at 1.35.3 (last patch with it on)', yaml: sts('2'), kubeVersion: '1.35.3' },
    { name: 'gate on again at 1.37', yaml: sts('"40%"'), kubeVersion: '1.37' },
    { name: 'a small percentage rounds up to 1 (1.37)', yaml: sts('"1%"'), kubeVersion: '1.37.1' },
    // Review round 14 (the Tyk chart as a StatefulSet writes maxUnavailable: 1): without the field it is one pod at a time too.
    { name: '1 with the gate off (1.31): dropping it changes nothing', yaml: sts('1'), kubeVersion: '1.31' },
    { name: '"20%" of 5 replicas rounds up to 1 with the gate off', yaml: sts('"20%"'), kubeVersion: '1.36' },
  ],
  invalid: [
    {
      name: '1.24: alpha, off: silently ignored',
      yaml: sts('2'),
      kubeVersion: '1.24',
      findings: [{ severity: 'warning', pointer: P, object: 'StatefulSet/db', message: 'the MaxUnavailableStatefulSet gate is off on 1.24, so the API server drops the field' }],
    },
    {
      name: '1.34: last alpha minor, off',
      yaml: sts('2'),
      kubeVersion: '1.34',
      findings: [{ severity: 'warning', pointer: P, message: 'gate is off on 1.34' }],
    },
    {
      name: '1.35.4: off again after the regression',
      yaml: sts('2'),
      kubeVersion: '1.35.4',
      findings: [{ severity: 'warning', pointer: P, message: 'gate is off on 1.35.4' }],
    },
    {
      name: '1.35 without a patch: depends on the patch release',
      yaml: sts('2'),
      kubeVersion: '1.35',
      findings: [{ severity: 'warning', pointer: P, message: /depends on the patch release: MaxUnavailableStatefulSet is on in 1\.35\.0-1\.35\.3 and off from 1\.35\.4.*--kube-version 1\.35\.4/ }],
    },
    {
      name: 'a percentage with an HPA: the replicas vary, so it is judged as written',
      yaml: sts('"20%"') + '---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: db}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}\n  minReplicas: 5\n  maxReplicas: 20\n',
      kubeVersion: '1.36',
      findings: [{ severity: 'warning', message: 'maxUnavailable "20%" is set, but the MaxUnavailableStatefulSet gate is off on 1.36' }],
    },
    {
      name: '1.36: off',
      yaml: sts('"25%"'),
      kubeVersion: '1.36',
      findings: [{ severity: 'warning', message: 'maxUnavailable "25%" is set, but the MaxUnavailableStatefulSet gate is off on 1.36' }],
    },
    {
      name: 'maxUnavailable 0 with the gate on: error (API rejects)',
      yaml: sts('0'),
      kubeVersion: '1.37',
      findings: [{ severity: 'error', pointer: P, message: 'maxUnavailable 0 resolves to 0: it must be at least 1 (percentages round up); the API server rejects the StatefulSet on 1.37' }],
    },
    {
      name: '"0%" with the gate on at 1.35.0: error',
      yaml: sts('"0%"'),
      kubeVersion: '1.35.0',
      findings: [{ severity: 'error', message: '"0%" resolves to 0' }],
    },
    {
      name: '0 with the gate off: still an error (rejected once the gate is on), one finding',
      yaml: sts('0'),
      kubeVersion: '1.34',
      findings: [{ severity: 'error', message: 'on 1.34 the gate is off and the field is dropped, but the API rejects it wherever MaxUnavailableStatefulSet is on' }],
    },
    {
      name: '0 on 1.35 without a patch',
      yaml: sts('0'),
      kubeVersion: '1.35',
      findings: [{ severity: 'error', message: 'on 1.35.0-1.35.3 the API rejects it' }],
    },
    {
      name: 'a string that is not a percentage: error',
      yaml: sts('"2"'),
      kubeVersion: '1.37',
      findings: [{ severity: 'error', message: 'is not an integer or a percentage' }],
    },
    {
      name: 'above 100%: error',
      yaml: sts('"150%"'),
      kubeVersion: '1.37',
      findings: [{ severity: 'error', message: 'is above 100%' }],
    },
    {
      name: 'suppressed',
      yaml: sts('2', '"kubegrace.dev/ignore": "statefulset-max-unavailable"'),
      kubeVersion: '1.36',
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});
