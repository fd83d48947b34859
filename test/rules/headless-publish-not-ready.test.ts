import { builtinCatalog, Catalog, CatalogEntry } from '../../lib/catalog';
import { lintSources } from '../../lib/engine/run';
import { KubeVersion } from '../../lib/engine/version';
import { headlessPublishNotReady, imageName } from '../../lib/rules/headless-publish-not-ready';
import { ruleTester } from '../helpers/rule-tester';

interface SOpts {
  image?: string;
  serviceName?: string | null;
  annotations?: string;
  containers?: string;
}

function sts(o: SOpts = {}): string {
  return `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
${o.serviceName === null ? '' : `  serviceName: ${o.serviceName ?? 'db'}\n`}  selector: {matchLabels: {app: db}}
  template:
    metadata:
      labels: {app: db}
${o.annotations ? `      annotations: {${o.annotations}}\n` : ''}    spec:
      containers: ${o.containers ?? `[{name: db, image: ${o.image ?? 'cassandra:4.1'}, ports: [{name: cql, containerPort: 9042}]}]`}
`;
}

interface VOpts {
  name?: string;
  headless?: boolean;
  pnra?: boolean;
  annotations?: string;
  selector?: string;
  ports?: string;
}

function svc(o: VOpts = {}): string {
  return `---
apiVersion: v1
kind: Service
metadata:
  name: ${o.name ?? 'db'}
${o.annotations ? `  annotations: {${o.annotations}}\n` : ''}spec:
${o.headless === false ? '' : '  clusterIP: None\n'}${o.pnra === undefined ? '' : `  publishNotReadyAddresses: ${o.pnra}\n`}  selector: {${o.selector ?? 'app: db'}}
  ports: ${o.ports ?? '[{name: cql, port: 9042}]'}
`;
}

describe('imageName', () => {
  test.each([
    ['cassandra:4.1', 'cassandra'],
    ['docker.io/bitnami/kafka:3.7@sha256:abc', 'kafka'],
    ['cockroachdb/cockroach:v1.1.0', 'cockroach'],
    ['localhost:5000/etcd', 'etcd'],
  ])('%s -> %s', (image, want) => expect(imageName(image)).toBe(want));
});

/**
 * The redpanda chart's default external access (review round 33, report p41): a NodePort Service with
 * externalTrafficPolicy Local and publishNotReadyAddresses over brokers that each advertise their own
 * node-port address, kept one per node by required hostname anti-affinity.
 */
function perNode(o: { type?: string; etp?: string; anti?: string; kind?: string; ports?: string } = {}): string {
  const anti = o.anti ?? `requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector: {matchLabels: {app: rp}}`;
  return `apiVersion: apps/v1
kind: ${o.kind ?? 'StatefulSet'}
metadata: {name: rp, namespace: rp}
spec:
  serviceName: rp
  replicas: 3
  selector: {matchLabels: {app: rp}}
  template:
    metadata: {labels: {app: rp}}
    spec:
      affinity:
        podAntiAffinity:
          ${anti}
      containers: [{name: redpanda, image: docker.redpanda.com/redpandadata/redpanda:v25.1.2, ports: ${o.ports ?? '[{name: kafka-default, containerPort: 9094}]'}}]
---
apiVersion: v1
kind: Service
metadata: {name: rp, namespace: rp}
spec: {clusterIP: None, publishNotReadyAddresses: true, selector: {app: rp}, ports: [{name: kafka, port: 9093}]}
---
apiVersion: v1
kind: Service
metadata: {name: rp-external, namespace: rp}
spec:
  type: ${o.type ?? 'NodePort'}
${o.etp === '' ? '' : `  externalTrafficPolicy: ${o.etp ?? 'Local'}\n`}  publishNotReadyAddresses: true
  selector: {app: rp}
  ports: [{name: kafka-default, port: 9094, nodePort: 31092}]
`;
}

ruleTester(headlessPublishNotReady, {
  valid: [
    {
      // Review round 33, report p41 (redpanda chart defaults): each node port reaches the one broker on that node.
      name: 'NodePort, externalTrafficPolicy Local, over a StatefulSet held one per node by required hostname anti-affinity: per-pod in effect',
      yaml: perNode(),
    },
    {
      name: 'NodePort, externalTrafficPolicy Local, over a StatefulSet with a hostPort: one per node, per-pod in effect',
      yaml: perNode({ anti: '{}', ports: '[{name: kafka-default, containerPort: 9094, hostPort: 9094}]' }),
    },
    { name: 'headless peer Service with publishNotReadyAddresses: correct', yaml: sts() + svc({ pnra: true }) },
    {
      name: 'the legacy tolerate-unready annotation alone on a ClusterIP Service: ignored by the EndpointSlice controller, so no warning',
      yaml: sts({ image: 'nginx:1' }) + svc() + svc({ name: 'db-client', headless: false, annotations: '"service.alpha.kubernetes.io/tolerate-unready-endpoints": "true"' }),
    },
    { name: 'app without peer discovery needs', yaml: sts({ image: 'bitnami/postgresql:17' }) + svc() },
    { name: 'plain redis (replication through a master Service) is not in the list', yaml: sts({ image: 'docker.io/bitnami/redis:8.2.1' }) + svc() },
    { name: 'hint false overrides the image guess', yaml: sts({ annotations: '"kubegrace.dev/peer-discovery": "false"' }) + svc() },
    {
      name: 'peers use per-pod announce Services that publish not-ready addresses (redis-ha)',
      yaml:
        sts({ annotations: '"kubegrace.dev/peer-discovery": "true"', image: 'redis:8' }) +
        svc() +
        svc({ name: 'db-announce-0', headless: false, pnra: true, selector: 'app: db, statefulset.kubernetes.io/pod-name: db-0' }) +
        svc({ name: 'db-announce-1', headless: false, pnra: true, selector: 'app: db, statefulset.kubernetes.io/pod-name: db-1' }),
    },
    { name: 'serviceName names no Service, and there are no Services in the set at all', yaml: sts() },
    { name: 'serviceName names no Service; no headless Service selects the pods and no peer need', yaml: sts({ image: 'nginx:1', serviceName: 'missing' }) + svc({ name: 'web', headless: false, selector: 'app: web' }) },
    { name: 'no serviceName', yaml: sts({ serviceName: null }) + svc({ pnra: true }) },
    // (Review round 12: the NATS chart's rocketchat-nats-metrics Service, port `monitor` 8222.)
    { name: 'a Service whose only port is named monitor (NATS monitoring) is metrics-only too', yaml: sts() + svc({ pnra: true }) + svc({ name: 'db-metrics', headless: false, pnra: true, ports: '[{name: monitor, port: 8222}]' }) },
    { name: 'metrics-only ClusterIP Service with publishNotReadyAddresses (scraping not-ready pods is wanted)', yaml: sts() + svc({ pnra: true }) + svc({ name: 'db-metrics', headless: false, pnra: true, ports: '[{name: metrics, port: 9100}]' }) },
    { name: 'client Service without publishNotReadyAddresses next to the peer Service', yaml: sts() + svc({ pnra: true }) + svc({ name: 'db-client', headless: false }) },
    { name: 'custom image list', yaml: sts({ image: 'cassandra:4.1' }) + svc(), params: { peerDiscoveryImages: ['^scylla$'] } },
  ],
  invalid: [
    {
      name: 'NodePort over brokers with externalTrafficPolicy Cluster: the advice does not send external callers to the headless twin',
      yaml: perNode({ etp: 'Cluster' }),
      findings: [
        {
          severity: 'warning',
          object: 'Service/rp-external',
          message:
            /as its endpoints are marked ready regardless; its callers may be outside the cluster, where a headless Service cannot reach them \(Service\/rp, headless over the same pods, already publishes not-ready addresses for callers inside it\): if they must reach a particular member .*statefulset\.kubernetes\.io\/pod-name\), or keep one member per node \(required pod anti-affinity on kubernetes\.io\/hostname\) behind externalTrafficPolicy: Local; otherwise remove it here$/,
        },
      ],
    },
    {
      name: 'a LoadBalancer over a Deployment: no per-member advice, no node-per-member advice',
      yaml: perNode({ type: 'LoadBalancer', kind: 'Deployment' }).replace('  serviceName: rp\n', ''),
      findings: [{ severity: 'warning', object: 'Service/rp-external', message: /its callers may be outside the cluster, where a headless Service cannot reach them \(Service\/rp, headless over the same pods, already publishes not-ready addresses for callers inside it\): remove it here$/ }],
    },
    ...[
      ['externalTrafficPolicy Cluster: a node port forwards to any member', { etp: 'Cluster' }],
      ['externalTrafficPolicy unset (Cluster)', { etp: '' }],
      ['a LoadBalancer: its address spreads clients over every node with a member', { type: 'LoadBalancer' }],
      ['only preferred anti-affinity: members can stack on a node', { anti: '{preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: rp}}}}]}' }],
      ['required anti-affinity on the zone, not the node', { anti: '{requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: rp}}}]}' }],
      ['required hostname anti-affinity against other pods only', { anti: '{requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: other}}}]}' }],
      ['required hostname anti-affinity with matchLabelKeys: an old and a new revision can share a node', { anti: '{requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: rp}}, matchLabelKeys: [controller-revision-hash]}]}' }],
      ['required hostname anti-affinity in another namespace', { anti: '{requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, namespaces: [other], labelSelector: {matchLabels: {app: rp}}}]}' }],
      ['a Deployment: its pods have no identity a client would need to reach', { kind: 'Deployment' }],
    ].map(([why, o]) => ({
      name: `NodePort per-node shape not met (${why as string}): still reported`,
      yaml: (perNode(o as Parameters<typeof perNode>[0]) as string).replace('  serviceName: rp\n', (o as { kind?: string }).kind ? '' : '  serviceName: rp\n'),
      findings: [{ severity: 'warning' as const, object: 'Service/rp-external', pointer: '/spec/publishNotReadyAddresses' }],
    })),
    {
      // Review round 19 (bitnami grafana-loki: query-frontend beside query-frontend-headless).
      name: 'publishNotReadyAddresses on a ClusterIP Service with a headless twin that publishes them too: move the callers there first',
      yaml: sts({ image: 'nginx:1' }) + svc({ pnra: true }) + svc({ name: 'db-client', headless: false, pnra: true }),
      findings: [{ severity: 'warning', object: 'Service/db-client', message: 'as its endpoints are marked ready regardless; Service/db, headless over the same pods, already publishes not-ready addresses: first point the callers that need pods before they are Ready at it' }],
    },
    {
      // Review round 18 (cp-helm-charts runs Confluent's cp-server broker image).
      name: "Confluent's cp-server broker image is Kafka: peer discovery before readiness",
      yaml: sts({ image: 'confluentinc/cp-server:7.5.0' }) + svc(),
      findings: [{ severity: 'info', message: 'image confluentinc/cp-server:7.5.0 is a clustered datastore whose members discover each other through this Service' }],
    },
    {
      name: 'one replica of a clustered image has no peer to discover (a standalone RabbitMQ): serviceName on a ClusterIP Service is info, not the peer-discovery warning',
      yaml: sts({ image: 'rabbitmq:3-management' }).replace('replicas: 3', 'replicas: 1') + svc({ headless: false }),
      findings: [{ severity: 'info', pointer: '/spec/serviceName', message: /which is not headless \(it has a cluster IP\): the pods get no per-pod DNS records \(db-0\.db\) from it; if nothing resolves those names \(its clients use Service\/db\), nothing is lost and this can stay; otherwise add a headless Service/ }],
    },
    {
      // Review round 13: bitnami mongodb-sharded's config servers and shards share one headless Service.
      name: 'one headless Service that governs several peer StatefulSets: one info, naming them all',
      yaml: sts() + '---\n' + sts().replace('name: db}', 'name: db-shard}').replace(/app: db/g, 'app: db, part: shard') + svc({ selector: 'app: db' }),
      findings: [{ severity: 'info', pointer: '/spec', object: 'Service/db', message: 'the headless Service of StatefulSet/db and StatefulSet/db-shard does not set publishNotReadyAddresses: true' }],
    },
    {
      name: 'Cassandra headless Service without publishNotReadyAddresses: info on the Service',
      yaml: sts() + svc(),
      findings: [{ severity: 'info', pointer: '/spec', object: 'Service/db', message: 'the headless Service of StatefulSet/db does not set publishNotReadyAddresses: true, but the app needs peer discovery before readiness (image cassandra:4.1' }],
    },
    {
      name: 'explicit publishNotReadyAddresses: false: pointer at the field',
      yaml: sts({ image: 'quay.io/coreos/etcd:v3.5' }) + svc({ pnra: false }),
      findings: [{ severity: 'info', pointer: '/spec/publishNotReadyAddresses' }],
    },
    {
      name: 'hint true on an unknown image',
      yaml: sts({ image: 'example/raft:1', annotations: '"kubegrace.dev/peer-discovery": "true"' }) + svc(),
      findings: [{ severity: 'info', message: 'kubegrace.dev/peer-discovery: "true"' }],
    },
    {
      name: 'publishNotReadyAddresses on a client-facing ClusterIP Service: warning',
      yaml: sts({ image: 'nginx:1' }) + svc() + svc({ name: 'db-client', headless: false, pnra: true }),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/publishNotReadyAddresses',
          object: 'Service/db-client',
          // (Review round 16: appsmith keeps the flag so that another workload's init container reaches the backend before it is Ready.)
          message:
            'publishNotReadyAddresses: true on a Service with a cluster IP (selecting StatefulSet/db): clients are sent to pods that are not Ready (starting, failing their readiness probe, or terminating), as its endpoints are marked ready regardless; remove it here and publish not-ready addresses only on a separate headless peer Service, or, if something must reach the pods before they are Ready (an init container of another workload that waits for them',
        },
      ],
    },
    {
      name: 'the same on vault-helm\'s client Service: info, it lets a sealed Vault be reached to unseal it',
      yaml: sts({ image: 'hashicorp/vault:1.20.4' }) + svc() + svc({ name: 'vault', headless: false, pnra: true }),
      findings: [{ severity: 'info', object: 'Service/vault', message: /clients are sent to Vault pods that are not Ready, sealed ones included .*with auto-unseal \(a KMS or transit seal\) remove it, with manual unsealing keep it$/ }],
    },
    {
      name: 'old tolerate-unready-endpoints annotation (cockroachdb example): does not count, and the finding says why',
      yaml: sts({ image: 'cockroachdb/cockroach:v1.1.0' }) + svc({ annotations: '"service.alpha.kubernetes.io/tolerate-unready-endpoints": "true"' }),
      findings: [
        {
          severity: 'info',
          pointer: '/metadata/annotations/service.alpha.kubernetes.io~1tolerate-unready-endpoints',
          message: 'does not set publishNotReadyAddresses: true (its service.alpha.kubernetes.io/tolerate-unready-endpoints annotation is ignored by the EndpointSlice controller that kube-proxy and CoreDNS read)',
        },
      ],
    },
    {
      // Review round 27 (cetic/nifi): an app the catalog does not know, whose governing Service carries the legacy annotation.
      name: 'the legacy annotation on the governing headless Service of an unknown app: its authors meant not-ready members published, info',
      yaml: sts({ image: 'apache/nifi:1.23.2' }) + svc({ annotations: '"service.alpha.kubernetes.io/tolerate-unready-endpoints": "true"' }),
      findings: [
        {
          severity: 'info',
          pointer: '/metadata/annotations/service.alpha.kubernetes.io~1tolerate-unready-endpoints',
          message: /annotation is ignored by the EndpointSlice controller that kube-proxy and CoreDNS read\), but the app needs peer discovery before readiness \(its legacy annotation says its members are meant to be reached before they are Ready\)/,
        },
      ],
    },
    {
      name: 'serviceName names no Service while a non-headless Service of the set selects the pods (no peer need): info',
      yaml: sts({ image: 'nginx:1', serviceName: 'db-governing' }) + svc({ name: 'db-client', headless: false }),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/serviceName',
          message: /^spec\.serviceName "db-governing" names no Service in the linted set although Service\/db-client in the set selects its pods: .* \(spec\.serviceName cannot be changed on an existing StatefulSet: recreate it, e\.g\. kubectl delete statefulset --cascade=orphan, which keeps the pods, then apply\)$/,
        },
      ],
    },
    {
      name: 'serviceName names a Service that is not headless, app needs peers: warning',
      yaml: sts() + svc({ headless: false }),
      findings: [
        {
          severity: 'warning',
          pointer: '/spec/serviceName',
          object: 'StatefulSet/db',
          message:
            /which is not headless \(it has a cluster IP\): the pods get no per-pod DNS records \(db-0\.db\) from it, yet the app needs peer discovery .*; add a headless Service \(clusterIP: None\) selecting the pods and point serviceName at it \(spec\.serviceName cannot be changed.*\), keeping Service\/db for its clients: made headless itself, it would send them straight to pod addresses with no load balancing$/,
        },
      ],
    },
    {
      // Review round 34, report p47 item C (sonarqube-dce's search nodes: serviceName names the client
      // Service; sq-search-headless publishes not-ready members; ES uses node names and seed hosts).
      name: 'serviceName names a Service with a cluster IP, but a headless sibling that publishes not-ready addresses selects the pods and no per-pod name is used: info naming it',
      yaml: sts({ annotations: '"kubegrace.dev/peer-discovery": "true"', containers: '[{name: db, image: search:1, env: [{name: SEED_HOSTS, value: db-headless}, {name: NODES, value: "db-0,db-1,db-2"}]}]' }) + svc({ headless: false }) + svc({ name: 'db-headless', pnra: true }),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/serviceName',
          message:
            /from it, but the headless Service\/db-headless, which publishes not-ready addresses, selects the pods for the peer discovery the app needs \(kubegrace\.dev\/peer-discovery: "true"\), and nothing in the pod spec names a member by its per-pod DNS name \(db-N\.<service>\); if nothing else resolves those names, nothing is lost and this can stay; otherwise point serviceName at the headless Service\/db-headless, which already selects the pods/,
        },
      ],
    },
    ...[
      ['db-0.db-headless:9300', 'db-0.db-headless'],
      ['$(POD_NAME).db-headless.ns.svc', '$(POD_NAME).db-headless.ns.svc'],
      ['db-${i}.db-headless', 'db-${i}.db-headless'],
    ].map(([value, shown]) => ({
      name: `the same with a per-pod name in the pod spec (${value}): the warning, pointing serviceName at the sibling`,
      yaml: sts({ annotations: '"kubegrace.dev/peer-discovery": "true"', containers: `[{name: db, image: search:1, env: [{name: PEERS, value: "${value}"}]}]` }) + svc({ headless: false }) + svc({ name: 'db-headless', pnra: true }),
      findings: [
        {
          severity: 'warning' as const,
          pointer: '/spec/serviceName',
          message: `yet the app needs peer discovery (kubegrace.dev/peer-discovery: "true"), and the pod spec names a member by its per-pod DNS name (${shown}), which only the Service that serviceName names provides, whatever else selects the pods; point serviceName at the headless Service/db-headless, which already selects the pods`,
        },
      ],
    })),
    {
      name: 'a headless sibling without publishNotReadyAddresses: still the warning, but the advice names it',
      yaml: sts({ annotations: '"kubegrace.dev/peer-discovery": "true"' }) + svc({ headless: false }) + svc({ name: 'db-headless' }),
      findings: [
        { severity: 'warning', object: 'StatefulSet/db', message: 'yet the app needs peer discovery (kubegrace.dev/peer-discovery: "true"); point serviceName at the headless Service/db-headless, which already selects the pods' },
      ],
    },
    {
      name: 'no peer need and a headless sibling: info, the advice names it',
      yaml: sts({ image: 'nginx:1' }) + svc({ headless: false }) + svc({ name: 'db-headless' }),
      findings: [{ severity: 'info', message: 'if nothing resolves those names (its clients use Service/db), nothing is lost and this can stay; otherwise point serviceName at the headless Service/db-headless' }],
    },
    {
      // (Review round 10: spire-server's serviceName is the Service every SPIRE agent dials on 443, targetPort grpc 8081.)
      name: 'serviceName names the client Service, which translates 443 to a named port: the advice keeps it and says why',
      yaml: sts({ image: 'ghcr.io/spiffe/spire-server:1.15.3' }) + svc({ headless: false, ports: '[{name: grpc, port: 443, targetPort: grpc}, {name: http, port: 8080}]' }),
      findings: [
        {
          severity: 'info',
          pointer: '/spec/serviceName',
          message: /keeping Service\/db for its clients: made headless itself, it would send them straight to pod addresses with no load balancing, and port 443 to grpc would no longer be translated \(a headless Service maps no ports: clients would dial port 443 on the pod\)$/,
        },
      ],
    },
    {
      // (Review round 13: fluentd's Service maps 24231 to metrics, which the pods declare as 24231: no translation.)
      name: 'a named targetPort is resolved: the port it names is translated only when its number differs',
      yaml:
        sts({ image: 'ghcr.io/spiffe/spire-server:1.15.3', containers: '[{name: db, image: "ghcr.io/spiffe/spire-server:1.15.3", ports: [{name: grpc, containerPort: 8081}, {name: metrics, containerPort: 9988}]}]' }) +
        svc({ headless: false, ports: '[{name: grpc, port: 443, targetPort: grpc}, {name: metrics, port: 9988, targetPort: metrics}]' }),
      findings: [{ severity: 'info', pointer: '/spec/serviceName', message: /, and port 443 to grpc \(8081\) would no longer be translated \(a headless Service maps no ports: clients would dial port 443 on the pod\)$/ }],
    },
    ...[
      { what: 'named *-admin', name: 'db-admin', labels: '' },
      { what: 'labelled admin', name: 'db-backup', labels: ', labels: {helm.neo4j.com/service: admin}' },
    ].map(({ what, name, labels }) => ({
      // (Review round 10: neo4j's admin Service, "available even if the deployment is not 'ready'", for backups.)
      name: `publishNotReadyAddresses on an admin Service with a cluster IP (${what}): info`,
      yaml: `${sts({ image: 'neo4j:5.17.0' })}${svc()}---
apiVersion: v1
kind: Service
metadata: {name: ${name}${labels}}
spec:
  publishNotReadyAddresses: true
  selector: {app: db}
  ports: [{name: tcp-bolt, port: 7687}]
`,
      findings: [
        {
          severity: 'info' as const,
          object: `Service/${name}`,
          message: /publishNotReadyAddresses: true on an admin Service \((named db-admin|label helm\.neo4j\.com\/service: admin)\) with a cluster IP \(selecting StatefulSet\/db\): it reaches pods that are not Ready .*which suits operations such as backups or repair; keep application clients on another Service/,
        },
      ],
    })),
    {
      name: 'serviceName names a Service that is not headless, no peer need: info',
      yaml: sts({ image: 'otel/opentelemetry-collector-k8s:0.158.0' }) + svc({ headless: false }),
      findings: [{ severity: 'info', pointer: '/spec/serviceName', message: 'which is not headless' }],
    },
    {
      name: 'the typo hint names the headless Service named like serviceName, not a gossip Service that comes first (Tempo\'s live-store and tempo-gossip-ring)',
      yaml: sts({ image: 'nginx:1', serviceName: 'live-store' }) + svc({ name: 'tempo-gossip-ring' }) + svc({ name: 'tempo-live-store' }),
      findings: [{ severity: 'info', pointer: '/spec/serviceName', message: '(the headless Service/tempo-live-store selects its pods: a typo?)' }],
    },
    {
      name: 'serviceName names no Service while a headless Service with another name selects the pods: likely typo',
      yaml: sts({ image: 'nginx:1', serviceName: 'db-headles' }) + svc({ name: 'db-headless' }),
      findings: [{ severity: 'info', pointer: '/spec/serviceName', message: 'spec.serviceName "db-headles" names no Service in the linted set (the headless Service/db-headless selects its pods: a typo?)' }],
    },
    {
      name: 'serviceName names no Service and the app needs peers',
      yaml: sts({ serviceName: 'db-peers' }) + svc({ name: 'db-client', headless: false }),
      findings: [{ severity: 'info', message: 'names no Service in the linted set although Service/db-client in the set selects its pods' }],
    },
    {
      name: 'suppressed on the Service',
      yaml: sts() + svc({ annotations: '"kubegrace.dev/ignore": "headless-publish-not-ready"' }),
      findings: [{ severity: 'info', suppressed: true }],
    },
  ],
});

describe('peer discovery comes from the catalog (lib/catalog/catalog.yaml)', () => {
  const lint = (yaml: string, catalog?: Catalog) =>
    lintSources([{ file: 't.yaml', text: yaml }], { rules: [headlessPublishNotReady], policy: { name: 't', rules: new Map(), customRules: [], catalog }, version: KubeVersion.parse('1.31') }).findings.map((f) => f.severity);
  test('a policy that disables the catalog entry silences the image guess', () => {
    expect(lint(sts() + svc())).toEqual(['info']);
    expect(lint(sts() + svc(), builtinCatalog().withOverride({ disable: ['cassandra'] }))).toEqual([]);
  });
  test('a policy that adds an entry extends it', () => {
    const scylla: CatalogEntry = { id: 'scylla', kind: 'peer-discovery', title: 'ScyllaDB', match: { images: ['*/scylla'] }, why: 'seeds gossip through the headless Service', source: ['scylladb/scylla-operator docs'] };
    expect(lint(sts({ image: 'docker.io/scylladb/scylla:6.2' }) + svc())).toEqual([]);
    expect(lint(sts({ image: 'docker.io/scylladb/scylla:6.2' }) + svc(), builtinCatalog().withOverride({ add: [scylla] }))).toEqual(['info']);
  });
});
