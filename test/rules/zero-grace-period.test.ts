import { zeroGracePeriod } from '../../lib/rules/zero-grace-period';
import { ruleTester } from '../helpers/rule-tester';

function wl(kind: string, grace: string, opts: { served?: boolean; annotations?: string } = {}): string {
  const svc =
    opts.served === false
      ? ''
      : `---
apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  selector: {app: db}
  ports: [{port: 5432}]
`;
  return `apiVersion: apps/v1
kind: ${kind}
metadata: {name: db}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata:
      labels: {app: db}
${opts.annotations ? `      annotations: {${opts.annotations}}\n` : ''}    spec:
${grace ? `      terminationGracePeriodSeconds: ${grace}\n` : ''}      containers: [{name: db, image: postgres:16}]
${svc}`;
}

const POINTER = '/spec/template/spec/terminationGracePeriodSeconds';

ruleTester(zeroGracePeriod, {
  valid: [
    { name: 'grace absent (default 30)', yaml: wl('StatefulSet', '') },
    { name: 'grace 1', yaml: wl('StatefulSet', '1') },
    { name: 'grace 30 on a Deployment', yaml: wl('Deployment', '30') },
  ],
  invalid: [
    {
      name: 'StatefulSet with grace 0: error at the field',
      yaml: wl('StatefulSet', '0'),
      findings: [{ severity: 'error', pointer: POINTER, line: 10, message: 'terminationGracePeriodSeconds is 0 on a StatefulSet' }],
    },
    {
      name: 'StatefulSet with grace 0 and no Service: still an error (identity, not traffic)',
      yaml: wl('StatefulSet', '0', { served: false }),
      findings: [{ severity: 'error' }],
    },
    {
      name: 'StatefulSet with served hint "false": still an error',
      yaml: wl('StatefulSet', '0', { served: false, annotations: '"kubegrace.dev/served": "false"' }),
      findings: [{ severity: 'error' }],
    },
    {
      name: 'Deployment with grace 0: warning',
      yaml: wl('Deployment', '0'),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^terminationGracePeriodSeconds is 0: the app gets only the kubelet's 2s minimum .* or set it to drain \+ 5s$/ }],
    },
    {
      name: 'Deployment with grace 0 and a preStop hook: the hook is skipped, and said so',
      yaml: wl('Deployment', '0').replace('image: postgres:16}', 'image: postgres:16, lifecycle: {preStop: {sleep: {seconds: 5}}}}'),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^terminationGracePeriodSeconds is 0: its preStop hooks are skipped and the app gets only the kubelet's 2s minimum .* or set it to preStop \+ drain \+ 5s$/ }],
    },
    {
      name: 'DaemonSet served by hint "true" with grace 0: warning',
      yaml: wl('DaemonSet', '0', { served: false, annotations: '"kubegrace.dev/served": "true"' }),
      findings: [{ severity: 'warning', object: 'DaemonSet/db' }],
    },
    {
      name: 'bare Pod with grace 0: warning at spec.terminationGracePeriodSeconds',
      yaml: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  terminationGracePeriodSeconds: 0
  containers: [{name: app, image: a:1}]
`,
      findings: [{ severity: 'warning', pointer: '/spec/terminationGracePeriodSeconds', line: 5 }],
    },
    {
      name: 'CronJob with grace 0: warning',
      yaml: `apiVersion: batch/v1
kind: CronJob
metadata: {name: c}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          terminationGracePeriodSeconds: 0
          containers: [{name: app, image: a:1}]
`,
      findings: [{ severity: 'warning', pointer: '/spec/jobTemplate/spec/template/spec/terminationGracePeriodSeconds' }],
    },
    {
      name: 'suppressed by kubegrace.dev/ignore',
      yaml: wl('StatefulSet', '0', { annotations: '"kubegrace.dev/ignore": "zero-grace-period", "kubegrace.dev/ignore-reason": "test fixture"' }),
      findings: [{ severity: 'error', suppressed: true }],
    },
  ],
});
