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

/** Contour's Envoy pod: Envoy's httpGet /shutdown waits for the shutdown-manager's `contour envoy shutdown` hook (catalog awaitedBy). */
const contour = (shutdown: string, o: { image?: string; httpGet?: string } = {}) => `      containers:
      - name: shutdown-manager
        image: ${o.image ?? 'ghcr.io/projectcontour/contour:v1.33.0'}
        command: [/bin/contour]
        args: [envoy, shutdown-manager]
        lifecycle: {preStop: {exec: {command: [${shutdown}]}}}
      - name: envoy
        image: docker.io/envoyproxy/envoy:distroless-v1.35.0
        ports: [{name: http, containerPort: 8080}]
        lifecycle: {preStop: {httpGet: ${o.httpGet ?? '{path: /shutdown, port: 8090}'}}}
`;
const C1 = '/spec/template/spec/containers/1';

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
      name: "Contour's Envoy with the 1.22+ default (0s): keep the /shutdown handshake, set the shutdown-manager's --drain-delay; no sleep instead",
      yaml: deploy(contour('/bin/contour, envoy, shutdown')),
      findings: [
        {
          severity: 'info',
          pointer: `${C1}/lifecycle/preStop/httpGet`,
          message:
            'container "envoy": preStop httpGet /shutdown on port 8090: the kubelet blocks termination until it answers (the time counts against terminationGracePeriodSeconds), a failure only emits FailedPreStopHook, and it may be delivered more than once; it returns when container "shutdown-manager"\'s preStop program Contour shutdown-manager (contour envoy shutdown) (catalog entry contour-envoy-shutdown) ends, which drains this container: keep it (a sleep preStop in its place would skip that drain), and give it the endpoint-propagation delay (5-15s) with --drain-delay=10s in the preStop command of container "shutdown-manager" (it keeps it accepting for at least 0s now)',
        },
      ],
    },
    {
      name: "Contour's Envoy with --drain-delay=30s: the handshake already holds the propagation delay",
      yaml: deploy(contour('/bin/contour, envoy, shutdown, --drain-delay=30s')),
      findings: [{ severity: 'info', message: /keep it \(a sleep preStop in its place would skip that drain\); that hook already keeps it accepting for at least 30s, which covers the endpoint-propagation delay$/ }],
    },
    {
      name: "Contour before 1.22 (--check-delay 60s by default): the handshake already holds the propagation delay",
      yaml: deploy(contour('/bin/contour, envoy, shutdown', { image: 'ghcr.io/projectcontour/contour:v1.21.3' })),
      findings: [{ severity: 'info', message: /\(catalog entry contour-envoy-shutdown-before-1-22\) ends, .*at least 60s, which covers/ }],
    },
    {
      name: 'an httpGet to another path of the shutdown-manager is no handshake: the generic advice, sleep included',
      yaml: deploy(contour('/bin/contour, envoy, shutdown', { httpGet: '{path: /healthz, port: 8090}' })),
      findings: [{ severity: 'info', message: /idempotent, start draining and respond only after the endpoint-propagation delay \(5-15s\), or use a sleep preStop$/ }],
    },
    {
      name: 'the handshake half whose partner runs no known program (another image): the generic advice',
      yaml: deploy(contour('/bin/contour, envoy, shutdown', { image: 'example/shutdown:1' })),
      findings: [{ severity: 'info', message: /or use a sleep preStop$/ }],
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
