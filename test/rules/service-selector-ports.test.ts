import { serviceSelectorPorts } from '../../lib/rules/service-selector-ports';
import { ruleTester, runRule } from '../helpers/rule-tester';
import { webhookConfig } from '../helpers/manifests';

/** A prometheus-operator resource (monitoring.coreos.com/v1) as a document of the input. */
const opResource = (kind: string, metadata: string, spec: string) => `---\napiVersion: monitoring.coreos.com/v1\nkind: ${kind}\nmetadata: ${metadata}\nspec: ${spec}\n`;

interface WOpts {
  name?: string;
  kind?: string;
  labels?: string;
  ports?: string;
  sidecar?: string;
  annotations?: string;
  namespace?: string;
  serviceName?: string;
}

/** A Pod of a `kubectl get pods -o yaml` dump: made by ReplicaSet `rs`, which is not in the set. */
function pod(name: string, rs: string, ports = '[{name: http, containerPort: 8080}]', labels = 'app: web'): string {
  return `---
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels: {${labels}, pod-template-hash: x}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: ${rs}, uid: u-${rs}, controller: true}]
spec:
  containers: [{name: app, image: web:1, ports: ${ports}}]
`;
}

function wl(o: WOpts = {}): string {
  const kind = o.kind ?? 'Deployment';
  const name = o.name ?? 'web';
  return `---
apiVersion: apps/v1
kind: ${kind}
metadata:
  name: ${name}
${o.namespace ? `  namespace: ${o.namespace}\n` : ''}${o.annotations ? `  annotations: {${o.annotations}}\n` : ''}spec:
${o.serviceName ? `  serviceName: ${o.serviceName}\n` : ''}  selector: {matchLabels: {${o.labels ?? 'app: web'}}}
  template:
    metadata: {labels: {${o.labels ?? 'app: web'}}}
    spec:
${o.sidecar ? `      initContainers: [${o.sidecar}]\n` : ''}      containers: [{name: app, image: web:1${o.ports === '' ? '' : `, ports: ${o.ports ?? '[{name: http, containerPort: 8080}]'}`}}]
`;
}

interface SOpts {
  name?: string;
  selector?: string;
  ports?: string;
  headless?: boolean;
  namespace?: string;
  annotations?: string;
  type?: string;
}

function svc(o: SOpts = {}): string {
  return `---
apiVersion: v1
kind: Service
metadata:
  name: ${o.name ?? 'web'}
${o.namespace ? `  namespace: ${o.namespace}\n` : ''}${o.annotations ? `  annotations: {${o.annotations}}\n` : ''}spec:
${o.type ? `  type: ${o.type}\n` : ''}${o.headless ? '  clusterIP: None\n' : ''}${o.selector === '' ? '' : `  selector: {${o.selector ?? 'app: web'}}\n`}${o.ports === '' ? '' : `  ports: ${o.ports ?? '[{name: http, port: 80, targetPort: http}]'}\n`}`;
}

/** A Helm hook Job carrying the workload's labels; PHASE is its helm.sh/hook value. */
const HOOK_JOB = `---
apiVersion: batch/v1
kind: Job
metadata:
  name: web-hook
  annotations: {helm.sh/hook: "PHASE"}
spec:
  template:
    metadata: {labels: {app: web}}
    spec:
      restartPolicy: OnFailure
      containers: [{name: job, image: web:1, ports: [{name: http, containerPort: 8080}]}]
`;


/**
 * pingcap/tidb-operator v1.5.5 charts/tidb-cluster: the TidbCluster the chart renders (its own labels
 * say component tidb-cluster), and the chart's discovery Deployment (component discovery). The
 * operator labels the TiDB pods name tidb-cluster, instance demo, component tidb.
 */
const TIDB = (name = 'demo', image = true) => `---
apiVersion: pingcap.com/v1alpha1
kind: TidbCluster
metadata:
  name: ${name}
  labels: {app.kubernetes.io/name: tidb-cluster, app.kubernetes.io/instance: demo, app.kubernetes.io/component: tidb-cluster}
spec:
  tidb: {replicas: 2${image ? ', image: pingcap/tidb:v7.5.5' : ''}}
` + wl({ name: 'demo-discovery', labels: 'app.kubernetes.io/name: tidb-cluster, app.kubernetes.io/instance: demo, app.kubernetes.io/component: discovery' });
const TIDB_SVC = (component = 'tidb') =>
  svc({ name: 'demo-tidb', selector: `app.kubernetes.io/name: tidb-cluster, app.kubernetes.io/instance: demo, app.kubernetes.io/component: ${component}`, ports: '[{name: mysql-client, port: 4000, targetPort: 4000}]' });

ruleTester(serviceSelectorPorts, {
  valid: [
    {
      // Review round 34, report p50 item 5: the tidb-cluster chart's demo-tidb Service selects the TiDB pods
      // tidb-operator makes from TidbCluster/demo (pkg/apis/label/label.go New().Instance(name).TiDB()).
      name: 'a Service for pods an operator makes from a custom resource named by its instance label: not judged',
      yaml: TIDB() + TIDB_SVC(),
    },
    {
      name: 'a Service for pods of a custom resource whose own labels match every selector pair but the component: not judged',
      yaml: TIDB('tidb-main') + TIDB_SVC(),
    },
    {
      // Review round 13: Grafana OnCall's migrate Job carries the engine's labels but declares no port: the
      // EndpointSlice controller finds no "http" in its pods, which take no traffic from the Service.
      name: 'a second workload whose pods resolve none of the Service\'s named ports is no mixed endpoint',
      yaml: wl({ name: 'web', labels: 'app: web' }) + wl({ name: 'migrate', labels: 'app: web', ports: '' }) + svc(),
    },
    { name: 'selector matches, named targetPort resolves', yaml: wl() + svc() },
    { name: 'Service-only input: no workloads in the namespace, not judged', yaml: svc({ selector: 'app: elsewhere' }) },
    { name: 'a pods,svc dump without the controller: the Pods are the endpoints, the named targetPort resolves on them', yaml: pod('web-x-1', 'web-x') + pod('web-x-2', 'web-x') + svc() },
    { name: 'pods of two ReplicaSets (one Deployment mid-rollout) in a dump are not "mixed" workloads', yaml: pod('web-x-1', 'web-x') + pod('web-y-1', 'web-y') + svc() },
    { name: 'workloads only in another namespace: not judged', yaml: wl({ namespace: 'a' }) + svc({ namespace: 'b', selector: 'app: nothing' }) },
    {
      name: 'selector matches pods an operator creates from a custom resource',
      yaml:
        wl() +
        svc({ name: 'prometheus', selector: 'app.kubernetes.io/name: prometheus', ports: '[{port: 9090, targetPort: web}]' }) +
        `---
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: k8s}
spec:
  podMetadata:
    labels: {app.kubernetes.io/name: prometheus}
`,
    },
    {
      name: 'kube-prometheus-stack: the Prometheus Service selects operator.prometheus.io/name, which prometheus-operator puts on every Prometheus pod',
      yaml:
        wl({ name: 'grafana', labels: 'app.kubernetes.io/name: grafana' }) +
        opResource('Prometheus', '{name: kps-prometheus}', '{replicas: 2}') +
        svc({ name: 'kps-prometheus', selector: 'app.kubernetes.io/name: prometheus, operator.prometheus.io/name: kps-prometheus', ports: '[{name: http-web, port: 9090, targetPort: 9090}]' }),
    },
    {
      name: 'a Service on shard 0 of a sharded Prometheus (the shard\'s pods carry operator.prometheus.io/shard: "0"), and one on the last shard',
      yaml:
        wl({ name: 'grafana', labels: 'app.kubernetes.io/name: grafana' }) +
        opResource('Prometheus', '{name: k8s}', '{replicas: 2, shards: 3}') +
        svc({ name: 'shard-0', selector: 'prometheus: k8s, operator.prometheus.io/shard: "0"', ports: '[{port: 9090, targetPort: 9090}]' }) +
        svc({ name: 'shard-2', selector: 'prometheus: k8s, operator.prometheus.io/shard: "2"', ports: '[{port: 9090, targetPort: 9090}]' }),
    },
    {
      name: 'per-pod Services on a Prometheus replica (statefulset.kubernetes.io/pod-name, which the StatefulSet controller adds) and a selector on the version label the operator sets',
      yaml:
        wl({ name: 'grafana', labels: 'app.kubernetes.io/name: grafana' }) +
        opResource('Prometheus', '{name: k8s}', '{replicas: 2, shards: 2}') +
        svc({ name: 'prometheus-k8s-0', selector: 'statefulset.kubernetes.io/pod-name: prometheus-k8s-0', ports: '[{port: 10901, targetPort: 10901}]' }) +
        svc({ name: 'prometheus-k8s-shard-1-1', selector: 'prometheus: k8s, statefulset.kubernetes.io/pod-name: prometheus-k8s-shard-1-1', ports: '[{port: 10901, targetPort: 10901}]' }) +
        svc({ name: 'prometheus-v3', selector: 'prometheus: k8s, app.kubernetes.io/version: 3.5.0', ports: '[{port: 9090, targetPort: 9090}]' }),
    },
    {
      name: 'a PrometheusAgent\'s pods (app.kubernetes.io/name: prometheus-agent, kube-prometheus-stack\'s agentMode)',
      yaml:
        wl({ name: 'grafana', labels: 'app.kubernetes.io/name: grafana' }) +
        `---
apiVersion: monitoring.coreos.com/v1alpha1
kind: PrometheusAgent
metadata: {name: agent}
spec: {replicas: 1}
` +
        svc({ name: 'agent', selector: 'app.kubernetes.io/name: prometheus-agent, operator.prometheus.io/name: agent', ports: '[{port: 9090, targetPort: 9090}]' }),
    },
    {
      name: 'a selector combining a spec.podMetadata label with an operator label: both are on the same pods',
      yaml:
        wl({ name: 'grafana', labels: 'app.kubernetes.io/name: grafana' }) +
        opResource('Alertmanager', '{name: main}', '{replicas: 3, podMetadata: {labels: {team: obs}}}') +
        svc({ name: 'alertmanager', selector: 'team: obs, alertmanager: main', ports: '[{port: 9093, targetPort: 9093}]' }),
    },
    { name: 'portless headless Service matching nothing (Teleport previous-version marker)', yaml: wl({ labels: 'app: auth, major: "15"' }) + svc({ name: 'auth-v14', headless: true, selector: 'app: auth, major: "14"', ports: '' }) },
    {
      name: 'prometheus-operator labels its pods from the resource\'s name (alertmanager: NAME, prometheus: NAME), not from the resource\'s labels (strimzi\'s and upstream\'s examples)',
      yaml:
        wl({ name: 'grafana', labels: 'name: grafana' }) +
        `---
apiVersion: monitoring.coreos.com/v1
kind: Alertmanager
metadata: {name: alertmanager, labels: {app: strimzi}}
spec: {replicas: 1}
---
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: main}
spec: {replicas: 2}
` +
        svc({ name: 'alertmanager', selector: 'alertmanager: alertmanager', ports: '[{port: 9093, targetPort: 9093}]' }) +
        svc({ name: 'prometheus', selector: 'prometheus: main', ports: '[{port: 9090, targetPort: web}]' }),
    },
    {
      name: 'a Service for the pods of a ReplicationController (the upstream guestbook-go example), beside another workload',
      yaml:
        wl({ name: 'redis', labels: 'app: redis' }) +
        `---
apiVersion: v1
kind: ReplicationController
metadata: {name: guestbook}
spec:
  replicas: 3
  selector: {app: guestbook}
  template:
    metadata: {labels: {app: guestbook}}
    spec:
      containers: [{name: guestbook, image: guestbook:v3, ports: [{name: http-server, containerPort: 3000}]}]
` +
        svc({ name: 'guestbook', selector: 'app: guestbook', ports: '[{port: 3000, targetPort: http-server}]' }),
    },
    {
      // (Review round 10: neo4j's load balancer over its members, one StatefulSet each; yugabyte's UI over masters and tservers.)
      name: 'one Service over StatefulSets that run the same image (the members of one clustered app)',
      yaml: ['server-1', 'server-2'].map((m) => wl({ kind: 'StatefulSet', name: m, labels: `app: ${m}, cluster: db` })).join('') + svc({ name: 'lb', selector: 'cluster: db' }),
    },
    {
      name: 'one Service over the zone StatefulSets of a rollout-group (Loki\'s loki-ingester over ingester-zone-a/b/c)',
      yaml: ['a', 'b'].map((z) => wl({ kind: 'StatefulSet', name: `ingester-zone-${z}`, labels: `app: ingester, zone: ${z}, rollout-group: ingester` })).join('') + svc({ name: 'ingester', selector: 'rollout-group: ingester' }),
    },
    {
      name: 'vault-helm HA: vault-active and vault-standby select the label Vault writes on its own pod (service_registration "kubernetes")',
      yaml:
        wl({ kind: 'StatefulSet', name: 'vault', labels: 'app: vault', ports: '[{name: http, containerPort: 8200}]', serviceName: 'vault-internal' }).replace('image: web:1', 'image: "hashicorp/vault:1.20.4"') +
        svc({ name: 'vault-active', selector: 'app: vault, vault-active: "true"', ports: '[{name: http, port: 8200, targetPort: 8200}]' }) +
        svc({ name: 'vault-standby', selector: 'app: vault, vault-active: "false", vault-sealed: "false"', ports: '[{name: http, port: 8200, targetPort: 8200}]' }) +
        svc({ name: 'vault-internal', headless: true, selector: 'app: vault', ports: '[{name: http, port: 8200, targetPort: 8200}]' }),
    },
    {
      name: 'Longhorn: the webhook and recovery-backend Services select the labels longhorn-manager writes on its own pod',
      yaml:
        wl({ kind: 'DaemonSet', name: 'longhorn-manager', labels: 'app: longhorn-manager', ports: '[{name: manager, containerPort: 9500}, {name: webhook, containerPort: 9502}, {name: recovery, containerPort: 9503}]' }).replace('image: web:1', 'image: "docker.io/longhornio/longhorn-manager:v1.9.0"') +
        svc({ name: 'longhorn-admission-webhook', selector: 'longhorn.io/admission-webhook: longhorn-admission-webhook', ports: '[{name: admission-webhook, port: 9502, targetPort: webhook}]' }) +
        svc({ name: 'longhorn-recovery-backend', selector: 'longhorn.io/recovery-backend: longhorn-recovery-backend', ports: '[{name: recovery-backend, port: 9503}]' }),
    },
    {
      // Review round 14: kube-ovn's ovn-central labels itself with the raft leadership of each database.
      name: 'kube-ovn: ovn-nb, ovn-sb and ovn-northd select the leader labels ovn-central writes on its own pod',
      yaml:
        wl({ name: 'ovn-central', labels: 'app: ovn-central', ports: '' }).replace('image: web:1', 'image: docker.io/kubeovn/kube-ovn:v1.17.0, command: [bash, /kube-ovn/start-db.sh]') +
        svc({ name: 'ovn-nb', selector: 'app: ovn-central, ovn-nb-leader: "true"', ports: '[{name: ovn-nb, port: 6641, targetPort: 6641}]' }) +
        svc({ name: 'ovn-sb', selector: 'app: ovn-central, ovn-sb-leader: "true"', ports: '[{name: ovn-sb, port: 6642, targetPort: 6642}]' }) +
        svc({ name: 'ovn-northd', selector: 'app: ovn-central, ovn-northd-leader: "true"', ports: '[{name: ovn-northd, port: 6643, targetPort: 6643}]' }),
    },
    {
      // Review round 17: MinIO Operator's leader labels itself operator=leader; the chart's Service "operator" selects it.
      name: "MinIO Operator: the Service selects the leader label the elected pod writes on itself",
      yaml:
        wl({ name: 'minio-operator', labels: 'app.kubernetes.io/name: operator', ports: '[{name: http, containerPort: 4221}]' }).replace('image: web:1', 'image: quay.io/minio/operator:v7.1.1') +
        svc({ name: 'operator', selector: 'operator: leader, app.kubernetes.io/name: operator', ports: '[{name: http, port: 4221}]' }),
    },
    {
      // Review round 14: timescaledb-single's primary and replica Services select Patroni's role label.
      name: 'Patroni: the primary and replica Services select the role label Patroni writes on its own pod',
      yaml:
        wl({ kind: 'StatefulSet', name: 'pg', labels: 'app: pg', ports: '[{name: postgresql, containerPort: 5432}]', serviceName: 'pg' }).replace('image: web:1', 'image: timescale/timescaledb-ha:pg14.6-ts2.9.1-p1, command: [/bin/bash, -c, "exec patroni /etc/timescaledb/patroni.yaml"]') +
        svc({ name: 'pg', selector: 'app: pg, role: master', ports: '[{name: postgresql, port: 5432, targetPort: postgresql}]' }) +
        svc({ name: 'pg-replica', selector: 'app: pg, role: replica', ports: '[{name: postgresql, port: 5432, targetPort: postgresql}]' }),
    },
    {
      name: 'Patroni with PATRONI_KUBERNETES_ROLE_LABEL set (spilo-role, as Spilo has it)',
      yaml:
        wl({ kind: 'StatefulSet', name: 'pg', labels: 'app: pg', ports: '[{name: postgresql, containerPort: 5432}]', serviceName: 'pg' }).replace('image: web:1', 'image: example/postgres:16, env: [{name: PATRONI_KUBERNETES_ROLE_LABEL, value: spilo-role}]') +
        svc({ name: 'pg', selector: 'app: pg, spilo-role: primary', ports: '[{name: postgresql, port: 5432, targetPort: postgresql}]' }),
    },
    {
      name: 'per-pod Service selecting statefulset.kubernetes.io/pod-name (redis-ha announce)',
      yaml: wl({ kind: 'StatefulSet', name: 'redis', labels: 'app: redis', ports: '[{name: redis, containerPort: 6379}]', serviceName: 'redis' }) + svc({ name: 'redis-announce-0', selector: 'app: redis, statefulset.kubernetes.io/pod-name: redis-0', ports: '[{port: 6379, targetPort: redis}]' }),
    },
    { name: 'named targetPort declared by a native sidecar', yaml: wl({ sidecar: '{name: proxy, image: envoy, restartPolicy: Always, ports: [{name: proxy, containerPort: 15001}]}' }) + svc({ ports: '[{port: 80, targetPort: proxy}]' }) },
    { name: 'numeric targetPort, no container declares ports', yaml: wl({ ports: '' }) + svc({ ports: '[{port: 80, targetPort: 8080}]' }) },
    { name: 'numeric targetPort declared', yaml: wl() + svc({ ports: '[{port: 80, targetPort: 8080}]' }) },
    { name: 'string "8080" targetPort is a number', yaml: wl() + svc({ ports: '[{port: 80, targetPort: "8080"}]' }) },
    {
      name: 'undeclared listener ports while only metrics and readiness ports are declared (Envoy Gateway\'s proxy: its listeners come from xDS)',
      yaml: wl({ ports: '[{name: metrics, containerPort: 19001}, {name: readiness, containerPort: 19003}]' }) + svc({ ports: '[{name: http, port: 80, targetPort: 10080}, {name: https, port: 443, targetPort: 10443}]' }),
    },
    { name: 'undeclared serving ports while only a metrics/diag port is declared (istio gateway, Teleport)', yaml: wl({ ports: '[{name: http-envoy-prom, containerPort: 15090}]' }) + svc({ ports: '[{name: http2, port: 80}, {name: https, port: 443}]' }) },
    { name: 'UDP port declared with UDP', yaml: wl({ ports: '[{name: dns, containerPort: 53, protocol: UDP}]' }) + svc({ ports: '[{port: 53, targetPort: dns, protocol: UDP}]' }) },
    {
      name: 'headless governing Service spanning two StatefulSets of one app (bitnami redis)',
      yaml: wl({ kind: 'StatefulSet', name: 'master', labels: 'app: redis, role: master', serviceName: 'redis-headless' }) + wl({ kind: 'StatefulSet', name: 'replicas', labels: 'app: redis, role: replica', serviceName: 'redis-headless' }) + svc({ name: 'redis-headless', headless: true, selector: 'app: redis' }),
    },
    // Review round 30 (emissary-ingress, canary.mixPods: true): the chart tells main and canary apart by
    // `profile: main` / `profile: canary`, and its main Service selects both on purpose.
    {
      name: 'a workload and its canary by a label value "canary" under any key, or by the name <name>-canary',
      yaml:
        wl({ name: 'emissary', labels: 'app: emissary, profile: main' }) +
        wl({ name: 'emissary-canary', labels: 'app: emissary, profile: canary' }) +
        svc({ name: 'emissary', selector: 'app: emissary' }) +
        wl({ name: 'shop', labels: 'app: shop, tier: web' }) +
        wl({ name: 'shop-canary', labels: 'app: shop, tier: front' }) +
        svc({ name: 'shop', selector: 'app: shop' }) +
        wl({ name: 'api', labels: 'app: api' }) +
        wl({ name: 'api-next', labels: 'app: api, release-kind: Canary' }) +
        svc({ name: 'api', selector: 'app: api' }),
    },
    { name: 'versioned Deployments behind one Service (canary / Istio subsets)', yaml: wl({ name: 'reviews-v1', labels: 'app: reviews, version: v1' }) + wl({ name: 'reviews-v2', labels: 'app: reviews, version: v2' }) + svc({ selector: 'app: reviews' }) },
    {
      name: 'Helm test pod with the same labels does not count as a second workload',
      yaml:
        wl() +
        svc() +
        `---
apiVersion: v1
kind: Pod
metadata:
  name: web-test
  annotations: {helm.sh/hook: test}
  labels: {app: web}
spec:
  containers: [{name: test, image: busybox}]
`,
    },
    { name: 'a pre-install hook Job with the same labels runs before the Service exists', yaml: wl() + svc() + HOOK_JOB.replace('PHASE', 'pre-install') },
    { name: 'metrics-only Service spanning two workloads', yaml: wl({ name: 'a', labels: 'app: x, c: a' }) + wl({ name: 'b', labels: 'app: x, c: b' }) + svc({ name: 'x-metrics', selector: 'app: x', ports: '[{name: metrics, port: 9090, targetPort: 8080}]' }) },
    { name: 'Service without selector (manual EndpointSlices)', yaml: wl() + svc({ selector: '' }) },
    { name: 'ExternalName Service', yaml: wl() + svc({ type: 'ExternalName', selector: 'app: nothing' }) },
  ],
  invalid: [
    {
      name: 'a component typo of a workload beside the custom resource of the same instance: still the error',
      yaml: TIDB() + TIDB_SVC('discovry'),
      findings: [{ severity: 'error', object: 'Service/demo-tidb', message: 'matches no pod template in its namespace (closest: Deployment/demo-discovery, where app.kubernetes.io/component: discovery in the template)' }],
    },
    {
      name: 'a custom resource named by the instance label that describes no pods (no replicas, size or image): still the error',
      yaml: TIDB().replace('kind: TidbCluster', 'kind: Certificate').replace('apiVersion: pingcap.com/v1alpha1', 'apiVersion: cert-manager.io/v1').replace('tidb: {replicas: 2, image: pingcap/tidb:v7.5.5}', 'secretName: demo-tls') + TIDB_SVC(),
      findings: [{ severity: 'error', object: 'Service/demo-tidb', message: 'matches no pod template' }],
    },
    {
      // Review round 34, report p50 item 1: the neo4j chart's LB Service publishes https 7473, which Neo4j opens
      // only with an SSL policy; the container declares http 7474 and bolt 7687.
      name: 'an undeclared port that says TLS while no declared port does: remove it or enable the listener, never repoint it',
      yaml:
        wl({ kind: 'StatefulSet', name: 'neo4j', labels: 'app: neo4j', ports: '[{name: http, containerPort: 7474}, {name: bolt, containerPort: 7687}]' }) +
        svc({ name: 'neo4j-lb', selector: 'app: neo4j', type: 'LoadBalancer', ports: '[{name: http, port: 7474, targetPort: 7474}, {name: https, port: 7473, targetPort: 7473}, {name: tcp-bolt, port: 7687, targetPort: 7687}]' }) +
        svc({ name: 'neo4j-web', selector: 'app: neo4j', ports: '[{name: web, port: 443, targetPort: 8443}]' }),
      findings: [
        {
          severity: 'warning',
          object: 'Service/neo4j-lb',
          pointer: '/spec/ports/1/targetPort',
          message: 'its name "https" says TLS, and none of the declared ports does, so the app likely opens 7473 only once TLS is configured (as Neo4j opens its HTTPS connector 7473), and until then clients of this port get refused connections; remove the port from the Service, or enable the app\'s TLS listener and declare containerPort 7473; do not point targetPort at a declared port, which speaks another protocol',
        },
        { severity: 'warning', object: 'Service/neo4j-web', message: /: its number 8443 says TLS, and none of the declared ports does, .*remove the port from the Service/ },
      ],
    },
    {
      name: 'a TLS port beside a declared TLS port, one of the same name, or behind a load balancer that terminates TLS: the typo advice',
      yaml:
        wl({ ports: '[{name: http, containerPort: 8080}, {name: https, containerPort: 9443}]' }) +
        svc({ name: 'a', ports: '[{name: https, port: 443, targetPort: 8443}]' }) +
        wl({ name: 'b', labels: 'app: b', ports: '[{name: http, containerPort: 8080}, {name: web-tls, containerPort: 8444}]' }) +
        svc({ name: 'b', selector: 'app: b', ports: '[{name: web-tls, port: 443, targetPort: 8443}]' }) +
        wl({ name: 'c', labels: 'app: c', ports: '[{name: http, containerPort: 8080}]' }) +
        svc({ name: 'c', selector: 'app: c', type: 'LoadBalancer', annotations: 'service.beta.kubernetes.io/aws-load-balancer-ssl-cert: "arn:aws:acm:x"', ports: '[{name: https, port: 443, targetPort: 8081}]' }),
      findings: [
        { severity: 'warning', object: 'Service/a', message: /it works only if the app listens there anyway, and is usually a typo or a stale port: the declared port https \(9443\) has its name, and no Service port reaches it; point targetPort at https \(9443\), preferably by name$/ },
        { severity: 'warning', object: 'Service/b', message: /is usually a typo or a stale port: the declared port web-tls \(8444\) has its name, and no Service port reaches it; point targetPort at web-tls \(8444\)/ },
        { severity: 'warning', object: 'Service/c', message: /is usually a typo or a stale port: the declared port http \(8080\) is one digit off, and no Service port reaches it; point targetPort at http \(8080\)/ },
      ],
    },
    {
      // Review round 18 (ESS's LiveKit: containerPort 30002 declared TCP, the Service sends UDP, the app listens on UDP).
      name: 'a numeric targetPort declared only with another protocol: info, correct the declaration (a name would not match)',
      yaml: wl({ ports: '[{name: http, containerPort: 7880}, {name: rtc, containerPort: 30002}]' }) + svc({ ports: '[{name: rtc-udp, port: 30002, targetPort: 30002, protocol: UDP}]' }),
      findings: [{ severity: 'info', message: 'a numeric targetPort is routed whatever the container declares, so if the app listens on 30002/UDP the traffic arrives; correct the protocol of containerPort 30002 in "app" to UDP (naming the port here would not help' }],
    },
    {
      // Review round 17 (jspolicy: "metrics" on controller-runtime's undeclared :8080 beside the declared webhook port).
      name: 'an undeclared numeric targetPort on a metrics-named Service port: info, and never pointed at a serving port',
      yaml: wl({ ports: '[{name: webhook, containerPort: 8443}]' }) + svc({ ports: '[{name: webhook, port: 443, targetPort: webhook}, {name: metrics, port: 8080, targetPort: 8080}]' }),
      findings: [{ severity: 'info', pointer: '/spec/ports/1/targetPort', message: 'the port is named for metrics, operators or peers, so a wrong number here costs scrapes or peer checks, not client traffic; if the app listens there (a metrics server it does not declare), declare containerPort 8080, else correct the number; do not point it at a serving port' }],
    },
    {
      // Review round 30 (emissary-ingress: emissary-admin's "ambassador-snapshot" 8005, Emissary's snapshot
      // server, which the Ambassador agent reads, beside the declared admin port).
      name: 'an undeclared numeric targetPort on a Service named for operators (-admin): info',
      yaml:
        wl({ ports: '[{name: http, containerPort: 8080}, {name: admin, containerPort: 8877}]' }) +
        svc({ name: 'emissary-admin', ports: '[{name: ambassador-admin, port: 8877, targetPort: admin}, {name: ambassador-snapshot, port: 8005, targetPort: 8005}]' }),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/ports/1/targetPort',
          message: 'Service/emissary-admin port "ambassador-snapshot" (8005): targetPort 8005/TCP is not declared by any container of Deployment/web (they declare http 8080/TCP, admin 8877/TCP): the Service is named for operators (diagnostics, administration), so a wrong number here costs operators\' tools, not client traffic',
        },
      ],
    },
    {
      // The same port on a client Service, on a Service whose name only contains "admin", or on an admin
      // Service an Ingress routes to: the rule's warning.
      name: 'an undeclared numeric targetPort on a client Service, a name that is not an operator suffix, or a routed -admin Service: warning',
      yaml:
        wl({ ports: '[{name: http, containerPort: 8080}, {name: admin, containerPort: 8877}]' }) +
        svc({ name: 'emissary', ports: '[{name: snapshot, port: 8005, targetPort: 8005}]' }) +
        svc({ name: 'pgadmin', ports: '[{name: snapshot, port: 8005, targetPort: 8005}]' }) +
        svc({ name: 'shop-admin', ports: '[{name: snapshot, port: 8005, targetPort: 8005}]' }) +
        `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: shop-admin}
spec:
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: shop-admin, port: {number: 8005}}}}]}}]
`,
      findings: [
        { severity: 'warning', message: /^Service\/emissary port "snapshot" \(8005\): .*it works only if the app listens there anyway/ },
        { severity: 'warning', message: /^Service\/pgadmin port "snapshot" \(8005\): .*it works only if the app listens there anyway/ },
        { severity: 'warning', message: /^Service\/shop-admin port "snapshot" \(8005\): .*it works only if the app listens there anyway/ },
      ],
    },
    {
      // Review round 16 (rocketchat's nats: the chart's helm test Pod carries the StatefulSet's labels).
      name: 'an undeclared port: a Helm test Pod with the same labels is neither judged nor named',
      yaml:
        wl({ ports: '[{name: http, containerPort: 8080}]' }) +
        svc({ ports: '[{name: api, port: 9090}]' }) +
        HOOK_JOB.replace('PHASE', 'test').replace('name: web-hook', 'name: web-test').replace('ports: [{name: http, containerPort: 8080}]', 'ports: [{name: api, containerPort: 9090}]'),
      findings: [{ severity: 'warning', message: 'targetPort (defaults to port 9090)/TCP is not declared by any container of Deployment/web (they declare http 8080/TCP)' }],
    },
    {
      // Review round 25: Helm never deletes a pre-install hook without a delete policy (default before-hook-creation,
      // and pre-install never runs again), so a StatefulSet made one serves beside the release's pods for good.
      name: 'a pre-install hook StatefulSet with the same labels and no delete policy stays: the Service mixes its endpoints',
      yaml: wl() + svc() + HOOK_JOB.replace('PHASE', 'pre-install').replace('apiVersion: batch/v1\nkind: Job', 'apiVersion: apps/v1\nkind: StatefulSet').replace('spec:\n  template:', 'spec:\n  selector: {matchLabels: {app: web}}\n  template:').replace('      restartPolicy: OnFailure\n', ''),
      findings: [{ severity: 'warning', object: 'Service/web', message: 'matches the pods of 2 workloads (Deployment/web, StatefulSet/web-hook): the Service mixes their endpoints, also while either rolls out' }],
    },
    {
      // Review round 16 (kubevela's certgen Jobs carry the webhook Service's labels and run on every upgrade).
      name: 'an upgrade hook Job with the same labels: its pods are endpoints while they run',
      yaml: wl() + svc() + HOOK_JOB.replace('PHASE', 'pre-upgrade,post-upgrade'),
      findings: [{ severity: 'warning', object: 'Service/web', message: "matches the pods of 2 workloads (Deployment/web, Job/web-hook): the Service mixes their endpoints while the pods of Job/web-hook run" }],
    },
    {
      // The role label counts only for a container that runs Patroni; the same selector otherwise matches nothing.
      name: 'role: master without Patroni in the pod: no endpoints',
      yaml:
        wl({ kind: 'StatefulSet', name: 'pg', labels: 'app: pg', ports: '[{name: postgresql, containerPort: 5432}]', serviceName: 'pg' }).replace('image: web:1', 'image: postgres:16') +
        svc({ name: 'pg', selector: 'app: pg, role: master', ports: '[{name: postgresql, port: 5432, targetPort: postgresql}]' }),
      findings: [{ severity: 'error', object: 'Service/pg', message: 'matches no pod template' }],
    },
    {
      name: 'the selector in the message is flow YAML that reads back the same: a label value "true" or "5" is quoted',
      yaml: wl({ labels: 'app: web, ha: "false"' }) + svc({ selector: 'app: web, ha: "true", tier: "5"' }),
      findings: [{ severity: 'error', message: 'spec.selector {app: web, ha: "true", tier: "5"} matches no pod template' }],
    },
    {
      name: 'StatefulSets of different images behind one Service: still mixed endpoints',
      yaml:
        wl({ kind: 'StatefulSet', name: 'db', labels: 'app: db, team: a' }) +
        wl({ kind: 'StatefulSet', name: 'cache', labels: 'app: cache, team: a' }).replace('image: web:1', 'image: redis:7') +
        svc({ name: 'team', selector: 'team: a' }),
      findings: [{ severity: 'warning', pointer: '/spec/selector', message: 'matches the pods of 2 workloads (StatefulSet/db, StatefulSet/cache)' }],
    },

    {
      name: 'a Service on a shard a Prometheus does not have (shard "2" of 2 shards, numbered from 0): no pod carries it',
      yaml:
        wl({ name: 'grafana', labels: 'app.kubernetes.io/name: grafana' }) +
        opResource('Prometheus', '{name: k8s}', '{replicas: 2, shards: 2}') +
        svc({ name: 'shard-2', selector: 'app.kubernetes.io/name: prometheus, operator.prometheus.io/shard: "2"', ports: '[{port: 9090, targetPort: 9090}]' }),
      findings: [{ severity: 'error', object: 'Service/shard-2', message: 'matches no pod template' }],
    },
    {
      name: 'a per-pod Service named after a StatefulSet the operator does not make (shard 1 of prometheus-k8s is prometheus-k8s-shard-1)',
      yaml:
        wl({ name: 'grafana', labels: 'app.kubernetes.io/name: grafana' }) +
        opResource('Prometheus', '{name: k8s}', '{replicas: 2, shards: 2}') +
        svc({ name: 'wrong', selector: 'prometheus: k8s, statefulset.kubernetes.io/pod-name: prometheus-k8s-1-0', ports: '[{port: 10901, targetPort: 10901}]' }),
      // (An error: the Prometheus of the input makes pods labelled prometheus: k8s, none of them this one.)
      findings: [{ severity: 'error', object: 'Service/wrong', message: 'matches no pod template' }],
    },
    {
      name: 'a Service on the resource\'s own metadata labels: prometheus-operator puts them on the StatefulSet, not on its pods',
      yaml:
        wl({ name: 'grafana', labels: 'app.kubernetes.io/name: grafana, team: obs' }) +
        opResource('Alertmanager', '{name: main, labels: {app.kubernetes.io/name: am, team: obs}}', '{replicas: 3}') +
        svc({ name: 'alertmanager', selector: 'app.kubernetes.io/name: am, team: obs', ports: '[{port: 9093, targetPort: 9093}]' }),
      findings: [{ severity: 'error', object: 'Service/alertmanager', message: 'matches no pod template' }],
    },
    {
      name: 'a pods,svc dump: a targetPort name no pod declares is still an error',
      yaml: pod('web-x-1', 'web-x', '[{name: web, containerPort: 8080}]') + svc(),
      findings: [{ severity: 'error', message: 'targetPort "http" with protocol TCP cannot be resolved: no container of Pod/web-x-1 declares a port named "http"' }],
    },
    {
      name: 'a pods,svc dump: a selector matching none of the pods is still an error',
      yaml: pod('web-x-1', 'web-x') + svc({ selector: 'app: wbe' }),
      findings: [{ severity: 'error', pointer: '/spec/selector', message: 'matches no pod template' }],
    },
    {
      name: 'selector matches no template while the namespace has workloads: error with the closest workload',
      yaml: wl() + svc({ selector: 'app: web, tier: front' }),
      findings: [{ severity: 'error', pointer: '/spec/selector', object: 'Service/web', message: 'spec.selector {app: web, tier: front} matches no pod template in its namespace (closest: Deployment/web, where tier is not a template label), so the Service has no endpoints' }],
    },
    {
      // bitnami/grafana-loki: the table-manager Service of a component not rendered; the compactor is only
      // the closest by label count, and copying its selector would send table-manager traffic to it.
      name: 'a closest workload that does not name the Service: hinted, but the advice names none',
      yaml: wl({ name: 'loki-compactor', labels: 'app: loki, component: compactor' }) + svc({ name: 'loki-table-manager', selector: 'app: loki, component: table-manager' }),
      findings: [{ severity: 'error', message: "(closest: Deployment/loki-compactor, where component: compactor in the template), so the Service has no endpoints; copy the workload's spec.selector.matchLabels" }],
    },
    {
      // bitnami/concourse: the worker StatefulSet's pods carry component: ci-worker; web's, component: web (also one value off, and first).
      name: 'the StatefulSet that names the Service as serviceName is the closest, and the one to copy from',
      yaml:
        wl({ name: 'ci-web', labels: 'app: ci, component: web' }) +
        wl({ name: 'ci-worker', kind: 'StatefulSet', serviceName: 'ci-worker', labels: 'app: ci, component: ci-worker', ports: '' }) +
        svc({ name: 'ci-worker', headless: true, selector: 'app: ci, component: worker', ports: '' }),
      findings: [{ severity: 'error', object: 'Service/ci-worker', message: "(closest: StatefulSet/ci-worker, where component: ci-worker in the template), so the Service has no endpoints; StatefulSet/ci-worker names it as serviceName, so its pods get no DNS records; copy StatefulSet/ci-worker's spec.selector.matchLabels" }],
    },
    {
      // kube-thanos examples/all: the thanos-sidecar Service selects the Prometheus pods prometheus-operator
      // makes (app: prometheus) beside Thanos workloads labelled app.kubernetes.io/*.
      name: 'a selector whose keys no workload of the namespace uses: pods made elsewhere, likely: a warning that says so',
      yaml: wl({ namespace: 'thanos', labels: 'app.kubernetes.io/name: thanos-query' }) + svc({ namespace: 'thanos', name: 'thanos-sidecar', selector: 'app: prometheus' }),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/selector',
          message: 'Service/thanos-sidecar: spec.selector {app: prometheus} matches no pod template in namespace thanos, and no workload there carries its labels or labels close to them: if its pods come from elsewhere (another release or addon, an operator\'s custom resource), lint them together; otherwise the Service has no endpoints: make the selector match the labels of the pods it is for',
        },
      ],
    },
    {
      name: 'a key no workload uses but a value one carries under another key: a typo of the key, still an error',
      yaml: wl({ namespace: 'shop', labels: 'app.kubernetes.io/name: shop' }) + svc({ namespace: 'shop', name: 'shop', selector: 'app: shop' }),
      findings: [{ severity: 'error', message: 'matches no pod template in namespace shop, so the Service has no endpoints' }],
    },
    {
      // Review round 13: a shared conventional key (app, k8s-app) with an unrelated value is no sign of a typo.
      name: 'a key a workload uses with a value far from its: pods made elsewhere, likely: the warning',
      yaml: wl({ namespace: 'thanos', labels: 'app: thanos-query' }) + svc({ namespace: 'thanos', name: 'thanos-sidecar', selector: 'app: prometheus' }),
      findings: [{ severity: 'warning', message: 'matches no pod template in namespace thanos, and no workload there carries its labels or labels close to them' }],
    },
    {
      // Review round 13: NodeLocal DNSCache's kube-dns-upstream selects CoreDNS's pods, of another addon.
      // Copying node-local-dns's own selector (the old advice) makes every node cache forward to itself.
      name: 'NodeLocal DNSCache: kube-dns-upstream selects k8s-app: kube-dns beside k8s-app: node-local-dns: the warning, and no workload of the input named as the fix',
      yaml:
        wl({ kind: 'DaemonSet', namespace: 'kube-system', name: 'node-local-dns', labels: '"k8s-app": node-local-dns' }) +
        svc({ namespace: 'kube-system', name: 'kube-dns-upstream', selector: '"k8s-app": kube-dns' }),
      findings: [{ severity: 'warning', message: /if its pods come from elsewhere \(another release or addon.*make the selector match the labels of the pods it is for$/ }],
    },
    {
      name: 'a value close to one a workload carries under the same key: a typo, the error',
      yaml: wl({ namespace: 'kube-system', name: 'coredns', labels: '"k8s-app": kube-dns' }) + svc({ namespace: 'kube-system', name: 'kube-dns', selector: '"k8s-app": kube-dsn' }),
      findings: [{ severity: 'error', message: 'matches no pod template in namespace kube-system, so the Service has no endpoints' }],
    },
    {
      // bitnami/zookeeper with one replica: the pods declare client only; follower and election only with several replicas.
      name: 'a headless Service whose other ports resolve: an unresolvable named port is info (only its SRV records and EndpointSlice port are missing; the addresses are published)',
      yaml:
        wl({ kind: 'StatefulSet', name: 'zk', labels: 'app: zk', serviceName: 'zk-headless', ports: '[{name: client, containerPort: 2181}]' }) +
        svc({ name: 'zk-headless', selector: 'app: zk', headless: true, ports: '[{name: tcp-client, port: 2181, targetPort: client}, {name: tcp-follower, port: 2888, targetPort: follower}, {name: tcp-election, port: 3888, targetPort: election}]' }),
      findings: [
        { severity: 'info', pointer: '/spec/ports/1/targetPort', message: /targetPort "follower" with protocol TCP cannot be resolved: .*skips this port for these pods \(no SRV records for it\), while the Service is headless and its other ports resolve, so the pods' addresses are still published; nothing in the input uses this port through the Service \(no route to it, no SRV lookup of it\)/ },
        { severity: 'info', pointer: '/spec/ports/2/targetPort', message: 'targetPort "election"' },
      ],
    },
    {
      // bitnami/dremio (review round 25): fabric/conduit for the declared server-fabric/server-conduit; the
      // executors declare no port the Service names, and their addresses are still published (EndpointSlice).
      name: 'bitnami/dremio\'s peer Service: typos in named targetPorts of a headless Service are info, also for pods none of whose ports resolve',
      yaml:
        wl({ kind: 'StatefulSet', name: 'master', labels: 'app: dremio, component: master', serviceName: 'dremio-headless', ports: '[{name: web, containerPort: 9047}, {name: server-fabric, containerPort: 45678}]' }) +
        wl({ kind: 'StatefulSet', name: 'executor', labels: 'app: dremio, component: executor', serviceName: 'dremio-headless', ports: '[{name: server-fabric, containerPort: 45678}]' }) +
        svc({ name: 'dremio-headless', selector: 'app: dremio', headless: true, ports: '[{name: http-web, port: 9047, targetPort: web}, {name: tcp-fabric, port: 45678, targetPort: fabric}]' }),
      findings: [{ severity: 'info', pointer: '/spec/ports/1/targetPort', message: /^Service\/dremio-headless port "tcp-fabric" \(45678\): targetPort "fabric" with protocol TCP cannot be resolved: no container of StatefulSet\/master, StatefulSet\/executor declares a port named "fabric"/ }],
    },
    {
      name: 'a headless Service port an Ingress routes to: an unresolvable named port stays a warning',
      yaml:
        wl({ kind: 'StatefulSet', name: 'zk', labels: 'app: zk', serviceName: 'zk-headless', ports: '[{name: client, containerPort: 2181}]' }) +
        svc({ name: 'zk-headless', selector: 'app: zk', headless: true, ports: '[{name: tcp-client, port: 2181, targetPort: client}, {name: tcp-follower, port: 2888, targetPort: follower}]' }) +
        `---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: zk}
spec:
  rules: [{http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: zk-headless, port: {name: tcp-follower}}}}]}}]
`,
      findings: [{ severity: 'warning', pointer: '/spec/ports/1/targetPort', message: /; but an Ingress or route in the input sends traffic to this Service port, which gets no endpoint for it: declare the port "follower"/ }],
    },
    {
      name: 'a headless Service port whose SRV name another object of the namespace looks up: an unresolvable named port stays a warning',
      yaml:
        wl({ kind: 'StatefulSet', name: 'zk', labels: 'app: zk', serviceName: 'zk-headless', ports: '[{name: client, containerPort: 2181}]' }) +
        svc({ name: 'zk-headless', selector: 'app: zk', headless: true, ports: '[{name: tcp-client, port: 2181, targetPort: client}, {name: tcp-follower, port: 2888, targetPort: follower}]' }) +
        `---
apiVersion: v1
kind: ConfigMap
metadata: {name: peers}
data: {discovery: "_tcp-follower._tcp.zk-headless.default.svc.cluster.local"}
`,
      findings: [{ severity: 'warning', pointer: '/spec/ports/1/targetPort', message: 'but ConfigMap/peers names its SRV record _tcp-follower._tcp.zk-headless' }],
    },
    {
      name: 'a ClusterIP Service whose other ports resolve: an unresolvable named port is still an error (kube-proxy has no endpoint for it)',
      yaml: wl({ kind: 'StatefulSet', name: 'zk', labels: 'app: zk', serviceName: 'zk-headless', ports: '[{name: client, containerPort: 2181}]' }) + svc({ name: 'zk', selector: 'app: zk', ports: '[{name: tcp-client, port: 2181, targetPort: client}, {name: tcp-follower, port: 2888, targetPort: follower}]' }),
      findings: [{ severity: 'error', pointer: '/spec/ports/1/targetPort', message: 'so this port has no endpoints' }],
    },
    {
      name: 'a headless Service whose only port cannot be resolved: still an error',
      yaml: wl({ kind: 'StatefulSet', name: 'zk', labels: 'app: zk', serviceName: 'zk-headless', ports: '[{name: client, containerPort: 2181}]' }) + svc({ name: 'zk-headless', selector: 'app: zk', headless: true, ports: '[{name: tcp-follower, port: 2888, targetPort: follower}]' }),
      findings: [{ severity: 'error', message: 'targetPort "follower" with protocol TCP cannot be resolved' }],
    },
    {
      name: 'typo in a value',
      yaml: wl({ namespace: 'shop' }) + svc({ namespace: 'shop', selector: 'app: wbe' }),
      findings: [{ severity: 'error', message: 'matches no pod template in namespace shop, so the Service has no endpoints' }],
    },
    {
      name: 'Vault\'s pod labels are counted only on Vault\'s pods, and only with the values Vault writes',
      yaml:
        wl({ kind: 'StatefulSet', name: 'vault', labels: 'app: vault', serviceName: 'vault' }).replace('image: web:1', 'image: "hashicorp/vault-enterprise:1.20.4-ent"') +
        svc({ name: 'vault-active', selector: 'app: vault, vault-active: "yes"' }) +
        wl({ name: 'api', labels: 'app: api' }) +
        svc({ name: 'api-active', selector: 'app: api, vault-active: "true"' }),
      findings: [
        { severity: 'error', message: /^Service\/vault-active: spec.selector .* matches no pod template/ },
        { severity: 'error', message: /^Service\/api-active: spec.selector .* matches no pod template/ },
      ],
    },
    {
      name: 'a per-pod Service naming a pod of another StatefulSet',
      yaml: wl({ kind: 'StatefulSet', name: 'redis', labels: 'app: redis', serviceName: 'redis' }) + svc({ name: 'announce', selector: 'app: redis, statefulset.kubernetes.io/pod-name: other-0', ports: '' }),
      findings: [{ severity: 'error', pointer: '/spec/selector' }],
    },
    {
      name: 'portless headless Service named by a StatefulSet that it does not select',
      yaml: wl({ kind: 'StatefulSet', name: 'db', labels: 'app: db', serviceName: 'db' }) + svc({ name: 'db', headless: true, selector: 'app: dbx', ports: '' }),
      findings: [{ severity: 'error', message: 'StatefulSet/db names it as serviceName, so its pods get no DNS records' }],
    },
    {
      name: 'named targetPort that no container declares: error',
      yaml: wl() + svc({ ports: '[{name: web, port: 80, targetPort: web}]' }),
      findings: [{ severity: 'error', pointer: '/spec/ports/0/targetPort', message: 'port "web" (80): targetPort "web" with protocol TCP cannot be resolved: no container of Deployment/web declares a port named "web" (they declare http 8080/TCP)' }],
    },
    {
      name: 'named targetPort with another protocol: error',
      yaml: wl({ ports: '[{name: dns, containerPort: 53, protocol: UDP}]' }) + svc({ ports: '[{port: 53, targetPort: dns}]' }),
      findings: [{ severity: 'error', message: 'declares "dns" with protocol UDP, not TCP (the match is protocol-sensitive)' }],
    },
    {
      name: 'named port of a classic init container does not count',
      yaml: wl({ sidecar: '{name: setup, image: busybox, ports: [{name: proxy, containerPort: 15001}]}' }) + svc({ ports: '[{port: 80, targetPort: proxy}]' }),
      findings: [{ severity: 'error', pointer: '/spec/ports/0/targetPort' }],
    },
    {
      // (Review round 12: supabase's imgproxy, IMGPROXY_BIND=":5001" beside a stale containerPort 8080.)
      name: 'numeric targetPort not declared, but the container\'s env names it as its listen address: info, declare it',
      yaml: wl().replace('image: web:1', 'image: web:1, env: [{name: IMGPROXY_BIND, value: ":5001"}]') + svc({ ports: '[{name: http, port: 80, targetPort: 5001}]' }),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/ports/0/targetPort',
          message: /targetPort 5001\/TCP is not declared by any container of Deployment\/web \(they declare http 8080\/TCP\): container "app" of Deployment\/web names it in its env IMGPROXY_BIND=:5001, so the app listens there: declare containerPort 5001 in container "app" .*do not point targetPort elsewhere$/,
        },
      ],
    },
    {
      // Review report p32 item 3: harbor-core loads METRIC_PORT: "8001" from its ConfigMap by envFrom.
      name: 'numeric targetPort not declared, but a ConfigMap the container loads by envFrom names it: info, declare it',
      yaml:
        wl().replace('image: web:1', 'image: web:1, envFrom: [{configMapRef: {name: web-env}}]') +
        svc({ ports: '[{name: http, port: 80, targetPort: 8080}, {name: http-metrics, port: 8001}]' }) +
        '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-env}\ndata: {METRIC_ENABLE: "true", METRIC_PORT: "8001"}\n',
      findings: [
        {
          severity: 'info',
          pointer: '/spec/ports/1/port',
          message: /container "app" of Deployment\/web names it in its envFrom ConfigMap web-env METRIC_PORT=8001, so the app listens there: declare containerPort 8001 in container "app"/,
        },
      ],
    },
    {
      name: 'envFrom with a prefix, from a Secret: the prefixed name is said',
      yaml:
        wl().replace('image: web:1', 'image: web:1, envFrom: [{prefix: SRV_, secretRef: {name: web-env}}]') +
        svc({ ports: '[{name: http, port: 80, targetPort: 8080}, {name: api, port: 81, targetPort: 9000}]' }) +
        '---\napiVersion: v1\nkind: Secret\nmetadata: {name: web-env}\nstringData: {LISTEN_ADDR: "0.0.0.0:9000"}\n',
      findings: [{ severity: 'info', pointer: '/spec/ports/1/targetPort', message: /names it in its envFrom Secret web-env SRV_LISTEN_ADDR=0\.0\.0\.0:9000, so the app listens there/ }],
    },
    {
      // (No declared port looks like the one meant, 8080 being reached by port http: info, without "so the app listens there".)
      name: 'an envFrom variable that an inline env entry overrides does not count as listen evidence',
      yaml:
        wl().replace('image: web:1', 'image: web:1, env: [{name: PORT, value: "8080"}], envFrom: [{configMapRef: {name: web-env}}]') +
        svc({ ports: '[{name: http, port: 80, targetPort: 8080}, {name: api, port: 81, targetPort: 9000}]' }) +
        '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-env}\ndata: {PORT: "9000"}\n',
      findings: [{ severity: 'info', pointer: '/spec/ports/1/targetPort', message: /\(they declare http 8080\/TCP\): a numeric targetPort is routed whatever the containers declare .*no declared port looks like its intended target \(no declared port is named "api" or is one digit away from 9000\), so the app may well listen on 9000 undeclared/ }],
    },
    {
      name: 'an envFrom port beside a host it dials from the same ConfigMap does not count as listen evidence',
      yaml:
        wl().replace('image: web:1', 'image: web:1, envFrom: [{configMapRef: {name: web-env}}]') +
        svc({ ports: '[{name: http, port: 80, targetPort: 8080}, {name: api, port: 81, targetPort: 9000}]' }) +
        '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-env}\ndata: {SCHED_HOST: scheduler, SCHED_PORT: "9000"}\n',
      findings: [{ severity: 'info', pointer: '/spec/ports/1/targetPort', message: /\(they declare http 8080\/TCP\): a numeric targetPort is routed whatever the containers declare .*no declared port looks like its intended target \(no declared port is named "api" or is one digit away from 9000\), so the app may well listen on 9000 undeclared/ }],
    },
    {
      // (Review round 30: Seldon Core v2's agent dials the scheduler at SELDON_SCHEDULER_HOST:SELDON_SCHEDULER_PORT;
      // the operator's per-server Service port "agent" 9005 is a stale copy of the scheduler's.)
      name: 'numeric targetPort not declared, and the env names it only as the port of a host the container dials: not listen evidence',
      yaml:
        wl().replace('image: web:1', 'image: web:1, env: [{name: SELDON_SCHEDULER_HOST, value: seldon-scheduler}, {name: SELDON_SCHEDULER_PORT, value: "9005"}]') +
        svc({ ports: '[{name: http, port: 80, targetPort: http}, {name: agent, port: 9005, targetPort: 9005}]' }),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/ports/1/targetPort',
          message: /targetPort 9005\/TCP is not declared by any container of Deployment\/web \(they declare http 8080\/TCP\): a numeric targetPort is routed whatever .*: declare containerPort 9005 in the container that listens there; if none does, clients of this port get refused connections: remove the port from the Service or correct its number$/,
        },
      ],
    },
    {
      // (Review round 12: Gloo's validation webhook on 8443, which its chart does not declare.)
      name: 'numeric targetPort not declared, but the API server calls that Service port for a webhook: info, declare it',
      yaml:
        wl() + svc({ ports: '[{name: https, port: 443, targetPort: 8443}]' }) + webhookConfig(),
      findings: [{ severity: 'info', pointer: '/spec/ports/0/targetPort', message: 'the API server calls this port for webhook "check.example.com" (ValidatingWebhookConfiguration/hooks), so the app listens there: declare containerPort 8443 in the container that serves it' }],
    },
    {
      name: 'numeric targetPort not declared while others are: warning',
      yaml: wl() + svc({ ports: '[{port: 80, targetPort: 8000}]' }),
      findings: [{ severity: 'warning', pointer: '/spec/ports/0/targetPort', message: 'targetPort 8000/TCP is not declared by any container of Deployment/web' }],
    },
    {
      // (Review round 10: neo4j's internals Service; RabbitMQ's 25672.)
      name: 'numeric targetPort not declared, on a headless Service: info (it maps no ports; clients dial pod:port themselves)',
      yaml:
        wl({ kind: 'StatefulSet', name: 'db', labels: 'app: db', serviceName: 'db-internals', ports: '[{name: bolt, containerPort: 7687}]' }) +
        svc({ name: 'db-internals', selector: 'app: db', headless: true, ports: '[{name: tcp-bolt, port: 7687, targetPort: 7687}, {name: tcp-raft, port: 7000, targetPort: 7000}]' }),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/ports/1/targetPort',
          message:
            /^Service\/db-internals port "tcp-raft" \(7000\): targetPort 7000\/TCP is not declared by any container of StatefulSet\/db \(they declare bolt 7687\/TCP\): the Service is headless, so it maps no ports: clients dial the pod addresses DNS gives them on the port they know, and this entry only names it in the EndpointSlice and SRV records; if the app listens there/,
        },
      ],
    },
    {
      name: 'targetPort 0 or "" defaults to port as the API server does (SetDefaults_Service): judged as that port, and named so',
      yaml: wl() + svc({ ports: '[{name: a, port: 8080, targetPort: 0}, {name: b, port: 9090, targetPort: ""}]' }),
      findings: [{ severity: 'info', pointer: '/spec/ports/1/targetPort', message: 'port "b" (9090): targetPort "" (defaults to port 9090)/TCP is not declared' }],
    },
    {
      // Review round 35, report p57 item 4: Mailu's front runs a Dovecot proxy listening on 2525 (LMTP) and 4190
      // (ManageSieve), which its chart does not declare; its declared sieve is 14190, the webmail's listener, which
      // another Service port already reaches. No declared port is the plausible target: info, declare the port.
      name: 'an undeclared number that no free declared port resembles (Mailu front): info, declare it, never repoint it',
      yaml:
        wl({ ports: '[{name: smtp, containerPort: 25}, {name: sieve, containerPort: 14190}]' }) +
        svc({ ports: '[{name: smtp, port: 25}, {name: lmtp, port: 2525}, {name: sieve-webmail, port: 14190}]' }) +
        svc({ name: 'web-ext', ports: '[{name: sieve, port: 4190}]' }),
      findings: [
        {
          severity: 'info',
          object: 'Service/web',
          message:
            'Service/web port "lmtp" (2525): targetPort (defaults to port 2525)/TCP is not declared by any container of Deployment/web (they declare smtp 25/TCP, sieve 14190/TCP): a numeric targetPort is routed whatever the containers declare (a port the app listens on is reachable undeclared), and no declared port looks like its intended target (no declared port is named "lmtp" or is one digit away from 2525), so the app may well listen on 2525 undeclared: declare containerPort 2525 in the container that listens there; if none does, clients of this port get refused connections: remove the port from the Service or correct its number',
        },
        { severity: 'info', object: 'Service/web-ext', message: /no declared port looks like its intended target \(sieve \(14190\) has its name and is one digit off, but Service\/web port "sieve-webmail" already reaches it\)/ },
      ],
    },
    {
      name: "targetPort left out beside the one client port the containers declare, which nothing reaches: warning, point at it",
      yaml: wl({ ports: '[{name: http, containerPort: 8080}, {name: metrics, containerPort: 9090}]' }) + svc({ ports: '[{name: web, port: 80}]' }),
      findings: [{ severity: 'warning', pointer: '/spec/ports/0/port', message: /: the only client port the containers declare is http \(8080\), and no Service port reaches it; point targetPort at http \(8080\), preferably by name$/ }],
    },
    {
      name: 'targetPort absent: defaults to port, pointer at port',
      yaml: wl() + svc({ ports: '[{name: http, port: 80}]' }),
      findings: [{ severity: 'warning', pointer: '/spec/ports/0/port', message: 'targetPort (defaults to port 80)/TCP' }],
    },
    {
      name: 'selector spans two workloads: warning',
      yaml: wl({ name: 'web', labels: 'app: web, c: a' }) + wl({ name: 'worker', labels: 'app: web, c: b' }) + svc(),
      findings: [{ severity: 'warning', pointer: '/spec/selector', message: 'matches the pods of 2 workloads (Deployment/web, Deployment/worker): the Service mixes their endpoints, also while either rolls out;' }],
    },
    {
      // Review round 14 (step-certificates' bootstrap Job): a Job's pods do not roll out; they are endpoints while they run.
      name: "selector spans a Deployment and a Job: the endpoints mix while the Job's pods run",
      yaml: wl({ name: 'web', labels: 'app: web' }) + wl({ kind: 'Job', name: 'bootstrap', labels: 'app: web' }).replace('  selector: {matchLabels: {app: web}}\n', '') + svc(),
      findings: [{ severity: 'warning', pointer: '/spec/selector', message: "matches the pods of 2 workloads (Deployment/web, Job/bootstrap): the Service mixes their endpoints while the pods of Job/bootstrap run (a Job's pods are endpoints until they complete);" }],
    },
    {
      // A canary beside two workloads that are not canaries of each other, and two templates that both
      // say canary: the Service still mixes unrelated pods.
      name: 'a canary does not excuse a third workload, nor two canaries each other',
      yaml:
        wl({ name: 'web', labels: 'app: web, c: a' }) +
        wl({ name: 'web-canary', labels: 'app: web, c: b' }) +
        wl({ name: 'worker', labels: 'app: web, c: d' }) +
        svc() +
        wl({ name: 'a', labels: 'app: x, track: canary, c: a' }) +
        wl({ name: 'b', labels: 'app: x, track: canary, c: b' }) +
        svc({ name: 'x', selector: 'app: x' }),
      findings: [
        { severity: 'warning', pointer: '/spec/selector', message: 'matches the pods of 3 workloads' },
        { severity: 'warning', pointer: '/spec/selector', message: 'matches the pods of 2 workloads (Deployment/a, Deployment/b)' },
      ],
    },
    {
      name: 'two workloads with the same version label value are not a version split',
      yaml: wl({ name: 'web', labels: 'app: web, c: a, version: v1' }) + wl({ name: 'worker', labels: 'app: web, c: b, version: v1' }) + svc(),
      findings: [{ severity: 'warning', pointer: '/spec/selector' }],
    },
    {
      name: 'undeclared port while a serving port is declared (unnamed ports are not side ports)',
      yaml: wl({ ports: '[{containerPort: 9090}]' }) + svc({ ports: '[{port: 80, targetPort: 8080}]' }),
      findings: [{ severity: 'warning', message: 'they declare 9090/TCP' }],
    },
    {
      name: 'suppressed',
      yaml: wl() + svc({ selector: 'app: wbe', annotations: '"kubegrace.dev/ignore": "service-selector-ports", "kubegrace.dev/ignore-reason": "pods created by a controller"' }),
      findings: [{ severity: 'error', suppressed: true }],
    },
  ],
});

// Review round 22 (cilium/tetragon: its Service selects the chart's full label set): a selector label
// whose value changes with every chart release selects none of the old pods after an upgrade.
describe('service-selector-ports: labels that change with every release', () => {
  const REL = 'app.kubernetes.io/name: web, helm.sh/chart: web-1.7.0, app.kubernetes.io/version: "1.7.0"';
  const set = (svc: string, extra = '') =>
    wl({ labels: REL }).replace('  selector: {matchLabels: {' + REL + '}}', '  selector: {matchLabels: {app.kubernetes.io/name: web}}') + svc + extra;
  test('a served Service: warning, naming the labels and the workload selector to use', () => {
    const got = runRule(serviceSelectorPorts, set(svc({ selector: REL })));
    expect(got.map((f) => [f.severity, f.pointer])).toEqual([['warning', '/spec/selector']]);
    expect(got[0].message).toContain('spec.selector holds helm.sh/chart: web-1.7.0, app.kubernetes.io/version: 1.7.0, labels whose values change with every chart release: an upgrade updates the Service at once, and it then selects none of the old pods');
    expect(got[0].message).toContain("select only stable labels (Deployment/web's spec.selector.matchLabels, or labels every release keeps)");
  });
  test('a metrics-only Service: info', () => {
    const got = runRule(serviceSelectorPorts, set(svc({ selector: REL, ports: '[{name: metrics, port: 2112, targetPort: 2112}]' }))).filter((f) => f.message.includes('every chart release'));
    expect(got.map((f) => f.severity)).toEqual(['info']);
    expect(got[0].message).toContain('(scrapes through it miss the old pods)');
  });
  test('a blue/green pin: another workload differs only in the version label', () => {
    const green = wl({ name: 'web-green', labels: 'app.kubernetes.io/name: web, app.kubernetes.io/version: "1.8.0"' }).replace('  selector: {matchLabels: {app.kubernetes.io/name: web, app.kubernetes.io/version: "1.8.0"}}', '  selector: {matchLabels: {app.kubernetes.io/name: web, app.kubernetes.io/version: "1.8.0"}}');
    const blue = wl({ name: 'web-blue', labels: 'app.kubernetes.io/name: web, app.kubernetes.io/version: "1.7.0"' });
    expect(runRule(serviceSelectorPorts, blue + green + svc({ selector: 'app.kubernetes.io/name: web, app.kubernetes.io/version: "1.7.0"' }))).toEqual([]);
  });
  test('a version value without a digit (blue, green) and stable labels: nothing', () => {
    expect(runRule(serviceSelectorPorts, wl({ labels: 'app: web, version: blue' }) + svc({ selector: 'app: web, version: blue' }))).toEqual([]);
    expect(runRule(serviceSelectorPorts, set(svc({ selector: 'app.kubernetes.io/name: web' })))).toEqual([]);
  });
});
