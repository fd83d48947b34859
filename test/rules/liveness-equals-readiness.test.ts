import { livenessEqualsReadiness } from '../../lib/rules/liveness-equals-readiness';
import { ruleTester, runRule } from '../helpers/rule-tester';
import { logstash } from '../helpers/logstash';

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

/** The CloudNativePG chart's operator Deployment (cloudnative-pg 0.29.0): /readyz on the webhook port, HTTPS. */
const cnpg = (args: string, port = 'webhook-server') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: cnpg-cloudnative-pg, namespace: cnpg-system}
spec:
  replicas: 1
  selector: {matchLabels: {app.kubernetes.io/name: cloudnative-pg}}
  template:
    metadata: {labels: {app.kubernetes.io/name: cloudnative-pg}}
    spec:
      containers:
      - name: manager
        image: ghcr.io/cloudnative-pg/cloudnative-pg:1.30.0
        command: [/manager]
        args: ${args}
        ports: [{containerPort: 8080, name: metrics}, {containerPort: 9443, name: webhook-server}]
        livenessProbe: {httpGet: {path: /readyz, port: ${port}, scheme: HTTPS}, initialDelaySeconds: 3}
        readinessProbe: {httpGet: {path: /readyz, port: ${port}, scheme: HTTPS}, initialDelaySeconds: 3}
        startupProbe: {httpGet: {path: /readyz, port: ${port}, scheme: HTTPS}, failureThreshold: 6, periodSeconds: 5}
---
apiVersion: v1
kind: Service
metadata: {name: cnpg-webhook-service, namespace: cnpg-system}
spec:
  selector: {app.kubernetes.io/name: cloudnative-pg}
  ports: [{port: 443, targetPort: webhook-server}]
`;
const C0 = '/spec/template/spec/containers/0';

/** cloudflare/helm-charts cloudflare-tunnel-remote: cloudflared tunnel run, liveness /ready on the metrics port 2000, no Service. */
const cloudflared = (image: string, readiness = false) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: cloudflared, namespace: cloudflare}
spec:
  replicas: 2
  selector: {matchLabels: {app: cloudflared}}
  template:
    metadata: {labels: {app: cloudflared}}
    spec:
      containers:
      - name: cloudflared
        image: ${image}
        args: [tunnel, --no-autoupdate, --metrics, '0.0.0.0:2000', run]
        livenessProbe: {httpGet: {path: /ready, port: 2000}, failureThreshold: 1, initialDelaySeconds: 10, periodSeconds: 10}
${readiness ? '        readinessProbe: {httpGet: {path: /ready, port: 2000}, failureThreshold: 1, initialDelaySeconds: 10, periodSeconds: 10}\n' : ''}`;

/** One role of Cortex, Mimir, Loki or Tempo: identical liveness and readiness /ready on http (the Cortex chart's). */
const role = (image: string, args: string, opts: { command?: boolean } = {}) =>
  deploy(`        ${opts.command ? 'command' : 'args'}: [${args}]\n${probes('{httpGet: {path: /ready, port: http}}', '{httpGet: {path: /ready, port: http}}')}`).replace('image: web:1', `image: ${image}`);
const CORTEX = 'quay.io/cortexproject/cortex:v1.21.1';
const MIMIR = 'grafana/mimir:2.17.0';
const LOKI = 'docker.io/grafana/loki:3.6.11';
const TEMPO = 'docker.io/grafana/tempo:3.0.3';
/** The vault-helm chart's injector (vault-k8s): identical liveness and readiness on /health/ready, HTTPS. */
const injector = (image = 'hashicorp/vault-k8s:1.7.6', path = '/health/ready') => {
  const h = `{httpGet: {path: ${path}, port: 8080, scheme: HTTPS}, failureThreshold: 2, initialDelaySeconds: 5, periodSeconds: 2, successThreshold: 1, timeoutSeconds: 5}`;
  return deploy(`        args: [agent-inject, 2>&1]\n${probes(h, h)}`).replace('image: web:1', `image: ${image}`);
};
/**
 * The scylla-operator chart's webhook server (webhookserver.deployment.yaml): identical liveness and
 * readiness /readyz on 5000, HTTPS (the readiness probe's window: periodSeconds 10, the default).
 */
const scylla = (args: string, opts: { image?: string; command?: string } = {}) => {
  const h = '{httpGet: {path: /readyz, port: 5000, scheme: HTTPS}}';
  return deploy(`${opts.command ? `        command: ${opts.command}\n` : ''}        args: ${args}\n${probes(h, h)}`).replace('image: web:1', `image: ${opts.image ?? 'docker.io/scylladb/scylla-operator:1.17.0'}`);
};
const SCYLLA_WEBHOOK_ARGS = '[run-webhook-server, --loglevel=2, --tls-cert-file=/tmp/k8s-webhook-server/serving-certs/tls.crt, --tls-private-key-file=/tmp/k8s-webhook-server/serving-certs/tls.key, --port=5000]';

/** The 8gears/n8n chart's containers: identical liveness and readiness /healthz on http (5678). */
const n8n = (cmd: string, image = 'n8nio/n8n:1.116.2') =>
  deploy(`${cmd}${probes('{httpGet: {path: /healthz, port: http}}', '{httpGet: {path: /healthz, port: http}}')}`).replace('image: web:1', `image: ${image}`);
/** The runatlantis/helm-charts atlantis chart (6.9.3): args [server], identical liveness and readiness on 4141. */
const atlantis = (path = '/healthz', image = 'ghcr.io/runatlantis/atlantis:v0.46.0') => {
  const h = `{httpGet: {path: ${path}, port: 4141, scheme: HTTP}, initialDelaySeconds: 5, periodSeconds: 60, timeoutSeconds: 5, failureThreshold: 5}`;
  return deploy(`        args: [server]\n${probes(h, h)}`).replace('image: web:1', `image: ${image}`);
};
/** The review's VerneMQ StatefulSet (vernemq-health-ping.yaml): identical liveness and readiness on the HTTP listener (api, 8888). */
const vernemq = (path = '/health/ping', image = 'vernemq/vernemq:2.1.1-alpine') => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: vernemq}
spec:
  serviceName: vernemq-headless
  replicas: 3
  selector: {matchLabels: {app: vernemq}}
  template:
    metadata: {labels: {app: vernemq}}
    spec:
      containers:
      - name: vernemq
        image: ${image}
        ports: [{name: mqtt, containerPort: 1883}, {name: api, containerPort: 8888}]
${probes(`{httpGet: {path: ${path}, port: api}}`, `{httpGet: {path: ${path}, port: api}}`)}
---
apiVersion: v1
kind: Service
metadata: {name: vernemq}
spec:
  selector: {app: vernemq}
  ports: [{name: mqtt, port: 1883, targetPort: mqtt}]
`;
/** The community-charts/mlflow chart's tracking server: identical liveness and readiness /health on http. */
const mlflow = (args: string, image = 'burakince/mlflow:3.15.1') => {
  const h = '{httpGet: {path: /health, port: http}, failureThreshold: 5, initialDelaySeconds: 10, periodSeconds: 30, timeoutSeconds: 3}';
  return deploy(`        command: [mlflow]\n        args: ${args}\n${probes(h, h)}`).replace('image: web:1', `image: ${image}`);
};

/** The prometheus-node-exporter chart's DaemonSet (4.56.1): identical liveness and readiness / on the metrics port. */
const nodeExporter = (args = "['--web.listen-address=[$(HOST_IP)]:9100']", h = '{httpGet: {path: /, port: metrics}}') => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: node-exporter, namespace: monitoring}
spec:
  selector: {matchLabels: {app: node-exporter}}
  template:
    metadata: {labels: {app: node-exporter}}
    spec:
      hostNetwork: true
      containers:
      - name: node-exporter
        image: quay.io/prometheus/node-exporter:v1.12.1
        args: ${args}
        ports: [{name: metrics, containerPort: 9100}]
        livenessProbe: ${h}
        readinessProbe: ${h}
`;
/** The prometheus-adapter chart's Deployment (5.3.0): identical liveness and readiness /healthz on https, HTTPS. */
const adapter = (h = '{httpGet: {path: /healthz, port: https, scheme: HTTPS}, initialDelaySeconds: 30, timeoutSeconds: 5}') =>
  deploy(`        args: [/adapter, --secure-port=6443]\n${probes(h, h)}`)
    .replace('image: web:1', 'image: registry.k8s.io/prometheus-adapter/prometheus-adapter:v0.12.0')
    .replace('{name: http, containerPort: 8080}', '{name: https, containerPort: 6443}');

/** The apisix-ingress-controller chart's adc-server container (1.1.2, one replica; review round 33, report p42): /healthz/ready on the status port. */
const adc = (image = 'ghcr.io/api7/adc:0.24.2') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: aic-apisix-ingress-controller, namespace: apisix}
spec:
  replicas: 1
  selector: {matchLabels: {app: aic}}
  template:
    metadata: {labels: {app: aic}}
    spec:
      containers:
      - name: adc-server
        image: ${image}
        args: [server, --listen, "unix:/sockets/adc.sock", --listen-status, "3001"]
        ports: [{name: http-status, containerPort: 3001}]
        livenessProbe: {httpGet: {path: /healthz/ready, port: 3001}, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 10}
        readinessProbe: {httpGet: {path: /healthz/ready, port: 3001}, initialDelaySeconds: 5, periodSeconds: 5}
`;
/** Identical probes on one path of an image (2 replicas, a Service), with an optional env. */
const same = (image: string, path: string, env = '') => deploy(`${env ? `        env: ${env}\n` : ''}${probes(`{httpGet: {path: ${path}, port: http}}`, `{httpGet: {path: ${path}, port: http}}`)}`).replace('image: web:1', `image: ${image}`);

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
    { name: 'identical tcpSocket, named and numeric: a TCP connect cannot check a dependency', yaml: deploy(probes('{tcpSocket: {port: http}}', '{tcpSocket: {port: 8080}}')) },
    { name: 'query strings differ: /healthz?full=true (liveness) vs /healthz (readiness) are two checks', yaml: deploy(probes('{httpGet: {path: "/healthz?full=true", port: http}}', '{httpGet: {path: /healthz, port: http}}')) },
    // A check that a process exists (pgrep, pidof, kill -0) cannot depend on another service, like a TCP connect.
    ...[
      ['[/bin/sh, -c, pgrep -f ^sidekiq]', "bitnami discourse's sidekiq container"],
      ['[pgrep, -x, nginx]', 'pgrep exec\'d directly'],
      ['[/usr/bin/pidof, redis-server]', 'pidof by path'],
      ['[bash, -ec, "pidof nginx > /dev/null 2>&1"]', 'bash -ec, output to /dev/null'],
      ['[sh, -c, "kill -0 $(cat /var/run/app.pid)"]', 'kill -0 of the PID in a file'],
      ['[sh, -c, "kill -0 \\"$(pidof nginx)\\""]', 'kill -0 of a quoted $(pidof)'],
      ['[kill, "-0", "1"]', 'kill -0 1 exec\'d directly'],
      ['[sh, -c, "exec pgrep -f \'sidekiq 7\'"]', 'exec and a quoted pattern'],
      // Review round 35, report p57 item 3: Mailu's postfix, `! master -t` (0 only while the master holds its lock).
      ['[sh, -c, "! /usr/libexec/postfix/master -t"]', "Postfix's `! master -t` (Mailu)"],
      ['[/usr/sbin/postfix, status]', '`postfix status` exec\'d directly'],
      ['[sh, -c, "postfix status > /dev/null 2>&1"]', '`postfix status` as the whole script'],
    ].map(([command, why]) => ({ name: `identical exec that only checks a process exists: ${why}`, yaml: deploy(probes(`{exec: {command: ${command}}}`, `{exec: {command: ${command}}}`)) })),
    {
      name: 'the bitnami discourse sidekiq probes (one replica, failureThreshold 6)',
      yaml: deploy(probes('{exec: {command: [/bin/sh, -c, pgrep -f ^sidekiq]}, initialDelaySeconds: 5, periodSeconds: 10, failureThreshold: 6}', '{exec: {command: [/bin/sh, -c, pgrep -f ^sidekiq]}, initialDelaySeconds: 5, periodSeconds: 10, failureThreshold: 6}'), { served: false }).replace('replicas: 2', 'replicas: 1'),
    },
    {
      name: 'a check the catalog marks process-local (OpenTelemetry collector health_check on 13133)',
      yaml: deploy(probes('{httpGet: {path: /, port: 13133}}', '{httpGet: {path: /, port: 13133}}')).replace('image: web:1', 'image: otel/opentelemetry-collector-k8s:0.138.0'),
    },
    // Review report p29 item 5: collector distributions with the same extension (the SigNoz chart's collector).
    ...['docker.io/signoz/signoz-otel-collector:v0.144.5', 'quay.io/signalfx/splunk-otel-collector:0.120.0', 'public.ecr.aws/aws-observability/aws-otel-collector:v0.43.0'].map((image) => ({
      name: `the same health_check extension in a collector distribution (${image})`,
      yaml: deploy(probes('{httpGet: {path: /, port: 13133}, periodSeconds: 10, failureThreshold: 6}', '{httpGet: {path: /, port: 13133}, periodSeconds: 10, failureThreshold: 6}')).replace('image: web:1', `image: ${image}`),
    })),
    // Catalog entries added after the corpus review of issue 16 (each handler checked in the program's source).
    ...[
      ['Online Boutique paymentservice gRPC health (SERVING unconditionally)', 'us-central1-docker.pkg.dev/online-boutique-ci/microservices-demo/paymentservice:v0.10.6', '{grpc: {port: 9090}}'],
      ['Online Boutique adservice gRPC health', 'us-central1-docker.pkg.dev/online-boutique-ci/microservices-demo/adservice:v0.10.6', '{grpc: {port: 9090}}'],
      ['prometheus-config-reloader /healthz (always 200)', 'ghcr.io/prometheus-operator/prometheus-config-reloader:v0.89.0', '{httpGet: {path: /healthz, port: http}}'],
      ['Kiali /kiali/healthz under the addon web root', 'quay.io/kiali/kiali:v2.27', '{httpGet: {path: /kiali/healthz, port: http}}'],
      ['MetalLB controller health port 17472 (healthz.Ping)', 'quay.io/metallb/controller:v0.15.2', '{httpGet: {path: /healthz, port: 17472}}'],
      ['Bank of Anthos frontend /ready (returns 200 ok unconditionally)', 'us-central1-docker.pkg.dev/bank-of-anthos-ci/bank-of-anthos/frontend:v0.6.10@sha256:076294ce717309f711743fa3b72a9809c7f156edf1c4fa58505fd9f436d65345', '{httpGet: {path: /ready, port: 8080}}'],
      ['redis-ha sentinel_liveness.sh (pings the local sentinel)', 'public.ecr.aws/docker/library/redis:8.2.3-alpine', '{exec: {command: [sh, -c, /health/sentinel_liveness.sh]}}'],
      // Review report p26 item 2 (catalog external-dns-healthz, velero-metrics).
      ['ExternalDNS /healthz (a constant 200)', 'registry.k8s.io/external-dns/external-dns:v0.21.0', '{httpGet: {path: /healthz, port: http}}'],
      ['Velero /metrics (promhttp alone)', 'docker.io/velero/velero:v1.18.1', '{httpGet: {path: /metrics, port: http}, periodSeconds: 30, failureThreshold: 5}'],
    ].map(([name, image, handler]) => ({ name: `catalog: ${name}`, yaml: deploy(probes(handler, handler)).replace('image: web:1', `image: ${image}`) })),
    // node_exporter's landing page and prometheus-adapter's /healthz (catalog node-exporter-landing-page, prometheus-adapter-healthz).
    {
      // The external-dns chart's probes: the same /healthz, a shorter liveness window.
      name: 'catalog: the external-dns chart, /healthz with liveness 2 x 10s and readiness 6 x 10s',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: http}, failureThreshold: 2, periodSeconds: 10}', '{httpGet: {path: /healthz, port: http}, failureThreshold: 6, periodSeconds: 10}')).replace('image: web:1', 'image: registry.k8s.io/external-dns/external-dns:v0.21.0'),
    },
    { name: 'catalog: the prometheus-node-exporter chart, identical / on the metrics port', yaml: nodeExporter() },
    {
      name: 'catalog: the prometheus-node-exporter chart behind kube-rbac-proxy (host 127.0.0.1, port 8100)',
      yaml: nodeExporter("['--web.listen-address=[$(HOST_IP)]:8100']", '{httpGet: {host: 127.0.0.1, path: /, port: 8100}}'),
    },
    { name: 'catalog: the prometheus-adapter chart, identical /healthz on https (HTTPS)', yaml: adapter() },
    // Logstash's API root / on 9600: the node's own info (catalog logstash-api-root).
    { name: 'catalog: the elastic/helm-charts logstash chart, identical / on http (the monitoring API, 9600)', yaml: logstash() },
    { name: 'catalog: Logstash OSS, identical / on 9600 by number', yaml: logstash({ image: 'docker.elastic.co/logstash/logstash-oss:7.10.2', probe: '{httpGet: {path: /, port: 9600}}' }) },
    {
      name: 'catalog: Bank of Anthos frontend as kubernetes-manifests/frontend.yaml has it (liveness /ready with other windows: the path alone does not warn)',
      yaml: deploy(probes('{httpGet: {path: /ready, port: 8080}, initialDelaySeconds: 60, periodSeconds: 15, timeoutSeconds: 30}', '{httpGet: {path: /ready, port: 8080}, initialDelaySeconds: 10, periodSeconds: 5, timeoutSeconds: 10}')).replace(
        'image: web:1',
        'image: us-central1-docker.pkg.dev/bank-of-anthos-ci/bank-of-anthos/frontend:v0.6.10@sha256:076294ce717309f711743fa3b72a9809c7f156edf1c4fa58505fd9f436d65345',
      ),
    },
    // Envoy's /ready where the control plane's config is known (catalog envoy-ready): Envoy's own state, no backend.
    {
      name: 'catalog: Envoy Gateway proxy, liveness and readiness /ready on 19003 with different windows (the path alone does not warn)',
      yaml: deploy(probes('{httpGet: {path: /ready, port: 19003}, periodSeconds: 10, failureThreshold: 3}', '{httpGet: {path: /ready, port: 19003}, periodSeconds: 5, failureThreshold: 1}')).replace(
        'image: web:1',
        'image: docker.io/envoyproxy/envoy:distroless-v1.35.0',
      ),
    },
    {
      name: 'catalog: Envoy Gateway proxy, identical /ready on 19003 (named port)',
      yaml: deploy(probes('{httpGet: {path: /ready, port: readiness}}', '{httpGet: {path: /ready, port: readiness}}'))
        .replace('image: web:1', 'image: docker.io/envoyproxy/envoy-distroless:v1.29.2')
        .replace('{name: grpc, containerPort: 9090}', '{name: readiness, containerPort: 19003}'),
    },
    {
      name: "catalog: Contour's Envoy, identical /ready on its health port 8002 (Envoy's admin /ready)",
      yaml: deploy(probes('{httpGet: {path: /ready, port: 8002}}', '{httpGet: {path: /ready, port: 8002}}')).replace('image: web:1', 'image: docker.io/envoyproxy/envoy:distroless-v1.39.0'),
    },
    // CloudNativePG's operator: /readyz on its webhook server writes "OK" (catalog cloudnative-pg-readyz).
    { name: 'catalog: CloudNativePG operator, identical /readyz on the webhook port (chart 0.29.0)', yaml: cnpg('[controller, --leader-elect, --max-concurrent-reconciles=10, --webhook-port=9443]') },
    { name: 'catalog: CloudNativePG operator, /readyz on the port number 9443 (config/manager/manager.yaml)', yaml: cnpg('[controller, --leader-elect, --webhook-port=9443]', '9443') },
    // vault-k8s's handleReady always writes 204 (catalog vault-k8s-injector-ready).
    { name: 'catalog: the vault-helm injector, identical /health/ready on 8080, HTTPS', yaml: injector() },
    { name: 'catalog: the vault-k8s injector from a registry mirror', yaml: injector('registry.connect.redhat.com/hashicorp/vault-k8s:1.7.6-ubi') },
    // scylla-operator's run-webhook-server: /readyz writes 200 "ok" (catalog scylla-operator-webhook-readyz).
    { name: 'catalog: the scylla-operator webhook server, identical /readyz on 5000, HTTPS (chart)', yaml: scylla(SCYLLA_WEBHOOK_ARGS) },
    { name: 'catalog: the scylla-operator webhook server, the subcommand after the binary in command', yaml: scylla('[run-webhook-server, --port=5000]', { command: '[/usr/bin/scylla-operator]', image: 'scylladb/scylla-operator:1.21.1' }) },
    // n8n's /healthz sends {status: 'ok'} whatever the database does (catalog n8n-healthz, n8n-worker-healthz).
    { name: 'catalog: n8n main process, identical /healthz (8gears/n8n chart)', yaml: n8n('') },
    { name: 'catalog: n8n webhook process', yaml: n8n('        command: [n8n]\n        args: [webhook]\n', 'docker.n8n.io/n8nio/n8n:1.119.1') },
    { name: 'catalog: n8n worker, 1.63.0 and later', yaml: n8n('        command: [n8n]\n        args: [worker, --concurrency=10]\n') },
    // Atlantis's /healthz writes {"status": "ok"} whatever the locking database does (catalog atlantis-healthz).
    { name: 'catalog: the runatlantis atlantis chart, identical /healthz on 4141', yaml: atlantis() },
    { name: 'catalog: Atlantis from Docker Hub before /readyz existed (v0.22.0), identical /healthz', yaml: atlantis('/healthz', 'runatlantis/atlantis:v0.22.0') },
    // VerneMQ's /health/ping answers a constant 200 (catalog vernemq-health-ping, 2.0.0 and later).
    { name: 'catalog: VerneMQ 2.1.1, identical /health/ping on the HTTP listener', yaml: vernemq() },
    { name: 'catalog: VerneMQ 2.0.0 (the first with /health/ping)', yaml: vernemq('/health/ping', 'docker.io/vernemq/vernemq:2.0.0') },
    // MLflow's /health returns "OK", 200 (catalog mlflow-server-health).
    { name: 'catalog: the community-charts/mlflow tracking server, identical /health', yaml: mlflow('[server, --host=0.0.0.0, --port=5000, "--backend-store-uri=sqlite:///:memory:"]') },
    // /ready of a role whose readiness is its own services only (catalog cortex-ready, mimir-ready, loki-ready, tempo-ready).
    ...[
      [CORTEX, '-target=distributor, -config.file=/etc/cortex/cortex.yaml'],
      [CORTEX, '-target=querier, -config.file=/etc/cortex/cortex.yaml'],
      [CORTEX, '-target=ruler, -config.file=/etc/cortex/cortex.yaml'],
      [CORTEX, '-target=alertmanager, -config.file=/etc/cortex/cortex.yaml'],
      [CORTEX, '-target=store-gateway, -config.file=/etc/cortex/cortex.yaml'],
      [CORTEX, '--target, querier'],
      [CORTEX, '"-target=distributor,querier"'],
      [MIMIR, '-target=backend, -config.file=/etc/mimir/mimir.yaml'],
      [MIMIR, '-target=store-gateway'],
      [LOKI, '-config.file=/etc/loki/config/config.yaml, -target=backend'],
      [LOKI, '-target=index-gateway'],
      [TEMPO, '-target=distributor, -config.file=/conf/tempo.yaml'],
      [TEMPO, '-target=backend-worker'],
    ].map(([image, args]) => ({ name: `catalog: ${image.split(':')[0]} ${args}`, yaml: role(image, args) })),
    { name: 'catalog: Cortex with -target in command', yaml: role(CORTEX, '/bin/cortex, -target=querier', { command: true }) },
    { name: 'different grpc service', yaml: deploy(probes('{grpc: {port: 9090, service: liveness}}', '{grpc: {port: 9090}}')) },
    { name: 'only a liveness probe on a neutral path', yaml: deploy('        livenessProbe: {httpGet: {path: /healthz, port: http}}') },
    { name: 'only a readiness probe on /ready', yaml: deploy('        readinessProbe: {httpGet: {path: /ready, port: http}}') },
    { name: 'a path that merely starts like a listed one', yaml: deploy('        livenessProbe: {httpGet: {path: /readyness-of-process, port: http}}') },
    {
      name: 'dependency path list is configurable',
      yaml: deploy('        livenessProbe: {httpGet: {path: /ready, port: http}}'),
      params: { dependencyCheckPaths: ['/deep'] },
    },
    // Process-local handlers the catalog knows (reviews p41, p42, p43): unready and dead are one state.
    { name: "catalog: Redpanda Console's /admin/health (a constant 200)", yaml: same('docker.redpanda.com/redpandadata/console:v3.1.0', '/admin/health') },
    { name: "catalog: ADC's status /healthz/ready (a constant 200), the path guess does not fire", yaml: adc() },
    { name: "catalog: Unleash's /health (a constant 200 from 4.14.0)", yaml: same('unleashorg/unleash-server:7.5.0', '/health') },
    { name: "catalog: the KubeRay API server's /healthz (a flag never cleared)", yaml: same('quay.io/kuberay/apiserver:v1.4.2', '/healthz') },
  ],
  invalid: [
    {
      // Review round 33, report p42 item 1: the path guess on one replica says so, as the identical-check wording does.
      name: 'liveness on /healthz/ready of an unknown program, one replica: the only replica is restarted, not every replica',
      yaml: adc('example/adc:1'),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe/httpGet/path`, message: 'container "adc-server": livenessProbe checks /healthz/ready, a path that suggests readiness or dependency checks: when a dependency fails the kubelet restarts the only replica, which does not fix the dependency and adds restarts (and their start-up time) to the outage; ' }],
    },
    {
      name: "Unleash before 4.14.0: /health selected from the database, the catalog's entry does not cover it",
      yaml: same('unleashorg/unleash-server:4.13.0', '/health'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      // Review round 33, report p45 item 1: /healthz is 503 when the knex pool holds no connection (catalog wikijs-healthz).
      name: 'Wiki.js with DB_TYPE postgres: identical /healthz depends on the database (warning)',
      yaml: same('requarks/wiki:2', '/healthz', '[{name: DB_TYPE, value: postgres}]'),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe`, message: 'which depends on its database server (503 when the connection pool holds no connection) (catalog wikijs-healthz)' }],
    },
    {
      name: 'Wiki.js with DB_TYPE sqlite: the pool is a file of the pod, the generic info',
      yaml: same('requarks/wiki:2', '/healthz', '[{name: DB_TYPE, value: sqlite}]'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      // (Review round 12 asked for a process-local entry. /ready is 200 only while the connector holds an edge
      // connection: an edge or egress outage fails it on every replica at once, the kubelet restarts them all,
      // and their crash-loop back-off delays reconnection once the outage ends. That is the dependency cascade
      // the warning names, so it stays.)
      name: 'cloudflared tunnel with liveness /ready (cloudflare-tunnel-remote): /ready follows the edge connections, a dependency',
      yaml: cloudflared('cloudflare/cloudflared:2024.8.3'),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe/httpGet/path`, message: /livenessProbe checks \/ready, a path that suggests readiness or dependency checks/ }],
    },
    {
      // GET /_node/stats gathers the pipelines' flow and queue metrics, JVM and OS stats: not read far enough to list.
      name: "Logstash with identical /_node/stats on the API: the catalog's entry covers / only",
      yaml: logstash({ probe: '{httpGet: {path: /_node/stats, port: http}}' }),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      // The entry is pinned to 9600 (its match reads no logstash.yml): an API moved to 9601 gets the generic info.
      name: 'Logstash whose logstash.yml moves the API to 9601, identical / on it: not matched, the generic info',
      yaml: logstash({ logstashYml: 'api.http.port: 9601\n', httpPort: 9601 }),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      // logstash-input-http queues an event for a request on any path: / there follows the outputs' back-pressure.
      name: "Logstash with identical / on an http input's port (8080): not the API, not matched",
      yaml: logstash({ probe: '{httpGet: {path: /, port: 8080}}' }),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: "Logstash with identical /?wait_for_status=green: it waits on the pipelines' health, not matched",
      yaml: logstash({ probe: "{httpGet: {path: '/?wait_for_status=green&timeout=5s', port: http}}" }),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: "n8n before 0.236.0: /healthz queried the database (0.221.2), so the catalog's entry does not cover it",
      yaml: n8n('', 'n8nio/n8n:0.221.2'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: "an n8n worker before 1.63.0: its /healthz pinged the database and Redis",
      yaml: n8n('        command: [n8n]\n        args: [worker]\n', 'n8nio/n8n:1.60.1'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: "Atlantis with identical /readyz: it pings the locking database, not the catalog's /healthz",
      yaml: atlantis('/readyz'),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe`, message: /httpGet \/readyz on port 4141\), which checks \/readyz, a readiness path/ }],
    },
    {
      name: "VerneMQ with identical /health: it checks cluster membership and the listeners, not the catalog's /health/ping",
      yaml: vernemq('/health'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: 'mlflow with --enable-workspaces: every request resolves the default workspace from the store',
      yaml: mlflow('[server, --enable-workspaces, --port=5000]'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: "the mlflow image running another command than mlflow server is not the catalog's tracking server",
      yaml: mlflow('[models, serve, -m, "models:/m/1", --port, "5000"]'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: 'node_exporter with --web.telemetry-path=/: the probe runs the collectors, not the landing page',
      yaml: nodeExporter("['--web.listen-address=[$(HOST_IP)]:9100', --web.telemetry-path=/]"),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: 'node_exporter: the catalog covers /, not /metrics (the collectors)',
      yaml: nodeExporter(undefined, '{httpGet: {path: /metrics, port: metrics}}'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: "prometheus-adapter's /readyz (informer sync, the Kubernetes API) is not the catalog's /healthz",
      yaml: adapter('{httpGet: {path: /readyz, port: https, scheme: HTTPS}}'),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe`, message: 'which checks /readyz, a readiness path' }],
    },
    {
      name: 'Online Boutique cartservice is not in the catalog entry: its health check pings Redis',
      yaml: deploy(probes('{grpc: {port: 9090}}', '{grpc: {port: 9090}}')).replace('image: web:1', 'image: us-central1-docker.pkg.dev/online-boutique-ci/microservices-demo/cartservice:v0.10.6'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: 'Bank of Anthos frontend: the catalog covers /ready, not another path of the image',
      yaml: deploy(probes('{httpGet: {path: /readyz, port: 8080}}', '{httpGet: {path: /readyz, port: 8080}}')).replace('image: web:1', 'image: us-central1-docker.pkg.dev/bank-of-anthos-ci/bank-of-anthos/frontend:v0.6.10'),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: 'another script on the redis image is not the catalog\'s sentinel check',
      yaml: deploy(probes('{exec: {command: [sh, -c, /health/redis_liveness.sh]}}', '{exec: {command: [sh, -c, /health/redis_liveness.sh]}}')).replace('image: web:1', 'image: redis:7'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: 'one replica: the message does not speak of restarting every replica together',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: 8080}}', '{httpGet: {path: /healthz, port: 8080}}')).replace('replicas: 2', 'replicas: 1'),
      findings: [{ severity: 'info', message: 'a dependency outage restarts the only replica while it lasts.' }],
    },
    {
      // Review round 18 (flyteadmin: liveness 5s x 3 beside readiness 10s x 3 on the same check).
      name: 'the same check with a shorter liveness window: restarted before it even turns unready (info)',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: 8080}, periodSeconds: 5}', '{httpGet: {path: /healthz, port: 8080}}')),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe`, message: 'container "app": livenessProbe and readinessProbe run the same check (httpGet /healthz on port 8080) with a shorter liveness failure window (liveness 3 x 5s = 15s, readiness 3 x 10s = 30s), so the container is restarted before it even turns unready' }],
    },
    {
      // The flyteadmin shape advises a liveness window of 2 x the readiness window in liveness periods (12 x 5s),
      // not 2 x the readiness threshold (6 x 5s = 30s, only the readiness window again); a Service selects it.
      name: 'shorter liveness window, readiness too short to halve: raise liveness to 2 x the readiness window, counted in liveness periods',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: 8080}, periodSeconds: 5}', '{httpGet: {path: /healthz, port: 8080}}')),
      findings: [{ severity: 'info', message: 'restarted before it even turns unready (and leaves its Services); if the check looks at anything beyond the process, a dependency outage restarts every replica together. The probe docs recommend a higher liveness failureThreshold, e.g. 12 (12 x 5s = 60s, 2 x the readiness window)' }],
    },
    {
      // Review p30 (FairwindsOps vpa chart: liveness 6 x 5s, readiness 120 x 5s; no Service selects the recommender):
      // doubling readiness into liveness would be 240 x 5s = 20 min before a hung process is restarted.
      name: 'shorter liveness window beside a long readiness window: shorten readiness, not liveness to 240; no "leaves its Services" without a Service',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: 8080}, failureThreshold: 6, periodSeconds: 5}', '{httpGet: {path: /healthz, port: 8080}, failureThreshold: 120, periodSeconds: 5}'), { served: false }),
      findings: [{ severity: 'info', message: /^(?!.*(240|leaves its Services)).*restarted before it even turns unready; .*The probe docs' pattern is a liveness window longer than the readiness one: lower readinessProbe\.failureThreshold to 3 \(3 x 5s = 15s, at most half the liveness window\), so the container turns unready well before liveness restarts it$/ }],
    },
    {
      name: 'a dependency check with a shorter liveness window beside a long readiness window: the warning shortens readiness too',
      yaml: deploy(probes('{httpGet: {path: /readyz, port: 8080}, failureThreshold: 6, periodSeconds: 5}', '{httpGet: {path: /readyz, port: 8080}, failureThreshold: 120, periodSeconds: 5}')),
      findings: [{ severity: 'warning', message: /point liveness at a check of the process alone, or at least lower readinessProbe\.failureThreshold to 3 \(3 x 5s = 15s, at most half the liveness window\)/ }],
    },
    {
      name: 'identical generic httpGet /healthz and default windows: info (whether it checks dependencies cannot be seen)',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: 8080}}', '{httpGet: {path: /healthz, port: 8080}}')),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe`, message: 'container "app": livenessProbe and readinessProbe run the same check (httpGet /healthz on port 8080) with the same failure window (liveness 3 x 10s = 30s, readiness 3 x 10s = 30s)' }],
    },
    {
      name: 'named port "http" equals 8080',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: http}}', '{httpGet: {path: /healthz, port: 8080}}')),
      findings: [{ severity: 'info', message: 'The probe docs recommend a higher liveness failureThreshold, e.g. 6 (2 x readiness)' }],
    },
    {
      name: 'same window product with different factors (6 x 5s = 3 x 10s)',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: http}, failureThreshold: 6, periodSeconds: 5}', '{httpGet: {path: /healthz, port: http}}')),
      findings: [{ severity: 'info', message: /liveness 6 x 5s = 30s, readiness 3 x 10s = 30s\).*e\.g\. 12 \(12 x 5s = 60s, 2 x the readiness window\)$/ }],
    },
    {
      name: 'explicit default scheme and timeout differences do not matter; a longer liveness timeout is said (review round 28)',
      yaml: deploy(probes('{httpGet: {path: /healthz, port: http, scheme: HTTP}, timeoutSeconds: 5}', '{httpGet: {path: /healthz, port: http}}')),
      findings: [{ severity: 'info', message: 'so the container is restarted the moment it turns unready (an answer slower than the readiness timeout 1s but within the liveness timeout 5s fails readiness alone); if the check looks at anything beyond the process' }],
    },
    {
      name: 'identical /healthz?full=true (a dependency check, as argo-cd uses it): warning',
      yaml: deploy(probes('{httpGet: {path: "/healthz?full=true", port: http}}', '{httpGet: {path: "/healthz?full=true", port: http}}')),
      findings: [{ severity: 'warning', message: 'run the same check (httpGet /healthz?full=true on port "http" (8080)), which asks for a full check (?full=true)' }],
    },
    {
      name: 'identical readiness path /readyz on both: warning (a dependency check restarts every replica)',
      yaml: deploy(probes('{httpGet: {path: /readyz, port: http}}', '{httpGet: {path: /readyz, port: http}}')),
      findings: [{ severity: 'warning', message: 'which checks /readyz, a readiness path' }],
    },
    {
      name: 'identical exec',
      yaml: deploy(probes('{exec: {command: [sh, -c, check.sh]}}', '{exec: {command: [sh, -c, check.sh]}}')),
      findings: [{ severity: 'info', message: 'exec ["sh","-c","check.sh"]' }],
    },
    // A script that does more than check a process exists may look beyond the process: still reported.
    ...[
      ['[sh, -c, "pgrep x && curl db"]', 'pgrep and then a call to another service'],
      ['[sh, -c, "pgrep x; curl -f http://db:5432"]', 'two commands'],
      ['[sh, -c, "pgrep -f worker\\ncurl db"]', 'a second command on another line'],
      ['[sh, -c, "ps aux | grep -q sidekiq"]', 'a pipeline'],
      ['[sh, -c, "pgrep -f $(curl -s db/name)"]', 'a command substitution in the pattern'],
      ['[sh, -c, "kill -0 $(curl -s http://db/pid)"]', 'kill -0 of a PID fetched from elsewhere'],
      ['[sh, -c, /health/pgrep-and-ping.sh]', 'a script'],
      ['[sh, -c, "pgrep -f sidekiq", extra]', 'sh -c with a $0 argument'],
      ['[sh, -c, "! master -t && postqueue -p"]', '`! master -t` and then another command'],
      ['[sh, -c, "master -t"]', '`master -t` without the negation (passes while the master is down)'],
    ].map(([command, why]) => ({
      name: `identical exec that does more than check a process: ${why}`,
      yaml: deploy(probes(`{exec: {command: ${command}}}`, `{exec: {command: ${command}}}`)),
      findings: [{ severity: 'info' as const, pointer: `${C0}/livenessProbe`, message: 'run the same check (exec [' }],
    })),
    {
      name: 'identical grpc',
      yaml: deploy(probes('{grpc: {port: 9090}, periodSeconds: 5}', '{grpc: {port: 9090}, periodSeconds: 5}')),
      findings: [{ severity: 'info', message: 'grpc on port 9090' }],
    },
    {
      name: 'liveness on /readyz: dependency-check path',
      yaml: deploy(probes('{httpGet: {path: /readyz, port: http}, failureThreshold: 6}', '{httpGet: {path: /readyz, port: http}}')),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe/httpGet/path`, message: 'container "app": livenessProbe checks /readyz, a path that suggests readiness or dependency checks' }],
    },
    {
      // Review round 26 (policy-reporter): liveness /ready, readiness /healthz. Advising /healthz for
      // liveness would make the two probes one check.
      name: "liveness on /ready beside readiness on /healthz: the examples leave out the readiness probe's path",
      yaml: deploy(probes('{httpGet: {path: /ready, port: http}}', '{httpGet: {path: /healthz, port: http}}')),
      findings: [{ severity: 'warning', message: 'point liveness at an endpoint that checks only the process itself (e.g. /livez; the readinessProbe checks /healthz)' }],
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
      name: 'the Envoy image with /ready on another port (a listener of the user\'s config) still warns',
      yaml: deploy(probes('{httpGet: {path: /ready, port: http}, failureThreshold: 6}', '{httpGet: {path: /ready, port: http}}')).replace('image: web:1', 'image: docker.io/envoyproxy/envoy:distroless-v1.35.0'),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe/httpGet/path`, message: 'livenessProbe checks /ready' }],
    },
    {
      name: '/ready on 19003 of another image is not Envoy Gateway\'s listener',
      yaml: deploy(probes('{httpGet: {path: /ready, port: 19003}}', '{httpGet: {path: /ready, port: 19003}}')).replace('image: web:1', 'image: example/envoy-gateway-lookalike:1'),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe`, message: 'run the same check' }],
    },
    {
      name: "the CloudNativePG image running the instance manager: its /readyz asks PostgreSQL, not the operator's catalog entry",
      yaml: cnpg('[instance, run]'),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe`, message: 'which checks /readyz, a readiness path' }],
    },
    // Roles whose /ready asks other replicas (ring, connected queriers, Kafka), and `all`, the default target.
    ...[
      [CORTEX, '-target=query-frontend, -config.file=/etc/cortex/cortex.yaml', 'query-frontend: a querier must be connected'],
      [CORTEX, '-target=ingester', 'ingester: ring'],
      [CORTEX, '-config.file=/etc/cortex/cortex.yaml', 'no -target: all, the single binary'],
      [CORTEX, '-target=all', 'all'],
      [CORTEX, '"-target=distributor,ingester"', 'a list with an ingester'],
      [CORTEX, '-target=distributor, -target=ingester', 'a second -target (the last wins)'],
      [CORTEX, '-target=distributor-canary', 'a name that merely starts like a safe one'],
      [MIMIR, '-target=write', 'Mimir write: distributor and ingester'],
      [MIMIR, '-target=read', 'Mimir read: query-frontend and querier'],
      [LOKI, '-target=read', 'Loki read (simple scalable): query-frontend and querier'],
      [LOKI, '-target=write', 'Loki write (simple scalable): ingester'],
      [LOKI, '-target=pattern-ingester', 'Loki pattern-ingester: ring'],
      [TEMPO, '-target=metrics-generator', 'Tempo metrics-generator: ring in 2.x'],
      [TEMPO, '-target=live-store', 'Tempo live-store: caught up with Kafka'],
      [TEMPO, '-target=scalable-single-binary', 'Tempo scalable-single-binary'],
      ['example/cortex-gateway:1', '-target=distributor', 'another image'],
    ].map(([image, args, why]) => ({
      name: `not process-local: ${image.split(':')[0]} ${args} (${why})`,
      yaml: role(image, args),
      findings: [{ severity: 'warning' as const, pointer: `${C0}/livenessProbe`, message: 'which checks /ready, a readiness path' }],
    })),
    {
      name: "scylla-operator's run-ignition (its /readyz waits for the node to be ignited) is not the webhook server",
      yaml: scylla('[run-ignition, --service-name=basic-us-east-1-us-east-1a-0]'),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe`, message: 'which checks /readyz, a readiness path' }],
    },
    {
      name: 'run-webhook-server on another image still warns',
      yaml: scylla(SCYLLA_WEBHOOK_ARGS, { image: 'example/webhook:1' }),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe`, message: 'which checks /readyz, a readiness path' }],
    },
    {
      name: 'vault-k8s: the catalog covers /health/ready, not another path of the image',
      yaml: injector(undefined, '/v1/sys/health'),
      findings: [{ severity: 'info', pointer: `${C0}/livenessProbe` }],
    },
    {
      name: '/health/ready of another image still warns',
      yaml: injector('example/quarkus-app:1'),
      findings: [{ severity: 'warning', pointer: `${C0}/livenessProbe`, message: 'which checks /health/ready, a readiness path' }],
    },
    {
      name: 'custom dependencyCheckPaths',
      yaml: deploy('        livenessProbe: {httpGet: {path: /status/all, port: http}}'),
      params: { dependencyCheckPaths: ['/status/all'] },
      findings: [{ severity: 'warning', message: '/status/all' }],
    },
    {
      name: 'not served: still reported (a probe problem, not a traffic one)',
      yaml: deploy(probes('{exec: {command: [check]}}', '{exec: {command: [check]}}'), { served: false }),
      findings: [{ severity: 'info' }],
    },
    {
      name: 'served hint "false": still reported',
      yaml: deploy(probes('{httpGet: {path: /ready, port: http}}', '{httpGet: {path: /ready, port: http}}'), { annotations: '"kubegrace.dev/served": "false"' }),
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
      yaml: deploy(probes('{httpGet: {path: /ready, port: http}}', '{httpGet: {path: /ready, port: http}}'), { annotations: '"kubegrace.dev/ignore": "liveness-equals-readiness"' }),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

// Review round 23 (centrifugal/helm-charts): Centrifugo's /health writes {} and checks nothing beyond the process.
test('liveness-equals-readiness: Centrifugo /health is process-local (catalog centrifugo-health)', () => {
  const yaml = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: centrifugo}
spec:
  replicas: 3
  selector: {matchLabels: {app: c}}
  template:
    metadata: {labels: {app: c}}
    spec:
      containers:
      - name: centrifugo
        image: ${image}
        ports: [{name: http, containerPort: 8000}, {name: internal, containerPort: 9000}]
        livenessProbe: {httpGet: {path: /health, port: internal}}
        readinessProbe: {httpGet: {path: /health, port: internal}}
`;
  expect(runRule(livenessEqualsReadiness, yaml('centrifugo/centrifugo:v6.9.1'))).toEqual([]);
  expect(runRule(livenessEqualsReadiness, yaml('example/app:1'))).toHaveLength(1);
});

// Review p37 item 5 (the superset and mastodon charts): Superset's /health and Mastodon streaming's
// /api/v1/streaming/health answer a constant "OK" (catalog superset-health, mastodon-streaming-health).
test('liveness-equals-readiness: Superset /health and Mastodon streaming /api/v1/streaming/health are process-local', () => {
  const yaml = (image: string, path: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
      containers:
      - name: web
        image: ${image}
        ports: [{name: http, containerPort: 8088}]
        livenessProbe: {httpGet: {path: ${path}, port: http}, periodSeconds: 15}
        readinessProbe: {httpGet: {path: ${path}, port: http}, periodSeconds: 15}
`;
  expect(runRule(livenessEqualsReadiness, yaml('apachesuperset.docker.scarf.sh/apache/superset:3.1.2', '/health'))).toEqual([]);
  expect(runRule(livenessEqualsReadiness, yaml('ghcr.io/mastodon/mastodon-streaming:v4.6.3', '/api/v1/streaming/health'))).toEqual([]);
  expect(runRule(livenessEqualsReadiness, yaml('ghcr.io/mastodon/mastodon:v4.6.3', '/health'))).toHaveLength(1);
  expect(runRule(livenessEqualsReadiness, yaml('example/app:1', '/health'))).toHaveLength(1);
});

// Review round 24 (treeverse/charts lakefs, dragonflydb/dragonfly contrib/charts/dragonfly): lakeFS's /_health
// writes "alive!" and checks nothing else; Dragonfly's healthcheck.sh sends PING to the process's own port.
describe('liveness-equals-readiness: lakeFS /_health and Dragonfly healthcheck.sh are process-local (catalog lakefs-health, dragonfly-healthcheck-sh)', () => {
  const pod = (image: string, port: string, probe: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  replicas: 1
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers:
      - name: app
        image: ${image}
        ports: [${port}]
        livenessProbe: ${probe}
        readinessProbe: ${probe}
---
apiVersion: v1
kind: Service
metadata: {name: app}
spec:
  selector: {app: a}
  ports: [{port: 80, targetPort: 8000}]
`;
  const LAKEFS_PORT = '{name: http, containerPort: 8000}';
  const LAKEFS_PROBE = '{httpGet: {path: /_health, port: http, scheme: HTTP}}';
  const DF_PORT = '{name: dragonfly, containerPort: 6379}';
  const DF_PROBE = '{exec: {command: [/bin/sh, /usr/local/bin/healthcheck.sh]}, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3}';
  test('the lakefs chart (treeverse/lakefs:1.84.0, identical /_health on http): silent', () => {
    expect(runRule(livenessEqualsReadiness, pod('treeverse/lakefs:1.84.0', LAKEFS_PORT, LAKEFS_PROBE))).toEqual([]);
  });
  test('the dragonfly chart (v1.40.1, identical exec healthcheck.sh): silent', () => {
    expect(runRule(livenessEqualsReadiness, pod('docker.dragonflydb.io/dragonflydb/dragonfly:v1.40.1', DF_PORT, DF_PROBE))).toEqual([]);
  });
  test.each([
    ['/_health on another image', pod('example/app:1', LAKEFS_PORT, LAKEFS_PROBE)],
    ["lakeFS's API health check (not listed)", pod('treeverse/lakefs:1.84.0', LAKEFS_PORT, '{httpGet: {path: /api/v1/healthcheck, port: http}}')],
    ['healthcheck.sh on another image', pod('example/cache:1', DF_PORT, DF_PROBE)],
    ['Dragonfly with a script that also asks another host', pod('docker.dragonflydb.io/dragonflydb/dragonfly:v1.40.1', DF_PORT, "{exec: {command: [/bin/sh, -c, '/usr/local/bin/healthcheck.sh && redis-cli -h df-master ping']}}")],
  ])('near miss stays reported: %s', (_name, yaml) => {
    expect(runRule(livenessEqualsReadiness, yaml).map((f) => [f.severity, f.pointer])).toEqual([['info', '/spec/template/spec/containers/0/livenessProbe']]);
  });
});

// Review p18 (meilisearch-kubernetes; milvus-helm's pulsarv3 zookeeper): Meilisearch's /health reads only the process's
// own state, and ZooKeeper answers ruok with imok whenever its process runs, quorum or not.
describe('liveness-equals-readiness: Meilisearch /health and ZooKeeper ruok are process-local (catalog meilisearch-health, zookeeper-ruok)', () => {
  const sts = (image: string, port: string, probe: string) => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: app}
spec:
  replicas: 3
  serviceName: app
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers:
      - name: app
        image: ${image}
        ports: [${port}]
        livenessProbe: ${probe}
        readinessProbe: ${probe}
`;
  const MEILI_PORT = '{name: http, containerPort: 7700}';
  const MEILI_PROBE = '{httpGet: {path: /health, port: http}, periodSeconds: 10, timeoutSeconds: 10}';
  const ZK_PORT = '{name: client, containerPort: 2181}';
  const ZK_PROBE = `{exec: {command: ["timeout", "30", "bash", "-c", "echo ruok | nc -q 1 localhost 2181 | grep imok"]}, periodSeconds: 30, failureThreshold: 10}`;
  test('the meilisearch chart (getmeili/meilisearch:v1.48.3, identical /health): silent', () => {
    expect(runRule(livenessEqualsReadiness, sts('getmeili/meilisearch:v1.48.3', MEILI_PORT, MEILI_PROBE))).toEqual([]);
  });
  test("the pulsarv3 zookeeper (apachepulsar/pulsar:3.0.7, identical ruok to localhost): silent", () => {
    expect(runRule(livenessEqualsReadiness, sts('apachepulsar/pulsar:3.0.7', ZK_PORT, ZK_PROBE))).toEqual([]);
  });
  test.each([
    ['/health on another image', sts('example/search:1', MEILI_PORT, MEILI_PROBE)],
    ['ruok to another member', sts('apachepulsar/pulsar:3.0.7', ZK_PORT, `{exec: {command: [bash, -c, "echo ruok | nc zk-0.zk 2181 | grep imok"]}}`)],
    ['a script that checks more than ruok', sts('zookeeper:3.9.3', ZK_PORT, `{exec: {command: [bash, -c, "echo ruok | nc localhost 2181 | grep imok && zkCli.sh ls /"]}}`)],
  ])('near miss stays reported: %s', (_name, yaml) => {
    expect(runRule(livenessEqualsReadiness, yaml).map((f) => [f.severity, f.pointer])).toEqual([['info', '/spec/template/spec/containers/0/livenessProbe']]);
  });
});

// Review p19/p20 (hasura/helm-charts graphql-engine, apache/couchdb-helm, woodpecker-ci/helm): identical liveness and
// readiness on a handler the catalog knows to check a dependency is a warning, not the docs' advice.
describe('liveness-equals-readiness: a catalog dependency probe makes the identical pair a warning (hasura-healthz, couchdb-up, woodpecker-server-healthz)', () => {
  const dep = (image: string, port: string, probe: string, env = '') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
spec:
  replicas: 2
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec:
      containers:
      - name: app
        image: ${image}
        ports: [${port}]${env}
        livenessProbe: ${probe}
        readinessProbe: ${probe}
`;
  const HASURA_PROBE = '{httpGet: {path: /healthz, port: 8080}, initialDelaySeconds: 5, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 5}';
  test('the graphql-engine chart (hasura/graphql-engine:v2.48.6, identical /healthz): warning naming the metadata database', () => {
    const f = runRule(livenessEqualsReadiness, dep('hasura/graphql-engine:v2.48.6', '{name: http, containerPort: 8080}', HASURA_PROBE));
    expect(f.map((x) => [x.severity, x.pointer])).toEqual([['warning', '/spec/template/spec/containers/0/livenessProbe']]);
    expect(f[0].message).toContain('which depends on its metadata database (a failed connection check answers 500) (catalog hasura-healthz), with the same failure window (liveness 5 x 10s = 50s, readiness 5 x 10s = 50s)');
    expect(f[0].message).toContain('every replica turns unready and is restarted at the same moment');
  });
  test('the couchdb chart (couchdb:3.5.0, identical /_up): warning', () => {
    const f = runRule(livenessEqualsReadiness, dep('couchdb:3.5.0', '{name: couchdb, containerPort: 5984}', '{httpGet: {path: /_up, port: 5984}}'));
    expect(f.map((x) => [x.severity, x.message.includes('(catalog couchdb-up)')])).toEqual([['warning', true]]);
  });
  const WP_PORT = '{name: http, containerPort: 8000}';
  const WP_PROBE = '{httpGet: {path: /healthz, port: 8000}, timeoutSeconds: 10}';
  const driver = (v: string) => `\n        env: [{name: WOODPECKER_DATABASE_DRIVER, value: ${v}}]`;
  test('woodpecker server with WOODPECKER_DATABASE_DRIVER postgres: warning; with the default sqlite3: info', () => {
    const sev = (env: string) => runRule(livenessEqualsReadiness, dep('docker.io/woodpeckerci/woodpecker-server:v3.16.0', WP_PORT, WP_PROBE, env)).map((x) => x.severity);
    expect(sev(driver('postgres'))).toEqual(['warning']);
    expect(sev('')).toEqual(['info']);
    expect(sev(driver('sqlite3'))).toEqual(['info']);
  });
  // Review p32 item 1 (goharbor/harbor-helm): the jobservice's /api/v1/stats fails when Redis does.
  test('the harbor chart (goharbor/harbor-jobservice, identical /api/v1/stats): warning naming Redis', () => {
    const f = runRule(livenessEqualsReadiness, dep('goharbor/harbor-jobservice:v2.14.0', '{containerPort: 8080}', '{httpGet: {path: /api/v1/stats, scheme: HTTP, port: 8080}, periodSeconds: 10}'));
    expect(f.map((x) => x.severity)).toEqual(['warning']);
    expect(f[0].message).toContain("which depends on its Redis (a failed read of the worker pools' heartbeats answers 500) (catalog harbor-jobservice-stats)");
    // Harbor core's /api/v2.0/ping (a constant "Pong") stays the docs' advice.
    expect(runRule(livenessEqualsReadiness, dep('goharbor/harbor-core:v2.14.0', '{containerPort: 8080}', '{httpGet: {path: /api/v2.0/ping, port: 8080}}')).map((x) => x.severity)).toEqual(['info']);
  });
  test.each([
    ['/healthz on another image', dep('example/api:1', '{name: http, containerPort: 8080}', HASURA_PROBE)],
    ["CouchDB's welcome handler /", dep('couchdb:3.5.0', '{name: couchdb, containerPort: 5984}', '{httpGet: {path: /, port: 5984}}')],
  ])('not a known dependency check, still an info: %s', (_name, yaml) => {
    expect(runRule(livenessEqualsReadiness, yaml).map((f) => f.severity)).toEqual(['info']);
  });
  test('a longer liveness window on a dependency probe is not condition 1 (and /healthz is no readiness path)', () => {
    const yaml = dep('hasura/graphql-engine:v2.48.6', '{name: http, containerPort: 8080}', HASURA_PROBE).replace(
      /livenessProbe: .*/,
      'livenessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 10, failureThreshold: 10}',
    );
    expect(runRule(livenessEqualsReadiness, yaml)).toEqual([]);
  });
});

// Review round 30, report p27 item 3: the bitnami mariadb-galera chart's mysqld-exporter sidecar probes
// the exporter-toolkit landing page on / for both liveness and readiness; it asks nothing of MySQL.
const exporter = (image: string, args = "['--web.listen-address=:9104']") => `apiVersion: apps/v1
kind: Deployment
metadata: {name: db-metrics}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: metrics
        image: ${image}
        args: ${args}
        ports: [{name: metrics, containerPort: 9104}]
        livenessProbe: {httpGet: {path: /, port: metrics}, initialDelaySeconds: 120, timeoutSeconds: 5}
        readinessProbe: {httpGet: {path: /, port: metrics}, initialDelaySeconds: 30, timeoutSeconds: 1}
`;
test.each([
  ['docker.io/bitnami/mysqld-exporter:0.17.2-debian-12-r16', 'mysqld-exporter-landing-page'],
  ['quay.io/prometheus/mysqld-exporter:v0.20.0', 'mysqld-exporter-landing-page'],
  ['prom/mysqld-exporter:v0.20.0', 'mysqld-exporter-landing-page'],
  ['quay.io/prometheuscommunity/postgres-exporter:v0.20.1', 'postgres-exporter-landing-page'],
  ['docker.io/bitnami/postgres-exporter:0.20.1', 'postgres-exporter-landing-page'],
  ['quay.io/prometheus/memcached-exporter:v0.16.0', 'memcached-exporter-landing-page'],
  ['bitnami/memcached-exporter:0.17.0', 'memcached-exporter-landing-page'],
])('liveness-equals-readiness: the exporter landing page of %s is process-local (catalog %s)', (image) => {
  expect(runRule(livenessEqualsReadiness, exporter(image))).toEqual([]);
});

test('liveness-equals-readiness: an exporter with --web.telemetry-path=/ runs its collectors on / (still reported)', () => {
  expect(runRule(livenessEqualsReadiness, exporter('bitnami/mysqld-exporter:0.20.0', "['--web.listen-address=:9104', '--web.telemetry-path=/']")).map((f) => f.severity)).toEqual(['info']);
  expect(runRule(livenessEqualsReadiness, exporter('example/other-exporter:1')).map((f) => f.severity)).toEqual(['info']);
});

// Review round 35, report p57 item 2: kubecost's cost-model and forecasting, 200 x 10s on both probes and no
// startupProbe. Doubling liveness to 4000s would leave a hung process unrestarted for 66 minutes; the window is a
// start allowance, which belongs in a startupProbe, and both windows can then be short.
const longWindows = (extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: forecasting}
spec:
  replicas: 1
  selector: {matchLabels: {app: forecasting}}
  template:
    metadata: {labels: {app: forecasting}}
    spec:
      containers:
      - name: forecasting
        image: gcr.io/kubecost1/kubecost-modeling:v0.1.16
        ports: [{containerPort: 5000}]
        readinessProbe: {httpGet: {path: /healthz, port: 5000}, initialDelaySeconds: 10, periodSeconds: 10, failureThreshold: 200}
        livenessProbe: {httpGet: {path: /healthz, port: 5000}, initialDelaySeconds: 10, periodSeconds: 10, failureThreshold: 200}
${extra}`;
describe('liveness-equals-readiness: long equal windows (review round 35, report p57 item 2)', () => {
  test('no startupProbe: a startupProbe carries the start allowance, both windows short', () => {
    const f = runRule(livenessEqualsReadiness, longWindows());
    expect(f.map((x) => x.severity)).toEqual(['info']);
    expect(f[0].message).toContain(
      'move the start allowance into a startupProbe with the same check (periodSeconds 10, failureThreshold 201: 2010s to start, the 10s delay plus the 2000s liveness window allowed today) and shorten both windows, e.g. readinessProbe.failureThreshold 3 (30s) and livenessProbe.failureThreshold 6 (60s, 2 x readiness); raising liveness to 400 instead would leave a hung process unrestarted for 4000s',
    );
    expect(f[0].message).not.toContain('e.g. 400 (2 x readiness)');
  });
  test('with a startupProbe: readiness is shortened to half the liveness window, liveness not doubled', () => {
    const f = runRule(livenessEqualsReadiness, longWindows('        startupProbe: {httpGet: {path: /healthz, port: 5000}, periodSeconds: 10, failureThreshold: 30}\n'));
    expect(f.map((x) => x.message)).toEqual([expect.stringContaining('lower readinessProbe.failureThreshold to 100 (100 x 10s = 1000s, at most half the liveness window)')]);
  });
  test('ordinary windows keep the doubling advice (12 x 10s: 240s doubled)', () => {
    const f = runRule(livenessEqualsReadiness, longWindows().replace(/failureThreshold: 200/g, 'failureThreshold: 12'));
    expect(f.map((x) => x.message)).toEqual([expect.stringContaining('e.g. 24 (2 x readiness)')]);
  });
});
