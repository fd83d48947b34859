import { progressDeadline } from '../../lib/rules/progress-deadline';
import { fixTester, fixWith } from '../helpers/fix-tester';

function deploy(head: string): string {
  return `# rollout settings
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
${head}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: app, image: web:1}
`;
}

fixTester(progressDeadline, [
  {
    name: 'deadline <= minReadySeconds (API error): raised above it (safe)',
    yaml: deploy('  minReadySeconds: 300 # slow clients\n  progressDeadlineSeconds: 120 # CI budget\n'),
    contains: ['minReadySeconds: 300 # slow clients', 'progressDeadlineSeconds: 360 # CI budget'],
  },
  {
    name: 'default deadline below a huge minReadySeconds: the field is added',
    yaml: deploy('  minReadySeconds: 900\n'),
    contains: ['  progressDeadlineSeconds: 960\n'],
  },
  {
    name: 'deadline shorter than a realistic step (warning): raised as a proposal',
    yaml: deploy('  progressDeadlineSeconds: 30\n'),
    proposals: true,
    contains: ['progressDeadlineSeconds: 60'],
  },
]);

describe('progress-deadline fix: safety', () => {
  test('the advisory raise is a proposal; the API-rejection raise is safe', () => {
    expect(fixWith(progressDeadline, deploy('  progressDeadlineSeconds: 30\n')).files[0].applied).toEqual([]);
    expect(fixWith(progressDeadline, deploy('  minReadySeconds: 60\n  progressDeadlineSeconds: 60\n')).files[0].applied.map((a) => a.safety)).toEqual(['safe']);
  });
});
