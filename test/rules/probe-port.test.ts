import { probePort } from '../../lib/rules/probe-port';
import { servedDeployment } from '../helpers/manifests';
import { ruleTester, runRule } from '../helpers/rule-tester';

function deploy(containers: string, opts: { served?: boolean; annotations?: string } = {}): string {
  return servedDeployment(containers, opts);
}

const app = (probes: string, ports = '[{name: http, containerPort: 8080}]') => `      containers:
      - name: app
        image: web:1
        ports: ${ports}
${probes}`;
const C0 = '/spec/template/spec/containers/0';

/**
 * kubernetes-csi/csi-driver-smb charts/latest since 8c342afd0 ("fix: Drop host: localhost in probes to better fulfill PSA"):
 * a hostNetwork DaemonSet whose livenessprobe sidecar listens on 127.0.0.1:29643 only, while the
 * driver's liveness probe has no host (`probe`: the driver's livenessProbe handler).
 */
const smbNode = (probe: string, endpoint = '127.0.0.1:29643', hostNetwork = true) => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: csi-smb-node, namespace: kube-system}
spec:
  selector: {matchLabels: {app: csi-smb-node}}
  template:
    metadata: {labels: {app: csi-smb-node}}
    spec:
${hostNetwork ? '      hostNetwork: true\n' : ''}      containers:
      - name: liveness-probe
        image: registry.k8s.io/sig-storage/livenessprobe:v2.19.0
        args: [--csi-address=/csi/csi.sock, --probe-timeout=3s, "--http-endpoint=${endpoint}"]
      - name: smb
        image: registry.k8s.io/sig-storage/smbplugin:v1.20.1
        args: [--endpoint=unix:///csi/csi.sock]
        livenessProbe:
          failureThreshold: 5
          ${probe}
          initialDelaySeconds: 30
          timeoutSeconds: 10
          periodSeconds: 30
`;

/** A kubebuilder manager whose health probes listen at `bind` (controller-runtime --health-probe-bind-address). */
const manager = (bind: string, probes: string, ports = '[{name: metrics, containerPort: 8080}]', extra = '') =>
  deploy(`${extra}      containers:
      - name: manager
        image: example/operator:1
        command: [/manager]
        args: [--health-probe-bind-address=${bind}, --metrics-bind-address=:8080]
        ports: ${ports}
${probes}`);

/**
 * The community-charts mlflow chart with oauth2Proxy and serverHost 127.0.0.1 (review round 34, report
 * p51 item 6): `mlflow server --host=127.0.0.1 --port=5000` beside an oauth2-proxy, probes on the
 * named port "mlflow" without a host. `args`: mlflow's args after `server`; `ports`: its ports.
 */
const mlflow = (args: string, ports = '[{name: mlflow, containerPort: 5000}]', extra = '') =>
  deploy(`      containers:
      - name: mlflow
        image: burakince/mlflow:3.15.1
        command: ["mlflow"]
        args: [server, ${args}, --backend-store-uri=postgresql://]
        ports: ${ports}
        livenessProbe: {httpGet: {path: /health, port: mlflow}, periodSeconds: 30, failureThreshold: 5}
        readinessProbe: {httpGet: {path: /health, port: mlflow}, periodSeconds: 30, failureThreshold: 5}
${extra}      - name: oauth2-proxy
        image: quay.io/oauth2-proxy/oauth2-proxy:v7.15.4
        ports: [{name: oauth2-proxy, containerPort: 4180}]
        args: [--http-address=0.0.0.0:4180, --upstream=http://127.0.0.1:5000]
`);

/**
 * Kubecost cost-analyzer 2.3.3 (cost-analyzer-deployment-template.yaml:1209-1224; review round 35,
 * report p57 item 5): the nginx frontend probes 9003, the port cost-model declares and probes itself.
 * `frontend`: the frontend's probes; `model`: cost-model's (its ports: tcp-model 9003, tcp-frontend 9090).
 */
const kubecost = (
  frontend = '        readinessProbe: {httpGet: {path: /healthz, port: 9003}, periodSeconds: 5, failureThreshold: 3}\n        livenessProbe: {httpGet: {path: /healthz, port: 9003}, periodSeconds: 5, failureThreshold: 6}\n',
  model = '        readinessProbe: {httpGet: {path: /healthz, port: 9003}, periodSeconds: 10, failureThreshold: 3}\n        livenessProbe: {httpGet: {path: /healthz, port: 9003}, periodSeconds: 10, failureThreshold: 200}\n',
) =>
  deploy(`      containers:
      - name: cost-model
        image: gcr.io/kubecost1/cost-model:prod-2.3.3
        ports: [{name: tcp-model, containerPort: 9003}, {name: tcp-frontend, containerPort: 9090}]
${model}      - name: cost-analyzer-frontend
        image: gcr.io/kubecost1/frontend:prod-2.3.3
${frontend}`);
const C1 = '/spec/template/spec/containers/1';

/** The Datadog Cluster Agent (review round 35, report p56 item 2): DD_HEALTH_PORT sets the port its probes use. */
const clusterAgent = (env: string) =>
  deploy(`      containers:
      - name: cluster-agent
        image: gcr.io/datadoghq/cluster-agent:7.81.1
        env: ${env}
        ports: [{name: agentport, containerPort: 5005, protocol: TCP}]
        livenessProbe: {httpGet: {path: /live, port: 5556, scheme: HTTP}}
        readinessProbe: {httpGet: {path: /ready, port: 5556, scheme: HTTP}}
`);

ruleTester(probePort, {
  valid: [
    // Review round 35, report p56 item 2: the Datadog Agent serves its health probe on health_port
    // (env DD_HEALTH_PORT), set beside the probes: not a typo.
    { name: "an undeclared probe port that the container's env sets as its listen port (Datadog DD_HEALTH_PORT=5556)", yaml: clusterAgent('[{name: DD_HEALTH_PORT, value: "5556"}]') },
    { name: "an undeclared probe port that the container's args set (--health-port 5556 as two elements)", yaml: clusterAgent('[]').replace('        env: []\n', '        args: [--health-port, "5556"]\n') },
    // Review round 35, report p57 item 5: a port of another container, probed by readiness only
    // (the pod is Ready only when every container is), or by a container that declares no such port.
    { name: "a readiness probe on a port that another container declares and probes itself: not the liveness warning", yaml: kubecost('        readinessProbe: {httpGet: {path: /healthz, port: 9003}}\n') },
    { name: 'a liveness probe on a port another container declares but does not probe itself (no evidence it serves there)', yaml: kubecost(undefined, '') },
    { name: 'a liveness probe on a port another container probes itself, with a host: another host', yaml: kubecost('        livenessProbe: {httpGet: {host: 10.0.0.1, path: /healthz, port: 9003}}\n') },
    {
      name: "the CSI livenessprobe sidecar declares and probes its own port: the driver's liveness there is the design",
      yaml: deploy(`      containers:
      - name: liveness-probe
        image: registry.k8s.io/sig-storage/livenessprobe:v2.19.0
        args: [--csi-address=/csi/csi.sock]
        ports: [{name: healthz, containerPort: 9808}]
        livenessProbe: {httpGet: {path: /healthz, port: healthz}}
      - name: plugin
        image: example/csi-plugin:1
        livenessProbe: {httpGet: {path: /healthz, port: 9808}}
`),
    },
    // Separate host and port flags (review round 34, report p51 item 6).
    { name: 'mlflow --host=0.0.0.0 --port=5000 (all interfaces)', yaml: mlflow('--host=0.0.0.0, --port=5000') },
    { name: 'mlflow --host=127.0.0.1 on another port than the probed one', yaml: mlflow('--host=127.0.0.1, --port=5001', '[{name: mlflow, containerPort: 5000}, {name: alt, containerPort: 5001}]') },
    { name: 'a loopback host flag whose port the container does not declare (a client: --host/--port of a server it connects to)', yaml: mlflow('--host=127.0.0.1, --port=6379') },
    { name: 'a later host flag overrides the loopback one: not every host flag is loopback', yaml: mlflow('--host=127.0.0.1, --port=5000, --host=0.0.0.0') },
    { name: 'a host flag without a port flag', yaml: mlflow('-h, 127.0.0.1') },
    { name: 'loopback flags only inside a shell script (pg_isready -h 127.0.0.1 -p 5000 is a client)', yaml: mlflow('--host=0.0.0.0, --port=5000, "sh -c \'pg_isready -h 127.0.0.1 -p 5000\'"') },
    { name: 'the probe sets host: 127.0.0.1 under hostNetwork', yaml: mlflow('--host=127.0.0.1, --port=5000', undefined, '').replace(/port: mlflow\}/g, 'port: mlflow, host: 127.0.0.1}').replace('      containers:', '      hostNetwork: true\n      containers:') },
    {
      // cert-manager/trust-manager deploy/charts: args --readiness-probe-port=6060, readinessProbe on 6060 undeclared.
      name: 'an undeclared probe port that a --<name>-probe-port flag names (trust-manager --readiness-probe-port=6060)',
      yaml: deploy(`      containers:
      - name: trust-manager
        image: quay.io/jetstack/trust-manager:v0.12.0
        args: [--readiness-probe-port=6060, --readiness-probe-path=/readyz, --webhook-port=6443]
        ports: [{name: webhook, containerPort: 6443}]
        readinessProbe: {httpGet: {path: /readyz, port: 6060}}
`),
    },
    {
      // Review round 14 (csi-driver-smb, juicefs): the kubernetes-csi livenessprobe sidecar serves /healthz for the driver.
      name: "the CSI livenessprobe sidecar's --http-endpoint port, probed by the driver container beside it",
      yaml: deploy(`      containers:
      - name: liveness-probe
        image: registry.k8s.io/sig-storage/livenessprobe:v2.19.0
        args: [--csi-address=/csi/csi.sock, --http-endpoint=:29642]
      - name: plugin
        image: example/csi-plugin:1
        ports: [{name: metrics, containerPort: 29644}]
        livenessProbe: {httpGet: {path: /healthz, port: 29642}}
`),
    },
    {
      name: "the CSI livenessprobe sidecar's --health-port (older releases)",
      yaml: deploy(`      containers:
      - name: plugin
        image: example/csi-plugin:1
        ports: [{name: metrics, containerPort: 29644}]
        livenessProbe: {httpGet: {path: /healthz, port: 9808}}
      - name: liveness-probe
        image: registry.k8s.io/sig-storage/livenessprobe:v2.12.0
        args: [--csi-address=/csi/csi.sock, --health-port=9808]
`),
    },
    {
      // Review round 19 (the OpenTelemetry operator's chart: --health-probe-addr=:8081).
      name: 'an undeclared probe port that the OpenTelemetry operator spelling --health-probe-addr names',
      yaml: deploy(`      containers:
      - name: manager
        image: ghcr.io/open-telemetry/opentelemetry-operator/opentelemetry-operator:0.119.0
        args: [--metrics-addr=0.0.0.0:8080, --health-probe-addr=:8081]
        ports: [{name: metrics, containerPort: 8080}]
        livenessProbe: {httpGet: {path: /healthz, port: 8081}}
`),
    },
    {
      // rabbitmq/cluster-operator config/manager/manager.yaml; the kubebuilder scaffold.
      name: 'an undeclared probe port that a listen address in args names (controller-runtime --health-probe-bind-address=:8081)',
      yaml: deploy(`      containers:
      - name: manager
        image: ghcr.io/rabbitmq/cluster-operator:2.12.0
        command: [/manager]
        args: [--health-probe-bind-address=:8081, --metrics-bind-address=:8080]
        ports: [{name: metrics, containerPort: 8080}]
        readinessProbe: {httpGet: {path: /readyz, port: 8081}}
`),
    },
    { name: 'the same with a host', yaml: deploy(`      containers:
      - name: manager
        image: ghcr.io/rabbitmq/cluster-operator:2.12.0
        command: [/manager]
        args: [--health-probe-bind-address=0.0.0.0:8081]
        ports: [{name: metrics, containerPort: 8080}]
        readinessProbe: {httpGet: {path: /readyz, port: 8081}}
`) },
    {
      // Review round 13: kueue's chart sets the health port in the manager's config file, read with --config.
      name: 'an undeclared probe port that the manager\'s config file names (healthProbeBindAddress, a ConfigMap of the input)',
      yaml: `apiVersion: v1
kind: ConfigMap
metadata: {name: mgr-config}
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta1
    kind: Configuration
    health:
      healthProbeBindAddress: :8081
---
${deploy(`      containers:
      - name: manager
        image: registry.k8s.io/kueue/kueue:v0.14.1
        command: [/manager]
        args: [--config=/controller_manager_config.yaml]
        ports: [{name: webhook-server, containerPort: 9443}]
        readinessProbe: {httpGet: {path: /readyz, port: 8081}}
        volumeMounts: [{name: cfg, mountPath: /controller_manager_config.yaml, subPath: controller_manager_config.yaml}]
      volumes: [{name: cfg, configMap: {name: mgr-config}}]
`)}`,
    },
    // A listen flag bound to a loopback address (review: csi-driver-smb since 8c342afd0).
    { name: 'loopback-bound port probed with host: 127.0.0.1 under hostNetwork (the repair of the csi-driver-smb shape)', yaml: smbNode('httpGet: {host: 127.0.0.1, path: /healthz, port: 29643}') },
    { name: 'the sidecar listens on all interfaces (--http-endpoint=:29643)', yaml: smbNode('httpGet: {path: /healthz, port: 29643}', ':29643') },
    { name: 'the manager listens on 0.0.0.0:8081', yaml: manager('0.0.0.0:8081', '        readinessProbe: {httpGet: {path: /readyz, port: 8081}}') },
    { name: 'a probe on another port than the loopback-bound one', yaml: manager('127.0.0.1:8081', '        readinessProbe: {httpGet: {path: /readyz, port: 8080}}') },
    {
      name: 'a tcpSocket probe with host: 127.0.0.1 under hostNetwork',
      yaml: manager('localhost:8081', '        livenessProbe: {tcpSocket: {host: 127.0.0.1, port: 8081}}', '[{name: health, containerPort: 8081}]', '      hostNetwork: true\n'),
    },
    { name: 'a named port that resolves to another port', yaml: manager('127.0.0.1:8081', '        readinessProbe: {httpGet: {path: /metrics, port: metrics}}') },
    { name: 'named port declared', yaml: deploy(app('        readinessProbe: {httpGet: {path: /readyz, port: http}}')) },
    { name: 'numeric port declared', yaml: deploy(app('        livenessProbe: {tcpSocket: {port: 8080}}')) },
    { name: 'numeric port, container declares no ports at all', yaml: deploy(app('        livenessProbe: {httpGet: {path: /healthz, port: 9000}}', '[]')) },
    { name: 'httpGet with an explicit host checks another host', yaml: deploy(app('        livenessProbe: {httpGet: {host: db.example.com, path: /, port: admin}}')) },
    { name: 'exec probe has no port', yaml: deploy(app('        livenessProbe: {exec: {command: [check]}}')) },
    { name: 'grpc port declared', yaml: deploy(app('        readinessProbe: {grpc: {port: 9090}}', '[{name: grpc, containerPort: 9090}]')) },
    {
      name: 'the catalog knows the port as the program\'s health check port (ingress-nginx /healthz on 10254), undeclared as in the chart',
      yaml: deploy(`      containers:
      - name: controller
        image: registry.k8s.io/ingress-nginx/controller:v1.11.2@sha256:d5f8217feeac4887cb1ed21f27c2674e58be06bd8f5184cacea2a69abaf78dce
        ports: [{name: http, containerPort: 80}, {name: https, containerPort: 443}]
        livenessProbe: {httpGet: {path: /healthz, port: 10254, scheme: HTTP}}
        readinessProbe: {httpGet: {path: /healthz, port: 10254, scheme: HTTP}}
`),
    },
    {
      name: 'the catalog knows the port (OpenTelemetry Collector health_check on 13133, any path)',
      yaml: deploy(`      containers:
      - name: opentelemetry-collector
        image: otel/opentelemetry-collector-k8s:0.111.0
        ports: [{name: otlp, containerPort: 4317}]
        livenessProbe: {httpGet: {path: /, port: 13133}}
`),
    },
    {
      name: 'the catalog knows the port (MetalLB controller health probes on 17472, undeclared as in metallb-native.yaml)',
      yaml: deploy(`      containers:
      - name: controller
        image: quay.io/metallb/controller:main
        ports: [{name: monitoring, containerPort: 7472}, {name: webhook-server, containerPort: 9443}]
        livenessProbe: {httpGet: {path: /healthz, port: 17472}}
        readinessProbe: {httpGet: {path: /readyz, port: 17472}}
`),
    },
    {
      name: "the catalog knows the port (Logstash's API root / on 9600, api.http.port's default; catalog logstash-api-root), undeclared",
      yaml: deploy(`      containers:
      - name: logstash
        image: docker.elastic.co/logstash/logstash:8.5.1
        ports: [{name: beats, containerPort: 5044}]
        livenessProbe: {httpGet: {path: /, port: 9600}}
`),
    },
  ],
  invalid: [
    {
      // Review round 35, report p57 item 5 (kubecost): nginx's liveness restarts it whenever cost-model is slow.
      name: 'a liveness probe on a port that another container declares and probes itself: warning naming it',
      yaml: kubecost(),
      findings: [
        {
          severity: 'warning',
          pointer: `${C1}/livenessProbe/httpGet/port`,
          message:
            'container "cost-analyzer-frontend": livenessProbe httpGet.port 9003 is a port of container "cost-model", which declares it and probes it itself, not of this container (it declares no ports): the kubelet sends a probe without a host to the pod\'s IP, so this probe checks "cost-model", and whenever "cost-model" does not answer (a slow start, a stall) the kubelet restarts "cost-analyzer-frontend", which does not fix "cost-model", and it never checks "cost-analyzer-frontend" itself',
        },
      ],
    },
    {
      name: 'the other container probes the port by its name; tcpSocket and grpc liveness handlers too',
      yaml: kubecost('        livenessProbe: {tcpSocket: {port: 9003}}\n', '        readinessProbe: {httpGet: {path: /healthz, port: tcp-model}}\n'),
      findings: [{ severity: 'warning', pointer: `${C1}/livenessProbe/tcpSocket/port`, message: 'tcpSocket.port 9003 is a port of container "cost-model"' }],
    },
    {
      name: 'the probing container declares ports of its own: the warning, not also the info',
      yaml: kubecost('        ports: [{name: http, containerPort: 8080}]\n        livenessProbe: {grpc: {port: 9003}}\n        readinessProbe: {httpGet: {path: /, port: 9003}}\n'),
      findings: [
        { severity: 'warning', pointer: `${C1}/livenessProbe/grpc/port`, message: 'livenessProbe grpc.port 9003 is a port of container "cost-model"' },
        { severity: 'info', pointer: `${C1}/readinessProbe/httpGet/port`, message: 'readinessProbe httpGet.port 9003 is not declared by the container' },
      ],
    },
    {
      // A *_PORT beside a *_HOST of another host is a port the container dials (listen-ports.ts dialedPort).
      name: 'an undeclared probe port that the env names only as a port it connects to: info',
      yaml: clusterAgent('[{name: DB_HOST, value: postgres}, {name: DB_PORT, value: "5556"}]'),
      findings: [{ severity: 'info', message: 'livenessProbe and readinessProbe httpGet.port are 5556' }],
    },
    {
      // review round 34, report p51 item 6: the chart's README advice with oauth2-proxy.
      name: 'mlflow --host=127.0.0.1 --port=5000, liveness and readiness on the named port: error, never Ready and restarted in a loop',
      yaml: mlflow('--host=127.0.0.1, --port=5000'),
      findings: [
        {
          severity: 'error',
          pointer: `${C0}/livenessProbe/httpGet/port`,
          message:
            'container "mlflow": livenessProbe and readinessProbe httpGet.port are "mlflow" (5000), a port the container itself listens on only at a loopback address (--host=127.0.0.1 --port=5000): without a host the kubelet probes the pod\'s IP, where nothing accepts on that port, so the probes fail every time (a refused connection is a failure, not an error: the pod never becomes Ready, and the kubelet restarts the container in a loop); make it listen on all interfaces (--host=0.0.0.0): the kubelet cannot reach the pod\'s loopback, and host: 127.0.0.1 would probe the node\'s own loopback',
        },
      ],
    },
    {
      name: 'the flags written -h localhost -p 5000 (separate elements)',
      yaml: mlflow('-h, localhost, -p, "5000"'),
      findings: [{ severity: 'error', message: 'listens on only at a loopback address (-h localhost -p 5000)' }],
    },
    {
      name: '--bind [::1] --port 5000 under hostNetwork: error advising httpGet.host ::1',
      yaml: mlflow('--bind, "[::1]", --port, "5000"').replace('      containers:', '      hostNetwork: true\n      containers:'),
      findings: [{ severity: 'error', message: 'set httpGet.host: ::1 (under hostNetwork the kubelet shares the node\'s loopback), or make it listen on all interfaces (--bind=0.0.0.0)' }],
    },
    {
      name: '--listen-address=127.0.0.1 --port=5000, readiness only: never Ready',
      yaml: mlflow('--listen-address=127.0.0.1, --port=5000').replace(/        livenessProbe: .*\n/, ''),
      findings: [{ severity: 'error', pointer: `${C0}/readinessProbe/httpGet/port`, message: '(a refused connection is a failure, not an error: the pod never becomes Ready); make it listen on all interfaces (--listen-address=0.0.0.0)' }],
    },
    {
      // The shape of kubernetes-csi/csi-driver-smb charts/latest since 8c342afd0: the driver restarts every few minutes on every node.
      name: 'hostNetwork: the livenessprobe sidecar listens on 127.0.0.1 only, the driver probes it without a host: error advising host: 127.0.0.1',
      yaml: smbNode('httpGet: {path: /healthz, port: 29643}'),
      findings: [
        {
          severity: 'error',
          pointer: '/spec/template/spec/containers/1/livenessProbe/httpGet/port',
          message:
            'container "smb": livenessProbe httpGet.port 29643 is a port container "liveness-probe" listens on only at a loopback address (--http-endpoint=127.0.0.1:29643): without a host the kubelet probes the pod\'s IP (the node\'s IP, hostNetwork: true), where nothing accepts on that port, so the probe fails every time (a refused connection is a failure, not an error: the kubelet restarts the container in a loop); set httpGet.host: 127.0.0.1 (under hostNetwork the kubelet shares the node\'s loopback), or make it listen on all interfaces (--http-endpoint=:29643)',
        },
      ],
    },
    {
      name: 'the same without hostNetwork: error advising to listen on all interfaces',
      yaml: smbNode('httpGet: {path: /healthz, port: 29643}', '127.0.0.1:29643', false),
      findings: [{ severity: 'error', message: 'make it listen on all interfaces (--http-endpoint=:29643): the kubelet cannot reach the pod\'s loopback, and host: 127.0.0.1 would probe the node\'s own loopback' }],
    },
    {
      name: 'a tcpSocket probe without a host, the sidecar on [::1]: error advising tcpSocket.host',
      yaml: smbNode('tcpSocket: {port: 29643}', '[::1]:29643'),
      findings: [{ severity: 'error', pointer: '/spec/template/spec/containers/1/livenessProbe/tcpSocket/port', message: 'set tcpSocket.host: ::1 (under hostNetwork' }],
    },
    {
      name: 'controller-runtime --health-probe-bind-address=127.0.0.1:8081 without hostNetwork, readinessProbe on 8081: error advising all interfaces',
      yaml: manager('127.0.0.1:8081', '        readinessProbe: {httpGet: {path: /readyz, port: 8081}}'),
      findings: [
        {
          severity: 'error',
          pointer: `${C0}/readinessProbe/httpGet/port`,
          message:
            'container "manager": readinessProbe httpGet.port 8081 is a port the container itself listens on only at a loopback address (--health-probe-bind-address=127.0.0.1:8081): without a host the kubelet probes the pod\'s IP, where nothing accepts on that port, so the probe fails every time (a refused connection is a failure, not an error: the pod never becomes Ready); make it listen on all interfaces (--health-probe-bind-address=:8081)',
        },
      ],
    },
    {
      name: 'a named port the container declares as 8081, liveness and readiness: one error naming both',
      yaml: manager('127.0.0.1:8081', '        livenessProbe: {httpGet: {path: /healthz, port: health}}\n        readinessProbe: {httpGet: {path: /readyz, port: 8081}}', '[{name: health, containerPort: 8081}]'),
      findings: [{ severity: 'error', pointer: `${C0}/livenessProbe/httpGet/port`, message: 'container "manager": livenessProbe and readinessProbe httpGet.port are "health" (8081) and 8081, a port the container itself listens on only at a loopback address' }],
    },
    {
      name: 'a grpc probe under hostNetwork: error, grpc has no host',
      yaml: manager('localhost:8081', '        startupProbe: {grpc: {port: 8081}}', undefined, '      hostNetwork: true\n'),
      findings: [{ severity: 'error', pointer: `${C0}/startupProbe/grpc/port`, message: 'grpc has no host: make it listen on all interfaces (--health-probe-bind-address=:8081)' }],
    },
    {
      name: 'a native sidecar probing the loopback-bound port of a main container',
      yaml: deploy(`      initContainers:
      - {name: watcher, image: w:1, restartPolicy: Always, readinessProbe: {httpGet: {path: /healthz, port: 9808}}}
      containers:
      - {name: liveness-probe, image: registry.k8s.io/sig-storage/livenessprobe:v2.19.0, args: ["--http-endpoint=127.0.0.2:9808"]}
`),
      findings: [{ severity: 'error', pointer: '/spec/template/spec/initContainers/0/readinessProbe/httpGet/port', message: 'container "watcher": readinessProbe httpGet.port 9808 is a port container "liveness-probe" listens on only at a loopback address' }],
    },
    {
      name: 'a listen address on another port does not explain the probe port',
      yaml: deploy(`      containers:
      - name: manager
        image: ghcr.io/rabbitmq/cluster-operator:2.12.0
        command: [/manager]
        args: [--health-probe-bind-address=:9440]
        ports: [{name: metrics, containerPort: 8080}]
        readinessProbe: {httpGet: {path: /readyz, port: 8081}}
`),
      findings: [{ severity: 'info', message: 'container "manager": readinessProbe httpGet.port 8081 is not declared by the container' }],
    },
    {
      name: 'named port not declared: error',
      yaml: deploy(app('        readinessProbe: {httpGet: {path: /readyz, port: healthz}}')),
      findings: [
        {
          severity: 'error',
          pointer: `${C0}/readinessProbe/httpGet/port`,
          message:
            'container "app": readinessProbe httpGet.port "healthz" is not a port name of this container (it declares http (8080)): the kubelet cannot resolve it, so every check errors ("probe errored and resulted in unknown state") and the kubelet throws the result away: readiness stays at its initial failure and the pod never becomes Ready (no Service routes to it, and a rollout stalls); use a declared port name or number',
        },
      ],
    },
    {
      // review round 34, report p49 item A: an unresolvable name is a probe error, whose result the
      // kubelet throws away (worker.go doProbe), not a failure: liveness stays Success and never
      // restarts the container (kube-state-metrics with kubeRBACProxy.enabled, readiness removed).
      name: 'named port on a liveness probe only: warning, the liveness check is silently disabled (no restart loop)',
      yaml: deploy(`      containers:
      - name: kube-state-metrics
        image: registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.20.0
        args: [--host=127.0.0.1, --port=9090]
        livenessProbe:
          httpGet: {path: /livez, port: http, scheme: HTTPS}
      - name: kube-rbac-proxy-http
        image: quay.io/brancz/kube-rbac-proxy:v0.22.1
        ports: [{containerPort: 8080, name: http}, {containerPort: 8888, name: http-healthz}]
        readinessProbe: {httpGet: {scheme: HTTPS, port: http-healthz, path: /healthz}}
`),
      findings: [
        {
          severity: 'warning',
          pointer: `${C0}/livenessProbe/httpGet/port`,
          message:
            'container "kube-state-metrics": livenessProbe httpGet.port "http" is not a port name of this container (it declares no ports; "http" is declared by container "kube-rbac-proxy-http", but names resolve per container): the kubelet cannot resolve it, so every check errors ("probe errored and resulted in unknown state") and the kubelet throws the result away: liveness stays at its initial success, so the kubelet never restarts the container, however it hangs: the liveness check is silently disabled; use a declared port name or number, or declare {name: http, containerPort: N}',
        },
      ],
    },
    {
      name: 'named port on a startup probe: error, the container never counts as started (not a restart loop)',
      yaml: deploy(app('        startupProbe: {httpGet: {path: /healthz, port: health}}\n        livenessProbe: {httpGet: {path: /healthz, port: http}}')),
      findings: [{ severity: 'error', pointer: `${C0}/startupProbe/httpGet/port`, message: 'the container never counts as started, so its liveness and readiness probes never run and the pod never becomes Ready, nor is it restarted: it stays not Ready for good' }],
    },
    {
      name: 'the same bad name on liveness and readiness: one error, which says liveness never restarts either',
      yaml: deploy(app('        livenessProbe: {httpGet: {path: /livez, port: metrics}}\n        readinessProbe: {httpGet: {path: /readyz, port: metrics}}')),
      findings: [{ severity: 'error', pointer: `${C0}/livenessProbe/httpGet/port`, message: 'the pod never becomes Ready (no Service routes to it, and a rollout stalls), and liveness stays at its initial success, so it never restarts the container' }],
    },
    {
      name: 'named tcpSocket port, container without ports: error',
      yaml: deploy(app('        startupProbe: {tcpSocket: {port: http}}', '[]')),
      findings: [{ severity: 'error', pointer: `${C0}/startupProbe/tcpSocket/port`, message: 'it declares no ports' }],
    },
    {
      name: 'named port declared by another container only: reported (lookup is per container; a warning on a liveness probe)',
      yaml: deploy(`${app('        livenessProbe: {httpGet: {path: /healthz, port: admin}}')}\n      - name: sidecar
        image: s:1
        ports: [{name: admin, containerPort: 9901}]
`),
      findings: [{ severity: 'warning', message: '"admin" is declared by container "sidecar", but names resolve per container' }],
    },
    {
      name: 'quoted numeric string: error',
      yaml: deploy(app('        livenessProbe: {httpGet: {path: /healthz, port: "8080"}}')),
      findings: [{ severity: 'error', message: 'write the number without quotes: port: 8080' }],
    },
    {
      name: 'numeric port not declared: info',
      yaml: deploy(app('        livenessProbe: {httpGet: {path: /healthz, port: 10254}}')),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe/httpGet/port`, message: 'container "app": livenessProbe httpGet.port 10254 is not declared by the container (it declares http (8080))' }],
    },
    {
      name: 'a program the catalog knows, on another port or path than its health check: info',
      yaml: deploy(`      containers:
      - name: controller
        image: registry.k8s.io/ingress-nginx/controller:v1.11.2
        ports: [{name: http, containerPort: 80}]
        livenessProbe: {httpGet: {path: /healthz, port: 10255}}
        readinessProbe: {httpGet: {path: /metrics, port: 10254}}
`),
      findings: [
        { severity: 'info', pointer: `${C0}/livenessProbe/httpGet/port`, message: 'livenessProbe httpGet.port 10255 is not declared' },
        { severity: 'info', pointer: `${C0}/readinessProbe/httpGet/port`, message: 'readinessProbe httpGet.port 10254 is not declared' },
      ],
    },
    {
      name: 'the health check port of a known program, on another image: info',
      yaml: deploy(app('        livenessProbe: {httpGet: {path: /, port: 13133}}')),
      findings: [{ severity: 'info', message: 'livenessProbe httpGet.port 13133 is not declared' }],
    },
    {
      name: 'numeric port declared by another container: info naming it',
      yaml: deploy(`${app('        readinessProbe: {tcpSocket: {port: 9901}}')}\n      - name: sidecar
        image: s:1
        ports: [{containerPort: 9901}]
`),
      findings: [{ severity: 'info', message: 'container "sidecar" declares it, so the probe checks that container' }],
    },
    {
      name: 'liveness and readiness on the same undeclared port: one finding naming both',
      yaml: deploy(app('        livenessProbe: {httpGet: {path: /healthz, port: 10254}}\n        readinessProbe: {httpGet: {path: /readyz, port: 10254}}')),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe/httpGet/port`, message: 'container "app": livenessProbe and readinessProbe httpGet.port are 10254, which is not declared by the container' }],
    },
    {
      name: 'same bad name through different handler types: one finding naming each field',
      yaml: deploy(app('        livenessProbe: {tcpSocket: {port: admin}}\n        readinessProbe: {httpGet: {path: /readyz, port: admin}}')),
      findings: [{ severity: 'error', pointer: `${C0}/livenessProbe/tcpSocket/port`, message: 'livenessProbe tcpSocket.port and readinessProbe httpGet.port are "admin", which is not a port name of this container' }],
    },
    {
      name: 'grpc port not declared: info',
      yaml: deploy(app('        livenessProbe: {grpc: {port: 9090}}')),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe/grpc/port` }],
    },
    {
      name: 'every probe of the container is checked',
      yaml: deploy(app('        livenessProbe: {httpGet: {path: /healthz, port: live}}\n        readinessProbe: {httpGet: {path: /readyz, port: ready}}\n        startupProbe: {tcpSocket: {port: 7000}}')),
      findings: [{ severity: 'warning', message: 'livenessProbe' }, { severity: 'error', message: 'readinessProbe' }, { severity: 'info', message: 'startupProbe' }],
    },
    {
      name: 'native sidecar probe',
      yaml: deploy(`      initContainers:
      - {name: proxy, image: envoy:1, restartPolicy: Always, ports: [{name: admin, containerPort: 15000}], readinessProbe: {httpGet: {path: /ready, port: status}}}
      containers:
      - {name: app, image: web:1}
`),
      findings: [{ severity: 'error', pointer: '/spec/template/spec/initContainers/0/readinessProbe/httpGet/port', message: 'container "proxy"' }],
    },
    {
      name: 'not served: still reported',
      yaml: deploy(app('        readinessProbe: {httpGet: {path: /readyz, port: healthz}}'), { served: false }),
      findings: [{ severity: 'error' }],
    },
    {
      name: 'served hint "false": still reported',
      yaml: deploy(app('        readinessProbe: {httpGet: {path: /readyz, port: healthz}}'), { annotations: '"kubegrace.dev/served": "false"' }),
      findings: [{ severity: 'error' }],
    },
    {
      name: 'suppressed by kubegrace.dev/ignore',
      yaml: deploy(app('        readinessProbe: {httpGet: {path: /readyz, port: healthz}}'), { annotations: '"kubegrace.dev/ignore": "probe-port"' }),
      findings: [{ severity: 'error', suppressed: true }],
    },
  ],
});

test('the config file is read only when a ConfigMap of the input provides it: without it the undeclared port stays the info', () => {
  const manager = `apiVersion: apps/v1
kind: Deployment
metadata: {name: mgr}
spec:
  selector: {matchLabels: {app: mgr}}
  template:
    metadata: {labels: {app: mgr}}
    spec:
      containers:
      - name: manager
        image: registry.k8s.io/kueue/kueue:v0.14.1
        args: [--config=/controller_manager_config.yaml]
        ports: [{name: webhook-server, containerPort: 9443}]
        readinessProbe: {httpGet: {path: /readyz, port: 8081}}
        volumeMounts: [{name: cfg, mountPath: /controller_manager_config.yaml, subPath: controller_manager_config.yaml}]
      volumes: [{name: cfg, configMap: {name: mgr-config}}]
`;
  const config = (addr: string) => `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: mgr-config}\ndata:\n  controller_manager_config.yaml: |\n    health:\n      healthProbeBindAddress: ${addr}\n`;
  expect(runRule(probePort, manager).map((f) => f.severity)).toEqual(['info']);
  expect(runRule(probePort, manager + config(':8081'))).toEqual([]);
  expect(runRule(probePort, manager + config('"0.0.0.0:8081"'))).toEqual([]);
  expect(runRule(probePort, manager + config(':9090')).map((f) => f.severity)).toEqual(['info']);
});
