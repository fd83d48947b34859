import { gracePeriodBudget } from '../../lib/rules/grace-period-budget';
import { fixTester, fixWith } from '../helpers/fix-tester';

function deploy(podSpec: string, annotations = ''): string {
  return `# api tier
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${annotations ? `      annotations: {${annotations}}\n` : ''}    spec:
${podSpec}
---
apiVersion: v1
kind: Service
metadata: {name: web} # front door
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
}
const container = (lifecycle: string, name = 'app', port = 8080) => `      - name: ${name}
        image: 'web:1'   # single-quoted on purpose
        ports: [{containerPort: ${port}}]
${lifecycle}`;

fixTester(gracePeriodBudget, [
  {
    name: 'preStop >= grace (error): grace raised to preStop + drain + margin, comment on the value kept',
    yaml: deploy(`      # budget
      terminationGracePeriodSeconds: 15 # too short
      containers:
${container('        lifecycle: {preStop: {sleep: {seconds: 15}}}')}`),
    contains: ['terminationGracePeriodSeconds: 30 # too short', "image: 'web:1'   # single-quoted on purpose", 'lifecycle: {preStop: {sleep: {seconds: 15}}}'],
  },
  {
    name: 'preStop + drain > default grace (warning): the field is added to the pod spec',
    yaml: deploy(`      containers:\n${container('        lifecycle: {preStop: {exec: {command: ["sh", "-c", "sleep 25"]}}}')}`),
    contains: ['    spec:\n      containers:', '      terminationGracePeriodSeconds: 40\n'],
  },
  {
    name: 'drain hint: grace covers the declared drain time',
    yaml: deploy(`      terminationGracePeriodSeconds: 20\n      containers:\n${container('        lifecycle: {preStop: {sleep: {seconds: 5}}}')}`, '"kubegrace.dev/drain-seconds": "60"'),
    contains: ['terminationGracePeriodSeconds: 70'],
  },
  {
    name: 'two containers: one fix to the neediest',
    yaml: deploy(`      terminationGracePeriodSeconds: 10\n      containers:\n${container('        lifecycle: {preStop: {sleep: {seconds: 8}}}\n')}${container('        lifecycle: {preStop: {sleep: {seconds: 20}}}', 'side', 8080)}`),
    contains: ['terminationGracePeriodSeconds: 35'],
  },
]);

describe('grace-period-budget fix', () => {
  test('is safe (section 12) and applied without proposals', () => {
    const r = fixWith(gracePeriodBudget, deploy(`      terminationGracePeriodSeconds: 15\n      containers:\n${container('        lifecycle: {preStop: {sleep: {seconds: 15}}}')}`));
    expect(r.files[0].applied.map((a) => [a.ruleId, a.safety])).toEqual([['grace-period-budget', 'safe']]);
  });
});
