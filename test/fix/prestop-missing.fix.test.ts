import { prestopMissing } from '../../lib/rules/prestop-missing';
import { fixTester, fixWith } from '../helpers/fix-tester';

const SERVICE = `---
# routes to web
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
`;

const deployment = (podSpecExtra = '', container = '') => `# web frontend
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # keep this name
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
${podSpecExtra}      containers:
        # the app itself
        - name: app
          image: "web:1" # pinned
          ports:
            - name: http
              containerPort: 8080
${container}${SERVICE}`;

fixTester(prestopMissing, [
  {
    name: '>= 1.30: sleep action under the container, indentation and comments kept',
    yaml: deployment(),
    kubeVersion: '1.31',
    contains: [
      '          image: "web:1" # pinned\n          ports:\n            - name: http\n              containerPort: 8080\n          lifecycle:\n            preStop:\n              sleep:\n                seconds: 10\n',
    ],
  },
  {
    name: 'a lifecycle with only postStart gains preStop next to it',
    yaml: deployment('', '          lifecycle:\n            postStart: {exec: {command: [/init]}} # warm-up\n'),
    contains: ['postStart: {exec: {command: [/init]}} # warm-up', 'preStop:'],
  },
  {
    name: 'grace too short for the new delay is raised in the same fix',
    yaml: deployment('      terminationGracePeriodSeconds: 12 # short\n'),
    contains: ['terminationGracePeriodSeconds: 25 # short', 'seconds: 10'],
  },
  {
    name: 'drain hint: grace raised to preStop + drain + margin',
    yaml: deployment().replace('      labels: {app: web}\n    spec:', '      labels: {app: web}\n      annotations: {kubegrace.dev/drain-seconds: "40"}\n    spec:'),
    contains: ['terminationGracePeriodSeconds: 55'],
  },
  {
    name: '< 1.30: exec sleep (a proposal)',
    yaml: deployment(),
    kubeVersion: '1.29',
    proposals: true,
    contains: ['exec:', '- sleep', '- "10"'],
  },
]);

describe('prestop-missing fix: safety', () => {
  test('< 1.30 the exec fix is a proposal: not applied without --fix-proposals', () => {
    const r = fixWith(prestopMissing, deployment(), { kubeVersion: '1.29' });
    expect(r.files[0].applied).toEqual([]);
    expect(r.files[0].text).toBe(deployment());
    expect(r.skipped.map((s) => s.reason)).toEqual([expect.stringContaining('--fix-proposals')]);
  });
  test('>= 1.30 the sleep fix is safe and never lowers a long grace period', () => {
    const yaml = deployment('      terminationGracePeriodSeconds: 120\n');
    const r = fixWith(prestopMissing, yaml, { kubeVersion: '1.33' });
    expect(r.files[0].applied.map((a) => a.safety)).toEqual(['safe']);
    expect(r.files[0].text).toContain('terminationGracePeriodSeconds: 120\n');
  });
  test('two containers missing a hook are both fixed (the grace edit waits for the next pass)', () => {
    const yaml = deployment('      terminationGracePeriodSeconds: 5\n', '        - name: side\n          image: side:1\n          ports: [{name: http2, containerPort: 9090}]\n').replace(
      'ports: [{name: http, port: 80, targetPort: http}]',
      'ports: [{name: http, port: 80, targetPort: http}, {name: b, port: 90, targetPort: http2}]',
    );
    const r = fixWith(prestopMissing, yaml, { kubeVersion: '1.33' });
    expect(r.converged).toBe(true);
    expect(r.files[0].applied.map((a) => a.description)).toEqual([
      'add preStop sleep 10s to container "app" and raise terminationGracePeriodSeconds to 25',
      'add preStop sleep 10s to container "side"',
    ]);
    expect(r.files[0].text.match(/seconds: 10/g)).toHaveLength(2);
  });
});
