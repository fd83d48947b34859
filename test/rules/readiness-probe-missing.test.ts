import { readinessProbeMissing } from '../../lib/rules/readiness-probe-missing';
import { fluentBit } from '../helpers/fluent-bit';
import { clusterAutoscaler } from '../helpers/cluster-autoscaler';
import { ruleTester, runRule } from '../helpers/rule-tester';
import { prestopMissing } from '../../lib/rules/prestop-missing';

interface Opts {
  kind?: string;
  annotations?: string;
  service?: string | false;
}

function wl(podSpec: string, o: Opts = {}): string {
  const svc =
    o.service === false
      ? ''
      : `---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
${o.service ?? '  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]'}
`;
  return `apiVersion: apps/v1
kind: ${o.kind ?? 'Deployment'}
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
${podSpec}
${svc}`;
}

const app = (extra = '') => `      containers:
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080}]
${extra}`;
const READY = '        readinessProbe: {httpGet: {path: /readyz, port: http}}\n';

/**
 * A workload made a Helm hook (annotations on its own metadata) behind the Service web: Airbyte 1.9.2's
 * Postgres and MinIO are pre-install StatefulSets without a delete policy (review round 25).
 */
function hookWl(kind: string, hook: string, deletePolicy?: string): string {
  const policy = deletePolicy === undefined ? '' : `, helm.sh/hook-delete-policy: "${deletePolicy}"`;
  const y = wl(app(), { kind }).replace('metadata: {name: web}\nspec:\n  selector: {matchLabels', `metadata: {name: web, annotations: {helm.sh/hook: "${hook}"${policy}}}\nspec:\n  selector: {matchLabels`);
  if (kind !== 'Pod') return y;
  return `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}, annotations: {helm.sh/hook: "${hook}"${policy}}}
spec:
${app().replace(/^ {4}/gm, '')}---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
`;
}
const C0 = '/spec/template/spec/containers/0';

ruleTester(readinessProbeMissing, {
  valid: [
    { name: 'the same check in a shell can fail', yaml: wl(app(`        readinessProbe: {exec: {command: [sh, -c, "echo PING | nc localhost 8080 | grep PONG"]}}\n`)) },
    {
      name: 'a Helm test Pod that carries the Service\'s labels (redpanda console\'s wget test) is a client while the hook runs, not a server',
      yaml: wl(app(READY)) + `---
apiVersion: v1
kind: Pod
metadata: {name: web-test, labels: {app: web}, annotations: {helm.sh/hook: test}}
spec: {restartPolicy: Never, containers: [{name: wget, image: busybox, command: [wget, web:80], ports: [{containerPort: 8080}]}]}
`,
    },
    { name: 'a pre-install hook StatefulSet deleted once the hook succeeded (hook-delete-policy hook-succeeded) serves only while the hook runs', yaml: hookWl('StatefulSet', 'pre-install', 'hook-succeeded') },
    { name: 'a pre-install hook Deployment deleted by before-hook-creation,hook-succeeded', yaml: hookWl('Deployment', 'pre-install,pre-upgrade', 'before-hook-creation,hook-succeeded') },
    { name: 'a bare hook Pod that Helm leaves (no delete policy) runs no controller: skipped as before', yaml: hookWl('Pod', 'pre-install') },
    { name: 'a test hook Deployment exists for helm test', yaml: hookWl('Deployment', 'test') },
    { name: 'a pre-delete hook Deployment runs at helm uninstall only', yaml: hookWl('Deployment', 'pre-delete') },
    { name: 'readinessProbe present', yaml: wl(app(READY)) },
    { name: 'unserved: another Service in the namespace, none selects the pods', yaml: wl(app(), { service: '  selector: {app: other}\n  ports: [{port: 80}]' }) },
    { name: 'unknown served and only an operator port (health) declared: not assumed served', yaml: wl(app().replace('{name: http, containerPort: 8080}', '{name: health, containerPort: 8081}'), { service: false }) },
    { name: 'served hint "false" overrides the Service', yaml: wl(app(), { annotations: '"kubegrace.dev/served": "false"' }) },
    { name: "Fluent Bit without a readinessProbe: its Service reaches only its monitoring server (port 2020, named http; catalog fluent-bit-http-server)", yaml: fluentBit({ readiness: '' }) },
    { name: 'Cluster Autoscaler chart (no readinessProbe): its Service reaches only the --address server on 8085 (catalog cluster-autoscaler-metrics)', yaml: clusterAutoscaler() },
    { name: 'Cluster Autoscaler with --address=[::]:9092 and the port moved with it', yaml: clusterAutoscaler({ args: ['--address=[::]:9092'], port: 9092 }) },
    {
      // Review round 25: each Temporal role upserts its POD_IP into the cluster_membership table and
      // bootstraps ringpop from the hosts read there (temporalio/temporal common/membership/ringpop/monitor.go);
      // the headless Service is for Prometheus and Istio. The worker role declares no rpc port.
      name: "Temporal's worker: its headless Service reaches only the ringpop membership port and metrics (the rpc port is unresolvable)",
      yaml: wl(
        '      containers:\n      - {name: temporal-worker, image: temporalio/server:1.31.2, ports: [{name: membership, containerPort: 6939}, {name: metrics, containerPort: 9090}]}\n',
        {
          service:
            '  clusterIP: None\n  publishNotReadyAddresses: true\n  selector: {app: web}\n  ports: [{name: grpc-rpc, port: 7239, targetPort: rpc}, {name: grpc-membership, port: 6939, targetPort: membership}, {name: metrics, port: 9090, targetPort: metrics}]',
        },
      ),
    },
    { name: 'metrics-only Service', yaml: wl(app(), { service: '  selector: {app: web}\n  ports: [{name: http-metrics, port: 9090, targetPort: http}]' }) },
    {
      name: 'an exporter sidecar behind the metrics port of a mixed Service is not served',
      yaml: wl(`${app(READY)}      - name: exporter
        image: redis-exporter:1
        ports: [{name: metrics, containerPort: 9121}]
`, { service: '  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}, {name: metrics, port: 9121, targetPort: metrics}]' }),
    },
    {
      name: 'Service of an exporter (app.kubernetes.io/component: exporter, kube-prometheus style) is scraped, not traffic',
      yaml: wl('      containers:\n      - {name: kube-rbac-proxy, image: quay.io/brancz/kube-rbac-proxy:v0.18, ports: [{name: https, containerPort: 9100}]}\n', {
        service: '  selector: {app: web}\n  ports: [{name: https, port: 9100, targetPort: https}]',
      }).replace('metadata: {name: web}\nspec:\n  selector: {app: web}', 'metadata: {name: web, labels: {app.kubernetes.io/component: exporter}}\nspec:\n  selector: {app: web}'),
    },
    {
      name: 'Job served by hint is skipped',
      yaml: `apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    metadata: {annotations: {kubegrace.dev/served: "true"}}
    spec:
      restartPolicy: Never
      containers: [{name: app, image: a:1, ports: [{containerPort: 80}]}]
`,
    },
    {
      // Istio's samples/curl: a Service that is a name for the mesh, over a pod where nothing listens.
      name: 'a sleep-forever container behind a Service (nothing listens): no probe to add',
      yaml: wl(`      containers:\n      - name: curl\n        image: docker.io/curlimages/curl:8.16.0\n        command: ["/bin/sleep", "infinity"]\n        ports: [{name: http, containerPort: 8080}]\n`),
    },
    {
      name: 'a sleep-forever container marked served by the hint: no probe to add',
      yaml: wl(`      containers:\n      - name: curl\n        image: docker.io/curlimages/curl:8.16.0\n        command: ["/bin/sleep", "infinity"]\n`, { annotations: '"kubegrace.dev/served": "true"', service: false }),
    },
    {
      name: 'a container that serves no Service port',
      yaml: wl(`${app(READY)}      - name: worker
        image: w:1
`),
    },
    {
      name: 'istio gateway injection placeholder: probes come from the injection template',
      yaml: wl('      containers:\n      - name: istio-proxy\n        image: auto\n', {
        annotations: '"inject.istio.io/templates": gateway, "sidecar.istio.io/inject": "true"',
        service: '  selector: {app: web}\n  ports: [{name: http2, port: 80, targetPort: 80}]',
      }),
    },
    {
      // Review round 33, report p41 (redpanda chart 25.1.1-beta3): the operator sidecar's /healthz on 8093 checks this
      // broker through its admin API (redpanda-operator operator/internal/probes/broker.go IsClusterBrokerHealthy).
      name: "a broker gated by the Redpanda operator sidecar's broker probe (--run-broker-probe on the broker's admin port)",
      yaml: wl(`      containers:
      - name: redpanda
        image: docker.redpanda.com/redpandadata/redpanda:v25.1.2
        ports: [{containerPort: 9644, name: admin}, {containerPort: 9093, name: kafka}]
        startupProbe: {exec: {command: [/bin/sh, -c, 'curl -sfk "https://localhost:9644/v1/status/ready"']}}
      - name: sidecar
        image: docker.redpanda.com/redpandadata/redpanda-operator:v25.1.1-beta2
        command: [/redpanda-operator]
        args: [sidecar, --run-broker-probe, --broker-probe-broker-url, '$(SERVICE_NAME).redpanda.redpanda.svc.cluster.local.:9644']
        readinessProbe: {httpGet: {path: /healthz, port: 8093}}
`, { kind: 'StatefulSet', service: '  clusterIP: None\n  publishNotReadyAddresses: true\n  selector: {app: web}\n  ports: [{name: kafka, port: 9093, targetPort: 9093}]' }),
    },
    {
      name: "a sibling's tcpSocket readinessProbe on this container's port (one network namespace) checks it",
      yaml: wl(`${app()}      - name: side
        image: side:1
        readinessProbe: {tcpSocket: {port: 8080}}
`),
    },
    {
      name: "a sibling's exec readinessProbe that reaches this container's port over loopback checks it",
      yaml: wl(`${app()}      - name: side
        image: side:1
        readinessProbe: {exec: {command: [sh, -c, "wget -qO- http://127.0.0.1:8080/healthz"]}}
`),
    },
  ],
  invalid: [
    {
      // Review round 25 (Airbyte 1.9.2's airbyte-db): Helm gives a hook without a delete policy before-hook-creation and
      // deletes it only before that hook runs again (helm/helm pkg/action/hooks.go); pre-install never runs again.
      name: 'a pre-install hook StatefulSet without a delete policy stays for the whole install: it is linted like any workload',
      yaml: hookWl('StatefulSet', 'pre-install'),
      findings: [{ severity: 'warning', message: 'container "app": serves port 8080 for Service web but has no readinessProbe' }],
    },
    {
      name: 'a pre-install,pre-upgrade hook Deployment with before-hook-creation lives from one upgrade to the next',
      yaml: hookWl('Deployment', 'pre-install,pre-upgrade', 'before-hook-creation'),
      findings: [{ severity: 'warning', message: 'container "app": serves port 8080 for Service web but has no readinessProbe' }],
    },
    {
      // Review round 20 (submariner's lighthouse CoreDNS: 53 over UDP and TCP).
      name: 'a port served over UDP and TCP: the example probes the TCP one, without the UDP claim',
      yaml: wl(`      containers:
      - name: coredns
        image: registry.k8s.io/coredns/coredns:v1.11.1
        ports: [{name: dns, containerPort: 53, protocol: UDP}, {name: dns-tcp, containerPort: 53, protocol: TCP}]
`, { service: '  selector: {app: web}\n  ports: [{name: dns, port: 53, targetPort: dns, protocol: UDP}, {name: dns-tcp, port: 53, targetPort: dns-tcp, protocol: TCP}]' }),
      findings: [{ severity: 'warning', message: 'e.g. readinessProbe: {tcpSocket: {port: dns-tcp}, periodSeconds: 5}' }],
    },
    {
      // Review round 18 (cp-helm-charts' ZooKeeper: the headless Service lists the quorum port 2888 first, which only the leader opens).
      name: "the example probes the client port, not a peer port the app opens only in some roles",
      yaml: wl(`      containers:
      - name: zookeeper
        image: confluentinc/cp-zookeeper:6.1.0
        ports: [{name: server, containerPort: 2888}, {name: leader-election, containerPort: 3888}, {name: client, containerPort: 2181}]
`, { service: '  selector: {app: web}\n  ports: [{name: server, port: 2888}, {name: leader-election, port: 3888}, {name: client, port: 2181}]' }),
      findings: [{ severity: 'warning', message: 'e.g. readinessProbe: {tcpSocket: {port: client}, periodSeconds: 5}' }],
    },
    {
      // Review round 16 (Mailu's clamav): the kubelet runs no shell, so the pipe is only echo's arguments.
      name: 'an exec readinessProbe of echo (a pipeline written without a shell) can never fail',
      yaml: wl(`      containers:
      - name: clamav
        image: ghcr.io/mailu/clamav:2024.06
        ports: [{name: clamav, containerPort: 3310}]
        readinessProbe: {exec: {command: [echo, PING, "|", nc, localhost, "3310", "|", grep, PONG]}}
`, { service: '  selector: {app: web}\n  ports: [{port: 3310, targetPort: clamav}]' }),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/template/spec/containers/0/readinessProbe/exec/command',
          message: 'container "clamav": serves port 3310 for Service web but its readinessProbe can never fail: exec ["echo","PING","|","nc","localhost","3310","..."] runs echo, which exits 0 (the kubelet runs the command without a shell, so the pipe or operator among its arguments is only printed)',
        },
      ],
    },
    { name: 'an exec readinessProbe of /bin/true', yaml: wl(app(`        readinessProbe: {exec: {command: [/bin/true]}}\n`)), findings: [{ severity: 'warning', message: 'its readinessProbe can never fail: exec ["/bin/true"] runs /bin/true, which exits 0;' }] },
    {
      // Review round 14 (juicefs-csi-driver): port healthz is the CSI livenessprobe sidecar's (--health-port), which
      // serves only /healthz for the driver's liveness; a readiness probe there keeps the pod unready.
      name: 'a health port that a sidecar names as its listen port is not the container\'s: the example probes the served port',
      yaml: wl(`      containers:
      - name: plugin
        image: juicedata/juicefs-csi-driver:v0.32.4
        args: [--leader-election, --webhook=true]
        ports: [{name: healthz, containerPort: 9909}]
        livenessProbe: {httpGet: {path: /healthz, port: healthz}}
      - name: liveness-probe
        image: registry.k8s.io/sig-storage/livenessprobe:v2.12.0
        args: [--csi-address=/csi/csi.sock, --health-port=9909]
`, { service: '  selector: {app: web}\n  ports: [{port: 443, targetPort: 9444}]' }),
      findings: [{ severity: 'warning', message: 'e.g. readinessProbe: {tcpSocket: {port: 9444}, periodSeconds: 5}' }],
    },
    {
      // Review round 14 (telegraf's statsd): no kubelet probe checks UDP.
      name: 'a UDP port: no tcpSocket or httpGet example on it',
      yaml: wl(`      containers:
      - name: telegraf
        image: telegraf:1.34
        ports: [{name: statsd, containerPort: 8125, protocol: UDP}]
`, { service: '  selector: {app: web}\n  ports: [{name: statsd, port: 8125, targetPort: statsd, protocol: UDP}]' }),
      findings: [{ severity: 'warning', message: "e.g. an exec readinessProbe running the app's own health command, or an httpGet on a TCP health endpoint the app serves (port statsd is UDP, which no kubelet probe can check" }],
    },
    {
      // Review round 14 (Open WebUI's Redis, port 6379 named http): Redis answers -ERR to GET /readyz.
      name: 'a datastore image on its well-known port named http: a TCP check, not httpGet',
      yaml: wl(`      containers:
      - name: redis
        image: redis:7.4.2-alpine3.21
        ports: [{name: http, containerPort: 6379}]
`),
      findings: [{ severity: 'warning', message: 'e.g. readinessProbe: {tcpSocket: {port: http}, periodSeconds: 5}' }],
    },
    {
      // Review round 14 (KServe's controller): kube-rbac-proxy answers the kubelet 401.
      name: 'kube-rbac-proxy\'s port: a TCP check, not httpGet',
      yaml: wl(`      containers:
      - name: kube-rbac-proxy
        image: quay.io/brancz/kube-rbac-proxy:v0.18.0
        args: [--secure-listen-address=0.0.0.0:8443, --upstream=http://127.0.0.1:9090/]
        ports: [{name: https, containerPort: 8443}]
`, { service: '  selector: {app: web}\n  ports: [{port: 8443, targetPort: https}]' }),
      findings: [{ severity: 'warning', message: 'e.g. readinessProbe: {tcpSocket: {port: https}, periodSeconds: 5} (kube-rbac-proxy authenticates every request on this port' }],
    },
    {
      // Review round 13: volcano's admission webhook serves TLS only on 8443; a plain-HTTP probe never passes.
      name: 'a TLS port (8443, or named https): the example probe says scheme HTTPS, with tcpSocket as the fallback',
      yaml: wl(`      containers:
      - name: admission
        image: volcanosh/vc-webhook-manager:v1.12.0
        ports: [{containerPort: 8443}]
`, { service: '  selector: {app: web}\n  ports: [{port: 443, targetPort: 8443}]' }),
      findings: [{ severity: 'warning', message: 'e.g. readinessProbe: {tcpSocket: {port: 8443}, periodSeconds: 5} (it checks only that the port accepts connections; an httpGet with scheme: HTTPS on the app\'s own readiness endpoint checks that it can serve, but a path the app does not serve answers 404 and never passes)' }],
    },
    {
      // Review round 30: couchbase-operator's admission controller declares https 443 and serves the
      // Service's numeric targetPort 8443, which no container declares: the example probe goes to
      // 8443 (a probe on `https` would resolve to 443, never pass, and stall every rollout).
      name: 'a numeric targetPort no container declares: the example probe uses that number, not a declared port of another number',
      yaml: wl(`      containers:
      - name: couchbase-operator
        image: couchbase/admission-controller:2.8.1
        ports: [{name: https, containerPort: 443}]
`, { service: '  selector: {app: web}\n  ports: [{port: 443, targetPort: 8443}]' }),
      findings: [{ severity: 'warning', message: 'serves port 8443 for Service web but has no readinessProbe: it counts as ready as soon as it starts, so it gets traffic before the app can serve and rollouts cannot tell a broken pod from a working one; add a readinessProbe on a cheap endpoint, e.g. readinessProbe: {tcpSocket: {port: 8443}, periodSeconds: 5} (it checks only that the port accepts connections; an httpGet with scheme: HTTPS' }],
    },
    {
      name: 'Cluster Autoscaler whose --address moves the server to :9090 while the Service still targets 8085',
      yaml: clusterAutoscaler({ args: ['--address=:9090'] }),
      findings: [{ severity: 'warning', pointer: C0, message: 'container "aws-cluster-autoscaler": serves port 8085 for Service ca-aws-cluster-autoscaler but has no readinessProbe' }],
    },
    {
      name: 'Fluent Bit without a readinessProbe and with a forward input: port 24224 is client traffic',
      yaml: fluentBit({ readiness: '', extraPorts: [{ name: 'forward', port: 24224 }] }),
      findings: [{ severity: 'warning', pointer: C0, message: 'container "fluent-bit": serves port 24224 for Service fb-fluent-bit but has no readinessProbe' }],
    },
    {
      name: 'served container without readinessProbe',
      yaml: wl(app('        livenessProbe: {httpGet: {path: /healthz, port: http}}\n')),
      findings: [{ severity: 'warning', pointer: C0, message: 'container "app": serves port 8080 for Service web but has no readinessProbe' }],
    },
    {
      // crossplane's chart: a startupProbe (tcpSocket) and no readinessProbe. The kubelet holds readiness
      // until the startup probe passes, so "ready as soon as it starts" would be false.
      name: 'a startupProbe alone: still a warning, with what a startupProbe does not cover',
      yaml: wl(app('        startupProbe: {tcpSocket: {port: http}, periodSeconds: 2, failureThreshold: 30}\n')),
      findings: [
        {
          severity: 'warning',
          pointer: C0,
          message: /no readinessProbe: only its startupProbe gates readiness: once that passes it counts as ready until it exits, so it keeps getting traffic when it later stops serving \(overloaded, or a dependency lost\), and a rollout counts it available even if it stops serving right after; add/,
        },
      ],
    },
    // Review round 34, report p46 item 2: the only pod, replaced only after it is gone, whose startupProbe gates the start: an
    // info (table cases, so the admission differential compares the exported policy on them too).
    ...(
      [
        ['StatefulSet', '', 'info'],
        ['ReplicaSet', '', 'info'],
        ['Deployment', '  strategy: {type: Recreate}\n', 'info'],
        ['Deployment', '  strategy: {rollingUpdate: {maxSurge: "0%", maxUnavailable: 1}}\n', 'info'],
        ['Deployment', '  strategy: {rollingUpdate: {maxSurge: "50%", maxUnavailable: 0}}\n', 'warning'],
        ['Deployment', '', 'warning'],
      ] as const
    ).map(([kind, strategy, severity]) => ({
      name: `one replica of a ${kind}${strategy ? ` with ${strategy.trim()}` : ''} and a startupProbe: ${severity}`,
      yaml: wl(app('        startupProbe: {tcpSocket: {port: http}}\n'), { kind }).replace('spec:\n  selector: {matchLabels: {app: web}}', `spec:\n  replicas: 1\n${strategy}  selector: {matchLabels: {app: web}}`),
      findings: [{ severity, pointer: C0 }],
    })),
    {
      name: 'a startupProbe alone behind a Service that publishes not-ready addresses: the rollout reason alone',
      yaml: wl(app('        startupProbe: {tcpSocket: {port: http}}\n'), { service: '  clusterIP: None\n  publishNotReadyAddresses: true\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }),
      findings: [{ severity: 'warning', pointer: C0, message: /only its startupProbe gates readiness: once that passes it counts as ready until it exits, so a rollout counts it available even if it stops serving right after \(its Service publishes not-ready addresses/ }],
    },
    {
      name: 'served only through a Service that publishes not-ready addresses: the rollout reason alone (readiness does not gate that traffic)',
      yaml: wl(app(), { service: '  clusterIP: None\n  publishNotReadyAddresses: true\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }),
      findings: [{ severity: 'warning', pointer: C0, message: /but has no readinessProbe: it counts as ready as soon as it starts, so rollouts cannot tell a broken pod from a working one \(its Service publishes not-ready addresses, so readiness does not gate its traffic\); add/ }],
    },
    {
      name: 'a datastore port number wins over an HTTP-like name: Redis on 6379 named redis-server gets a tcpSocket probe, not httpGet',
      yaml: wl(app().replace('web:1', 'redis:7.2').replace('{name: http, containerPort: 8080}', '{name: redis-server, containerPort: 6379}'), { service: '  selector: {app: web}\n  ports: [{port: 6379, targetPort: redis-server}]' }),
      findings: [{ severity: 'warning', pointer: C0, message: 'add a readinessProbe on a cheap endpoint, e.g. readinessProbe: {tcpSocket: {port: redis-server}, periodSeconds: 5}' }],
    },
    {
      name: 'the suggested probe uses the served port name',
      yaml: wl(app()),
      findings: [{ severity: 'warning', message: 'readinessProbe: {tcpSocket: {port: http}, periodSeconds: 5} (it checks only that the port accepts connections; an httpGet on the app\'s own readiness endpoint checks that it can serve, but a path the app does not serve answers 404 and never passes)' }],
    },
    {
      name: 'served by hint "true" without a Service',
      yaml: wl(app(), { service: false, annotations: '"kubegrace.dev/served": "true"' }),
      findings: [{ severity: 'warning', pointer: C0, message: 'serves port http/8080 but has no readinessProbe' }],
    },
    {
      name: 'unknown served (no Service in the set) with a declared http port: assumed served, and said so',
      yaml: wl(app(), { service: false }),
      findings: [{ severity: 'warning', pointer: C0, message: /readinessProbe: \{tcpSocket: \{port: http\}, periodSeconds: 5\}.*\(served status unknown: no Service in the input selects it, but it declares port http\/8080, so it is assumed served/ }],
    },
    {
      name: 'the example matches the port: tcpSocket for a redis port',
      yaml: wl(app().replace('{name: http, containerPort: 8080}', '{containerPort: 6379}'), { service: '  selector: {app: web}\n  ports: [{port: 6379}]' }),
      findings: [{ severity: 'warning', message: 'e.g. readinessProbe: {tcpSocket: {port: 6379}, periodSeconds: 5}' }],
    },
    {
      name: 'the example matches the port: grpc for a port named grpc',
      yaml: wl(app().replace('{name: http, containerPort: 8080}', '{name: grpc, containerPort: 9090}'), { service: '  selector: {app: web}\n  ports: [{port: 9090, targetPort: grpc}]' }),
      findings: [{ severity: 'warning', message: 'e.g. readinessProbe: {tcpSocket: {port: grpc}, periodSeconds: 5} (it checks only that the port accepts connections; a grpc probe, grpc: {port: 9090}, checks more if the app serves the gRPC health service, grpc.health.v1, and never passes if it does not)' }],
    },
    {
      name: 'a gRPC port beside a declared HTTP port: the example names the HTTP port as the home of a readiness endpoint (CockroachDB: grpc 26257, http 8080)',
      yaml: wl(app().replace('{name: http, containerPort: 8080}', '{name: grpc, containerPort: 26257}, {name: http, containerPort: 8080}'), { service: '  selector: {app: web}\n  ports: [{port: 26257, targetPort: grpc}]' }),
      findings: [{ severity: 'warning', message: 'e.g. readinessProbe: {tcpSocket: {port: grpc}, periodSeconds: 5} (it checks only that the port accepts connections; a grpc probe, grpc: {port: 26257}, checks more if the app serves the gRPC health service, grpc.health.v1, and never passes if it does not; so does an httpGet on the app\'s own readiness endpoint, on port http)' }],
    },
    {
      name: 'a declared health port: the example is a tcpSocket on the served port and names the health port for the app\'s own endpoint',
      yaml: wl(app().replace('{name: http, containerPort: 8080}', '{name: http, containerPort: 8080}, {name: healthz, containerPort: 8081}')),
      findings: [{ severity: 'warning', message: 'e.g. readinessProbe: {tcpSocket: {port: http}, periodSeconds: 5} (it checks only that the port accepts connections; an httpGet on the app\'s own readiness endpoint, or the health endpoint it serves on port healthz, checks that it can serve' }],
    },
    {
      name: 'native sidecar serving the Service port',
      yaml: wl(`      initContainers:
      - {name: proxy, image: envoy:1, restartPolicy: Always, ports: [{name: http, containerPort: 8080}]}
      containers:
      - {name: app, image: web:1}
`),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/initContainers/0', message: 'container "proxy"' }],
    },
    {
      // (Pod readiness is the AND of its containers': the app's probe gates the proxy's traffic too.)
      name: 'native sidecar serving the Service port in front of a main container with a readinessProbe: info',
      yaml: wl(`      initContainers:
      - {name: proxy, image: envoy:1, restartPolicy: Always, ports: [{name: http, containerPort: 8080}]}
      containers:
      - {name: app, image: web:1, readinessProbe: {exec: {command: [ready]}}}
`),
      findings: [{ severity: 'info', pointer: '/spec/template/spec/initContainers/0', message: 'container "proxy": serves port 8080 for Service web but has no readinessProbe: the pod turns Ready only once container "app"\'s readinessProbe passes' }],
    },
    {
      name: 'undeclared numeric targetPort served by the lone main container',
      yaml: wl('      containers: [{name: app, image: web:1}]', { service: '  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]' }),
      findings: [{ severity: 'warning', message: 'serves port 8080 for Service web' }],
    },
    {
      // Review round 33, report p43 (kuberay-apiserver): the proxy forwards to the apiserver container, whose probe
      // gates the pod; only the proxy's own listener is unchecked. Round 22 (code-server beside Home Assistant) alike.
      name: "a sibling's readinessProbe that checks something else gates the pod too: info, naming it",
      yaml: wl(`      containers:
      - name: apiserver
        image: quay.io/kuberay/apiserver:v1.4.0
        ports: [{containerPort: 8888, name: http}]
        readinessProbe: {httpGet: {path: /healthz, port: http}}
      - name: proxy
        image: quay.io/kuberay/security-proxy:v1.4.0
        ports: [{name: http, containerPort: 8988}]
        env: [{name: HTTP_REMOTE_PORT, value: "8888"}]
`, { service: '  selector: {app: web}\n  ports: [{name: http, port: 8888, targetPort: 8988}]' }),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/template/spec/containers/1',
          message:
            'container "proxy": serves port 8988 for Service web but has no readinessProbe: the pod turns Ready only once container "apiserver"\'s readinessProbe passes, and that probe does not go to this container\'s ports: if it listens later than that container gets ready, or stops serving while that one is fine (hung, overloaded), the pod still gets its traffic and a rollout counts it available',
        },
      ],
    },
    {
      name: "a sibling whose readinessProbe can never fail gates nothing: still a warning",
      yaml: wl(`${app()}      - name: side
        image: side:1
        readinessProbe: {exec: {command: [/bin/true]}}
`),
      findings: [{ severity: 'warning', message: 'it counts as ready as soon as it starts, so it gets traffic before the app can serve' }],
    },
    {
      name: 'a native sidecar with a readinessProbe gates the pod too; a startupProbe of its own leaves only the later hang',
      yaml: wl(`      initContainers:
      - {name: side, image: side:1, restartPolicy: Always, readinessProbe: {httpGet: {path: /ready, port: 9000}}}
${app('        startupProbe: {tcpSocket: {port: http}}\n').replace('      containers:\n', '      containers:\n')}`),
      findings: [{ severity: 'info', message: 'the pod turns Ready only once container "side"\'s readinessProbe passes, and that probe does not go to this container\'s ports: once its startupProbe passes, a hung or overloaded container keeps the pod\'s traffic' }],
    },
    {
      name: 'StatefulSet is in scope',
      yaml: wl(app(), { kind: 'StatefulSet' }),
      findings: [{ severity: 'warning', object: 'StatefulSet/web' }],
    },
    {
      name: 'suppressed by kubegrace.dev/ignore',
      yaml: wl(app(), { annotations: '"kubegrace.dev/ignore": "readiness-probe-missing,prestop-missing"' }),
      findings: [{ severity: 'warning', suppressed: true }],
    },
  ],
});

// Review round 22 (drone/charts): a Drone runner pulls its work; its :3000 listener serves /healthz
// (and a dashboard behind basic auth), which only health checks reach: no client traffic to gate or drain.
// Review round 33, report p43 item 5: etcd's startupProbe already checks GET /readyz on its metrics listener 2381; the example
// proposed a tcpSocket on the client port 2379, which passes without quorum.
describe('the readiness example reuses the readiness endpoint a startup or liveness probe already checks', () => {
  const etcd = (probes: string) =>
    wl(`      containers:
      - name: etcd
        image: registry.k8s.io/etcd:3.6.8-0
        ports: [{name: client, containerPort: 2379}]
${probes}`, { service: '  selector: {app: web}\n  ports: [{name: etcd, port: 2379, targetPort: 2379}]' });
  test('etcd: the startupProbe\'s GET /readyz on 2381, not a tcpSocket on 2379', () => {
    const got = runRule(readinessProbeMissing, etcd('        livenessProbe: {httpGet: {path: /livez, port: 2381}}\n        startupProbe: {httpGet: {path: /readyz, port: 2381}, failureThreshold: 24}\n'));
    expect(got).toHaveLength(1);
    expect(got[0].message).toContain('e.g. readinessProbe: {httpGet: {path: /readyz, port: 2381}, periodSeconds: 5} (the readiness endpoint its startupProbe already checks)');
    expect(got[0].message).not.toContain('tcpSocket');
  });
  test('a liveness probe on a ready path, with its scheme and headers kept', () => {
    const got = runRule(readinessProbeMissing, etcd('        livenessProbe: {httpGet: {path: "/health?ready=1", port: client, scheme: HTTPS, httpHeaders: [{name: X-Probe, value: kubelet}]}}\n'));
    expect(got[0].message).toContain('e.g. readinessProbe: {httpGet: {path: "/health?ready=1", port: client, scheme: HTTPS, httpHeaders: [{"name":"X-Probe","value":"kubelet"}]}, periodSeconds: 5} (the readiness endpoint its livenessProbe already checks)');
  });
  test('a liveness-only path (/livez, /healthz) is not reused: the generic example stays', () => {
    for (const path of ['/livez', '/healthz', '/already']) {
      const got = runRule(readinessProbeMissing, etcd(`        livenessProbe: {httpGet: {path: ${path}, port: 2381}}\n`));
      expect(got[0].message).toContain('e.g. readinessProbe: {tcpSocket: {port: client}, periodSeconds: 5}');
    }
  });
});

// Review round 35, report p55 item 4: NATS's startupProbe GET /healthz on its monitor port checks that its
// listeners are up (nats-server server/monitor.go healthz, readyForConnections); the example offered a tcpSocket.
describe("the readiness example reuses the startupProbe's httpGet on a port of the same container", () => {
  const nats = (probes: string, extra = '') =>
    wl(`      containers:
      - name: nats
        image: nats:2.12-alpine
        ports: [{name: client, containerPort: 4222}, {name: cluster, containerPort: 6222}, {name: monitor, containerPort: 8222}]
${probes}${extra}`, { kind: 'StatefulSet', service: '  clusterIP: None\n  selector: {app: web}\n  ports: [{name: client, port: 4222}, {name: cluster, port: 6222}, {name: monitor, port: 8222}]' });
  test('NATS: the startupProbe\'s GET /healthz on 8222, not a tcpSocket on client; 6222 is named a peer port', () => {
    const got = runRule(readinessProbeMissing, nats('        livenessProbe: {httpGet: {path: /, port: 8222}}\n        startupProbe: {httpGet: {path: /healthz, port: 8222}, failureThreshold: 30}\n'));
    expect(got).toHaveLength(1);
    expect(got[0].message).toMatch(/^container "nats": serves port 4222 for Service web \(and peer port 6222\) but/);
    expect(got[0].message).toContain('e.g. readinessProbe: {httpGet: {path: /healthz, port: 8222}, periodSeconds: 5} (the endpoint its startupProbe already checks: the kubelet has seen it answer once the app was up');
    expect(got[0].message).not.toContain('tcpSocket');
  });
  test('a livenessProbe on another path (NATS\'s GET /) is not reused', () => {
    const got = runRule(readinessProbeMissing, nats('        livenessProbe: {httpGet: {path: /, port: 8222}}\n'));
    expect(got[0].message).toContain('e.g. readinessProbe: {tcpSocket: {port: client}, periodSeconds: 5}');
  });
  test("a startupProbe on a port another container of the pod declares is not this container's check", () => {
    const side = '      - name: exporter\n        image: natsio/prometheus-nats-exporter:0.17.3\n        ports: [{name: metrics, containerPort: 7777}]\n';
    const got = runRule(readinessProbeMissing, nats('        startupProbe: {httpGet: {path: /metrics, port: 7777}}\n', side));
    expect(got[0].message).toContain('e.g. readinessProbe: {tcpSocket: {port: client}, periodSeconds: 5}');
  });
});

describe('a Drone runner health port (catalog drone-runner-health)', () => {
  const runner = (image: string) => `apiVersion: v1
kind: Service
metadata: {name: runner}
spec:
  selector: {app: runner}
  ports: [{name: http, port: 3000, targetPort: http}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: runner}
spec:
  replicas: 2
  selector: {matchLabels: {app: runner}}
  template:
    metadata: {labels: {app: runner}}
    spec:
      containers:
      - name: server
        image: ${image}
        ports: [{name: http, containerPort: 3000}]
`;
  test.each(['drone/drone-runner-kube:1.0.0-rc.3', 'docker.io/drone/drone-runner-docker:1'])('%s: neither readiness-probe-missing nor prestop-missing', (image) => {
    expect(runRule(readinessProbeMissing, runner(image))).toEqual([]);
    expect(runRule(prestopMissing, runner(image))).toEqual([]);
  });
  test('another image on the same port: both', () => {
    expect(runRule(readinessProbeMissing, runner('example/app:1'))).toHaveLength(1);
    expect(runRule(prestopMissing, runner('example/app:1'))).toHaveLength(1);
  });
});

// Review rounds 17 and 18 (apache/pulsar-helm-chart, milvus's pulsarv3): `bookkeeper autorecovery`
// serves nothing; its port 8000 is BookKeeper's admin and metrics HTTP server, behind only the
// StatefulSet's headless governing Service (catalog bookkeeper-autorecovery-http).
describe('BookKeeper AutoRecovery in the Pulsar image (catalog bookkeeper-autorecovery-http)', () => {
  const recovery = (image: string, script: string) => `apiVersion: v1
kind: Service
metadata: {name: pulsar-recovery}
spec:
  clusterIP: None
  selector: {app: pulsar, component: recovery}
  ports: [{name: http, port: 8000}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pulsar-recovery}
spec:
  serviceName: pulsar-recovery
  replicas: 2
  selector: {matchLabels: {app: pulsar, component: recovery}}
  template:
    metadata: {labels: {app: pulsar, component: recovery}}
    spec:
      containers:
      - name: pulsar-recovery
        image: ${image}
        command: [sh, -c]
        args:
        - |
          bin/apply-config-from-env.py conf/bookkeeper.conf;
          ${script}
        ports: [{name: http, containerPort: 8000}]
`;
  test.each([
    ['apachepulsar/pulsar-all:4.0.12', 'OPTS="${OPTS} -Dlog4j2.formatMsgNoLookups=true" exec bin/bookkeeper autorecovery'],
    ['docker.io/apachepulsar/pulsar:3.0.7', 'exec bin/bookkeeper autorecovery'],
  ])('%s: neither readiness-probe-missing nor prestop-missing', (image, script) => {
    expect(runRule(readinessProbeMissing, recovery(image, script))).toEqual([]);
    expect(runRule(prestopMissing, recovery(image, script))).toEqual([]);
  });
  test('a bookie of the same image on the same port (bin/pulsar bookie): both', () => {
    const bookie = recovery('apachepulsar/pulsar-all:4.0.12', 'exec bin/pulsar bookie');
    expect(runRule(readinessProbeMissing, bookie)).toHaveLength(1);
    expect(runRule(prestopMissing, bookie)).toHaveLength(1);
  });
});

// Review round 30 (couchbase-operator chart, syncGateway.monitoring.prometheus.enabled): the Prometheus
// exporter sidecar couchbasesamples/sync-gateway-prometheus-exporter behind the Service
// sync-gateway-exporter, ports named http. The program that answers decides: a scrape, not client traffic.
describe('a Service port that reaches a Prometheus exporter (image *-exporter, *_exporter) carries no client traffic', () => {
  const gateway = (exporterImage: string, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: sync-gateway, namespace: cb}
spec:
  replicas: 3
  selector: {matchLabels: {app: sg}}
  template:
    metadata: {labels: {app: sg}}
    spec:
      containers:
      - name: sync-gateway
        image: couchbase/sync-gateway:3.2.1-enterprise
        ports: [{containerPort: 4984, name: public}]
        readinessProbe: {httpGet: {path: /_ping, port: public}}
        lifecycle: {preStop: {sleep: {seconds: 10}}}
      - name: exporter
        image: ${exporterImage}
        ports: [{name: http, containerPort: 9421}]
---
apiVersion: v1
kind: Service
metadata: {name: sync-gateway, namespace: cb}
spec:
  selector: {app: sg}
  ports: [{name: public, port: 4984, targetPort: public}]
---
apiVersion: v1
kind: Service
metadata: {name: sync-gateway-exporter, namespace: cb}
spec:
  selector: {app: sg}
  ports: [{name: http, port: 9421, targetPort: http}]
${extra}`;
  test.each(['couchbasesamples/sync-gateway-prometheus-exporter:latest', 'quay.io/oliver006/redis_exporter:v1.62.0', 'prom/mysqld-exporter@sha256:00', 'registry.example.com:5000/node-exporter:1'])('%s: neither rule', (image) => {
    expect(runRule(readinessProbeMissing, gateway(image))).toEqual([]);
    expect(runRule(prestopMissing, gateway(image))).toEqual([]);
  });
  // (A bare \`exporter\` is not the exporters' naming: penpotapp/exporter is Penpot's export service,
  // review round 35, report p55 item 1.)
  test('another image, an image whose name only contains "exporter" or is a bare "exporter", or an Ingress to the port: both', () => {
    for (const image of ['example/sidecar:1', 'example/exporter-ui:1', 'example/data-exporters:1', 'registry.example.com:5000/exporter:1', 'penpotapp/exporter:2.17.0']) {
      expect(runRule(readinessProbeMissing, gateway(image))).toHaveLength(1);
      expect(runRule(prestopMissing, gateway(image))).toHaveLength(1);
    }
    const routed = gateway(
      'couchbasesamples/sync-gateway-prometheus-exporter:latest',
      `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: metrics, namespace: cb}
spec:
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: sync-gateway-exporter, port: {number: 9421}}}}]}}]
`,
    );
    expect(runRule(readinessProbeMissing, routed)).toHaveLength(1);
    expect(runRule(prestopMissing, routed)).toHaveLength(1);
  });
});

// Review round 35, report p54 item 3: tektoncd/triggers config/webhook.yaml, trimmed, with the released image.
describe('a knative.dev/pkg webhook (catalog probesAnyPath): httpGet HTTPS with no path on its webhook port', () => {
  const triggers = (configs: boolean) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: tekton-triggers-webhook, namespace: tekton-pipelines}
spec:
  replicas: 1
  selector: {matchLabels: {app.kubernetes.io/name: webhook}}
  template:
    metadata: {labels: {app.kubernetes.io/name: webhook}}
    spec:
      containers:
      - name: webhook
        image: ghcr.io/tektoncd/triggers/webhook-dd1edc925ee1772a9f76e2c1bc291ef6:v0.36.0
        env: [{name: WEBHOOK_SECRET_NAME, value: triggers-webhook-certs}]
        ports: [{name: metrics, containerPort: 9000}, {name: https-webhook, containerPort: 8443}]
---
apiVersion: v1
kind: Service
metadata: {name: tekton-triggers-webhook, namespace: tekton-pipelines}
spec:
  selector: {app.kubernetes.io/name: webhook}
  ports: [{name: https-webhook, port: 443, targetPort: 8443}]
${configs ? `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: validation.webhook.triggers.tekton.dev}
webhooks:
- admissionReviewVersions: [v1]
  clientConfig: {service: {name: tekton-triggers-webhook, namespace: tekton-pipelines}}
  failurePolicy: Fail
  sideEffects: None
  name: validation.webhook.triggers.tekton.dev
` : ''}`;
  test.each([false, true])('with the webhook configurations in the input: %s', (configs) => {
    const got = runRule(readinessProbeMissing, triggers(configs));
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toContain(
      'e.g. readinessProbe: {httpGet: {port: https-webhook, scheme: HTTPS}, periodSeconds: 5} (Tekton Triggers webhook (knative.dev/pkg webhook drainer), catalog entry tekton-triggers-webhook: it answers a kubelet probe on any path of this port, 200 while it serves and 503 from SIGTERM on',
    );
    expect(got[0].message).not.toContain('404');
    expect(got[0].message).not.toContain('tcpSocket: {port');
  });
});

// Review round 34, report p46 item 1: Actions Runner Controller's manager serves only its webhook on 9443;
// the example was httpGet /readyz (HTTPS) on that port, where controller-runtime's webhook mux answers 404.
describe('the example on a port an admission or conversion webhook calls invents no HTTP path', () => {
  const arc = (args: string, extraPorts = '', hook = 'ValidatingWebhookConfiguration') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: arc, namespace: arc}
spec:
  selector: {matchLabels: {app: arc}}
  template:
    metadata: {labels: {app: arc}}
    spec:
      containers:
      - name: manager
        image: summerwind/actions-runner-controller:v0.27.6
        args: ${args}
        ports: [{containerPort: 9443, name: webhook-server, protocol: TCP}${extraPorts}]
---
apiVersion: v1
kind: Service
metadata: {name: arc-webhook, namespace: arc}
spec:
  selector: {app: arc}
  ports: [{port: 443, targetPort: 9443, name: https}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ${hook}
metadata: {name: arc}
webhooks:
- name: validate.runner.actions.summerwind.dev
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Fail
  clientConfig: {service: {name: arc-webhook, namespace: arc, path: /validate-runner}}
  rules: [{apiGroups: [actions.summerwind.dev], apiVersions: [v1alpha1], operations: [CREATE], resources: [runners]}]
`;
  test('a controller-runtime manager without a health probe server: tcpSocket on the webhook port, and how to get /readyz', () => {
    const got = runRule(readinessProbeMissing, arc('["--metrics-addr=127.0.0.1:8080", "--enable-leader-election", "--port=9443"]'));
    expect(got).toHaveLength(1);
    expect(got[0].severity).toBe('warning');
    expect(got[0].message).toContain("e.g. readinessProbe: {tcpSocket: {port: webhook-server}, periodSeconds: 5} (this port is called by the API server's validating admission webhook; a webhook server answers only its registered webhook paths");
    expect(got[0].message).toContain('mgr.GetWebhookServer().StartedChecker()');
    expect(got[0].message).not.toContain('path: /readyz');
  });
  test('with --health-probe-bind-address: httpGet /readyz on that port, named when declared', () => {
    const got = runRule(readinessProbeMissing, arc('["--health-probe-bind-address=:8081", "--enable-leader-election"]', ', {containerPort: 8081, name: hc}'));
    expect(got[0].message).toContain('e.g. readinessProbe: {httpGet: {path: /readyz, port: hc}, periodSeconds: 5} (the health probe server of --health-probe-bind-address, not port webhook-server');
    const undeclared = runRule(readinessProbeMissing, arc('["--health-probe-bind-address", "0.0.0.0:8082"]', '', 'MutatingWebhookConfiguration'));
    expect(undeclared[0].message).toContain("e.g. readinessProbe: {httpGet: {path: /readyz, port: 8082}, periodSeconds: 5} (the health probe server of --health-probe-bind-address, not port webhook-server: that port is called by the API server's mutating admission webhook");
  });
  test('a program that is no controller-runtime manager: tcpSocket, without the manager advice', () => {
    const got = runRule(readinessProbeMissing, arc('["--listen=:9443"]'));
    expect(got[0].message).toContain('e.g. readinessProbe: {tcpSocket: {port: webhook-server}, periodSeconds: 5}');
    expect(got[0].message).not.toContain('controller-runtime');
  });
  test('a catalog entry that lists /readyz for the program (CloudNativePG registers it on its webhook mux) keeps the HTTPS example', () => {
    const cnpg = arc('[controller, "--webhook-port=9443"]').replace('summerwind/actions-runner-controller:v0.27.6', 'ghcr.io/cloudnative-pg/cloudnative-pg:1.30.0').replace('args:', 'command: [/manager]\n        args:');
    const got = runRule(readinessProbeMissing, cnpg);
    expect(got[0].message).toContain('e.g. readinessProbe: {httpGet: {path: /readyz, port: webhook-server, scheme: HTTPS}, periodSeconds: 5}');
  });
  test('a port no webhook calls: a tcpSocket too, with no webhook wording (review round 34, report p51 item 7)', () => {
    const got = runRule(readinessProbeMissing, arc('["--enable-leader-election"]').replace('path: /validate-runner', 'path: /validate-runner, port: 8443'));
    expect(got[0].message).toContain('e.g. readinessProbe: {tcpSocket: {port: webhook-server}, periodSeconds: 5} (it checks only that the port accepts connections; an httpGet with scheme: HTTPS on the app\'s own readiness endpoint');
    expect(got[0].message).not.toContain('webhook server answers');
  });
});

// Review round 34, report p46 item 2: Concourse's in-chart Postgres, one replica of a StatefulSet with a
// pg_isready startupProbe: no other endpoint could take its traffic, and the start is gated already.
describe('the only pod, replaced only after it is gone, with a startupProbe: an info', () => {
  const pg = (kind: string, replicas: number, probes: string, extra = '') => `apiVersion: apps/v1
kind: ${kind}
metadata: {name: ci-postgresql}
spec:
  replicas: ${replicas}
${extra}  selector: {matchLabels: {app: ci-postgresql}}
  template:
    metadata: {labels: {app: ci-postgresql}}
    spec:
      containers:
      - name: ci-postgresql
        image: postgres:17
        ports: [{name: pgsql, containerPort: 5432}]
${probes}---
apiVersion: v1
kind: Service
metadata: {name: ci-postgresql}
spec:
  selector: {app: ci-postgresql}
  ports: [{name: pgsql, port: 5432, targetPort: pgsql}]
`;
  const PG_ISREADY = `        startupProbe: {exec: {command: [/bin/sh, -c, 'exec pg_isready -U "concourse" -h 127.0.0.1 -p 5432']}}\n        livenessProbe: {exec: {command: [/bin/sh, -c, 'exec pg_isready -U "concourse" -h 127.0.0.1 -p 5432']}}\n`;
  test('StatefulSet of one replica: info, and the example reuses the pg_isready check', () => {
    const got = runRule(readinessProbeMissing, pg('StatefulSet', 1, PG_ISREADY));
    expect(got).toHaveLength(1);
    expect(got[0].severity).toBe('info');
    expect(got[0].message).toContain('only its startupProbe gates readiness, which covers the start, and it is the only pod, replaced only after it is gone (a StatefulSet of one replica): no other endpoint could take its traffic');
    expect(got[0].message).toContain('e.g. readinessProbe: {exec: {command: ["/bin/sh","-c","exec pg_isready -U \\"concourse\\" -h 127.0.0.1 -p 5432"]}, periodSeconds: 5} (the check its startupProbe already runs: pg_isready exits 1 while PostgreSQL rejects connections');
    expect(got[0].message).not.toContain('tcpSocket: {port');
  });
  test('a Deployment of one replica with Recreate, or maxSurge 0: info', () => {
    expect(runRule(readinessProbeMissing, pg('Deployment', 1, PG_ISREADY, '  strategy: {type: Recreate}\n'))[0].severity).toBe('info');
    const zero = runRule(readinessProbeMissing, pg('Deployment', 1, PG_ISREADY, '  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n'));
    expect(zero[0].severity).toBe('info');
    expect(zero[0].message).toContain('(a Deployment of one replica with maxSurge 0)');
  });
  test('warning with two replicas, a surge, no startupProbe, a startupProbe that can never fail, an HPA, or a sibling workload behind the Service', () => {
    const warn = (y: string) => expect(runRule(readinessProbeMissing, y).map((f) => f.severity)).toEqual(['warning']);
    warn(pg('StatefulSet', 2, PG_ISREADY));
    warn(pg('Deployment', 1, PG_ISREADY));
    warn(pg('StatefulSet', 1, ''));
    warn(pg('StatefulSet', 1, '        startupProbe: {exec: {command: [/bin/true]}}\n'));
    warn(
      pg('StatefulSet', 1, PG_ISREADY) +
        `---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: pg}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: ci-postgresql}, minReplicas: 1, maxReplicas: 3}
`,
    );
    const sibling = pg('StatefulSet', 1, PG_ISREADY) + '---\n' + pg('StatefulSet', 1, PG_ISREADY).split('---\n')[0].replace('name: ci-postgresql}', 'name: ci-postgresql-1}');
    expect(runRule(readinessProbeMissing, sibling).map((f) => f.severity)).toEqual(['warning', 'warning']);
  });
  test('mysqladmin ping is reused; redis-cli ping (exit 0 on a -LOADING reply) is not', () => {
    const mysql = runRule(readinessProbeMissing, pg('Deployment', 2, '        livenessProbe: {exec: {command: [mysqladmin, ping, -h, 127.0.0.1]}}\n'));
    expect(mysql[0].message).toContain('e.g. readinessProbe: {exec: {command: ["mysqladmin","ping","-h","127.0.0.1"]}, periodSeconds: 5} (the check its livenessProbe already runs: mysqladmin ping');
    const redis = runRule(readinessProbeMissing, pg('Deployment', 2, '        livenessProbe: {exec: {command: [redis-cli, ping]}}\n'));
    expect(redis[0].message).toContain('e.g. readinessProbe: {tcpSocket: {port: pgsql}');
  });
});

describe('the Prometheus server serves its API on a port named for the program (review round 34, report p50 item 9)', () => {
  const monitor = (image: string, args = '', portName = 'prometheus', svcPort = 'http-prometheus') => `apiVersion: v1
kind: Service
metadata: {name: demo-prometheus, namespace: tidb}
spec:
  type: NodePort
  ports: [{name: ${svcPort}, port: 9090, targetPort: 9090, protocol: TCP}]
  selector: {app.kubernetes.io/component: monitor}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: demo-monitor, namespace: tidb}
spec:
  replicas: 2
  selector: {matchLabels: {app.kubernetes.io/component: monitor}}
  template:
    metadata: {labels: {app.kubernetes.io/component: monitor}}
    spec:
      containers:
      - name: prometheus
        image: ${image}
        command: [/bin/prometheus, --config.file=/etc/prometheus/prometheus.yml${args}]
        ports: [{name: ${portName}, containerPort: 9090, protocol: TCP}]
`;
  test('prom/prometheus, quay.io/prometheus/prometheus and bitnami/prometheus with port "prometheus" are judged', () => {
    for (const image of ['prom/prometheus:v2.27.1', 'quay.io/prometheus/prometheus:v3.1.0', 'docker.io/bitnami/prometheus:2.53.0']) {
      const got = runRule(readinessProbeMissing, monitor(image));
      expect(got).toHaveLength(1);
      expect(got[0].message).toContain('container "prometheus": serves port 9090 for Service demo-prometheus but has no readinessProbe');
    }
  });
  test('an exporter whose metrics port is named "prometheus", and a Prometheus agent, are not', () => {
    expect(runRule(readinessProbeMissing, monitor('prom/node-exporter:v1.8.0'))).toEqual([]);
    expect(runRule(readinessProbeMissing, monitor('prom/prometheus:v3.1.0', ', --agent'))).toEqual([]);
    expect(runRule(readinessProbeMissing, monitor('prom/prometheus:v2.45.0', ', "--enable-feature=exemplar-storage,agent"'))).toEqual([]);
  });
});

describe('no invented HTTP path in the example (review round 34, report p51 item 7)', () => {
  // Jupyter Enterprise Gateway answers /api, not /readyz; Traefik in z2jh forwards /readyz to the hub (404).
  const eg = `apiVersion: apps/v1
kind: Deployment
metadata: {name: enterprise-gateway}
spec:
  replicas: 2
  selector: {matchLabels: {gateway-selector: enterprise-gateway}}
  template:
    metadata: {labels: {gateway-selector: enterprise-gateway}}
    spec:
      containers:
        - name: enterprise-gateway
          image: elyra/enterprise-gateway:3.2.3
          ports: [{containerPort: 8888}, {containerPort: 8877}]
---
apiVersion: v1
kind: Service
metadata: {name: enterprise-gateway}
spec:
  selector: {gateway-selector: enterprise-gateway}
  ports: [{name: http, port: 8888, targetPort: 8888}, {name: http-response, port: 8877, targetPort: 8877}]
`;
  test('a program the catalog knows no readiness endpoint for: tcpSocket on the served port, saying it checks only the listener', () => {
    const got = runRule(readinessProbeMissing, eg);
    expect(got).toHaveLength(1);
    expect(got[0].message).toContain("e.g. readinessProbe: {tcpSocket: {port: 8888}, periodSeconds: 5} (it checks only that the port accepts connections; an httpGet on the app's own readiness endpoint checks that it can serve, but a path the app does not serve answers 404 and never passes)");
    expect(got[0].message).not.toContain('/readyz');
    const https = runRule(readinessProbeMissing, eg.replace('elyra/enterprise-gateway:3.2.3', 'traefik:v3.1').replace(/8888/g, '8443'));
    expect(https[0].message).toContain('e.g. readinessProbe: {tcpSocket: {port: 8443}, periodSeconds: 5} (it checks only that the port accepts connections; an httpGet with scheme: HTTPS on');
  });
  test('the Prometheus server: its /-/ready, not /-/healthy', () => {
    const prom = eg.replace('elyra/enterprise-gateway:3.2.3', 'quay.io/prometheus/prometheus:v3.1.0').replace('[{containerPort: 8888}, {containerPort: 8877}]', '[{name: web, containerPort: 9090}]').replace(/ports: \[\{name: http, .*\]/, 'ports: [{name: web, port: 9090, targetPort: web}]');
    expect(runRule(readinessProbeMissing, prom)[0].message).toContain('e.g. readinessProbe: {httpGet: {path: "/-/ready", port: web}, periodSeconds: 5} (Prometheus answers /-/ready with 200 once it can answer queries, 503 while it replays its WAL)');
  });
});

describe('a start that waits for its own per-pod DNS name: publishNotReadyAddresses first (review round 34, report p50 item 6)', () => {
  // tidb-operator v1.5.5 charts/tidb-cluster scripts/_start_drainer.sh.tpl, trimmed.
  const drainer = (svcExtra = '', script = 'domain=`echo ${HOSTNAME}`.demo-drainer\n          until nslookup ${domain} 2>/dev/null; do sleep 1; done\n          exec /drainer -addr=0.0.0.0:8249') => `apiVersion: v1
kind: Service
metadata: {name: demo-drainer}
spec:
  clusterIP: None${svcExtra}
  ports: [{name: drainer, port: 8249}]
  selector: {app: drainer}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: demo-drainer}
spec:
  serviceName: demo-drainer
  replicas: 1
  selector: {matchLabels: {app: drainer}}
  template:
    metadata: {labels: {app: drainer}}
    spec:
      containers:
      - name: drainer
        image: pingcap/tidb-binlog:v7.5.5
        command:
        - /bin/sh
        - -c
        - |-
          ${script}
        ports: [{containerPort: 8249, name: drainer}]
`;
  test('nslookup of ${HOSTNAME}.<serviceName> and a headless Service without publishNotReadyAddresses: set it first, then the probe', () => {
    const got = runRule(readinessProbeMissing, drainer());
    expect(got).toHaveLength(1);
    expect(got[0].message).toContain("its command waits until the pod's own DNS name under the headless Service demo-drainer resolves before it starts the server, and that Service does not publish not-ready addresses, so the name resolves only once the pod is Ready: a readinessProbe alone would fail until the server listens and so never let it start; first set publishNotReadyAddresses: true on Service demo-drainer, then add a readinessProbe, e.g. readinessProbe: {tcpSocket: {port: drainer}");
    const dig = runRule(readinessProbeMissing, drainer('', 'while ! getent hosts "$(hostname).demo-drainer"; do sleep 1; done; exec /drainer'));
    expect(dig[0].message).toContain('first set publishNotReadyAddresses: true on Service demo-drainer');
  });
  test('the usual advice when the Service publishes not-ready addresses, or the lookup is of another name', () => {
    for (const y of [drainer('\n  publishNotReadyAddresses: true'), drainer('', 'until nslookup demo-pd; do sleep 1; done; exec /drainer')]) {
      const got = runRule(readinessProbeMissing, y);
      expect(got).toHaveLength(1);
      expect(got[0].message).not.toContain('publishNotReadyAddresses: true on');
      expect(got[0].message).toContain('add a readinessProbe on a cheap endpoint, e.g.');
    }
  });
});
