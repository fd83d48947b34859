import { prestopSleepAction } from '../../lib/rules/prestop-sleep-action';
import { fixTester, fixWith } from '../helpers/fix-tester';

function deploy(container: string, podExtra = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
${podExtra}      containers:
      # main
      - name: app
        image: gcr.io/distroless/static:nonroot # no shell here
        ports: [{containerPort: 8080}]
${container}---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
`;
}

fixTester(prestopSleepAction, [
  {
    name: 'exec sleep in a shell-less image -> sleep action (proposal)',
    yaml: deploy('        lifecycle:\n          # wait for endpoints\n          preStop:\n            exec:\n              command: ["sleep", "15"]\n'),
    proposals: true,
    contains: ['          # wait for endpoints\n          preStop:\n            sleep:\n              seconds: 15\n'],
  },
  {
    name: 'served image with a shell: info, same repair',
    yaml: deploy('        lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 5"]}}}\n').replace('gcr.io/distroless/static:nonroot', 'nginx:1.27'),
    proposals: true,
    contains: ['lifecycle: {preStop: {sleep: {seconds: 5}}}'],
  },
  {
    name: 'sleep action on 1.29: back to exec sleep (proposal)',
    yaml: deploy('        lifecycle: {preStop: {sleep: {seconds: 10}}}\n').replace('gcr.io/distroless/static:nonroot', 'nginx:1.27'),
    kubeVersion: '1.29',
    proposals: true,
    contains: [`lifecycle: {preStop: {exec: {command: [sleep, "10"]}}}`],
  },
  {
    name: 'sleep.seconds above the grace period: grace raised (safe)',
    yaml: deploy('        lifecycle:\n          preStop:\n            sleep:\n              seconds: 40 # long LB\n'),
    contains: ['      terminationGracePeriodSeconds: 55\n', 'seconds: 40 # long LB'],
  },
  {
    name: 'sleep.seconds 0 before 1.33: the no-op hook is removed (proposal)',
    yaml: deploy('        lifecycle:\n          postStart: {exec: {command: [/init]}}\n          preStop: {sleep: {seconds: 0}}\n'),
    kubeVersion: '1.31',
    proposals: true,
    contains: ['postStart: {exec: {command: [/init]}}'],
  },
  {
    name: 'fractional sleep.seconds rounded up (proposal)',
    yaml: deploy('        lifecycle: {preStop: {sleep: {seconds: 2.5}}}\n'),
    proposals: true,
    contains: ['seconds: 3'],
  },
  {
    name: 'quoted sleep.seconds written as a number (proposal)',
    yaml: deploy('        lifecycle: {preStop: {sleep: {seconds: "7"}}}\n'),
    proposals: true,
    contains: ['seconds: 7'],
  },
]);

describe('prestop-sleep-action fix: safety', () => {
  test('replacing an existing exec hook is a proposal, not applied by plain --fix', () => {
    const yaml = deploy('        lifecycle: {preStop: {exec: {command: ["sleep", "15"]}}}\n');
    const r = fixWith(prestopSleepAction, yaml);
    expect(r.files[0].text).toBe(yaml);
    expect(r.skipped).toHaveLength(1);
  });
  test('exec sleep longer than grace: the sleep action fix raises grace too', () => {
    const yaml = deploy('        lifecycle: {preStop: {exec: {command: ["sleep", "45"]}}}\n');
    const r = fixWith(prestopSleepAction, yaml, { proposals: true });
    expect(r.files[0].text).toContain('terminationGracePeriodSeconds: 60');
    expect(r.files[0].text).toContain('{sleep: {seconds: 45}}');
  });
  test('a shell-less image before 1.30 has no automatic repair', () => {
    const yaml = deploy('        lifecycle: {preStop: {exec: {command: ["sleep", "15"]}}}\n');
    const r = fixWith(prestopSleepAction, yaml, { kubeVersion: '1.29', proposals: true });
    expect(r.files[0].applied).toEqual([]);
    expect(r.skipped).toEqual([]);
  });
});

// Review round 23 (Windmill's app: a 30s exec sleep in 40s of grace): the repair's grace raise,
// which the budget's margin asks for, is named in its description.
test('prestop-sleep-action fix: a grace raise is said in the description', () => {
  const yaml = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 40
      containers:
      - name: web
        image: example/web:1
        lifecycle: {preStop: {exec: {command: [/bin/sh, -c, sleep 30]}}}
        ports: [{containerPort: 8000}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: 8000}]}
`;
  const r = fixWith(prestopSleepAction, yaml, { proposals: true });
  expect(r.files[0].applied.map((a) => a.description)).toEqual(['replace the exec sleep preStop of container "web" with the sleep action (30s) and raise terminationGracePeriodSeconds to 45 (the delay, the drain and a margin)']);
});
