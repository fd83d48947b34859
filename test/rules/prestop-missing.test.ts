import { ResolvedPolicy } from '../../lib/engine/policy';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { prestopMissing } from '../../lib/rules/prestop-missing';
import { ALL_RULES } from '../../lib/rules';
import { coredns, corefile } from '../helpers/coredns';
import { fluentBit, fluentBitConf } from '../helpers/fluent-bit';
import { clusterAutoscaler } from '../helpers/cluster-autoscaler';
import { flagger, reloader } from '../helpers/metrics-servers';
import { logstash } from '../helpers/logstash';
import { sourcegraphWorker } from '../helpers/sourcegraph';
import { interceptor, KEDA_CHART_IMAGE } from '../helpers/keda';
import { activator, pkgWebhook, SERVING_WEBHOOK_IMAGE, TEKTON_WEBHOOK_IMAGE } from '../helpers/knative';
import { pxcOperator } from '../helpers/percona';
import { skipper } from '../helpers/skipper';
import { seaweedfsVolume, weedVolumeScript } from '../helpers/seaweedfs';
import { vminsert } from '../helpers/victoriametrics';
import { bitnamiShard, mongod } from '../helpers/mongodb';
import { langfuseWeb } from '../helpers/langfuse';
import { tykGateway } from '../helpers/tyk';
import { ruleTester, runRule } from '../helpers/rule-tester';
import { webhookConfig } from '../helpers/manifests';

interface Opts {
  kind?: string;
  replicas?: number;
  strategy?: string;
  annotations?: string;
  podSpec?: string;
  service?: string | false;
  workloadAnnotations?: string;
}

const app = (lifecycle = '') => `      containers:
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080}]
${lifecycle}`;

/** A workload selected by a Service (app=web) unless `service: false`. */
function wl(o: Opts = {}): string {
  const kind = o.kind ?? 'Deployment';
  const replicas = kind === 'DaemonSet' ? '' : `  replicas: ${o.replicas ?? 2}\n`;
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
kind: ${kind}
metadata:
  name: web
${o.workloadAnnotations ? `  annotations: {${o.workloadAnnotations}}\n` : ''}spec:
${replicas}${o.strategy ?? ''}  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
${o.podSpec ?? app()}
${svc}`;
}

/** One replica with a PVC of `mode` mounted (Kubecost's cost-analyzer shape, review round 35, report p57 item 1). */
function singleWithClaim(rollingUpdate?: string, mode = 'ReadWriteOnce', kind = 'Deployment'): string {
  return `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [${mode}]
  resources: {requests: {storage: 1Gi}}
---
${wl({
  kind,
  replicas: 1,
  strategy: rollingUpdate ? `  strategy: {type: RollingUpdate, rollingUpdate: ${rollingUpdate}}\n` : '',
  podSpec: `      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
      containers:
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080}]
        volumeMounts: [{name: data, mountPath: /data}]
`,
})}`;
}

/** A DaemonSet behind a Service with internalTrafficPolicy: Local (the Datadog agent's shape, review round 35, report p56 item 1). */
function localDaemonSet(o: { strategy?: string; hostPort?: boolean; type?: string } = {}): string {
  return `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
${o.strategy ? `  updateStrategy: ${o.strategy}\n` : ''}  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080${o.hostPort ? ', hostPort: 8080' : ''}}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
${o.type ? `  type: ${o.type}\n` : ''}  internalTrafficPolicy: Local
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
`;
}

const POINTER = '/spec/template/spec/containers/0';
/** A webhook's rules on pods (a built-in kind): prestop-missing's warning, not the custom-resource info. */
const POD_RULES = "[{apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [pods]}]";

/** A StatefulSet behind a headless Service, and a per-pod Service of its pod 0 (redis-ha's "announce" pattern), headless or not. */
const withPerPodService = (headless: boolean) => `${wl({ kind: 'StatefulSet', service: '  clusterIP: None\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' })}---
apiVersion: v1
kind: Service
metadata: {name: web-announce-0}
spec:
${headless ? '  clusterIP: None\n' : ''}  selector: {app: web, statefulset.kubernetes.io/pod-name: web-0}
  ports: [{name: http, port: 80, targetPort: http}]
`;
const PRESTOP = `${POINTER}/lifecycle/preStop`;

/** The ingress-nginx controller container with the chart's /wait-shutdown hook (and these args). */
const INGRESS_NGINX = (...args: string[]) =>
  app('        lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}').replace('web:1', 'registry.k8s.io/ingress-nginx/controller:v1.15.1') +
  (args.length ? `\n        args: [${args.map((a) => JSON.stringify(a)).join(', ')}]` : '');

/** The haproxytech charts' commented preStop example (kubernetes-ingress controller.lifecycle, haproxy lifecycle), after `before`. */
const HAPROXY_SOFT_STOP = (before = '') =>
  app(`        lifecycle: {preStop: {exec: {command: ["/bin/sh", "-c", "${before}kill -USR1 $(pidof haproxy); while killall -0 haproxy; do sleep 1; done"]}}}`).replace(
    'web:1',
    'docker.io/haproxytech/kubernetes-ingress:3.2.12',
  );

/** A kube-rbac-proxy container behind a labelled Service (the metrics-auth pattern), without a ServiceMonitor. */
const rbacProxied = () =>
  wl({
    podSpec: '      containers:\n      - {name: kube-rbac-proxy, image: "quay.io/brancz/kube-rbac-proxy:v0.18.0", ports: [{name: https, containerPort: 8443}]}\n',
    service: '  selector: {app: web}\n  ports: [{name: https, port: 8443, targetPort: https}]',
  }).replace('metadata: {name: web}\nspec:\n  selector', 'metadata: {name: web, labels: {app: web}}\nspec:\n  selector');


ruleTester(prestopMissing, {
  valid: [
    { name: 'sleep action preStop', yaml: wl({ podSpec: app('        lifecycle: {preStop: {sleep: {seconds: 10}}}') }) },
    { name: 'exec preStop of any kind counts as a hook', yaml: wl({ podSpec: app('        lifecycle: {preStop: {exec: {command: [/wait-shutdown]}}}') }) },
    {
      name: 'unserved: the set holds another Service in the namespace and none selects the pods',
      yaml: wl({ service: '  selector: {app: other}\n  ports: [{name: http, port: 80, targetPort: 8080}]' }),
    },
    {
      name: 'unknown served, but the only declared port is an operator port (diag): not assumed served',
      yaml: wl({ service: false, podSpec: app().replace('{name: http, containerPort: 8080}', '{name: diag, containerPort: 3000}') }),
    },
    {
      name: 'unknown served, only a metrics port declared: not assumed served',
      yaml: wl({ service: false, podSpec: app().replace('{name: http, containerPort: 8080}', '{name: metrics, containerPort: 9090}') }),
    },
    { name: 'unknown served, no port declared: not assumed served', yaml: wl({ service: false, podSpec: app().replace('        ports: [{name: http, containerPort: 8080}]\n', '') }) },
    { name: 'served hint "false" overrides the Service', yaml: wl({ annotations: '"kubegrace.dev/served": "false"' }) },
    { name: 'Job is not in scope', yaml: `apiVersion: batch/v1
kind: Job
metadata: {name: web}
spec:
  template:
    metadata: {labels: {app: web}, annotations: {kubegrace.dev/served: "true"}}
    spec:
      restartPolicy: Never
${app()}` },
    { name: 'bare Pod is not in scope', yaml: `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
${app().replace(/^ {6}/gm, '  ')}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}]}
` },
    { name: 'serves-after-sigterm annotation > 0 on the pod template', yaml: wl({ annotations: '"kubegrace.dev/serves-after-sigterm-seconds": "15"' }) },
    { name: 'serves-after-sigterm annotation on the workload metadata (Go duration)', yaml: wl({ workloadAnnotations: '"kubegrace.dev/serves-after-sigterm-seconds": "20s"' }) },
    { name: 'grace 0: no hook would run; zero-grace-period reports it', yaml: wl({ podSpec: `      terminationGracePeriodSeconds: 0\n${app()}` }) },
    {
      name: 'served only by a Service with publishNotReadyAddresses (a data store\'s peer Service, bitnami/mongodb replicaset): the terminating pod stays a ready endpoint until it is gone, so no removal is raced',
      yaml: wl({ kind: 'StatefulSet', service: '  clusterIP: None\n  publishNotReadyAddresses: true\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }),
    },
    {
      name: 'the same for a ClusterIP Service with publishNotReadyAddresses (kube-proxy keeps routing to the terminating pod; headless-publish-not-ready judges the flag)',
      yaml: wl({ service: '  publishNotReadyAddresses: true\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }),
    },
    {
      // dskit's one HTTP server, named http-metrics by the charts: scraped only on components clients do not call.
      name: 'the http-metrics port of a Cortex ingester, a Mimir store-gateway, a Tempo distributor or a Loki querier is scraped, not traffic',
      yaml: ['quay.io/cortexproject/cortex:v1.21.1|-target=ingester', 'grafana/mimir:2.14.0|-target=store-gateway', 'grafana/tempo:2.6.0|-target=distributor', 'grafana/loki:3.4.0|-target=querier', 'grafana/mimir:2.14.0|-target=compactor']
        .map((x, i) => wl({ podSpec: '      containers:\n      - name: c\n        image: IMG\n        args: [ARG]\n        ports: [{name: http-metrics, containerPort: 8080}]\n'.replace('IMG', x.split('|')[0]).replace('ARG', x.split('|')[1]), service: '  selector: {app: web}\n  ports: [{name: http-metrics, port: 8080, targetPort: http-metrics}]' }).replace(/\b(web)\b/g, `web${i}`))
        .join('---\n'),
    },
    {
      // Review round 24 (grafana/mimir-distributed): distributors and queriers dial ingesters and
      // store-gateways by the addresses in the hash ring; queriers pull their work from the
      // scheduler; nothing calls the query-scheduler's ClusterIP Service or the overrides-exporter's gRPC port.
      name: "the gRPC port of a ring member (Mimir ingester and store-gateway, Loki ingester, Tempo metrics-generator) or of a component that pulls its work or only exports metrics is reached by no Service client",
      yaml: [
        'grafana/mimir:2.14.0|-target=ingester',
        'grafana/mimir:2.14.0|-target=store-gateway',
        'grafana/mimir:2.14.0|-target=querier',
        'grafana/mimir:2.14.0|-target=query-scheduler',
        'grafana/mimir:2.14.0|-target=overrides-exporter',
        'quay.io/cortexproject/cortex:v1.21.1|-target=ingester',
        'grafana/loki:3.4.0|-target=ingester',
        'grafana/tempo:2.6.0|-target=metrics-generator',
      ]
        .map((x, i) =>
          wl({
            kind: 'StatefulSet',
            podSpec: '      containers:\n      - name: c\n        image: IMG\n        args: [ARG]\n        ports: [{name: http-metrics, containerPort: 8080}, {name: grpc, containerPort: 9095}]\n'.replace('IMG', x.split('|')[0]).replace('ARG', x.split('|')[1]),
            service: '  selector: {app: web}\n  ports: [{name: http-metrics, port: 8080, targetPort: http-metrics}, {name: grpc, port: 9095, targetPort: grpc}]',
          }).replace(/\b(web)\b/g, `web${i}`),
        )
        .join('---\n'),
    },
    {
      // Review round 25: a route to the port makes it client traffic (below); without one, or with one
      // to another Service, another port, or from an Ingress in another namespace, the name decides.
      name: 'an admin-named Service port that no Ingress or route in its namespace sends traffic to stays an operator port',
      yaml:
        wl({ service: '  selector: {app: web}\n  ports: [{name: admin-3000, port: 3000, targetPort: 3000}]', podSpec: app().replace('[{name: http, containerPort: 8080}]', '[{containerPort: 3000}]') })
          .replace('metadata: {name: web}', 'metadata: {name: web, namespace: shop}')
          .replace('metadata:\n  name: web\n', 'metadata:\n  name: web\n  namespace: shop\n') +
        `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: other, namespace: elsewhere}
spec:
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 3000}}}}]}}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: other-port, namespace: shop}
spec:
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 3001}}}}]}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: other-service, namespace: shop}
spec:
  rules: [{backendRefs: [{name: web2, port: 3000}]}]
`,
    },
    {
      // Review round 25 (bitnami/flink): the JobManager and the other TaskManagers dial a TaskManager
      // by the address it registered with; nothing reaches it through the Service that selects it.
      name: 'a Flink TaskManager (Bitnami FLINK_MODE=taskmanager, or the official image\'s taskmanager argument) is reached by no Service client',
      yaml: [
        "        image: docker.io/bitnami/flink:2.1.0-debian-12-r1\n        env: [{name: FLINK_MODE, value: taskmanager}]\n",
        '        image: flink:1.20\n        args: [taskmanager]\n',
      ]
        .map((img, i) =>
          wl({
            kind: 'StatefulSet',
            podSpec: `      containers:\n      - name: tm\n${img}        ports: [{name: data, containerPort: 6121}, {name: rpc, containerPort: 6122}]\n`,
            service: '  selector: {app: web}\n  ports: [{name: data, port: 6121, targetPort: data}, {name: rpc, port: 6122, targetPort: rpc}]',
          }).replace(/\b(web)\b/g, `web${i}`),
        )
        .join('---\n'),
    },
    {
      name: 'a metrics-named port of another program (node-exporter) stays scraped',
      yaml: wl({ podSpec: '      containers:\n      - name: c\n        image: quay.io/prometheus/node-exporter:v1.8.0\n        args: [--web.listen-address=:8080]\n        ports: [{name: http-metrics, containerPort: 8080}]\n', service: '  selector: {app: web}\n  ports: [{name: http-metrics, port: 8080, targetPort: http-metrics}]' }),
    },
    {
      // Alertmanager's cluster port (memberlist, 9094): the prometheus-community chart's names, and prometheus-operator's tcp-mesh.
      name: 'a headless Service of Alertmanager cluster (gossip) ports only is peer membership, not traffic',
      yaml: ['cluster-tcp', 'tcp-mesh', 'clusterpeer-tcp']
        .map((n, i) => wl({ kind: 'StatefulSet', podSpec: '      containers:\n      - name: alertmanager\n        image: quay.io/prometheus/alertmanager:v0.28.1\n        ports: [{name: http, containerPort: 9093}, {name: clusterpeer-tcp, containerPort: 9094}]\n', service: `  clusterIP: None\n  selector: {app: web}\n  ports: [{name: ${n}, port: 9094, targetPort: clusterpeer-tcp}]` }).replace(/\b(web)\b/g, `web${i}`))
        .join('---\n'),
    },
    {
      // Review round 22: NeuVector's controllers join their embedded Consul through a headless Service
      // whose ports are named cluster-tcp-18300, cluster-tcp-18301, cluster-udp-18301.
      name: 'a headless Service of numbered cluster-tcp-N / cluster-udp-N ports only is peer membership',
      yaml: wl({
        podSpec: '      containers:\n      - name: ctl\n        image: neuvector/controller:5.6.0\n        ports: [{containerPort: 18300}, {containerPort: 18301}, {containerPort: 18301, protocol: UDP}]\n',
        service: '  clusterIP: None\n  selector: {app: web}\n  ports: [{name: cluster-tcp-18300, port: 18300}, {name: cluster-tcp-18301, port: 18301}, {name: cluster-udp-18301, port: 18301, protocol: UDP}]',
      }),
    },
    {
      // Review round 16 (grafana's alloy-operator chart exposes its health probe port 8081 on its Service).
      name: "a Service to the port of controller-runtime's --health-probe-bind-address carries probes, not clients",
      yaml: wl({ podSpec: '      containers:\n      - name: manager\n        image: controller:latest\n        args: [--metrics-bind-address=:8082, --health-probe-bind-address=:8081]\n', service: '  selector: {app: web}\n  ports: [{name: health, port: 8081, targetPort: 8081}, {name: http-metrics, port: 8082, targetPort: 8082}]' }),
    },
    {
      name: 'the same Service port named http: the flag, not the name, says what it is',
      yaml: wl({ podSpec: '      containers:\n      - name: manager\n        image: controller:latest\n        args: [--health-probe-bind-address=:8081]\n', service: '  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: 8081}]' }),
    },
    {
      // The kubebuilder v4 scaffold: controller-manager-metrics-service, port https 8443, no declared port.
      name: 'a Service to the port of controller-runtime\'s --metrics-bind-address is scraped, whatever its port is named',
      yaml: wl({ podSpec: '      containers:\n      - name: manager\n        image: controller:latest\n        args: [--metrics-bind-address=:8443, --health-probe-bind-address=:8081]\n', service: '  selector: {app: web}\n  ports: [{name: https, port: 8443, targetPort: 8443}]' }),
    },
    {
      // rabbitmq/cluster-operator: rabbitmq-cluster-operator-metrics-service, port http to container port metrics 8080.
      name: 'a Service named *-metrics-service is scraped, whatever its port is named',
      yaml: wl({ service: '  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }).replace('metadata: {name: web}\nspec:\n  selector', 'metadata: {name: op-metrics-service}\nspec:\n  selector'),
    },
    {
      name: 'a Service of scrape and operator ports (Kong\'s kong-metrics: cmetrics, and status to cstatus) is not traffic',
      yaml: wl({
        podSpec: app().replace('[{name: http, containerPort: 8080}]', '[{name: cmetrics, containerPort: 10255}, {name: cstatus, containerPort: 10254}]'),
        service: '  selector: {app: web}\n  ports: [{name: cmetrics, port: 10255, targetPort: cmetrics}, {name: status, port: 10254, targetPort: cstatus}]',
      }),
    },
    {
      name: 'a Service labelled app.kubernetes.io/component: metrics (kube-state-metrics\' chart, argocd-metrics) is scraped, not traffic, whatever its port is named',
      yaml: wl({ service: '  selector: {app: web}\n  ports: [{name: http, port: 8080, targetPort: http}]' }).replace('metadata: {name: web}\nspec:\n  selector', 'metadata: {name: web, labels: {app.kubernetes.io/component: metrics}}\nspec:\n  selector'),
    },
    {
      name: 'a Service port named like an exporter\'s (redis-ha\'s http-exporter-port to metrics-port) beside a served port of another container',
      yaml: wl({
        podSpec: `${app('        lifecycle: {preStop: {sleep: {seconds: 10}}}')}
      - name: exporter
        image: redis-exporter:1
        ports: [{name: metrics-port, containerPort: 9101}]
`,
        service: '  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}, {name: http-exporter-port, port: 9101, targetPort: metrics-port}]',
      }),
    },
    {
      name: 'unknown served, the only declared port is the probes\' (Envoy Gateway\'s readiness/19003): not assumed served',
      yaml: wl({ service: false, podSpec: app().replace('{name: http, containerPort: 8080}', '{name: readiness, containerPort: 19003}') }),
    },
    {
      name: 'a gossip port is peer membership, not client traffic, whatever the Service port is called (Loki\'s memberlist Service: tcp to http-memberlist)',
      yaml: wl({ podSpec: app().replace('[{name: http, containerPort: 8080}]', '[{name: http-memberlist, containerPort: 7946}]'), service: '  clusterIP: None\n  selector: {app: web}\n  ports: [{name: tcp, port: 7946, targetPort: http-memberlist}]' }),
    },
    {
      name: 'a metrics Service on port 80 of a program that is no web server (trivy-operator\'s chart: metricsPort 80) is scraped, not traffic',
      yaml: wl({ podSpec: app().replace('web:1', 'mirror.gcr.io/aquasec/trivy-operator:0.29.0').replace('[{name: http, containerPort: 8080}]', '[{name: metrics, containerPort: 8080}]'), service: '  clusterIP: None\n  selector: {app: web}\n  ports: [{name: metrics, port: 80, targetPort: metrics}]' }),
    },
    { name: 'metrics-only Service is not traffic', yaml: wl({ service: '  selector: {app: web}\n  ports: [{name: metrics, port: 9090, targetPort: 9090}]' }) },
    {
      name: 'exporter Service (app.kubernetes.io/component: exporter) is scraped, not traffic',
      yaml: wl({ service: '  selector: {app: web}\n  ports: [{name: https, port: 8443, targetPort: http}]' }).replace('metadata: {name: web}\nspec:\n  selector', 'metadata: {name: web, labels: {app.kubernetes.io/component: exporter}}\nspec:\n  selector'),
    },
    {
      name: 'metrics port of a mixed Service does not make a sidecar exporter served',
      yaml: wl({
        podSpec: `${app('        lifecycle: {preStop: {sleep: {seconds: 10}}}')}
      - name: exporter
        image: exporter:1
        ports: [{name: metrics, containerPort: 9121}]
`,
        service: '  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}, {name: metrics, port: 9121, targetPort: metrics}]',
      }),
    },
    {
      name: 'kube-rbac-proxy port scraped by a ServiceMonitor is metrics (kube-prometheus prometheus-operator)',
      yaml: `${wl({
        podSpec: '      containers:\n      - {name: kube-rbac-proxy, image: "quay.io/brancz/kube-rbac-proxy:v0.18.0", ports: [{name: https, containerPort: 8443}]}\n',
        service: '  selector: {app: web}\n  ports: [{name: https, port: 8443, targetPort: https}]',
      }).replace('metadata: {name: web}\nspec:\n  selector', 'metadata: {name: web, labels: {app: web}}\nspec:\n  selector')}---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: https}]
`,
    },
    {
      // Review round 14 (KServe's controller: Service kserve-controller-manager-service, no metrics name, no ServiceMonitor).
      name: "kube-rbac-proxy whose --upstream is the loopback address of the manager's controller-runtime metrics server (kubebuilder's scaffold)",
      yaml: wl({
        podSpec: `      containers:
      - {name: manager, image: example/manager:v1, args: [--metrics-addr=127.0.0.1:8080], ports: [{name: webhook, containerPort: 9443}], lifecycle: {preStop: {sleep: {seconds: 10}}}}
      - {name: kube-rbac-proxy, image: "quay.io/brancz/kube-rbac-proxy:v0.18.0", args: [--secure-listen-address=0.0.0.0:8443, --upstream=http://127.0.0.1:8080/], ports: [{name: https, containerPort: 8443}]}
`,
        service: '  selector: {app: web}\n  ports: [{port: 8443, targetPort: https}]',
      }),
    },
    {
      name: 'kube-rbac-proxy port scraped by a ServiceMonitor in another namespace that lists this one (matchNames)',
      yaml: `${rbacProxied()}---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: monitoring}
spec:
  namespaceSelector: {matchNames: [other, default]}
  selector: {matchLabels: {app: web}}
  endpoints: [{port: https}]
`,
    },
    {
      name: 'kube-rbac-proxy port scraped by a ServiceMonitor of any namespace (namespaceSelector.any)',
      yaml: `${rbacProxied()}---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: monitoring}
spec:
  namespaceSelector: {any: true}
  selector: {matchLabels: {app: web}}
  endpoints: [{targetPort: https}]
`,
    },
    { name: 'single-replica StatefulSet: no other endpoint while it terminates', yaml: wl({ kind: 'StatefulSet', replicas: 1 }) },
    {
      name: 'single-replica StatefulSets whose only common Service is headless (a primary and its replicas under a governing Service): no other endpoint for the same role',
      yaml:
        wl({ kind: 'StatefulSet', replicas: 1, service: '  clusterIP: None\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }) +
        `---\n${wl({ kind: 'StatefulSet', replicas: 1, service: false }).replace('name: web\n', 'name: web-b\n')}`,
    },

    { name: 'single-replica Deployment with Recreate', yaml: wl({ replicas: 1, strategy: '  strategy: {type: Recreate}\n' }) },
    // Before 1.26 kube-proxy drops a Service's traffic once its only endpoint is terminating (no
    // ProxyTerminatingEndpoints fallback): the delay moves nothing (review round 35, report p57 item 1).
    { name: 'single-replica Deployment with maxSurge 0 on 1.25: no fallback to the terminating endpoint', yaml: wl({ replicas: 1, strategy: '  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n' }), kubeVersion: '1.25' },
    // Review round 35, report p57 item 1 (Kubecost's cost-analyzer): one replica that is deleted at once
    // (maxUnavailable 1) and an RWO claim the replacement cannot attach on another node before the old
    // pod is gone: no pod takes over while it terminates, whatever maxSurge is.
    { name: 'single replica, maxSurge 1 and maxUnavailable 1, a ReadWriteOnce claim: the pods cannot overlap', yaml: singleWithClaim('{maxSurge: 1, maxUnavailable: 1}') },
    { name: '...the same with maxSurge 0', yaml: singleWithClaim('{maxSurge: 0, maxUnavailable: 1}') },
    { name: '...the same with ReadWriteOncePod', yaml: singleWithClaim('{maxSurge: 1, maxUnavailable: 1}', 'ReadWriteOncePod') },
    { name: '...a one-replica ReplicaSet with the claim', yaml: singleWithClaim(undefined, 'ReadWriteOnce', 'ReplicaSet') },
    { name: 'single-replica Deployment whose only Service is headless: no proxy falls back to the terminating pod', yaml: wl({ replicas: 1, strategy: '  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n', service: '  clusterIP: None\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }) },
    // Review round 35, report p56 item 1 (the Datadog agent): a node-local Service and no surge: a node's
    // clients have only that node's pod, whose replacement is created once it is gone.
    { name: 'DaemonSet behind a ClusterIP Service with internalTrafficPolicy: Local, maxSurge absent', yaml: localDaemonSet() },
    { name: 'DaemonSet behind the node-local Service, binding host ports (surge blocked), maxSurge 1', yaml: localDaemonSet({ strategy: '{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}', hostPort: true }) },
    { name: 'DaemonSet behind the node-local Service with OnDelete', yaml: localDaemonSet({ strategy: '{type: OnDelete}' }) },
    {
      name: 'istio gateway injection placeholder (image: auto)',
      yaml: wl({
        annotations: '"inject.istio.io/templates": gateway',
        podSpec: '      containers:\n      - name: istio-proxy\n        image: auto\n',
        service: '  selector: {app: web}\n  ports: [{name: http2, port: 80, targetPort: 80}]',
      }),
    },
    {
      name: 'Traefik flag on an image the catalog does not know: taken as evidence',
      yaml: wl({ podSpec: `${app()}        args: ["--entryPoints.web.transport.lifeCycle.requestAcceptGraceTimeout=10s"]\n` }),
    },
    {
      name: 'Traefik (catalog): every user entry point keeps accepting after SIGTERM',
      yaml: wl({
        podSpec: app().replace('web:1', 'docker.io/traefik:v3.1') +
          '        args: ["--entryPoints.web.address=:8080", "--entryPoints.websecure.address=:8443", "--entryPoints.traefik.address=:9000", "--entryPoints.web.transport.lifeCycle.requestAcceptGraceTimeout=10s", "--entryPoints.websecure.transport.lifeCycle.requestAcceptGraceTimeout=5s"]\n',
      }),
    },
    {
      name: "CoreDNS with lameduck 10s in the Corefile of the ConfigMap it mounts (the coredns chart's default): it keeps answering after SIGTERM",
      yaml: coredns(),
    },
    { name: "CoreDNS with kubeadm's lameduck 5s, image of the k3s mirror", yaml: coredns({ corefile: corefile('5s'), image: 'rancher/mirrored-coredns-coredns:1.12.0' }) },
    // Chaos Mesh's DNS server is a CoreDNS build (k8s_dns_chaos): the same lameduck, read from its Corefile.
    { name: "Chaos Mesh's chaos-coredns with the chart's lameduck 5s", yaml: coredns({ corefile: corefile('5s'), image: 'ghcr.io/chaos-mesh/chaos-coredns:v0.2.8' }) },
    // A delay is judged as a preStop sleep is: only 0 s gives no time (the LB rules size longer windows).
    { name: 'CoreDNS with lameduck 1s: judged as a 1 s preStop sleep is, not reported', yaml: coredns({ corefile: corefile('1s') }) },
    { name: '...the same 1 s as a preStop sleep, for comparison', yaml: coredns({ corefile: corefile(), lifecycle: 'lifecycle: {preStop: {sleep: {seconds: 1}}}' }) },
    // The program's own monitoring server (catalog fluent-bit-http-server): scrapes and probes, not clients.
    { name: "Fluent Bit chart: its Service's only port, http 2020, is Fluent Bit's monitoring server (HTTP_Port of the mounted config)", yaml: fluentBit() },
    { name: 'Fluent Bit: the config sets no HTTP_Port, so the default 2020', yaml: fluentBit({ config: fluentBitConf(null) }) },
    { name: 'Fluent Bit: the config is not in the input, so the default 2020', yaml: fluentBit({ config: false }) },
    // Cluster Autoscaler's --address server (catalog cluster-autoscaler-metrics): /metrics and /health-check only.
    { name: "Cluster Autoscaler chart: its Service's only port targets 8085, the --address default (metrics and /health-check)", yaml: clusterAutoscaler() },
    { name: 'Cluster Autoscaler with --address=:9090 and the port moved with it', yaml: clusterAutoscaler({ args: ['--address=:9090'], port: 9090 }) },
    { name: 'Cluster Autoscaler with --address 0.0.0.0:9091 (host and port, a separate argument)', yaml: clusterAutoscaler({ args: ['--address', '0.0.0.0:9091'], port: 9091 }) },
    // Flagger's -port server (catalog flagger-http-server) and Reloader's :9090 (reloader-http-server): /metrics and health only.
    { name: 'Flagger chart with serviceMonitor.enabled: its Service port http reaches 8080, the -port default (/metrics, /healthz)', yaml: flagger() },
    { name: 'Flagger with -port=9999 and the port moved with it', yaml: flagger({ args: ['-port=9999'], port: 9999 }) },
    { name: 'Flagger with --port 9998 (the Go flag with two dashes, a separate argument)', yaml: flagger({ args: ['--port', '9998'], port: 9998 }) },
    { name: 'Flagger under its older image weaveworks/flagger', yaml: flagger({ image: 'weaveworks/flagger:1.0.0' }) },
    { name: 'Reloader chart with reloader.service: its Service port http reaches 9090 (/metrics, /live)', yaml: reloader() },
    { name: 'Reloader from Docker Hub, the Service targeting 9090 by number', yaml: reloader({ image: 'stakater/reloader:v1.0.0', targetPort: 9090 }) },
    // Logstash's monitoring API (catalog logstash-api): the chart's headless Service exposes only port http 9600.
    { name: "Logstash chart: its headless Service's only port, http 9600, is the monitoring API (api.http.port default)", yaml: logstash() },
    { name: 'Logstash with api.http.port: 9601 in the mounted logstash.yml and the chart serving it as httpPort', yaml: logstash({ logstashYml: 'api.http.host: 0.0.0.0\napi.http.port: 9601\n', httpPort: 9601 }) },
    { name: 'Logstash OSS image, logstash.yml not in the input: the default 9600', yaml: logstash({ image: 'docker.elastic.co/logstash/logstash-oss:7.10.2', logstashYml: false }) },
    // Sourcegraph's background workers (catalog sourcegraph-worker-health, sourcegraph-precise-code-intel-worker-health):
    // port http is their health server (/healthz only), beside the debug server on http-debug 6060.
    { name: "Sourcegraph chart's worker: its Service's port http reaches 3189, the worker's health server", yaml: sourcegraphWorker('worker') },
    { name: "Sourcegraph chart's precise-code-intel-worker: port http reaches 3188, its health server", yaml: sourcegraphWorker('precise-code-intel-worker', { replicas: 2 }) },
    { name: 'Sourcegraph worker from Docker Hub without a registry host', yaml: sourcegraphWorker('worker', { image: 'sourcegraph/worker:5.3.0' }) },
    { name: 'Fluent Bit: HTTP_Port 2021 in the config, the chart serving it as its metricsPort', yaml: fluentBit({ config: fluentBitConf('2021'), metricsPort: 2021 }) },
    { name: 'Fluent Bit: YAML config, http_port: 2021 in its service map', yaml: fluentBit({ config: 'service:\n  http_server: on\n  http_port: 2021\npipeline:\n  inputs:\n    - name: tail\n', configKey: 'fluent-bit.yaml', metricsPort: 2021 }) },
    { name: 'Fluent Bit: -P 2021 on the command line, the config setting none', yaml: fluentBit({ config: fluentBitConf(null), args: ['-c', '/fluent-bit/etc/conf/fluent-bit.conf', '-P', '2021'], metricsPort: 2021 }) },
    {
      // Review round 16 (catalog synthetic-monitoring-agent-http): the agent's only listener serves /metrics and /ready.
      name: "Grafana's Synthetic Monitoring agent: its Service reaches the -listen-address server (two-arg form), scrapes only",
      yaml: wl({
        podSpec: '      containers:\n      - name: agent\n        image: docker.io/grafana/synthetic-monitoring-agent:v0.63.0\n        args: [-api-server-address, synthetic-monitoring-grpc.grafana.net:443, -listen-address, ":4050"]\n        ports: [{name: http, containerPort: 4050}]\n',
        service: '  selector: {app: web}\n  ports: [{name: http, port: 4050, targetPort: http}]',
      }),
    },
    {
      // Review round 17 (catalog airflow-worker-log-server): a preStop sleep only let the Celery worker take more tasks.
      name: "Airflow's Celery worker: its Services reach the task-log server (8793), fetched by pod name",
      yaml: wl({
        podSpec: '      containers:\n      - name: airflow-worker\n        image: docker.io/bitnami/airflow:3.0.5-debian-12-r0\n        env: [{name: AIRFLOW_COMPONENT_TYPE, value: worker}]\n        ports: [{name: worker, containerPort: 8793}]\n',
        service: '  selector: {app: web}\n  ports: [{name: tcp-worker, port: 8793, targetPort: worker}]',
      }),
    },
    // Fixed in the program's code (catalog knative-activator, knative-serving-webhook, tekton-pipeline-webhook).
    { name: 'Knative activator (catalog): sleeps 45s after SIGTERM, failing readiness while its servers still accept', yaml: activator() },
    { name: 'Knative Serving webhook (catalog): the knative.dev/pkg drainer serves until 45s pass with no request', yaml: pkgWebhook({ image: SERVING_WEBHOOK_IMAGE, grace: 300 }) },
    { name: 'Tekton Pipelines webhook (catalog): the same drainer (with a grace period that holds it: the default 30s is grace-period-budget\'s, tested there)', yaml: pkgWebhook({ image: TEKTON_WEBHOOK_IMAGE, grace: 60 }) },
    {
      // Review round 35, report p54 item 1: Tekton releases with ko's default naming, <base>-<md5 of the import path>.
      name: 'Tekton Pipelines webhook as released (ghcr.io/tektoncd/pipeline/webhook-<md5>): the same catalog entry',
      yaml: pkgWebhook({ image: 'ghcr.io/tektoncd/pipeline/webhook-d4749e605405422fd87700164e31b2d1:v1.9.1@sha256:9adf822e356b9272011eab5539140afe173b19346fb6a1733ff44085221d99db', grace: null }),
    },
    {
      // Review round 35, report p54 item 2: tektoncd/triggers cmd/webhook runs the same knative.dev/pkg webhook.
      name: 'Tekton Triggers webhook as released (catalog tekton-triggers-webhook): the same drainer',
      yaml: pkgWebhook({ image: 'ghcr.io/tektoncd/triggers/webhook-dd1edc925ee1772a9f76e2c1bc291ef6:v0.36.0', grace: null, name: 'tekton-triggers-webhook' }),
    },
    {
      name: "Percona XtraDB Cluster operator (catalog): stop() sleeps 5s before it cancels the manager's context, so its webhook server keeps serving",
      yaml: pxcOperator(),
    },
    // From one flag of the container (catalog skipper-wait-for-healthcheck).
    {
      name: "Skipper as docs/kubernetes/deploy has it: -wait-for-healthcheck-interval defaults to 45s, during which it keeps proxying while /kube-system/healthz answers 503 (the default grace period is grace-period-budget's, tested there)",
      yaml: skipper({ grace: 60 }),
    },
    { name: 'Skipper run with no args (the image CMD is /usr/bin/skipper)', yaml: skipper({ args: null, grace: 60 }) },
    { name: 'Skipper with -wait-for-healthcheck-interval=15s set (which the default grace period holds)', yaml: skipper({ args: ['skipper', '-kubernetes', '-address=:9999', '-wait-for-healthcheck-interval=15s'] }) },
    // From one flag, read inside the chart's `sh -ec` script too (catalog seaweedfs-volume-prestop-seconds).
    {
      name: "SeaweedFS chart's volume server: weed volume stops heartbeating (the master stops routing to it) and serves for -preStopSeconds, default 10s",
      yaml: seaweedfsVolume(),
    },
    { name: 'SeaweedFS volume server with -preStopSeconds=30 in its script (chart volume.extraArgs)', yaml: seaweedfsVolume({ command: ['/bin/sh', '-ec', weedVolumeScript(['-preStopSeconds=30'])] }) },
    { name: 'SeaweedFS volume server run through the image ENTRYPOINT, args [volume, ...]', yaml: seaweedfsVolume({ command: null, args: ['volume', '-port=8080', '-master=seaweedfs-master:9333'] }) },
    // Review round 19 (catalog victorialogs-http-shutdown-delay: the victoria-logs-single chart sets 15s).
    { name: 'VictoriaLogs with --http.shutdownDelay=15s (the chart default): serves while /health answers 503', yaml: vminsert({ image: 'victoriametrics/victoria-logs:v1.52.0', args: ['--httpListenAddr=:9428', '--http.shutdownDelay=15s'] }) },
    // From one flag of the container (catalog victoriametrics-http-shutdown-delay).
    { name: 'vminsert with --http.shutdownDelay=15s (the chart form of extraArgs): /health answers 503 while it keeps serving', yaml: vminsert({ args: ['--httpListenAddr=:8480', '--http.shutdownDelay=15s'] }) },
    { name: 'vminsert with -http.shutdownDelay 10s (one dash, a separate value)', yaml: vminsert({ args: ['-httpListenAddr=:8480', '-http.shutdownDelay', '10s'] }) },
    // MongoDB 5.0+ quiesce (catalog mongodb-quiesce, mongodb-sharded-quiesce): a replica-set member or
    // mongos keeps accepting for shutdownTimeoutMillisForSignaledShutdown (15s) while hello tells clients to go.
    { name: 'mongod --replSet (official image 7.0) behind a client Service: quiesces 15s after SIGTERM', yaml: mongod() },
    { name: 'mongod --replSet=rs0 as one arg, the image ENTRYPOINT adding mongod', yaml: mongod({ image: 'mongo:8.0.4', args: ['--replSet=rs0'] }) },
    { name: 'mongos (official image)', yaml: mongod({ args: ['mongos', '--configdb', 'cfg/cfg-0.cfg:27019'] }) },
    { name: "Bitnami mongodb-sharded's shard member (a replica set by the chart's env) behind its headless Service", yaml: bitnamiShard() },
    // Langfuse web (catalog langfuse-web): its prexit SIGTERM handler waits 110s before it exits, the
    // listener open and /api/public/ready answering 500. A grace period of 125s here: the chart's
    // default 30s is grace-period-budget's finding (test/rules/grace-period-budget.test.ts), which
    // the exported policy does not judge, so it stays out of the rule tables.
    { name: 'Langfuse web 4.4.0 (the langfuse-k8s chart\'s image): keeps serving 110s after SIGTERM', yaml: langfuseWeb({ grace: 125 }) },
    { name: 'Langfuse web from Docker Hub with a major-version tag (langfuse/langfuse:3)', yaml: langfuseWeb({ image: 'langfuse/langfuse:3', grace: 125 }) },
    { name: 'Langfuse web v2.81.0 (ghcr.io), the first release with the 110s wait', yaml: langfuseWeb({ image: 'ghcr.io/langfuse/langfuse:2.81.0', grace: 125 }) },
    // Tyk Gateway v5.14.0+ (catalog tyk-gateway-shutdown-delay): with TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS above 0
    // its listeners keep accepting that long after SIGTERM while /ready answers 503.
    { name: 'Tyk Gateway v5.14.0 with TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS 15: keeps serving 15s after SIGTERM', yaml: tykGateway({ delay: '15' }) },
    { name: 'Tyk Gateway from Docker Hub (tykio/tyk-gateway v5.15.0), delay 10s', yaml: tykGateway({ image: 'tykio/tyk-gateway:v5.15.0', delay: '10' }) },
    { name: 'KEDA HTTP interceptor, kustomize config/default (ko:// image, no KEDA_HTTP_SHUTDOWN_DELAY): the default 5s of serving after SIGTERM', yaml: interceptor() },
    {
      name: 'KEDA HTTP interceptor, chart 0.15.0 (release image, KEDA_HTTP_SHUTDOWN_DELAY 5s and KEDA_HTTP_DRAIN_TIMEOUT 30s in env)',
      yaml: interceptor({ image: KEDA_CHART_IMAGE, env: ['{name: KEDA_HTTP_SHUTDOWN_DELAY, value: "5s"}', '{name: KEDA_HTTP_DRAIN_TIMEOUT, value: "30s"}'] }),
    },
    { name: 'KEDA HTTP interceptor: an empty KEDA_HTTP_SHUTDOWN_DELAY is the default (caarlos0/env)', yaml: interceptor({ env: ['{name: KEDA_HTTP_SHUTDOWN_DELAY, value: ""}'] }) },
    { name: 'KEDA HTTP interceptor: an envFrom whose prefix cannot name the variable does not make it unknown', yaml: interceptor({ envFrom: '[{prefix: OTEL_, configMapRef: {name: otel}}]' }) },
    {
      name: 'native sidecar serving a port is not a main container',
      yaml: wl({
        podSpec: `      initContainers:
      - {name: proxy, image: envoy:1, restartPolicy: Always, ports: [{name: http, containerPort: 8080}]}
      containers:
      - {name: app, image: web:1, lifecycle: {preStop: {sleep: {seconds: 5}}}}
`,
      }),
    },
  ],
  invalid: [
    {
      // Review round 35, report p55 item 1: penpotapp/exporter is Penpot's export service (the frontend
      // nginx proxies /api/export to it), not a Prometheus exporter: only *-exporter / *_exporter are.
      name: "an image whose name is a bare `exporter` (Penpot's export service) is not a Prometheus exporter: served",
      yaml: wl({ podSpec: '      containers:\n      - name: app\n        image: penpotapp/exporter:2.17.0\n        ports: [{name: http, containerPort: 6061}]\n', service: '  selector: {app: web}\n  ports: [{name: http, port: 6061, targetPort: 6061}]' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "app": serves port 6061 for Service web but has no preStop hook' }],
    },
    {
      // (Review round 10: the neo4j chart's cluster, one one-replica StatefulSet per member behind one load balancer.)
      name: 'single-replica StatefulSets behind one Service with a cluster IP: the Service has the other members as endpoints, so the pod is judged',
      yaml: `${wl({ kind: 'StatefulSet', replicas: 1 })}---\n${wl({ kind: 'StatefulSet', replicas: 1, service: false }).replace('name: web\n', 'name: web-b\n')}`,
      findings: [
        { severity: 'warning', object: 'StatefulSet/web', pointer: POINTER, message: 'container "app": serves port 8080 for Service web but has no preStop hook' },
        { severity: 'warning', object: 'StatefulSet/web-b', pointer: POINTER, message: 'container "app": serves port 8080 for Service web but has no preStop hook' },
      ],
    },

    {
      // (Review round 12: Gloo's Service carries its validation webhook on 443 and the Envoys' xDS on 9977.)
      name: 'a Service whose webhook port is called by a validating webhook that fails open, but with another client port too: warning',
      yaml: wl({ service: '  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}, {name: https, port: 443, targetPort: http}]' }) + webhookConfig({ failurePolicy: 'Ignore' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'proxies, ingresses and meshes stop routing to it' }],
    },
    ...(
      [
        ['validating webhooks that fail open only: info (a refused call admits the object unchecked)', [['Validating', 'Ignore'], ['Validating', 'Ignore']], 'info', ''],
        [
          'a validating webhook that fails closed: warning',
          [['Validating', 'Ignore'], ['Validating', 'Fail']],
          'warning',
          'its Service web is called only by the API server (check-0.example.com, check-1.example.com), which reaches it through the Service\'s cluster IP (or, with --enable-aggregator-routing, an endpoint it picks from its own watch), so its calls keep reaching this pod until the endpoint removal propagates to that path, and those in that window hit a closed socket: the requests its webhooks with failurePolicy: Fail intercept are rejected; objects its validating webhooks with failurePolicy: Ignore intercept are admitted unchecked. Add',
        ],
        ['failurePolicy unset on v1 is Fail: warning', [['Validating', '']], 'warning', 'and those in that window hit a closed socket: the requests its webhooks with failurePolicy: Fail intercept are rejected. Add'],
        ['a mutating webhook that fails open admits the object unmutated: warning', [['Mutating', 'Ignore']], 'warning', 'and those in that window hit a closed socket: objects its mutating webhooks with failurePolicy: Ignore intercept are admitted unmutated. Add'],
      ] as const
    ).map(([name, hooks, severity, said]) => ({
      // (Review round 10: ECK's operator, whose Service is called by 16 validating webhooks, all Ignore.)
      name: `a Service called only by the API server: ${name}`,
      // (On pods: webhooks that match only custom resources are the info case below.)
      yaml: `${wl()}${hooks.map(([kind, policy], i) => webhookConfig({ kind, name: `hooks-${i}`, hook: `check-${i}.example.com`, failurePolicy: policy || undefined, port: 80, rules: POD_RULES })).join('')}`,
      findings: [
        {
          severity,
          pointer: POINTER,
          message:
            severity === 'info'
              ? 'its Service web is called only by validating admission webhooks with failurePolicy: Ignore (check-0.example.com, check-1.example.com): a call refused while the endpoint removal propagates admits the object unchecked, and no client request fails'
              : said,
        },
      ],
    })),

    {
      // Review round 30 (report p23 item 4): kserve's llmisvc controller serves its CRDs' conversion webhook. A
      // conversion webhook has no failure policy: beside validating webhooks that fail open, it is no longer the
      // fail-open info; it converts only its custom resource, so it is the custom-resources-only info (report p24 item D).
      name: 'a Service called only by the API server for a CRD conversion webhook (and a validating webhook that fails open): info, saying what fails, reads included',
      yaml: `${wl()}${webhookConfig({ failurePolicy: 'Ignore', port: 80 })}---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  conversion: {strategy: Webhook, webhook: {clientConfig: {service: {name: web, namespace: default, path: /convert, port: 80}}, conversionReviewVersions: [v1]}}
  versions: [{name: v1alpha1, served: true, storage: false}, {name: v1, served: true, storage: true}]
`,
      findings: [
        {
          severity: 'info',
          pointer: POINTER,
          message:
            'its Service web is called only by the API server (check.example.com, the conversion webhook of CustomResourceDefinition widgets.example.com), which reaches it through the Service\'s cluster IP (or, with --enable-aggregator-routing, an endpoint it picks from its own watch), so its calls keep reaching this pod until the endpoint removal propagates to that path, and those in that window hit a closed socket: objects its validating webhooks with failurePolicy: Ignore intercept are admitted unchecked; reads and writes of its custom resources that need a conversion (in a version other than the one the object is stored in) fail; they match only custom resources (example.com), so this is an info: only requests of those fail in that window:',
          },
        ],
      },
      {
      // Review round 30 (the couchbase-operator chart's admission controller): webhook-backend-availability rates the longer outage of the same calls as info.
      name: 'a Service called only by a fail-closed webhook that matches only custom resources: info, worded as webhook-backend-availability',
      yaml: `${wl()}${webhookConfig({ failurePolicy: 'Fail', port: 80 })}`,
      findings: [
        {
          severity: 'info',
          pointer: POINTER,
          message:
            "the requests its webhooks with failurePolicy: Fail intercept are rejected; they match only custom resources (example.com), so this is an info: only writes of those fail in that window: GitOps controllers and the operator's own reconcilers retry them, while a one-shot kubectl apply or helm upgrade fails and must be run again. Add",
        },
      ],
    },
    {
      name: 'custom resources only, but a mutating webhook that fails open among the callers (an object admitted unmutated stays so): warning',
      yaml: `${wl()}${webhookConfig({ failurePolicy: 'Fail', port: 80 })}${webhookConfig({ kind: 'Mutating', name: 'm', hook: 'm.example.com', failurePolicy: 'Ignore', port: 80 })}`,
      findings: [{ severity: 'warning', pointer: POINTER, message: 'objects its mutating webhooks with failurePolicy: Ignore intercept are admitted unmutated. Add' }],
    },
    {
      name: 'a fail-closed webhook on a custom resource beside one on pods: warning',
      yaml: `${wl()}${webhookConfig({ failurePolicy: 'Fail', port: 80 })}${webhookConfig({ name: 'p', hook: 'p.example.com', failurePolicy: 'Fail', port: 80, rules: POD_RULES })}`,
      findings: [{ severity: 'warning', pointer: POINTER, message: 'the requests its webhooks with failurePolicy: Fail intercept are rejected. Add' }],
    },
    {
      // metrics-server serves the metrics API to the API server: client traffic.
      name: 'a Service named metrics-server (not *-metrics) carries traffic; so does a port other than --metrics-bind-address\'s',
      yaml:
        wl({ service: '  selector: {app: web}\n  ports: [{name: https, port: 443, targetPort: http}]' }).replace('metadata: {name: web}\nspec:\n  selector', 'metadata: {name: metrics-server}\nspec:\n  selector') +
        '---\n' +
        wl({ podSpec: '      containers:\n      - name: manager\n        image: controller:latest\n        args: [--metrics-bind-address=:8443, --health-probe-bind-address=:8081]\n', service: '  selector: {app: web}\n  ports: [{name: https, port: 9443, targetPort: 9443}]' }).replace(/\b(web)\b/g, 'web2'),
      findings: [
        { severity: 'warning', message: /^container "app": serves port 8080 for Service metrics-server but has no preStop hook/ },
        { severity: 'warning', message: /^container "manager": serves port 9443 for Service web2 but has no preStop hook/ },
      ],
    },
    {
      name: 'Alertmanager behind its web port and its cluster port: only the web port is named',
      yaml: wl({ kind: 'StatefulSet', podSpec: '      containers:\n      - name: alertmanager\n        image: quay.io/prometheus/alertmanager:v0.28.1\n        ports: [{name: http, containerPort: 9093}, {name: clusterpeer-tcp, containerPort: 9094}]\n', service: '  selector: {app: web}\n  ports: [{name: http, port: 9093, targetPort: http}, {name: cluster-tcp, port: 9094, targetPort: clusterpeer-tcp}]' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^container "alertmanager": serves port 9093 for Service web but has no preStop hook/ }],
    },
    {
      // cortexproject/cortex-helm-chart: the distributor's only Service port is http-metrics, where every remote write arrives.
      name: 'the http-metrics port of a Cortex distributor, a Mimir query-frontend, a Loki write or a single-binary Loki is its API: traffic',
      yaml: ['quay.io/cortexproject/cortex:v1.21.1|-target=distributor', 'grafana/mimir:2.14.0|-target=query-frontend', 'grafana/loki:3.4.0|-target=write', 'grafana/loki:3.4.0|-config.file=/etc/loki/config.yaml', 'grafana/loki:3.4.0|-target=compactor']
        .map((x, i) => wl({ podSpec: '      containers:\n      - name: c\n        image: IMG\n        args: [ARG]\n        ports: [{name: http-metrics, containerPort: 8080}]\n'.replace('IMG', x.split('|')[0]).replace('ARG', x.split('|')[1]), service: '  selector: {app: web}\n  ports: [{name: http-metrics, port: 8080, targetPort: http-metrics}]' }).replace(/\b(web)\b/g, `web${i}`))
        .join('---\n'),
      findings: [0, 1, 2, 3, 4].map(() => ({ severity: 'warning', pointer: POINTER, message: /^container "c": serves port 8080 for Service web\d but has no preStop hook/ })),
    },
    {
      // Review round 24: the distributor takes pushes, Loki's querier serves the tail API its gateway
      // proxies to the querier Service, a list with an API component serves it, and without -target the
      // single binary serves everything.
      name: 'the gRPC port of a Mimir distributor, a Loki querier, an ingester run with a distributor, or the single binary is traffic',
      yaml: ['grafana/mimir:2.14.0|-target=distributor', 'grafana/loki:3.4.0|-target=querier', 'grafana/mimir:2.14.0|"-target=ingester,distributor"', 'grafana/mimir:2.14.0|-config.file=/etc/mimir.yaml']
        .map((x, i) =>
          wl({
            podSpec: '      containers:\n      - name: c\n        image: IMG\n        args: [ARG]\n        ports: [{name: http-metrics, containerPort: 8080}, {name: grpc, containerPort: 9095}]\n'.replace('IMG', x.split('|')[0]).replace('ARG', x.split('|')[1]),
            service: '  selector: {app: web}\n  ports: [{name: grpc, port: 9095, targetPort: grpc}]',
          }).replace(/\b(web)\b/g, `web${i}`),
        )
        .join('---\n'),
      findings: [0, 1, 2, 3].map(() => ({ severity: 'warning', pointer: POINTER, message: /^container "c": serves port 9095 for Service web\d but has no preStop hook/ })),
    },
    {
      // Mimir, Loki and Tempo sleep -shutdown-delay after SIGTERM with every listener open (catalog grafana-dskit-shutdown-delay).
      name: "a Mimir distributor with -shutdown-delay=20s serves after SIGTERM; without it the advice names the flag",
      yaml:
        wl({ podSpec: '      containers:\n      - name: c\n        image: grafana/mimir:2.14.0\n        args: [-target=distributor, -shutdown-delay=20s]\n        ports: [{name: grpc, containerPort: 9095}]\n', service: '  selector: {app: web}\n  ports: [{name: grpc, port: 9095, targetPort: grpc}]' }) +
        '---\n' +
        wl({ podSpec: '      containers:\n      - name: c\n        image: grafana/loki:3.4.0\n        args: [-target=distributor]\n        ports: [{name: grpc, containerPort: 9095}]\n', service: '  selector: {app: web}\n  ports: [{name: grpc, port: 9095, targetPort: grpc}]' }).replace(/\b(web)\b/g, 'web1'),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^container "c": serves port 9095 for Service web1 but has no preStop hook.*or use the program's own setting \(.*catalog entry grafana-dskit-shutdown-delay\): -shutdown-delay=10s in the container's args/ }],
    },
    {
      // Review round 25 (plane-ce): its admin UI's only Service port is admin-3000, which its IngressRoute sends /god-mode to.
      name: 'an admin-named Service port is client traffic when an Ingress, an HTTPRoute or a Traefik IngressRoute sends traffic to it',
      yaml: [
        `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing}
spec:
  rules: [{http: {paths: [{path: /god-mode, pathType: Prefix, backend: {service: {name: web, port: {number: 3000}}}}]}}]`,
        `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing}
spec:
  defaultBackend: {service: {name: web, port: {name: admin-3000}}}`,
        `apiVersion: networking.k8s.io/v1beta1
kind: Ingress
metadata: {name: ing}
spec:
  rules: [{http: {paths: [{path: /, backend: {serviceName: web, servicePort: admin-3000}}]}}]`,
        `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: rt, namespace: gateways}
spec:
  rules: [{backendRefs: [{name: web, namespace: default, port: 3000}]}]`,
        `apiVersion: traefik.io/v1alpha1
kind: IngressRoute
metadata: {name: rt}
spec:
  routes: [{kind: Rule, match: "PathPrefix(/god-mode)", services: [{name: web, port: 3000}]}]`,
      ]
        .map((route, i) =>
          (wl({ service: '  selector: {app: web}\n  ports: [{name: admin-3000, port: 3000, targetPort: 3000}]', podSpec: app().replace('[{name: http, containerPort: 8080}]', '[{containerPort: 3000}]') }) + '---\n' + route + '\n').replace(/\b(web)\b/g, `web${i}`),
        )
        .join('---\n'),
      findings: [0, 1, 2, 3, 4].map(() => ({ severity: 'warning', pointer: POINTER, message: /^container "app": serves port 3000 for Service web\d but has no preStop hook/ })),
    },
    {
      // The Flink JobManager's REST and RPC ports are called through its Service.
      name: 'a Flink JobManager is served',
      yaml: wl({
        podSpec: '      containers:\n      - name: jm\n        image: flink:1.20\n        args: [jobmanager]\n        ports: [{name: rpc, containerPort: 6123}, {name: ui, containerPort: 8081}]\n',
        service: '  selector: {app: web}\n  ports: [{name: rpc, port: 6123, targetPort: rpc}, {name: ui, port: 8081, targetPort: ui}]',
      }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^container "jm": serves ports 6123, 8081 for Service web but has no preStop hook/ }],
    },
    {
      // etcd: the client port is what the finding is about; the peer port is named apart.
      name: 'a client port and a peer port on the Service: the message names the peer port apart',
      yaml: wl({
        kind: 'StatefulSet',
        podSpec: '      containers:\n      - name: etcd\n        image: etcd:3.5\n        ports: [{name: client, containerPort: 2379}, {name: peer, containerPort: 2380}]\n',
        service: '  selector: {app: web}\n  ports: [{name: client, port: 2379, targetPort: client}, {name: peer, port: 2380, targetPort: peer}]',
      }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^container "etcd": serves port 2379 for Service web \(and peer port 2380\) but has no preStop hook/ }],
    },
    {
      // Review round 35, report p55 item 4 and p57 item 6: NATS's route port \`cluster\` is a peer port; Mailu's
      // \`imap-transport\` (LMTP from postfix and front) is client traffic, \`transport\` only as the whole name is a peer's.
      name: "NATS's route port `cluster` is named apart as a peer port, Mailu's LMTP port `imap-transport` is not",
      yaml: [
        wl({
          kind: 'StatefulSet',
          podSpec: '      containers:\n      - name: nats\n        image: nats:2.12-alpine\n        ports: [{name: client, containerPort: 4222}, {name: cluster, containerPort: 6222}]\n',
          service: '  clusterIP: None\n  selector: {app: web}\n  ports: [{name: client, port: 4222}, {name: cluster, port: 6222}]',
        }),
        wl({
          podSpec: '      containers:\n      - name: dovecot\n        image: ghcr.io/mailu/dovecot:2024.06\n        ports: [{name: imap, containerPort: 143}, {name: imap-transport, containerPort: 2525}]\n',
          service: '  selector: {app: web}\n  ports: [{name: imap, port: 143}, {name: imap-transport, port: 2525}]',
        }).replace(/\bweb\b/g, 'mail'),
      ].join('---\n'),
      findings: [
        { severity: 'warning', object: 'StatefulSet/web', pointer: POINTER, message: /^container "nats": serves port 4222 for Service web \(and peer port 6222\) but has no preStop hook/ },
        { severity: 'warning', object: 'Deployment/mail', pointer: POINTER, message: /^container "dovecot": serves ports 143, 2525 for Service mail but has no preStop hook/ },
      ],
    },
    {
      name: 'only peer-named ports on the Service: listed as they are',
      yaml: wl({
        kind: 'StatefulSet',
        podSpec: '      containers:\n      - name: zk\n        image: zookeeper:3.9\n        ports: [{name: follower, containerPort: 2888}, {name: election, containerPort: 3888}]\n',
        service: '  selector: {app: web}\n  ports: [{name: follower, port: 2888, targetPort: follower}, {name: election, port: 3888, targetPort: election}]',
      }),
      findings: [{ severity: 'warning', message: /^container "zk": serves ports 2888, 3888 for Service web but has no preStop hook/ }],
    },
    {
      name: "another Knative Serving image (the autoscaler) is not the activator: it does not sleep after SIGTERM",
      yaml: activator({ image: 'gcr.io/knative-releases/knative.dev/serving/cmd/autoscaler@sha256:0b9a8cbea8b5f1e94ab6e6b4e9eaa9b5b0a4b1a2c9d0f1e2d3c4b5a6978877665' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "activator": serves ports 8012, 8013, 8112 for Service activator-service but has no preStop hook' }],
    },
    {
      name: 'KEDA HTTP interceptor with KEDA_HTTP_SHUTDOWN_DELAY 0s: it closes its listener at SIGTERM; the advice names the variable and the chart value',
      yaml: interceptor({ image: KEDA_CHART_IMAGE, env: ['{name: KEDA_HTTP_SHUTDOWN_DELAY, value: "0s"}', '{name: KEDA_HTTP_DRAIN_TIMEOUT, value: "30s"}'] }),
      findings: [
        {
          severity: 'warning',
          pointer: POINTER,
          message:
            'container "interceptor": serves ports 8080, 8443 for Service keda-add-ons-http-interceptor-proxy but has no preStop hook: SIGTERM arrives while clients are still routed to it; proxies, ingresses and meshes stop routing to it only after the endpoint removal reaches them, so in-flight and new requests can hit a closed socket. Add lifecycle: {preStop: {sleep: {seconds: 10}}}, or use the program\'s own setting (KEDA HTTP add-on interceptor, catalog entry keda-http-interceptor): env {name: KEDA_HTTP_SHUTDOWN_DELAY, value: "10s"} in the container (chart value interceptor.shutdownDelay: 10s; now KEDA_HTTP_SHUTDOWN_DELAY=0s) and keep the delay plus drain time within terminationGracePeriodSeconds (45s)',
        },
      ],
    },
    {
      name: 'KEDA HTTP interceptor: the last of duplicate env entries wins (0s after 5s)',
      yaml: interceptor({ env: ['{name: KEDA_HTTP_SHUTDOWN_DELAY, value: "5s"}', '{name: KEDA_HTTP_SHUTDOWN_DELAY, value: "0"}'] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'now KEDA_HTTP_SHUTDOWN_DELAY=0)' }],
    },
    {
      name: 'KEDA HTTP interceptor with KEDA_HTTP_SHUTDOWN_DELAY from a ConfigMap: not read, so not assumed',
      yaml: interceptor({ env: ['{name: KEDA_HTTP_SHUTDOWN_DELAY, valueFrom: {configMapKeyRef: {name: keda-http, key: shutdownDelay}}}'] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: '(chart value interceptor.shutdownDelay: 10s; now KEDA_HTTP_SHUTDOWN_DELAY is set from ConfigMap keda-http, key shutdownDelay (not read))' }],
    },
    {
      name: 'KEDA HTTP interceptor: a ConfigMap in envFrom may set KEDA_HTTP_SHUTDOWN_DELAY (not read)',
      yaml: interceptor({ envFrom: '[{configMapRef: {name: keda-http-env}}]' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'now KEDA_HTTP_SHUTDOWN_DELAY is not in env, and envFrom (ConfigMap keda-http-env) may set it (not read))' }],
    },
    {
      name: 'Tyk Gateway v5.14.0 without TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS (default 0): its listeners close at SIGTERM; the advice names the variable',
      yaml: tykGateway(),
      findings: [
        {
          severity: 'warning',
          pointer: POINTER,
          message:
            'container "gateway-tyk-gateway": serves port 8080 for Service gw but has no preStop hook: SIGTERM arrives while clients are still routed to it; proxies, ingresses and meshes stop routing to it only after the endpoint removal reaches them, so in-flight and new requests can hit a closed socket. Add lifecycle: {preStop: {sleep: {seconds: 10}}}, or use the program\'s own setting (Tyk Gateway (graceful_shutdown_delay_seconds keeps its listeners serving after SIGTERM), catalog entry tyk-gateway-shutdown-delay): env {name: TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS, value: "10"} in the container (now TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS unset, default 0s) and keep the delay plus drain time within terminationGracePeriodSeconds (60s)',
        },
      ],
    },
    {
      name: 'Tyk Gateway with TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS 0 set explicitly',
      yaml: tykGateway({ delay: '0' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: '(now TYK_GW_GRACEFULSHUTDOWNDELAYSECONDS=0)' }],
    },
    {
      name: "Tyk Gateway v5.13.1 (the tyk-charts default image, the review's reproducer): the delay came in v5.14.0 (#8241), so the variable does nothing there",
      yaml: tykGateway({ image: 'docker.tyk.io/tyk-gateway/tyk-gateway:v5.13.1', delay: '15' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /has no preStop hook: .*Add lifecycle: \{preStop: \{sleep: \{seconds: 10\}\}\} and keep/ }],
    },
    {
      name: 'KEDA HTTP interceptor 0.14.0: the delay came in 0.15.0 (kedacore/http-add-on #1648), so the older proxy stops at SIGTERM',
      yaml: interceptor({ image: 'ghcr.io/kedacore/http-add-on-interceptor:0.14.0' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /has no preStop hook: .*Add lifecycle: \{preStop: \{sleep: \{seconds: 10\}\}\} and keep/ }],
    },
    {
      name: 'Percona XtraDB Cluster operator 1.6.0: the delayed shutdown came in 1.7.0 (K8SPXC-529), so the older webhook stops at SIGTERM',
      yaml: pxcOperator({ image: 'percona/percona-xtradb-cluster-operator:1.6.0' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "percona-xtradb-cluster-operator": serves port 9443 for Service percona-xtradb-cluster-operator but has no preStop hook' }],
    },
    {
      name: "HAProxy from the Percona XtraDB Cluster operator's image repository is not the operator",
      yaml: pxcOperator({ image: 'percona/percona-xtradb-cluster-operator:1.10.0-haproxy', command: '[/opt/percona/haproxy-entrypoint.sh]' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'but has no preStop hook' }],
    },
    {
      name: 'Skipper with -wait-for-healthcheck-interval=0 stops accepting at SIGTERM: the hook is asked for, and its own flag offered',
      yaml: skipper({ args: ['skipper', '-kubernetes', '-address=:9999', '-wait-for-healthcheck-interval=0'] }),
      findings: [
        {
          severity: 'warning',
          pointer: POINTER,
          message: /serves port 9999 for Service skipper-ingress but has no preStop hook: .*or use the program's own setting \(Skipper .*catalog entry skipper-wait-for-healthcheck\): -wait-for-healthcheck-interval=10s in the container's args \(now -wait-for-healthcheck-interval=0\)/,
        },
      ],
    },
    {
      name: 'SeaweedFS volume server with -preStopSeconds=0 in its script stops at SIGTERM: the hook is asked for, and its own flag offered',
      yaml: seaweedfsVolume({ command: ['/bin/sh', '-ec', weedVolumeScript(['-preStopSeconds=0'])] }),
      findings: [
        {
          severity: 'warning',
          pointer: POINTER,
          message: /serves ports 8080, 18080 for Service seaweedfs-volume but has no preStop hook: .*or use the program's own setting \(SeaweedFS volume server .*catalog entry seaweedfs-volume-prestop-seconds\): -preStopSeconds=\d+ in the container's shell script, on the program's command line \(now -preStopSeconds=0\)/,
        },
      ],
    },
    {
      name: "SeaweedFS master (the same image) closes at SIGTERM: not the volume server's entry",
      yaml: seaweedfsVolume({ command: ['/bin/sh', '-ec', 'exec /usr/bin/weed -logtostderr=true master -port=8080 -mdir=/data'] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "seaweedfs": serves ports 8080, 18080 for Service seaweedfs-volume but has no preStop hook' }],
    },
    {
      name: "the chart's Rust volume server (volume.rust: exec /usr/bin/weed-volume) is another program",
      yaml: seaweedfsVolume({ command: ['/bin/sh', '-ec', weedVolumeScript([], '/usr/bin/weed-volume')] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "seaweedfs": serves ports 8080, 18080 for Service seaweedfs-volume but has no preStop hook' }],
    },
    {
      name: 'vminsert as the victoria-metrics-cluster chart renders it (no -http.shutdownDelay, default 0): the hook is asked for, and the flag offered',
      yaml: vminsert(),
      findings: [
        {
          severity: 'warning',
          pointer: POINTER,
          message: /serves port 8480 for Service vminsert but has no preStop hook: .*or use the program's own setting \(VictoriaMetrics components .*catalog entry victoriametrics-http-shutdown-delay\): -http\.shutdownDelay=\d+s in the container's args \(now -http\.shutdownDelay not set, default 0s\)/,
        },
      ],
    },
    {
      name: 'vminsert with --http.shutdownDelay=0s',
      yaml: vminsert({ args: ['--httpListenAddr=:8480', '--http.shutdownDelay=0s'] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /no preStop hook: .*-http\.shutdownDelay=\d+s in the container's args \(now -http\.shutdownDelay=0s\)/ }],
    },
    {
      name: 'kube-rbac-proxy whose --upstream is another port than the metrics server (it fronts an API): still traffic',
      yaml: wl({
        podSpec: `      containers:
      - {name: manager, image: example/manager:v1, args: [--metrics-bind-address=127.0.0.1:8080], lifecycle: {preStop: {sleep: {seconds: 10}}}}
      - {name: kube-rbac-proxy, image: "quay.io/brancz/kube-rbac-proxy:v0.18.0", args: [--secure-listen-address=0.0.0.0:8443, --upstream=http://127.0.0.1:9090/], ports: [{name: https, containerPort: 8443}]}
`,
        service: '  selector: {app: web}\n  ports: [{port: 8443, targetPort: https}]',
      }),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/containers/1', message: 'container "kube-rbac-proxy": serves port 8443 for Service web but has no preStop hook' }],
    },
    {
      name: 'Langfuse web v2.80.0: its wait was 200s before v2.81.0, not matched',
      yaml: langfuseWeb({ image: 'langfuse/langfuse:2.80.0' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "langfuse-web": serves port 3000 for Service langfuse-web but has no preStop hook' }],
    },
    {
      name: 'the Langfuse worker image is another program (worker/Dockerfile): not matched',
      yaml: langfuseWeb({ image: 'docker.langfuse.com/langfuse/langfuse-worker:4.4.0', name: 'langfuse-worker' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "langfuse-worker": serves port 3000 for Service langfuse-worker but has no preStop hook' }],
    },
    {
      name: 'a standalone mongod (no replica set) does not quiesce',
      yaml: mongod({ args: ['mongod', '--bind_ip_all'] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "mongodb": serves port 27017 for Services mongo-headless, mongo but has no preStop hook' }],
    },
    {
      name: 'mongod 4.4 --replSet: quiesce came in 5.0 (an X.Y tag read by the entry\'s tag globs)',
      yaml: mongod({ image: 'mongo:4.4' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "mongodb": serves port 27017 for Services mongo-headless, mongo but has no preStop hook' }],
    },
    {
      name: 'Bitnami mongodb-sharded 4.4',
      yaml: bitnamiShard('docker.io/bitnami/mongodb-sharded:4.4.15-debian-10-r8'),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "mongodb": serves port 27017 for Service mongo-headless but has no preStop hook' }],
    },
    {
      name: 'a replica set named only in a config file (-f) is not read: the finding stays',
      yaml: mongod({ args: ['mongod', '-f', '/etc/mongod.conf'] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "mongodb": serves port 27017 for Services mongo-headless, mongo but has no preStop hook' }],
    },
    {
      name: 'vminsert v1.35.2: -http.shutdownDelay came in v1.35.3',
      yaml: vminsert({ image: 'victoriametrics/vminsert:v1.35.2-cluster', args: ['--httpListenAddr=:8480', '--http.shutdownDelay=15s'] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "vminsert": serves port 8480 for Service vminsert but has no preStop hook' }],
    },
    {
      name: 'Skipper before v0.10.185 stopped at SIGTERM (the wait came with #988)',
      yaml: skipper({ image: 'registry.opensource.zalan.do/teapot/skipper:v0.10.180' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "skipper-ingress": serves port 9999 for Service skipper-ingress but has no preStop hook' }],
    },
    {
      name: 'a webhook image of another project is not a catalog drainer',
      yaml: pkgWebhook({ image: 'example.com/github.com/acme/operator/cmd/webhook:v1', grace: null }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'but has no preStop hook' }],
    },
    {
      name: 'served only by a headless Service: the lag is DNS and the clients\' resolved addresses, not proxies',
      yaml: wl({ service: '  clusterIP: None\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /its Service web is headless, so clients connect to the pod addresses DNS gave them: CoreDNS drops the address only after the endpoint removal reaches it/ }],
    },
    {
      name: 'a StatefulSet behind a headless Service and per-pod ClusterIP Services (redis-ha\'s "announce" Services): the pods are reached through kube-proxy too, so the reason is the proxies\'',
      yaml: withPerPodService(false),
      findings: [{ severity: 'warning', pointer: POINTER, message: /; proxies, ingresses and meshes stop routing to it only after the endpoint removal reaches them/ }],
    },
    {
      name: 'the same StatefulSet whose per-pod Services are headless too: DNS',
      yaml: withPerPodService(true),
      findings: [{ severity: 'warning', pointer: POINTER, message: /its Service web is headless, so clients connect to the pod addresses DNS gave them/ }],
    },
    {
      name: 'a client Service beside a peer Service with publishNotReadyAddresses (bitnami/kafka): judged on the client Service, whose ports alone are named',
      yaml: `${wl({ kind: 'StatefulSet', podSpec: app().replace('[{name: http, containerPort: 8080}]', '[{name: http, containerPort: 8080}, {name: peer, containerPort: 9093}]') })}---
apiVersion: v1
kind: Service
metadata: {name: web-headless}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}, {name: peer, port: 9093, targetPort: peer}]
`,
      findings: [{ severity: 'warning', pointer: POINTER, message: /^container "app": serves port 8080 for Service web but has no preStop hook: .*; proxies, ingresses and meshes stop routing/ }],
    },
    {
      name: 'the Service\'s port name says what it is for: the Pushgateway\'s "http" reaches the container port it names "metrics", and clients push there',
      yaml: wl({
        podSpec: app().replace('{name: http, containerPort: 8080}', '{name: metrics, containerPort: 9091}'),
        service: '  selector: {app: web}\n  ports: [{name: http, port: 9091, targetPort: 9091}]',
      }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^container "app": serves port 9091 for Service web but has no preStop hook/ }],
    },
    {
      name: 'targetPort 0 is the port, as the API server defaults it: the message names 8080, not 0',
      yaml: wl({ service: '  selector: {app: web}\n  ports: [{name: http, port: 8080, targetPort: 0}]' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^container "app": serves port 8080 for Service web but has no preStop hook/ }],
    },
    {
      name: 'a web server\'s Service port 80 or 443 is for clients whatever it is named (Loki\'s and Tempo\'s nginx gateways name their only port http-metrics)',
      yaml: wl({ podSpec: app().replace('web:1', 'docker.io/nginxinc/nginx-unprivileged:1.29-alpine').replace('[{name: http, containerPort: 8080}]', '[{name: http-metrics, containerPort: 8080}]'), service: '  selector: {app: web}\n  ports: [{name: http-metrics, port: 80, targetPort: http-metrics}]' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^container "app": serves port 8080 for Service web but has no preStop hook/ }],
    },
    {
      name: 'gossip words only as a part of a port name: a container port named userfeed behind a Service port http is traffic',
      yaml: wl({ podSpec: app().replace('[{name: http, containerPort: 8080}]', '[{name: userfeed, containerPort: 8080}]'), service: '  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: userfeed}]' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /^container "app": serves port 8080 for Service web but has no preStop hook/ }],
    },
    {
      name: 'served by a ClusterIP Service: proxies',
      yaml: wl(),
      findings: [{ severity: 'warning', pointer: POINTER, message: /; proxies, ingresses and meshes stop routing to it only after the endpoint removal reaches them/ }],
    },
    {
      name: 'Traefik (catalog): one user entry point without requestAcceptGraceTimeout still drops requests',
      yaml: wl({
        podSpec: app().replace('web:1', 'docker.io/traefik:v3.1') +
          '        args: ["--entryPoints.web.address=:8080", "--entryPoints.websecure.address=:8443", "--entryPoints.web.transport.lifeCycle.requestAcceptGraceTimeout=10s"]\n',
      }),
      findings: [
        { severity: 'warning', pointer: POINTER, message: 'container "app": serves port 8080 for Service web but has no preStop hook' },
      ],
    },
    {
      // (The grace advice counts Traefik's own end: after a 10s preStop, web keeps accepting 10s more and
      // drains 10s, graceTimeOut's default: 10 + 20 + 5. It said "keep" within 30s before the drain was read.)
      name: 'Traefik: the advice names the setting for the entry points that lack it (not the one that has it, nor the internal ones)',
      yaml: wl({
        podSpec: app().replace('web:1', 'docker.io/traefik:v3.1') +
          '        args: ["--entryPoints.web.address=:8080", "--entryPoints.websecure.address=:8443", "--entryPoints.traefik.address=:9000", "--entryPoints.web.transport.lifeCycle.requestAcceptGraceTimeout=10s", "--entryPoints.mqtt.address=:1883", "--entryPoints.mqtt.transport.lifeCycle.requestAcceptGraceTimeout=2s"]\n',
      }),
      findings: [
        {
          severity: 'warning',
          pointer: POINTER,
          message: /Add lifecycle: \{preStop: \{sleep: \{seconds: 10\}\}\}, or use the program's own setting \(Traefik entry point life cycle, catalog entry traefik\): --entryPoints\.websecure\.transport\.lifeCycle\.requestAcceptGraceTimeout=10s --entryPoints\.mqtt\.transport\.lifeCycle\.requestAcceptGraceTimeout=10s in the container's args and raise terminationGracePeriodSeconds to 35 \(from 30s/,
        },
      ],
    },
    {
      name: 'an entry point name with replacement patterns ($&) is written as it is',
      yaml: wl({ podSpec: app().replace('web:1', 'docker.io/traefik:v3.1') + '        args: ["--entryPoints.$&x.address=:8080"]\n' }),
      findings: [{ severity: 'warning', message: "--entryPoints.$&x.transport.lifeCycle.requestAcceptGraceTimeout=10s in the container's args" }],
    },
    {
      name: 'Fluent Bit with a forward input (the chart\'s extraPorts): port 24224 carries records from clients, 2020 does not',
      yaml: fluentBit({ extraPorts: [{ name: 'forward', port: 24224 }] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "fluent-bit": serves port 24224 for Service fb-fluent-bit but has no preStop hook' }],
    },
    {
      name: "Logstash chart's HA example (a beats input, the client Service on 5044): the warning names 5044 and that Service only, not the API on 9600",
      yaml: logstash({ beats: true }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "logstash": serves port 5044 for Service logstash-logstash but has no preStop hook' }],
    },
    {
      name: 'Logstash whose logstash.yml moves the API to 9601 while the headless Service still reaches 9600: 9600 is then judged as traffic',
      yaml: logstash({ logstashYml: 'api.http.port: 9601\n' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "logstash": serves port 9600 for Service logstash-logstash-headless but has no preStop hook' }],
    },
    {
      name: "another image with the Logstash chart's shape: port 9600 is client traffic",
      yaml: logstash({ image: 'example.com/team/log-gateway:1' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'serves port 9600 for Service logstash-logstash-headless' }],
    },
    {
      name: 'Fluent Bit whose config moves its HTTP server to 2021: port 2020 is then not the monitoring server',
      yaml: fluentBit({ config: fluentBitConf('2021') }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "fluent-bit": serves port 2020 for Service fb-fluent-bit but has no preStop hook' }],
    },
    {
      name: 'Fluent Bit whose HTTP_Port is a variable it substitutes: the monitoring port is unknown, port 2020 is judged as traffic',
      yaml: fluentBit({ config: fluentBitConf('${HTTP_PORT}') }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'serves port 2020 for Service fb-fluent-bit' }],
    },
    {
      name: 'Cluster Autoscaler whose --address moves the server to :9090 while the Service still targets 8085: 8085 is then judged as traffic',
      yaml: clusterAutoscaler({ args: ['--address=:9090'] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "aws-cluster-autoscaler": serves port 8085 for Service ca-aws-cluster-autoscaler but has no preStop hook' }],
    },
    {
      name: 'Cluster Autoscaler with an --address without a port (Go refuses it): the monitoring port is unknown, 8085 is judged as traffic',
      yaml: clusterAutoscaler({ args: ['--address=8085'] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'serves port 8085 for Service ca-aws-cluster-autoscaler' }],
    },
    {
      name: 'Flagger whose -port moves the server to 9999 while its Service still reaches 8080: 8080 is then judged as traffic',
      yaml: flagger({ args: ['-port=9999'] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "flagger": serves port 8080 for Service flagger but has no preStop hook' }],
    },
    {
      name: "another image with Flagger's shape (its load tester, which serves an API): port 8080 is client traffic",
      yaml: flagger({ image: 'ghcr.io/fluxcd/flagger-loadtester:0.36.0' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'serves port 8080 for Service flagger' }],
    },
    {
      name: "Reloader's server is fixed at 9090: a Service reaching another port of it is judged as traffic",
      yaml: reloader({ port: 8080 }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'serves port 8080 for Service reloader-reloader' }],
    },
    {
      name: "Sourcegraph's worker health server is fixed at 3189: a Service reaching another port of it is judged as traffic",
      yaml: sourcegraphWorker('worker', { port: 8080 }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "worker": serves port 8080 for Service worker but has no preStop hook' }],
    },
    {
      name: "another image with the Sourcegraph workers' shape (syntect-server serves requests): port 3188 is client traffic",
      yaml: sourcegraphWorker('precise-code-intel-worker', { image: 'index.docker.io/sourcegraph/syntect-server:6.0.0' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'serves port 3188 for Service precise-code-intel-worker' }],
    },
    {
      name: "another image with Reloader's shape: port 9090 is client traffic",
      yaml: reloader({ image: 'example.com/team/reloader-api:1' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'serves port 9090 for Service reloader-reloader' }],
    },
    {
      name: 'another image with the Cluster Autoscaler shape: port 8085 is client traffic',
      yaml: clusterAutoscaler({ image: 'example.com/team/cluster-api:1' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'serves port 8085 for Service ca-aws-cluster-autoscaler' }],
    },
    {
      name: 'another image with the same shape: port http 2020 is client traffic',
      yaml: fluentBit({ image: 'example.com/team/log-gateway:1' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'serves port 2020 for Service fb-fluent-bit' }],
    },
    {
      name: 'CoreDNS without lameduck: it stops answering at once; the advice also names lameduck, and where to write it',
      yaml: coredns({ corefile: corefile() }),
      findings: [
        {
          severity: 'warning',
          pointer: POINTER,
          message:
            'container "coredns": serves port 53 for Service kube-dns but has no preStop hook: SIGTERM arrives while clients are still routed to it; proxies, ingresses and meshes stop routing to it only after the endpoint removal reaches them, so in-flight and new requests can hit a closed socket. Add lifecycle: {preStop: {sleep: {seconds: 10}}}, or use the program\'s own setting (CoreDNS health plugin lame duck mode, catalog entry coredns-lameduck): lameduck 10s on its own line inside the health block (health {, then lameduck, then }) in /etc/coredns/Corefile (ConfigMap kube-system/coredns, key Corefile) and keep',
        },
      ],
    },
    {
      name: "Chaos Mesh's chaos-coredns without lameduck: judged from its Corefile as CoreDNS is, and the advice names lameduck",
      yaml: coredns({ corefile: corefile(), image: 'ghcr.io/chaos-mesh/chaos-coredns:v0.2.8' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'catalog entry coredns-lameduck): lameduck 10s on its own line inside the health block' }],
    },
    { name: 'CoreDNS with lameduck 0s: no time, as a 0 s sleep', yaml: coredns({ corefile: corefile('0s') }), findings: [{ severity: 'warning', pointer: POINTER, message: 'but has no preStop hook' }] },
    {
      name: 'CoreDNS whose ConfigMap is not in the input: the Corefile is not assumed, the finding stays and says why',
      yaml: coredns({ corefile: false }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'in /etc/coredns/Corefile (ConfigMap kube-system/coredns is not in the input: lint it with the workload to have the file read) and keep' }],
    },
    {
      name: 'CoreDNS reading its Corefile from elsewhere than the ConfigMap: not read',
      yaml: coredns({ args: ['-conf', '/data/Corefile'] }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'in /data/Corefile (no volume is mounted at /data/Corefile) and keep' }],
    },
    {
      name: 'the same Corefile mounted by a program that is not CoreDNS: no lame duck',
      yaml: coredns({ image: 'example/dns-proxy:1' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: /Add lifecycle: \{preStop: \{sleep: \{seconds: 10\}\}\} and keep/ }],
    },
    {
      name: 'an image the catalog does not know gets no program setting in the advice',
      yaml: wl(),
      findings: [{ severity: 'warning', message: /Add lifecycle: \{preStop: \{sleep: \{seconds: 10\}\}\} and keep/ }],
    },
    {
      name: 'unknown served (a file holding only the Deployment) with a declared http port: assumed served, and said so',
      yaml: wl({ service: false }),
      findings: [
        {
          severity: 'warning',
          pointer: POINTER,
          message: /^container "app": serves port http\/8080 \(assumed served: no Service in the input selects it\) but has no preStop hook: .*\(served status unknown: no Service in the input selects it, but it declares port http\/8080, so it is assumed served; annotate kubegrace.dev\/served: "false" if nothing routes to it\)$/,
        },
      ],
    },
    {
      name: 'unknown served with metrics and operator ports besides the traffic port: the message names the port that made it assumed served, as its note does',
      yaml: wl({ service: false, podSpec: app().replace('{name: http, containerPort: 8080}', '{name: metrics, containerPort: 8080}, {name: probe, containerPort: 8081}, {name: webhook, containerPort: 7000}') }),
      findings: [
        {
          severity: 'warning',
          pointer: POINTER,
          message: /^container "app": serves port webhook\/7000 \(assumed served: no Service in the input selects it\) but .*it declares port webhook\/7000, so it is assumed served/,
        },
      ],
    },
    {
      name: 'a grace period too short for the advised delay: the advice raises it too',
      yaml: wl({ podSpec: `      terminationGracePeriodSeconds: 5\n${app()}` }),
      findings: [{ severity: 'warning', message: 'Add lifecycle: {preStop: {sleep: {seconds: 10}}} and raise terminationGracePeriodSeconds to 25 (from 5s' }],
    },
    {
      name: 'served Deployment without preStop: warning at the container',
      yaml: wl(),
      kubeVersion: '1.30',
      findings: [{ severity: 'warning', pointer: POINTER, message: 'container "app": serves port 8080 for Service web but has no preStop hook' }],
    },
    {
      name: 'fix uses the sleep action on 1.30',
      yaml: wl(),
      kubeVersion: '1.30',
      findings: [{ severity: 'warning', message: 'lifecycle: {preStop: {sleep: {seconds: 10}}}' }],
    },
    {
      name: 'fix uses exec sleep on 1.29',
      yaml: wl(),
      kubeVersion: '1.29',
      findings: [{ severity: 'warning', message: 'exec: {command: ["sleep", "10"]}' }],
    },
    {
      name: 'lifecycle without preStop (lifecycle: {})',
      yaml: wl({ podSpec: app('        lifecycle: {}') }),
      findings: [{ severity: 'warning', pointer: POINTER }],
    },
    {
      name: 'postStart only is not a preStop',
      yaml: wl({ podSpec: app('        lifecycle: {postStart: {exec: {command: [init]}}}') }),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'AWS LB controller readiness gate: error',
      yaml: wl({ podSpec: `      readinessGates: [{conditionType: target-health.elbv2.k8s.aws/k8s-web-abc}]\n${app()}` }),
      findings: [{ severity: 'error', pointer: POINTER, message: 'readiness gate "target-health.elbv2.k8s.aws/k8s-web-abc"' }],
    },
    {
      name: 'GKE NEG readiness gate: error',
      yaml: wl({ podSpec: `      readinessGates: [{conditionType: cloud.google.com/load-balancer-neg-ready}]\n${app()}` }),
      findings: [{ severity: 'error', message: 'cloud.google.com/load-balancer-neg-ready' }],
    },
    {
      name: 'externalTrafficPolicy: Local: error',
      yaml: wl({ service: '  type: LoadBalancer\n  externalTrafficPolicy: Local\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }),
      findings: [{ severity: 'error', message: 'externalTrafficPolicy: Local' }],
    },
    {
      // Review round 30 (pihole's chart with DoH): the Local LB Service carries only pihole's DNS port; cloudflared is reached through a ClusterIP Service.
      name: 'externalTrafficPolicy: Local on a Service that carries only another container\'s port: a warning for this one',
      yaml: `apiVersion: v1
kind: Service
metadata: {name: dns}
spec:
  type: LoadBalancer
  externalTrafficPolicy: Local
  selector: {app: web}
  ports: [{name: dns, port: 53, targetPort: dns, protocol: UDP}]
---
${wl({ podSpec: `      containers:\n      - {name: side, image: side:1, ports: [{name: side-api, containerPort: 49312}]}\n      - {name: dns, image: dns:1, ports: [{name: dns, containerPort: 53, protocol: UDP}], lifecycle: {preStop: {sleep: {seconds: 35}}}}`, service: '  selector: {app: web}\n  ports: [{name: side-api, port: 49312, targetPort: side-api}]' })}`,
      findings: [{ severity: 'warning', message: /^container "side": serves port 49312 for Service web but has no preStop hook.*proxies, ingresses and meshes stop routing/ }],
    },
    {
      // Review round 30: only type LoadBalancer gets a healthCheckNodePort (needsHCNodePort); a NodePort Service has no LB window.
      name: 'externalTrafficPolicy: Local on a NodePort Service: a warning, no LB to keep sending',
      yaml: wl({ service: '  type: NodePort\n  externalTrafficPolicy: Local\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }),
      findings: [{ severity: 'warning', message: /proxies, ingresses and meshes stop routing/ }],
    },
    {
      name: 'served by hint "true" without a Service',
      yaml: wl({ service: false, annotations: '"kubegrace.dev/served": "true"' }),
      findings: [{ severity: 'warning', pointer: POINTER, message: 'serves port http/8080 but has no preStop hook' }],
    },
    {
      name: 'a port a ServiceMonitor scrapes but the app serves itself still counts (grafana)',
      yaml: `${wl({ service: '  selector: {app: web}\n  ports: [{name: http, port: 3000, targetPort: http}]' }).replace('metadata: {name: web}\nspec:\n  selector', 'metadata: {name: web, labels: {app: web}}\nspec:\n  selector')}---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http}]
`,
      findings: [{ severity: 'warning', message: 'serves port 8080 for Service web' }],
    },
    {
      name: 'kube-rbac-proxy port: a ServiceMonitor in another namespace (its own by default) does not scrape it',
      yaml: `${rbacProxied()}---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: monitoring}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: https}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web-2, namespace: monitoring}
spec:
  namespaceSelector: {matchNames: [other]}
  selector: {matchLabels: {app: web}}
  endpoints: [{port: https}]
`,
      findings: [{ severity: 'warning', message: 'container "kube-rbac-proxy": serves port 8443 for Service web' }],
    },
    {
      name: 'StatefulSet with 3 replicas',
      yaml: wl({ kind: 'StatefulSet', replicas: 3 }),
      findings: [{ severity: 'warning', object: 'StatefulSet/web' }],
    },
    {
      name: 'single-replica Deployment with the default surge: the old pod overlaps the new one',
      yaml: wl({ replicas: 1 }),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'DaemonSet',
      yaml: wl({ kind: 'DaemonSet' }),
      findings: [{ severity: 'warning', object: 'DaemonSet/web' }],
    },
    {
      // Review round 35, report p57 item 1: the replacement is created as soon as the only pod is
      // deleting, and kube-proxy keeps sending to it while it serves (ProxyTerminatingEndpoints).
      name: 'single-replica Deployment with maxSurge 0 (1.26 and later): the delay keeps it serving while its replacement starts',
      yaml: wl({ replicas: 1, strategy: '  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n' }),
      findings: [{ severity: 'warning', message: 'it is the only pod (one replica with maxSurge 0), and its replacement is created as soon as it starts terminating' }],
    },
    {
      name: '...on 1.26, where the fallback is beta and on by default',
      yaml: wl({ replicas: 1, strategy: '  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}\n' }),
      kubeVersion: '1.26',
      findings: [{ severity: 'warning', message: 'falls back to the terminating ones that serve' }],
    },
    {
      name: 'a one-replica bare ReplicaSet: replaced as soon as its pod is deleting',
      yaml: wl({ kind: 'ReplicaSet', replicas: 1 }),
      findings: [{ severity: 'warning', message: 'it is the only pod (a ReplicaSet of one replica)' }],
    },
    {
      // Kubecost's cluster-controller beside the cost-analyzer (review round 35, report p57 item 1).
      name: 'single replica, maxSurge 1 and maxUnavailable 1, no claim: the replacement starts on another node at once',
      yaml: wl({ replicas: 1, strategy: '  strategy: {rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}\n' }),
      findings: [{ severity: 'warning', message: 'proxies, ingresses and meshes stop routing' }],
    },
    {
      // maxUnavailable 0: the old pod is deleted only once the new one is ready, on the same node.
      name: 'single replica with a ReadWriteOnce claim and maxUnavailable 0: the pods overlap on the node',
      yaml: singleWithClaim('{maxSurge: 1, maxUnavailable: 0}'),
      findings: [{ severity: 'warning', message: 'proxies, ingresses and meshes stop routing' }],
    },
    {
      name: 'single replica with a ReadWriteMany claim: the replacement starts on another node at once',
      yaml: singleWithClaim('{maxSurge: 1, maxUnavailable: 1}', 'ReadWriteMany'),
      findings: [{ severity: 'warning' }],
    },
    {
      // With surge the node's new pod is ready before the old one is deleted: the classic race.
      name: 'DaemonSet behind the node-local Service with maxSurge 1, maxUnavailable 0',
      yaml: localDaemonSet({ strategy: '{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' }),
      findings: [{ severity: 'warning', object: 'DaemonSet/web' }],
    },
    {
      // Other nodes' pods take the traffic of a cluster-policy Service.
      name: 'DaemonSet behind a node-local Service and a cluster-policy one',
      yaml: `${localDaemonSet()}---
apiVersion: v1
kind: Service
metadata: {name: web-cluster}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
`,
      findings: [{ severity: 'warning', object: 'DaemonSet/web' }],
    },
    {
      // internalTrafficPolicy covers only the cluster IP: the LB's traffic moves to other nodes.
      name: 'DaemonSet behind a LoadBalancer Service with internalTrafficPolicy: Local',
      yaml: localDaemonSet({ type: 'LoadBalancer' }),
      findings: [{ severity: 'warning', object: 'DaemonSet/web' }],
    },
    {
      name: 'serves-after-sigterm annotation 0 does not skip',
      yaml: wl({ annotations: '"kubegrace.dev/serves-after-sigterm-seconds": "0"' }),
      findings: [{ severity: 'warning' }],
    },
    {
      name: 'only the container that serves the port is reported',
      yaml: wl({
        podSpec: `      containers:
      - name: worker
        image: w:1
      - name: app
        image: web:1
        ports: [{name: http, containerPort: 8080}]
`,
      }),
      findings: [{ severity: 'warning', pointer: '/spec/template/spec/containers/1', message: 'container "app"' }],
    },
    {
      name: 'suppressed by kubegrace.dev/ignore',
      yaml: wl({ annotations: '"kubegrace.dev/ignore": "prestop-missing", "kubegrace.dev/ignore-reason": "stateless batch API"' }),
      findings: [{ severity: 'warning', suppressed: true }],
    },
    {
      name: 'ingress-nginx /wait-shutdown without --shutdown-grace-period (default 0) gives no delay: its own flag is advised',
      yaml: wl({ podSpec: INGRESS_NGINX() }),
      findings: [
        {
          severity: 'warning',
          pointer: PRESTOP,
          message:
            /^container "app": serves port 8080 for Service web but its preStop program ingress-nginx \/wait-shutdown \(keeps accepting for 0s; catalog entry ingress-nginx-wait-shutdown\) gives no delay: .*Set --shutdown-grace-period=10 in the container's args \(chart value controller\.extraArgs\.shutdown-grace-period: "10"\)/,
        },
      ],
    },
    {
      name: "the haproxytech charts' preStop example soft-stops HAProxy (SIGUSR1 unbinds the listeners at once): no delay; a sleep before it is advised",
      yaml: wl({ podSpec: HAPROXY_SOFT_STOP() }),
      findings: [
        {
          severity: 'warning',
          pointer: PRESTOP,
          message:
            /^container "app": serves port 8080 for Service web but its preStop program HAProxy soft-stop \(SIGUSR1 to haproxy\) \(keeps accepting for 0s; catalog entry haproxy-soft-stop\) gives no delay: .*Set lifecycle: \{preStop: \{exec: \{command: \["\/bin\/sh", "-c", "sleep 10 && kill -USR1 \$\(pidof haproxy\); while killall -0 haproxy; do sleep 1; done"\]\}\}\}/,
        },
      ],
    },
    {
      name: 'kong quit without --wait (default 0) sends nginx QUIT at once: no delay; its own --wait is advised',
      yaml: wl({ podSpec: app('        lifecycle: {preStop: {exec: {command: [kong, quit]}}}').replace('web:1', 'kong:3.9') }),
      findings: [
        {
          severity: 'warning',
          pointer: PRESTOP,
          message: /^container "app": serves port 8080 for Service web but its preStop program kong quit \(Kong Gateway graceful shutdown\) \(keeps accepting for 0s; catalog entry kong-quit\) gives no delay: .*Set --wait=10 in the preStop command/,
        },
      ],
    },
    {
      name: 'a zero sleep action gives no delay',
      yaml: wl({ podSpec: app('        lifecycle: {preStop: {sleep: {seconds: 0}}}') }),
      findings: [{ severity: 'warning', pointer: PRESTOP, message: /but its preStop delay 0s gives no delay: .*Set lifecycle: \{preStop: \{sleep: \{seconds: 10\}\}\}/ }],
    },
    {
      name: 'an exec sleep 0 gives no delay',
      yaml: wl({ podSpec: app('        lifecycle: {preStop: {exec: {command: ["sleep", "0"]}}}') }),
      findings: [{ severity: 'warning', pointer: PRESTOP, message: 'but its preStop delay 0s gives no delay' }],
    },
    {
      name: 'a hook the prestop-seconds hint says takes 0s gives no delay',
      yaml: wl({ podSpec: app('        lifecycle: {preStop: {exec: {command: ["/bin/drain"]}}}'), annotations: '"kubegrace.dev/prestop-seconds": "0"' }),
      findings: [{ severity: 'warning', pointer: PRESTOP, message: 'gives no delay' }],
    },
    {
      name: 'behind externalTrafficPolicy: Local a zero-delay hook is an error, and the advice says the LB needs longer',
      yaml: wl({ podSpec: INGRESS_NGINX(), service: '  type: LoadBalancer\n  externalTrafficPolicy: Local\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }),
      findings: [{ severity: 'error', pointer: PRESTOP, message: /requests are certain to fail\. Set --shutdown-grace-period=10 .*\(behind Service web the delay must also cover the LB health-check window: external-traffic-local gives the length\)/ }],
    },
    {
      name: 'no hook behind externalTrafficPolicy: Local: the same note on the LB window',
      yaml: wl({ service: '  type: LoadBalancer\n  externalTrafficPolicy: Local\n  selector: {app: web}\n  ports: [{name: http, port: 80, targetPort: http}]' }),
      findings: [{ severity: 'error', pointer: POINTER, message: /Add lifecycle: \{preStop: \{sleep: \{seconds: 10\}\}\} \(behind Service web the delay must also cover the LB health-check window/ }],
    },
  ],
});

describe('prestop-missing: a classic Linkerd proxy in the pod', () => {
  const proxy = (extra = '') => `      - name: linkerd-proxy\n        image: cr.l5d.io/linkerd/proxy:edge-24.1.1\n        ports: [{name: linkerd-proxy, containerPort: 4143}, {name: linkerd-admin, containerPort: 4191}]\n${extra}`;
  test('the advice also asks for the proxy\'s wait, which the app\'s delay needs (linkerd-identity\'s pod)', () => {
    const [f] = runRule(prestopMissing, wl({ podSpec: `${app()}\n${proxy()}` }));
    expect(f.message).toContain("; the pod's linkerd-proxy is a classic container that stops as soon as termination starts, so also set config.alpha.linkerd.io/proxy-wait-before-exit-seconds above the delay (see linkerd-proxy-drain);");
    const [g] = runRule(prestopMissing, wl({ podSpec: `${app()}\n${proxy('        lifecycle: {preStop: {exec: {command: [/bin/sleep, "5"]}}}\n')}` }));
    expect(g.message).toContain('classic container that stops 5s after termination starts');
  });
  test('not when the proxy already waits longer than the delay, nor for a native sidecar proxy', () => {
    const [f] = runRule(prestopMissing, wl({ podSpec: `${app()}\n${proxy('        lifecycle: {preStop: {exec: {command: [/bin/sleep, "20"]}}}\n')}` }));
    expect(f.message).not.toContain('linkerd-proxy is a classic container');
    const native = `      initContainers:\n      - name: linkerd-proxy\n        image: cr.l5d.io/linkerd/proxy:edge-24.1.1\n        restartPolicy: Always\n        ports: [{name: linkerd-proxy, containerPort: 4143}]\n${app()}`;
    const [n] = runRule(prestopMissing, wl({ podSpec: native }));
    expect(n.message).not.toContain('linkerd-proxy is a classic container');
  });
});

describe('prestop-missing: a Service the API server calls is no metrics Service, whatever its labels', () => {
  // Review round 13: the prometheus-community prometheus-adapter chart labels the Service of the custom
  // metrics API app.kubernetes.io/component: metrics; kube-apiserver calls it for every custom metric.
  const adapter = (labels: string, apiService: boolean) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: adapter, namespace: monitoring}
spec:
  replicas: 2
  selector: {matchLabels: {app: adapter}}
  template:
    metadata: {labels: {app: adapter}}
    spec:
      containers:
      - name: adapter
        image: registry.k8s.io/prometheus-adapter/prometheus-adapter:v0.12.0
        args: [/adapter, --secure-port=6443]
        ports: [{name: https, containerPort: 6443}]
        readinessProbe: {httpGet: {path: /healthz, port: https, scheme: HTTPS}}
---
apiVersion: v1
kind: Service
metadata: {name: adapter, namespace: monitoring, labels: {${labels}}}
spec:
  selector: {app: adapter}
  ports: [{name: https, port: 443, targetPort: https}]
${apiService ? '---\napiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata: {name: v1beta1.custom.metrics.k8s.io}\nspec: {service: {name: adapter, namespace: monitoring}, group: custom.metrics.k8s.io, version: v1beta1, groupPriorityMinimum: 100, versionPriority: 100}\n' : ''}`;

  test('an APIService backend labelled component: metrics: the warning', () => {
    const f = runRule(prestopMissing, adapter('app.kubernetes.io/component: metrics', true));
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'warning', message: expect.stringContaining('serves port 6443 for Service adapter but has no preStop hook') });
    // The API server is its only client: what fails is the aggregated API (review round 21).
    expect(f[0].message).toContain('its Service adapter is called only by the API server (APIService v1beta1.custom.metrics.k8s.io), which reaches it through the Service\'s cluster IP (or, with --enable-aggregator-routing, an endpoint it picks from its own watch), so its calls keep reaching this pod until the endpoint removal propagates to that path, and those in that window hit a closed socket: requests to its aggregated API fail (503)');
  });

  test('before 1.30 a shell-less image gets no exec sleep repair, and the advice says why (karmada\'s kube-apiserver; review round 26)', () => {
    const yaml = wl({ podSpec: '      containers:\n      - name: app\n        image: registry.k8s.io/kube-apiserver:v1.29.0\n        ports: [{name: http, containerPort: 8080}]\n' });
    const old = runRule(prestopMissing, yaml, '1.29');
    expect(old).toHaveLength(1);
    expect(old[0].fix).toBeUndefined();
    expect(old[0].message).toContain('Add a preStop delay another way: the image "registry.k8s.io/kube-apiserver:v1.29.0" has no sleep binary for an exec hook and the sleep action needs Kubernetes >= 1.30');
    // On 1.30 the sleep action needs no binary: the repair is there.
    const now = runRule(prestopMissing, yaml, '1.30');
    expect(now[0].fix?.description).toBe('add preStop sleep 10s to container "app"');
    // Another image before 1.30 still gets the exec sleep proposal.
    expect(runRule(prestopMissing, yaml.replace('registry.k8s.io/kube-apiserver:v1.29.0', 'web:1'), '1.29')[0].fix?.safety).toBe('proposal');
  });

  test("before 1.30 zitadel's scratch image gets no exec sleep repair either, and the policy's shellLessImagePatterns count (review round 29)", () => {
    const yaml = wl({ podSpec: '      containers:\n      - name: app\n        image: ghcr.io/zitadel/zitadel:v4.13.0\n        ports: [{name: http, containerPort: 8080}]\n' });
    const old = runRule(prestopMissing, yaml, '1.29');
    expect(old[0].fix).toBeUndefined();
    expect(old[0].message).toContain('Add a preStop delay another way: the image "ghcr.io/zitadel/zitadel:v4.13.0" has no sleep binary for an exec hook');
    // The -debug tag is the debian stage: the exec sleep proposal stays.
    expect(runRule(prestopMissing, yaml.replace('v4.13.0', 'v4.13.0-debug'), '1.29')[0].fix?.safety).toBe('proposal');
    // An image the policy names shell-less for prestop-sleep-action.
    const custom = yaml.replace('ghcr.io/zitadel/zitadel:v4.13.0', 'reg.example.com/minimal/app:1');
    const policy: ResolvedPolicy = { name: 't', rules: new Map([['prestop-sleep-action', { params: { shellLessImagePatterns: ['/minimal/'] } }]]), customRules: [] };
    const f = lintSources([{ file: 't.yaml', text: custom }], { rules: [prestopMissing], policy, version: KubeVersion.parse('1.29') }).findings;
    expect(f).toHaveLength(1);
    expect(f[0].fix).toBeUndefined();
  });

  test('a Service also routed by an Ingress is not called only by webhooks; a route naming the release namespace matches a Service rendered without one (opa-kube-mgmt; review round 27)', () => {
    const opa = (args: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: opa}
spec:
  replicas: 2
  selector: {matchLabels: {app: opa}}
  template:
    metadata: {labels: {app: opa}}
    spec:
      containers:
      - name: opa
        image: openpolicyagent/opa:1.4.2
        args: [${args}]
        ports: [{name: http, containerPort: 8181}]
---
apiVersion: v1
kind: Service
metadata: {name: opa}
spec:
  selector: {app: opa}
  ports: [{name: https, port: 443, targetPort: 8181}]
`;
    const webhook = `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: opa}
webhooks:
- name: webhook.openpolicyagent.org
  failurePolicy: Ignore
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {service: {name: opa, namespace: opa, port: 443}}
  rules: [{apiGroups: ["*"], apiVersions: ["*"], operations: [CREATE], resources: ["*"]}]
`;
    const route = `---
apiVersion: traefik.io/v1alpha1
kind: IngressRouteTCP
metadata: {name: opa, namespace: opa}
spec:
  routes: [{match: "HostSNI(\`*\`)", services: [{name: opa, namespace: opa, port: 443}]}]
`;
    // Only the fail-open webhook calls it: info.
    expect(runRule(prestopMissing, opa('run, --server') + webhook).map((f) => f.severity)).toEqual(['info']);
    // An IngressRouteTCP (namespace opa) also sends clients to it: the warning, with the generic wording.
    const routed = runRule(prestopMissing, opa('run, --server') + webhook + route);
    expect(routed.map((f) => f.severity)).toEqual(['warning']);
    expect(routed[0].message).toContain('proxies, ingresses and meshes stop routing to it');
    // OPA's --shutdown-wait-period keeps it serving after SIGTERM (catalog opa-shutdown-wait-period).
    expect(runRule(prestopMissing, opa('run, --server, --shutdown-wait-period=15') + webhook + route)).toEqual([]);
  });

  test('a scrape-only Service beside the webhook Service does not change who calls (jobset: jobset-metrics-service; review round 26)', () => {
    const yaml = `apiVersion: v1
kind: Service
metadata: {name: jobset-metrics-service, namespace: js}
spec:
  selector: {app: jobset}
  ports: [{name: https, port: 8443, targetPort: 8443}]
---
apiVersion: v1
kind: Service
metadata: {name: jobset-webhook-service, namespace: js}
spec:
  selector: {app: jobset}
  ports: [{name: webhook, port: 443, targetPort: webhook}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: jobset-controller, namespace: js}
spec:
  replicas: 2
  selector: {matchLabels: {app: jobset}}
  template:
    metadata: {labels: {app: jobset}}
    spec:
      containers:
      - name: controller
        image: jobset:main
        ports: [{name: webhook, containerPort: 9443}, {name: metrics, containerPort: 8443}]
        readinessProbe: {httpGet: {path: /readyz, port: 8081}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: jobset-validating-webhook-configuration}
webhooks:
- name: validate--v1-pod.x-k8s.io
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig: {service: {name: jobset-webhook-service, namespace: js, path: /validate--v1-pod}}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
`;
    const f = runRule(prestopMissing, yaml);
    expect(f).toHaveLength(1);
    expect(f[0].message).toContain('serves port 9443 for Service jobset-webhook-service but has no preStop hook');
    expect(f[0].message).toContain('its Service jobset-webhook-service is called only by the API server (validate--v1-pod.x-k8s.io)');
    expect(f[0].message).toContain('the requests its webhooks with failurePolicy: Fail intercept are rejected');
  });

  test('the same Service without an APIService is a metrics component\'s: scraped, not called', () => {
    expect(runRule(prestopMissing, adapter('app.kubernetes.io/component: metrics', false))).toEqual([]);
  });
});

describe('prestop-missing: hooks that give no delay', () => {
  test('valid: ingress-nginx /wait-shutdown with --shutdown-grace-period > 0, an unknown command, a sleep > 0, a hint > 0', () => {
    expect(runRule(prestopMissing, wl({ podSpec: INGRESS_NGINX('--shutdown-grace-period=15') }))).toEqual([]);
    expect(runRule(prestopMissing, wl({ podSpec: app('        lifecycle: {preStop: {exec: {command: ["/bin/drain"]}}}') }))).toEqual([]);
    expect(runRule(prestopMissing, wl({ podSpec: app('        lifecycle: {preStop: {sleep: {seconds: 5}}}') }))).toEqual([]);
    expect(runRule(prestopMissing, wl({ podSpec: app('        lifecycle: {preStop: {exec: {command: ["/bin/drain"]}}}'), annotations: '"kubegrace.dev/prestop-seconds": "5"' }))).toEqual([]);
  });

  test("valid: the Kong chart's hook kong quit --wait=15 keeps accepting for 15s", () => {
    expect(runRule(prestopMissing, wl({ podSpec: app("        lifecycle: {preStop: {exec: {command: [kong, quit, '--wait=15']}}}").replace('web:1', 'kong:3.9') }))).toEqual([]);
  });

  test('valid: HAProxy soft-stop after a sleep, or with the delay its global grace gives declared by the prestop-seconds hint', () => {
    expect(runRule(prestopMissing, wl({ podSpec: HAPROXY_SOFT_STOP('sleep 10 && ') }))).toEqual([]);
    expect(runRule(prestopMissing, wl({ podSpec: HAPROXY_SOFT_STOP(), annotations: '"kubegrace.dev/prestop-seconds": "10"' }))).toEqual([]);
  });

  test('a sleep after nginx -s quit or HAProxy\'s soft-stop is no delay: the listeners close when the hook starts, the sleep only delays SIGTERM (review round 13); the advice puts the sleep first', () => {
    const nginx = runRule(prestopMissing, wl({ podSpec: app('        lifecycle: {preStop: {exec: {command: ["/bin/sh", "-c", "nginx -s quit; sleep 10"]}}}').replace('web:1', 'nginx:1.27') }));
    expect(nginx).toHaveLength(1);
    expect(nginx[0]).toMatchObject({ severity: 'warning', pointer: PRESTOP });
    expect(nginx[0].message).toContain('its preStop program nginx -s quit (graceful shutdown) (keeps accepting for 0s; catalog entry nginx-quit) gives no delay');
    expect(nginx[0].message).toContain('Set lifecycle: {preStop: {exec: {command: ["/bin/sh", "-c", "sleep 10 && nginx -s quit"]}}}');
    const haproxy = runRule(prestopMissing, wl({ podSpec: HAPROXY_SOFT_STOP().replace('; while killall -0 haproxy; do sleep 1; done', '; sleep 15') }));
    expect(haproxy).toHaveLength(1);
    expect(haproxy[0].message).toContain('catalog entry haproxy-soft-stop) gives no delay');
    // A command that keeps the server listening (Envoy fails its health check and drains) keeps the trailing sleep as its delay.
    expect(runRule(prestopMissing, wl({ podSpec: app('        lifecycle: {preStop: {exec: {command: ["/bin/sh", "-c", "wget -O /dev/null 127.0.0.1:19000/healthcheck/fail; sleep 10"]}}}') }))).toEqual([]);
  });

  test('a script that signals the app before it sleeps gives no delay: the app stops accepting at once (review round 33, report p39); the advice puts the sleep first', () => {
    // The Airflow chart's pgbouncer hook: SIGINT closes pgbouncer's listeners at once (pgbouncer/pgbouncer
    // @13a344f src/main.c handle_sigint: cleanup_tcp_sockets(); doc/usage.md SIGINT "Safe shutdown").
    const hook = (script: string) => app(`        lifecycle: {preStop: {exec: {command: ["/bin/sh", "-c", "${script}"]}}}`);
    const got = runRule(prestopMissing, wl({ podSpec: hook('killall -INT pgbouncer && sleep 120') }));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ severity: 'warning', pointer: PRESTOP });
    expect(got[0].message).toContain('container "app": serves port 8080 for Service web but its preStop signals the app before it sleeps ("killall -INT pgbouncer"): the app starts its shutdown and stops accepting as soon as termination starts');
    expect(got[0].message).toContain('Put the delay first: ["/bin/sh", "-c", "sleep 10 && killall -INT pgbouncer && sleep 120"] and raise terminationGracePeriodSeconds to 135');
    expect(got[0].fix).toEqual({
      description: 'run "sleep 10" before the preStop script of container "app" and raise terminationGracePeriodSeconds to 135',
      safety: 'proposal',
      edits: [
        { op: 'set', pointer: `${PRESTOP}/exec/command/2`, value: 'sleep 10 && killall -INT pgbouncer && sleep 120' },
        { op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 135 },
      ],
    });
    expect(runRule(prestopMissing, wl({ podSpec: hook('kill -SIGTERM 1; sleep 30') }))).toHaveLength(1);
    // The sleep first (the proposal's result), a signal that only reloads, or the hint's declared duration: a delay, no finding.
    expect(runRule(prestopMissing, wl({ podSpec: hook('sleep 10 && killall -INT pgbouncer && sleep 120') }))).toEqual([]);
    expect(runRule(prestopMissing, wl({ podSpec: hook('kill -HUP 1; sleep 30') }))).toEqual([]);
    expect(runRule(prestopMissing, wl({ podSpec: hook('kill -SIGTERM 1; sleep 30'), annotations: '"kubegrace.dev/prestop-seconds": "10"' }))).toEqual([]);
  });

  test('a zero sleep gets a proposal that lengthens it (with the grace it needs); a program\'s flag is left to the advice', () => {
    const [sleep0] = runRule(prestopMissing, wl({ podSpec: `      terminationGracePeriodSeconds: 12\n${app('        lifecycle: {preStop: {sleep: {seconds: 0}}}')}` }));
    expect(sleep0.fix).toEqual({
      description: 'set the preStop sleep of container "app" to 10s and raise terminationGracePeriodSeconds to 25',
      safety: 'proposal',
      edits: [
        { op: 'set', pointer: `${PRESTOP}/sleep/seconds`, value: 10 },
        { op: 'set', pointer: '/spec/template/spec/terminationGracePeriodSeconds', value: 25 },
      ],
    });
    const [nginx] = runRule(prestopMissing, wl({ podSpec: INGRESS_NGINX() }));
    expect(nginx.fix).toBeUndefined();
  });
});

// Review round 21 (Apache Superset): when a shell stays PID 1 above the server, SIGTERM never
// reaches it and its socket stays open until SIGKILL: no race with endpoint removal to report
// (grace-period-budget warns about the shell instead).
test('prestop-missing: not when PID 1 is a shell that never passes SIGTERM on to the server', () => {
  const yaml = (command: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: python:3.12
        command: ${command}
        ports: [{containerPort: 8088}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8088}]
`;
  expect(runRule(prestopMissing, yaml("[sh, -c, 'gunicorn -b :8088 app:app']"))).toEqual([]);
  expect(runRule(prestopMissing, yaml("[sh, -c, 'exec gunicorn -b :8088 app:app']"))).toHaveLength(1);
  // Review round 37: the Superset chart itself, on apache/superset (python-based, and run-server.sh
  // starts gunicorn without exec): grace-period-budget's finding, not this one.
  const superset = (command: string) => yaml(command).replace('image: python:3.12', 'image: apachesuperset.docker.scarf.sh/apache/superset:3.1.2');
  expect(runRule(prestopMissing, superset("[/bin/sh, -c, '. /app/pythonpath/superset_bootstrap.sh; /usr/bin/run-server.sh']"))).toEqual([]);
  expect(runRule(prestopMissing, superset("[/bin/sh, -c, '. /app/pythonpath/superset_bootstrap.sh; exec gunicorn -b :8088 app:app']"))).toHaveLength(1);
  // Review round 34, report p48 item 1: open-webui/pipelines' ENTRYPOINT `bash start.sh` starts uvicorn
  // without exec; the chart sets no command: nothing closes at SIGTERM.
  const pipelines = (container: string) => yaml('x').replace(/image: python:3.12\n {8}command: x\n/, container);
  expect(runRule(prestopMissing, pipelines('image: ghcr.io/open-webui/pipelines:main\n'))).toEqual([]);
  expect(runRule(prestopMissing, pipelines('image: ghcr.io/open-webui/pipelines:main\n        args: [--mode, run]\n'))).toEqual([]);
  expect(runRule(prestopMissing, pipelines("image: ghcr.io/open-webui/pipelines:main\n        command: [uvicorn, main:app, --port, '8088']\n"))).toHaveLength(1);
});

// Review round 24 (camunda-platform chart): the Zeebe standalone gateway drains its gRPC calls for
// up to spring.lifecycle.timeout-per-shutdown-phase (default 30s) after SIGTERM, so the fix that adds
// the preStop sleep raises the grace period to hold sleep + 30s + margin, not the default 10s drain.
describe('prestop-missing: the Zeebe standalone gateway (catalog zeebe-standalone-gateway: 30s drain)', () => {
  const gateway = (o: { image?: string; port?: number; grace?: number } = {}) => `apiVersion: v1
kind: Service
metadata: {name: zeebe-gateway}
spec:
  selector: {app: zeebe-gateway}
  ports: [{name: gateway, port: ${o.port ?? 26500}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: zeebe-gateway}
spec:
  replicas: 1
  selector: {matchLabels: {app: zeebe-gateway}}
  template:
    metadata:
      labels: {app: zeebe-gateway}
    spec:
${o.grace === undefined ? '' : `      terminationGracePeriodSeconds: ${o.grace}\n`}      containers:
      - name: zeebe-gateway
        image: ${o.image ?? 'camunda/zeebe:8.7.37'}
        env: [{name: ZEEBE_STANDALONE_GATEWAY, value: "true"}]
        ports: [{name: gateway, containerPort: ${o.port ?? 26500}}, {name: http, containerPort: 9600}]
        readinessProbe: {httpGet: {path: /actuator/health/readiness, port: http}}
`;
  const graceEdit = (yaml: string) => runRule(prestopMissing, yaml)[0]?.fix?.edits.find((e) => e.op !== 'add-object' && e.pointer === '/spec/template/spec/terminationGracePeriodSeconds');
  test('the fix adds the 10s sleep and raises the grace period to 10 + 30 + 5 = 45', () => {
    const got = runRule(prestopMissing, gateway());
    expect(got).toHaveLength(1);
    expect(got[0].fix?.description).toBe('add preStop sleep 10s to container "zeebe-gateway" and raise terminationGracePeriodSeconds to 45');
    expect(graceEdit(gateway())).toMatchObject({ value: 45 });
  });
  test('a grace period that already holds it is left alone', () => {
    expect(graceEdit(gateway({ grace: 60 }))).toBeUndefined();
  });
  test('near misses keep the default 10s drain (grace 30 already holds 10 + 10 + 5)', () => {
    expect(graceEdit(gateway({ image: 'example.com/acme/gateway:1.0.0' }))).toBeUndefined();
    expect(graceEdit(gateway({ port: 26501 }))).toBeUndefined();
  });
});

// Review rounds 17 (M1) and 18 (C): the Pulsar broker closes its HTTP listener (lookups, admin) at
// SIGTERM and then unloads its bundles for up to brokerShutdownTimeoutMs (60s by default). The
// missing delay stays a warning, also behind a headless Service (the proxy's HTTP lookups resolve it,
// and resolved addresses outlive the endpoint), and the advice holds the 60s.
describe('prestop-missing: the Pulsar broker (catalog pulsar-broker: brokerShutdownTimeoutMs, 60s)', () => {
  const broker = (headless: boolean) => `apiVersion: v1
kind: Service
metadata: {name: mv-pulsarv3-broker}
spec:
${headless ? '  clusterIP: None\n' : ''}  selector: {app: pulsarv3, component: broker}
  ports: [{name: http, port: 8080}, {name: pulsar, port: 6650}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: mv-pulsarv3-broker}
spec:
  serviceName: mv-pulsarv3-broker
  replicas: 2
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: pulsarv3, component: broker}}
  template:
    metadata: {labels: {app: pulsarv3, component: broker}}
    spec:
      terminationGracePeriodSeconds: 30
      containers:
      - name: mv-pulsarv3-broker
        image: apachepulsar/pulsar:3.0.7
        command: ["sh", "-c"]
        args: ["bin/apply-config-from-env.py conf/broker.conf; exec bin/pulsar broker"]
        ports: [{name: http, containerPort: 8080}, {name: pulsar, containerPort: 6650}]
        readinessProbe: {httpGet: {path: /status.html, port: 8080}}
`;
  test.each([
    ['a ClusterIP Service (apache/pulsar-helm-chart)', false],
    ["a headless Service (milvus's pulsarv3)", true],
  ])('%s: a warning whose fix raises the grace period to 10 + 60 + 5 = 75', (_name, headless) => {
    const got = runRule(prestopMissing, broker(headless));
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toContain('raise terminationGracePeriodSeconds to 75 (from 30s');
    expect(got[0].fix?.description).toBe('add preStop sleep 10s to container "mv-pulsarv3-broker" and raise terminationGracePeriodSeconds to 75');
  });
});

// Review round 17 (W3, apache/pinot helm chart): the Pinot broker leaves the Helix external view at
// SIGTERM and keeps answering queries for pinot.broker.delayShutdownTimeMs (10000 ms by default),
// read from the properties file of -configFileName (catalog pinot-broker-delay-shutdown).
describe('prestop-missing: the Pinot broker (catalog pinot-broker-delay-shutdown)', () => {
  const broker = (o: { conf?: string | false; args?: string[]; image?: string } = {}) => `apiVersion: v1
kind: Service
metadata: {name: pinot-broker}
spec:
  selector: {app: pinot, component: broker}
  ports: [{name: broker, port: 8099}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pinot-broker}
spec:
  serviceName: pinot-broker-headless
  replicas: 3
  selector: {matchLabels: {app: pinot, component: broker}}
  template:
    metadata: {labels: {app: pinot, component: broker}}
    spec:
      containers:
      - name: broker
        image: ${o.image ?? 'apachepinot/pinot:1.3.0'}
        args: ${JSON.stringify(o.args ?? ['StartBroker', '-clusterName', 'pinot-quickstart', '-zkAddress', 'pinot-zookeeper:2181', '-configFileName', '/var/pinot/broker/config/pinot-broker.conf'])}
        ports: [{name: broker, containerPort: 8099}]
        readinessProbe: {httpGet: {path: /health, port: 8099}}
        volumeMounts: [{name: config, mountPath: /var/pinot/broker/config}]
      volumes: [{name: config, configMap: {name: pinot-broker-config}}]
${
  o.conf === false
    ? ''
    : `---
apiVersion: v1
kind: ConfigMap
metadata: {name: pinot-broker-config}
data:
  pinot-broker.conf: |-
    pinot.broker.client.queryPort=8099
    pinot.broker.routing.table.builder.class=random
${o.conf ? `    ${o.conf}\n` : ''}`
}`;
  test("the chart's config sets no delay: the default 10s of serving after SIGTERM, no finding", () => {
    expect(runRule(prestopMissing, broker())).toEqual([]);
  });
  test('no -configFileName: StartBroker reads no file, the default holds', () => {
    expect(runRule(prestopMissing, broker({ args: ['StartBroker', '-zkAddress', 'pinot-zookeeper:2181'] }))).toEqual([]);
  });
  test('pinot.broker.delayShutdownTimeMs=0 in the config: a warning that advises the setting in milliseconds', () => {
    const got = runRule(prestopMissing, broker({ conf: 'pinot.broker.delayShutdownTimeMs=0' }));
    expect(got.map((f) => f.severity)).toEqual(['warning']);
    expect(got[0].message).toContain('pinot.broker.delayShutdownTimeMs=10000 in /var/pinot/broker/config/pinot-broker.conf');
  });
  test('pinot.broker.delayShutdownTimeMs = 15000 (spaces around "="): no finding', () => {
    expect(runRule(prestopMissing, broker({ conf: 'pinot.broker.delayShutdownTimeMs = 15000' }))).toEqual([]);
  });
  test('near misses: the file not in the input (unknown), the controller of the same image, another image', () => {
    expect(runRule(prestopMissing, broker({ conf: false }))).toHaveLength(1);
    expect(runRule(prestopMissing, broker({ args: ['StartController', '-configFileName', '/var/pinot/controller/config/pinot-controller.conf'] }))).toHaveLength(1);
    expect(runRule(prestopMissing, broker({ image: 'example.com/acme/broker:1.0.0' }))).toHaveLength(1);
  });
});

// Review round 17 (W2, trinodb/charts): a Trino worker announces its own URI to the coordinator,
// which sends it tasks there; the chart's headless worker Service exists for the JMX exporter. A
// worker says coordinator=false in /etc/trino/config.properties (Trino's default is true).
describe('prestop-missing: a Trino worker is reached by no Service client (graph.ts peerRouted)', () => {
  const trino = (o: { config?: string | false; image?: string; mountPath?: string } = {}) => `apiVersion: v1
kind: ConfigMap
metadata: {name: trino-worker}
data:
  config.properties: |
${(o.config === false || o.config === undefined ? 'coordinator=false\nhttp-server.http.port=8080\ndiscovery.uri=http://trino:8080' : o.config)
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
---
apiVersion: v1
kind: Service
metadata: {name: trino-worker}
spec:
  clusterIP: None
  selector: {app: trino, component: worker}
  ports: [{name: http, port: 8080, targetPort: http}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: trino-worker}
spec:
  replicas: 2
  selector: {matchLabels: {app: trino, component: worker}}
  template:
    metadata: {labels: {app: trino, component: worker}}
    spec:
      volumes: [{name: config-volume, configMap: {name: ${o.config === false ? 'elsewhere' : 'trino-worker'}}}]
      containers:
      - name: trino-worker
        image: ${o.image ?? 'trinodb/trino:480'}
        volumeMounts: [{mountPath: ${o.mountPath ?? '/etc/trino'}, name: config-volume}]
        ports: [{name: http, containerPort: 8080}]
        readinessProbe: {httpGet: {path: /v1/info, port: http}}
`;
  test('the chart\'s worker (coordinator=false in the mounted config.properties): no finding', () => {
    expect(runRule(prestopMissing, trino())).toEqual([]);
    expect(runRule(prestopMissing, trino({ image: 'docker.io/trinodb/trino:475', config: 'coordinator = FALSE' }))).toEqual([]);
  });
  test('the coordinator (coordinator=true, or the default), a config not in the input, another mount path or image: still a warning', () => {
    expect(runRule(prestopMissing, trino({ config: 'coordinator=true\nnode-scheduler.include-coordinator=false' }))).toHaveLength(1);
    expect(runRule(prestopMissing, trino({ config: 'http-server.http.port=8080' }))).toHaveLength(1);
    expect(runRule(prestopMissing, trino({ config: false }))).toHaveLength(1);
    expect(runRule(prestopMissing, trino({ mountPath: '/opt/trino/etc' }))).toHaveLength(1);
    expect(runRule(prestopMissing, trino({ image: 'example.com/acme/trino:480' }))).toHaveLength(1);
  });
});

// Review round 30 (report p24 item C, asdf2014/druid-helm): the Brokers query the Historicals, and the Overlord
// assigns tasks to the MiddleManagers, at the host:port each announced through Druid's discovery (the pod IP), not
// through the chart's Services. The Broker and the Router stay judged: clients reach them through Services.
describe('prestop-missing: Druid data servers are reached by no Service client (graph.ts peerRouted)', () => {
  const druid = (o: { image?: string; container?: string } = {}) => `apiVersion: v1
kind: Service
metadata: {name: druid-historical}
spec:
  selector: {app: druid, component: historical}
  ports: [{name: http, port: 8083, targetPort: http}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: druid-historical}
spec:
  serviceName: druid-historical
  replicas: 3
  selector: {matchLabels: {app: druid, component: historical}}
  template:
    metadata: {labels: {app: druid, component: historical}}
    spec:
      containers:
      - name: druid
        image: ${o.image ?? 'apache/druid:37.0.0'}
        ${o.container ?? 'args: [historical]'}
        ports: [{name: http, containerPort: 8083}]
        readinessProbe: {httpGet: {path: /status/health, port: 8083}}
`;
  test('a Historical, MiddleManager or Indexer by the image entrypoint\'s argument, a druid.sh or run-druid script, or the main class: no finding', () => {
    for (const container of [
      'args: [historical]',
      'args: [middleManager]',
      'args: [indexer]',
      'command: [/druid.sh, historical]',
      'command: [bin/run-druid.sh, middleManager]',
      "command: [/bin/bash, -c]\n        args: ['/stackable/druid/bin/run-druid historical /stackable/rwconfig & wait']",
      'command: [java, -cp, "conf:lib/*", org.apache.druid.cli.Main, server, historical]',
    ]) {
      expect([container, runRule(prestopMissing, druid({ container }))]).toEqual([container, []]);
    }
    expect(runRule(prestopMissing, druid({ image: 'docker.io/apache/druid:30.0.1' }))).toEqual([]);
  });
  test('a Broker or Router, another entrypoint, another image, or a role name that is not the service argument: still a warning', () => {
    for (const [image, container] of [
      ['apache/druid:37.0.0', 'args: [broker]'],
      ['apache/druid:37.0.0', 'args: [router]'],
      ['apache/druid:37.0.0', 'command: [/opt/custom-start.sh]\n        args: [historical]'],
      ['example.com/acme/server:1', 'args: [historical]'],
      ['apache/druid:37.0.0', 'args: [broker, --historical]'],
    ]) {
      expect([container, runRule(prestopMissing, druid({ image, container }))]).toEqual([container, [expect.objectContaining({ ruleId: 'prestop-missing' })]]);
    }
  });
});

// Review report p36 (item 1, bitnami/thanos dual mode): the routers (distributors) forward each series to the ingestor
// their hash ring picks, at the pod DNS name the ring lists; an ingestor (`thanos receive` with --receive.local-endpoint
// and no hashring configuration: IngestorOnly, cmd/thanos/receive.go determineMode) takes no Service client's traffic.
describe('prestop-missing: Thanos Receive ingestors are reached by no Service client (graph.ts peerRouted)', () => {
  const receive = (o: { image?: string; container?: string } = {}) => `apiVersion: v1
kind: Service
metadata: {name: thanos-receive-headless}
spec:
  clusterIP: None
  selector: {app: receive}
  ports: [{name: grpc, port: 10901, targetPort: grpc}, {name: remote-write, port: 19291, targetPort: remote-write}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: thanos-receive}
spec:
  serviceName: thanos-receive-headless
  replicas: 3
  selector: {matchLabels: {app: receive}}
  template:
    metadata: {labels: {app: receive}}
    spec:
      containers:
      - name: receive
        image: ${o.image ?? 'docker.io/bitnami/thanos:0.39.2-debian-12-r0'}
        ${o.container ?? 'args: [receive, --grpc-address=0.0.0.0:10901, "--receive.local-endpoint=$(NAME).thanos-receive-headless.$(NAMESPACE).svc.cluster.local:10901"]'}
        ports: [{name: grpc, containerPort: 10901}, {name: remote-write, containerPort: 19291}]
        readinessProbe: {httpGet: {path: /-/ready, port: 10902}}
`;
  test('an ingestor (a local endpoint, no hashring configuration), by args or by command: no finding', () => {
    for (const container of [
      'args: [receive, --grpc-address=0.0.0.0:10901, "--receive.local-endpoint=$(NAME).thanos-receive-headless.$(NAMESPACE).svc.cluster.local:10901"]',
      'args: [receive, --receive.local-endpoint, "$(NAME).thanos-receive-headless:10901", --receive.hashrings-algorithm=ketama]',
      'command: [/bin/thanos, receive, "--receive.local-endpoint=$(POD_NAME).thanos-receive:10901"]',
    ]) {
      expect([container, runRule(prestopMissing, receive({ container }))]).toEqual([container, []]);
    }
    expect(runRule(prestopMissing, receive({ image: 'quay.io/thanos/thanos:v0.39.2' }))).toEqual([]);
  });
  test('a router (a hashring, no local endpoint), a router-ingestor (both), a standalone receiver (neither), another subcommand or image: still a warning', () => {
    for (const [image, container] of [
      ['quay.io/thanos/thanos:v0.39.2', 'args: [receive, --receive.hashrings-file=/etc/thanos/hashrings.json]'],
      ['quay.io/thanos/thanos:v0.39.2', 'args: [receive, --receive.hashrings-file=/etc/thanos/hashrings.json, "--receive.local-endpoint=$(NAME).thanos-receive-headless:10901"]'],
      ['quay.io/thanos/thanos:v0.39.2', `args: [receive, '--receive.hashrings=[{"endpoints":[]}]', --receive.local-endpoint=127.0.0.1:10901]`],
      ['quay.io/thanos/thanos:v0.39.2', 'args: [receive, --grpc-address=0.0.0.0:10901]'],
      ['quay.io/thanos/thanos:v0.39.2', 'args: [store, --receive.local-endpoint=127.0.0.1:10901]'],
      ['example.com/acme/server:1', 'args: [receive, --receive.local-endpoint=127.0.0.1:10901]'],
    ]) {
      expect([container, runRule(prestopMissing, receive({ image, container }))]).toEqual([container, [expect.objectContaining({ ruleId: 'prestop-missing' })]]);
    }
  });
});

// Review report p29 (item 2, the gatekeeper chart): Gatekeeper >= v3.20.0 sleeps
// --shutdown-delay (default 10s) after SIGTERM with its webhook server running (catalog
// gatekeeper-shutdown-delay).
describe('prestop-missing: OPA Gatekeeper (catalog gatekeeper-shutdown-delay)', () => {
  const gatekeeper = (image: string, args = '') => `apiVersion: v1
kind: Service
metadata: {name: gatekeeper-webhook-service, namespace: gatekeeper-system}
spec:
  ports: [{name: https-webhook-server, port: 443, targetPort: webhook-server}]
  selector: {control-plane: controller-manager}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: gatekeeper-controller-manager, namespace: gatekeeper-system}
spec:
  replicas: 3
  selector: {matchLabels: {control-plane: controller-manager}}
  template:
    metadata: {labels: {control-plane: controller-manager}}
    spec:
      terminationGracePeriodSeconds: 60
      containers:
        - name: manager
          image: ${image}
          args: [--port=8443, --operation=webhook${args}]
          ports: [{containerPort: 8443, name: webhook-server}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: gatekeeper-validating-webhook-configuration}
webhooks:
  - name: check-ignore-label.gatekeeper.sh
    admissionReviewVersions: [v1]
    sideEffects: None
    failurePolicy: Fail
    clientConfig:
      service: {name: gatekeeper-webhook-service, namespace: gatekeeper-system, path: /v1/admitlabel}
    rules: [{operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: ["*"], resources: [namespaces]}]
`;

  test('the default --shutdown-delay (10s) is the delay a preStop sleep would give: no finding', () => {
    expect(runRule(prestopMissing, gatekeeper('openpolicyagent/gatekeeper:v3.24.0-beta.0'))).toEqual([]);
    expect(runRule(prestopMissing, gatekeeper('openpolicyagent/gatekeeper:v3.20.0', ', --shutdown-delay=15'))).toEqual([]);
  });

  test('--shutdown-delay=0, or a release before v3.20.0 (no such flag), stops at SIGTERM: the warning', () => {
    expect(runRule(prestopMissing, gatekeeper('openpolicyagent/gatekeeper:v3.24.0', ', --shutdown-delay=0')).map((f) => f.severity)).toEqual(['warning']);
    expect(runRule(prestopMissing, gatekeeper('openpolicyagent/gatekeeper:v3.19.1')).map((f) => f.severity)).toEqual(['warning']);
  });
});

// Review report p29 (item 1, the falcosecurity/charts falco chart): Falco's webserver (port web,
// 8765: /healthz, /versions, /metrics) is its own monitoring server (catalog falco-webserver), no
// evidence of clients where no Service in the input says which ports are routed.
describe('prestop-missing: Falco\'s webserver port is no evidence of traffic (catalog falco-webserver)', () => {
  const falco = (image: string, ports = '[{containerPort: 8765, name: web, protocol: TCP}]', configMap = '') => `${configMap}apiVersion: apps/v1
kind: DaemonSet
metadata: {name: falco, namespace: falco}
spec:
  selector: {matchLabels: {app: falco}}
  template:
    metadata: {labels: {app: falco}}
    spec:
      containers:
        - name: falco
          image: ${image}
          args: [/usr/bin/falco]
          ports: ${ports}
          readinessProbe: {httpGet: {path: /healthz, port: 8765}}
          volumeMounts: [{mountPath: /etc/falco/falco.yaml, name: falco-yaml, subPath: falco.yaml}]
      volumes:
        - name: falco-yaml
          configMap: {name: falco, items: [{key: falco.yaml, path: falco.yaml}]}
`;
  const conf = (port: number) => `apiVersion: v1
kind: ConfigMap
metadata: {name: falco, namespace: falco}
data:
  falco.yaml: |-
    webserver:
      enabled: true
      listen_port: ${port}
---
`;

  // (The chart renders a ServiceAccount beside it: other objects of the namespace, so a render, not the object alone.)
  const sa = 'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: falco, namespace: falco}\n---\n';

  test('no Service in the input and only the webserver port declared: not assumed served', () => {
    expect(runRule(prestopMissing, falco('docker.io/falcosecurity/falco:0.44.1', undefined, sa))).toEqual([]);
    expect(runRule(prestopMissing, falco('falcosecurity/falco-no-driver:0.37.1', undefined, sa))).toEqual([]);
    // The port read from the mounted falco.yaml.
    expect(runRule(prestopMissing, falco('docker.io/falcosecurity/falco:0.44.1', '[{containerPort: 9376, name: web}]', conf(9376)))).toEqual([]);
  });

  test('another declared port, a moved webserver, or another image still count as evidence', () => {
    const grpc = runRule(prestopMissing, falco('docker.io/falcosecurity/falco:0.44.1', '[{containerPort: 8765, name: web}, {containerPort: 5060, name: grpc}]', sa));
    expect(grpc.map((f) => f.severity)).toEqual(['warning']);
    expect(grpc[0].message).toContain('grpc/5060');
    expect(grpc[0].message).not.toContain('web/8765');
    expect(runRule(prestopMissing, falco('docker.io/falcosecurity/falco:0.44.1', undefined, conf(9376))).map((f) => f.severity)).toEqual(['warning']);
    expect(runRule(prestopMissing, falco('example.com/other/app:1', undefined, sa)).map((f) => f.severity)).toEqual(['warning']);
  });

  test('the DaemonSet alone (nothing else of its namespace in the input): judged by its port names, as the admission policy judges it', () => {
    const alone = runRule(prestopMissing, falco('docker.io/falcosecurity/falco:0.44.1'));
    expect(alone.map((f) => f.severity)).toEqual(['warning']);
    expect(alone[0].message).toContain('web/8765');
  });
});

// Review report p33 (items 1 and 2, the strimzi-kafka-operator chart): the cluster operator's port
// http/8080 is its health and metrics server (catalog strimzi-operator-health), and the chart
// renders no Service: nothing is routed to it, so it is not assumed served.
describe("prestop-missing: the Strimzi cluster operator's health port is no evidence of traffic (catalog strimzi-operator-health)", () => {
  const op = (image: string, extra = '') => `apiVersion: v1
kind: ServiceAccount
metadata: {name: strimzi-cluster-operator, namespace: kafka}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: strimzi-cluster-operator, namespace: kafka}
spec:
  replicas: 2
  selector: {matchLabels: {name: strimzi-cluster-operator}}
  template:
    metadata: {labels: {name: strimzi-cluster-operator}}
    spec:
      serviceAccountName: strimzi-cluster-operator
      containers:
        - name: strimzi-cluster-operator
          image: ${image}
          ports: [{containerPort: 8080, name: http}${extra}]
          args: [/opt/strimzi/bin/cluster_operator_run.sh]
          livenessProbe: {httpGet: {path: /healthy, port: http}}
          readinessProbe: {httpGet: {path: /ready, port: http}}
`;
  test('the chart render (no Service, a ServiceAccount beside it): not assumed served', () => {
    expect(runRule(prestopMissing, op('quay.io/strimzi/operator:0.47.0'))).toEqual([]);
  });
  test('another declared port, or the kafka-bridge image (8080 is its REST API), still count as evidence', () => {
    expect(runRule(prestopMissing, op('quay.io/strimzi/operator:0.47.0', ', {containerPort: 9000, name: api}')).map((f) => f.severity)).toEqual(['warning']);
    expect(runRule(prestopMissing, op('quay.io/strimzi/kafka-bridge:0.31.1')).map((f) => f.severity)).toEqual(['warning']);
  });
});

// Review round 33, report p44 (item A, grafana/pyroscope's chart in microservices mode): the ingester,
// store-gateway and segment-writer are ring members the callers dial at their registered
// addresses, the querier and the compaction-worker pull their work, the compactor is sharded by its
// ring, the query-scheduler is found through its ring, the metastore is a raft group with one client
// per server, and the query-backend is reached by gRPC round robin over its headless Service's DNS
// with retries (graph.ts PEER_DIALED_TARGETS). No Service client is raced by the endpoint removal.
describe('prestop-missing: Pyroscope components that no client reaches through a Service (graph.ts peerDialed)', () => {
  const pyro = (target: string, o: { image?: string; ingress?: boolean; preStop?: string } = {}) => `apiVersion: v1
kind: Service
metadata: {name: pyro-${target}}
spec:
  selector: {app: pyro, component: ${target}}
  ports: [{name: http2, port: 4040, targetPort: http2}, {name: grpc, port: 9095, targetPort: grpc}]
---
apiVersion: v1
kind: Service
metadata: {name: pyro-${target}-headless}
spec:
  clusterIP: None
  selector: {app: pyro, component: ${target}}
  ports: [{name: grpc, port: 9095, targetPort: grpc}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: pyro-${target}}
spec:
  serviceName: pyro-${target}-headless
  replicas: 3
  selector: {matchLabels: {app: pyro, component: ${target}}}
  template:
    metadata: {labels: {app: pyro, component: ${target}}}
    spec:
      containers:
      - name: ${target}
        image: ${o.image ?? 'grafana/pyroscope:2.2.1'}
        args: ["-target=${target}", "-config.file=/etc/pyroscope/config.yaml"]
        ports: [{name: http2, containerPort: 4040}, {name: grpc, containerPort: 9095}]
        readinessProbe: {httpGet: {path: /ready, port: http2}}
${o.preStop ?? ''}${
    o.ingress
      ? `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: pyro}
spec:
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: pyro-${target}, port: {number: 4040}}}}]}}]
`
      : ''
  }`;
  const peer = ['ingester', 'store-gateway', 'querier', 'query-scheduler', 'compactor', 'segment-writer', 'compaction-worker', 'metastore', 'query-backend', 'ingester,store-gateway'];
  test('the v1 ring members and pull workers and the v2 segment-writer, compaction-worker, metastore and query-backend: no finding', () => {
    for (const target of peer) expect([target, runRule(prestopMissing, pyro(target))]).toEqual([target, []]);
    // (A preStop sleep of 0s is not reported either: no endpoint removal is raced.)
    expect(runRule(prestopMissing, pyro('ingester', { preStop: '        lifecycle: {preStop: {sleep: {seconds: 0}}}\n' }), '1.31')).toEqual([]);
  });
  test('the distributor, query-frontend, tenant-settings, ad-hoc-profiles, admin, the single binary and a mixed -target: still a warning', () => {
    for (const target of ['distributor', 'query-frontend', 'tenant-settings', 'ad-hoc-profiles', 'admin', 'all', 'ingester,distributor']) {
      expect([target, runRule(prestopMissing, pyro(target)).map((f) => f.severity)]).toEqual([target, ['warning']]);
    }
  });
  test('an Ingress to the Service of a peer-dialed component, or another image with the same -target: still a warning', () => {
    expect(runRule(prestopMissing, pyro('ingester', { ingress: true })).map((f) => f.severity)).toEqual(['warning']);
    expect(runRule(prestopMissing, pyro('ingester', { image: 'example.com/acme/server:1' })).map((f) => f.severity)).toEqual(['warning']);
  });
});

// Review round 32, report p38 (item 2): a Hazelcast member behind the chart's headless Service. Its clients keep a
// connection to every member and route by partition owner; a stopping member leaves by the membership protocol. Only
// the endpoint removal is not raced: the member stays served for the spread and budget rules (the reverted
// peer-routed exemption silenced a right replicas-not-spread).
describe('prestop-missing: a Hazelcast member behind a headless Service (graph.ts peerDialedPort)', () => {
  const hz = (o: { image?: string; headless?: boolean } = {}) => `apiVersion: v1
kind: Service
metadata: {name: hz}
spec:
${o.headless === false ? '' : '  clusterIP: None\n'}  selector: {app: hz}
  ports: [{name: hazelcast, port: 5701, targetPort: hazelcast}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: hz}
spec:
  serviceName: hz
  replicas: 3
  selector: {matchLabels: {app: hz}}
  template:
    metadata: {labels: {app: hz}}
    spec:
      terminationGracePeriodSeconds: 600
      containers:
      - name: hz
        image: ${o.image ?? 'hazelcast/hazelcast:5.5.0'}
        env: [{name: JAVA_OPTS, value: "-Dhazelcast.shutdownhook.policy=GRACEFUL -Dhazelcast.graceful.shutdown.max.wait=600"}]
        ports: [{name: hazelcast, containerPort: 5701}]
        readinessProbe: {httpGet: {path: /hazelcast/health/ready, port: 5701}}
`;
  test('the member image (and the enterprise one, from any registry) behind a headless Service: no finding', () => {
    expect(runRule(prestopMissing, hz())).toEqual([]);
    expect(runRule(prestopMissing, hz({ image: 'docker.io/hazelcast/hazelcast-enterprise:5.5.0' }))).toEqual([]);
  });
  test('behind a ClusterIP Service, or another image: still a warning', () => {
    expect(runRule(prestopMissing, hz({ headless: false })).map((f) => f.severity)).toEqual(['warning']);
    expect(runRule(prestopMissing, hz({ image: 'hazelcast/management-center:5.5.0' })).map((f) => f.severity)).toEqual(['warning']);
  });
  test('the member stays served for the other rules: replicas-not-spread and pdb-missing still warn', () => {
    const r = lintSources([{ file: 'hz.yaml', text: hz() }], { rules: ALL_RULES, policy: { name: 't', rules: new Map(), customRules: [] }, version: KubeVersion.parse('1.31') });
    expect(r.findings.filter((f) => f.severity === 'warning').map((f) => f.ruleId).sort()).toEqual(['pdb-missing', 'replicas-not-spread']);
  });
});

// Review round 33, report p44 (item C): Pyroscope sleeps -shutdown-delay after SIGTERM with every listener
// open (catalog grafana-pyroscope-shutdown-delay), like Mimir, though its /ready stays 200.
describe('prestop-missing: Pyroscope -shutdown-delay (catalog grafana-pyroscope-shutdown-delay)', () => {
  const distributor = (args: string) =>
    wl({
      podSpec: `      containers:\n      - name: c\n        image: grafana/pyroscope:2.2.1\n        args: [-target=distributor${args}]\n        ports: [{name: http2, containerPort: 4040}]\n`,
      service: '  selector: {app: web}\n  ports: [{name: http2, port: 4040, targetPort: http2}]',
    });
  test('-shutdown-delay=15s (either dash form): no finding', () => {
    expect(runRule(prestopMissing, distributor(', -shutdown-delay=15s'))).toEqual([]);
    expect(runRule(prestopMissing, distributor(', --shutdown-delay, 15s'))).toEqual([]);
  });
  test('no -shutdown-delay, or 0s: the warning, whose advice names the flag', () => {
    for (const args of ['', ', -shutdown-delay=0s']) {
      expect(runRule(prestopMissing, distributor(args))).toEqual([
        expect.objectContaining({
          severity: 'warning',
          message: expect.stringMatching(/^container "c": serves port 4040 for Service web but has no preStop hook.*or use the program's own setting \(.*catalog entry grafana-pyroscope-shutdown-delay\): -shutdown-delay=10s in the container's args/),
        }),
      ]);
    }
  });
});
