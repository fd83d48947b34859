import { livenessEqualsReadiness } from '../../lib/rules/liveness-equals-readiness';
import { ruleTester } from '../helpers/rule-tester';

function deploy(container: string, opts: { served?: boolean; annotations?: string } = {}): string {
  const svc =
    opts.served === false
      ? ''
      : `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
`;
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${opts.annotations ? `      annotations: {${opts.annotations}}\n` : ''}    spec:
      containers:
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080}, {name: grpc, containerPort: 9090}]
${container}
${svc}`;
}

const probes = (live: string, ready: string) => `        livenessProbe: ${live}\n        readinessProbe: ${ready}`;
const C0 = '/spec/template/spec/containers/0';

ruleTester(livenessEqualsReadiness, {
  valid: [
    { name: 'same endpoint, liveness failureThreshold doubled', yaml: deploy(probes('{httpGet: {path: /healthz, port: http}, failureThreshold: 6}', '{httpGet: {path: /healthz, port: http}}')) },
    { name: 'same endpoint, longer liveness period', yaml: deploy(probes('{httpGet: {path: /healthz, port: http}, periodSeconds: 20}', '{httpGet: {path: /healthz, port: http}}')) },
    { name: 'different paths /livez and /readyz', yaml: deploy(probes('{httpGet: {path: /livez, port: http}}', '{httpGet: {path: /readyz, port: http}}')) },
    { name: 'different ports', yaml: deploy(probes('{httpGet: {path: /healthz, port: 8081}}', '{httpGet: {path: /healthz, port: 8080}}')) },
    { name: 'different schemes', yaml: deploy(probes('{httpGet: {path: /healthz, port: http, scheme: HTTPS}}', '{httpGet: {path: /healthz, port: http}}')) },
    { name: 'different headers', yaml: deploy(probes('{httpGet: {path: /healthz, port: http, httpHeaders: [{name: X-Probe, value: live}]}}', '{httpGet: {path: /healthz, port: http, httpHeaders: [{name: X-Probe, value: ready}]}}')) },
    { name: 'different handler types', yaml: deploy(probes('{tcpSocket: {port: http}}', '{httpGet: {path: /healthz, port: http}}')) },
    { name: 'different exec commands', yaml: deploy(probes('{exec: {command: [alive]}}', '{exec: {command: [ready]}}')) },
    { name: 'different grpc service', yaml: deploy(probes('{grpc: {port: 9090, service: liveness}}', '{grpc: {port: 9090}}')) },
    { name: 'only a liveness probe on a neutral path', yaml: deploy('        livenessProbe: {httpGet: {path: /healthz, port: http}}') },
    { name: 'only a readiness probe on /ready', yaml: deploy('        readinessProbe: {httpGet: {path: /ready, port: http}}') },
    { name: 'a path that merely starts like a listed one', yaml: deploy('        livenessProbe: {httpGet: {path: /readyness-of-process, port: http}}') },
    {
      name: 'dependency path list is configurable',
      yaml: deploy('        livenessProbe: {httpGet: {path: /ready, port: http}}'),
      params: { dependencyCheckPaths: ['/deep'] },
    },
  ],
  invalid: [
    {
      name: 'identical httpGet and default windows',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: 8080}}', '{httpGet: {path: /healthz, port: 8080}}')),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe`, message: 'container "app": livenessProbe and readinessProbe run the same check (httpGet /healthz on port 8080) with the same failure window (liveness 3 x 10s = 30s, readiness 3 x 10s = 30s)' }],
    },
    {
      name: 'named port "http" equals 8080',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: http}}', '{httpGet: {path: /healthz, port: 8080}}')),
      findings: [{ severity: 'warning', message: 'set livenessProbe.failureThreshold to at least 6' }],
    },
    {
      name: 'same window product with different factors (6 x 5s = 3 x 10s)',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: http}, failureThreshold: 6, periodSeconds: 5}', '{httpGet: {path: /healthz, port: http}}')),
      findings: [{ severity: 'warning', message: 'liveness 6 x 5s = 30s, readiness 3 x 10s = 30s' }],
    },
    {
      name: 'query string ignored, explicit default scheme and timeout differences do not matter',
      yaml: deploy(probes('{httpGet: {path: "/healthz?full=1", port: http, scheme: HTTP}, timeoutSeconds: 5}', '{httpGet: {path: /healthz, port: http}}')),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'identical exec',
      yaml: deploy(probes('{exec: {command: [sh, -c, check.sh]}}', '{exec: {command: [sh, -c, check.sh]}}')),
      findings: [{ severity: 'warning', message: 'exec ["sh","-c","check.sh"]' }],
    },
    {
      name: 'identical tcpSocket, named and numeric',
      yaml: deploy(probes('{tcpSocket: {port: http}}', '{tcpSocket: {port: 8080}}')),
      findings: [{ severity: 'warning', message: 'tcpSocket on port "http" (8080)' }],
    },
    {
      name: 'identical grpc',
      yaml: deploy(probes('{grpc: {port: 9090}, periodSeconds: 5}', '{grpc: {port: 9090}, periodSeconds: 5}')),
      findings: [{ severity: 'warning', message: 'grpc on port 9090' }],
    },
    {
      name: 'liveness on /readyz: dependency-check path',
      yaml: deploy(probes('{httpGet: {path: /readyz, port: http}, failureThreshold: 6}', '{httpGet: {path: /readyz, port: http}}')),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe/httpGet/path`, message: 'container "app": livenessProbe checks /readyz, a path that suggests readiness or dependency checks' }],
    },
    {
      name: 'liveness on /health/deep/ (trailing slash, query) without readiness',
      yaml: deploy('        livenessProbe: {httpGet: {path: "/health/deep/?x=1", port: http}}'),
      findings: [{ severity: 'warning', message: 'keep /health/deep for the readinessProbe' }],
    },
    {
      name: 'equal probes on /ready: one finding, equal-probes takes precedence',
      yaml: deploy(probes('{httpGet: {path: /ready, port: http}}', '{httpGet: {path: /ready, port: http}}')),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe`, message: 'run the same check' }],
    },
    {
      name: 'custom dependencyCheckPaths',
      yaml: deploy('        livenessProbe: {httpGet: {path: /status/all, port: http}}'),
      params: { dependencyCheckPaths: ['/status/all'] },
      findings: [{ severity: 'warning', message: '/status/all' }],
    },
    {
      name: 'not served: still reported (a probe problem, not a traffic one)',
      yaml: deploy(probes('{tcpSocket: {port: 8080}}', '{tcpSocket: {port: 8080}}'), { served: false }),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'served hint "false": still reported',
      yaml: deploy(probes('{tcpSocket: {port: 8080}}', '{tcpSocket: {port: 8080}}'), { annotations: '"kubegrace.dev/served": "false"' }),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'native sidecar',
      yaml: `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {kubegrace.dev/served: "true"}}
    spec:
      initContainers:
      - {name: proxy, image: envoy:1, restartPolicy: Always, livenessProbe: {httpGet: {path: /ready, port: 15021}}, readinessProbe: {httpGet: {path: /ready, port: 15021}}}
      containers:
      - {name: app, image: web:1}
`,
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/initContainers/0/livenessProbe', message: 'container "proxy"' }],
    },
    {
      name: 'suppressed by kubegrace.dev/ignore',
      yaml: deploy(probes('{tcpSocket: {port: 8080}}', '{tcpSocket: {port: 8080}}'), { annotations: '"kubegrace.dev/ignore": "liveness-equals-readiness"' }),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});
