import { prestopHandler } from '../../lib/rules/prestop-handler';
import { servedDeployment } from '../helpers/manifests';
import { ruleTester } from '../helpers/rule-tester';

function deploy(podSpec: string, opts: { served?: boolean; annotations?: string } = {}): string {
  return servedDeployment(podSpec, opts);
}

const app = (lifecycle: string) => `      containers:
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080}]
        lifecycle: ${lifecycle}
`;
const HTTP = '{preStop: {httpGet: {path: /drain, port: http}}}';
const TCP = '{preStop: {tcpSocket: {port: 8080}}}';
const C0 = '/spec/template/spec/containers/0';

ruleTester(prestopHandler, {
  valid: [
    { name: 'sleep preStop', yaml: deploy(app('{preStop: {sleep: {seconds: 10}}}')) },
    { name: 'exec preStop', yaml: deploy(app('{preStop: {exec: {command: [/wait-shutdown]}}}')) },
    { name: 'httpGet postStart is not a preStop', yaml: deploy(app('{postStart: {httpGet: {path: /warm, port: 8080}}}')) },
    { name: 'no lifecycle', yaml: deploy('      containers: [{name: app, image: web:1}]') },
  ],
  invalid: [
    {
      name: 'httpGet preStop: info with the caveats',
      yaml: deploy(app(HTTP)),
      findings: [{ severity: 'info', pointer: `${C0}/lifecycle/preStop/httpGet`, message: 'container "app": preStop httpGet /drain on port "http" (8080): the kubelet blocks termination until it answers' }],
    },
    {
      name: 'httpGet caveats: at-least-once and respond after the propagation delay',
      yaml: deploy(app(HTTP)),
      findings: [{ severity: 'info', message: /idempotent, start draining and respond only after the endpoint-propagation delay/ }],
    },
    {
      name: 'httpGet preStop on an unserved workload is still reported',
      yaml: deploy(app(HTTP), { served: false }),
      findings: [{ severity: 'info' }],
    },
    {
      name: 'httpGet preStop with served hint "false" is still reported (not about traffic)',
      yaml: deploy(app(HTTP), { annotations: '"kubegrace.dev/served": "false"' }),
      findings: [{ severity: 'info' }],
    },
    {
      name: 'tcpSocket preStop: error',
      yaml: deploy(app(TCP)),
      findings: [{ severity: 'error', pointer: `${C0}/lifecycle/preStop/tcpSocket`, message: 'container "app": preStop tcpSocket (port 8080) is deprecated' }],
    },
    {
      name: 'tcpSocket fix on 1.30 is the sleep action',
      yaml: deploy(app(TCP)),
      kubeVersion: '1.30',
      findings: [{ severity: 'error', message: 'use lifecycle: {preStop: {sleep: {seconds: 10}}}' }],
    },
    {
      name: 'tcpSocket fix on 1.29 is exec sleep',
      yaml: deploy(app(TCP)),
      kubeVersion: '1.29',
      findings: [{ severity: 'error', message: 'use lifecycle: {preStop: {exec: {command: ["sleep", "10"]}}}' }],
    },
    {
      name: 'tcpSocket preStop on a native sidecar: error',
      yaml: deploy(`      initContainers:
      - {name: proxy, image: envoy:1, restartPolicy: Always, lifecycle: {preStop: {tcpSocket: {port: 15000}}}}
      containers:
      - {name: app, image: web:1}
`),
      findings: [{ severity: 'error', pointer: '/spec/template/spec/initContainers/0/lifecycle/preStop/tcpSocket', message: 'container "proxy"' }],
    },
    {
      name: 'httpGet preStop on a classic init container and a main container',
      yaml: deploy(`      initContainers:
      - {name: setup, image: s:1, lifecycle: {preStop: {httpGet: {path: /x, port: 9000}}}}
${app(HTTP)}`),
      findings: [
        { severity: 'info', pointer: '/spec/template/spec/initContainers/0/lifecycle/preStop/httpGet' },
        { severity: 'info', pointer: `${C0}/lifecycle/preStop/httpGet` },
      ],
    },
    {
      name: 'on a Job too',
      yaml: `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: app, image: j:1, lifecycle: {preStop: {tcpSocket: {port: 80}}}}]
`,
      findings: [{ severity: 'error', object: 'Job/j' }],
    },
    {
      name: 'suppressed by kubegrace.dev/ignore: all',
      yaml: deploy(app(TCP), { annotations: '"kubegrace.dev/ignore": "all"' }),
      findings: [{ severity: 'error', suppressed: true }],
    },
  ],
});
