import { Catalog, needsPeerDiscovery, PEER_DISCOVERY_HINT } from '../catalog';
import { Rule } from '../engine/types';
import { ObjectGraph, ServiceView } from '../model/graph';
import { Workload, get } from '../model/workload';
import { annotationPointer, runsVault, servicesSelecting } from './lb-util';
import { antiAffinityTerms, HOSTNAME_KEY, hostPortBindings } from './mesh-util';
import { nameOf } from './util';

/** Hint: the app needs its peers' addresses before it is Ready (`"true"`), or not (`"false"`). */
export { PEER_DISCOVERY_HINT };
/**
 * The pre-1.11 annotation once honoured instead of publishNotReadyAddresses. The EndpointSlice controller,
 * which kube-proxy and CoreDNS read, ignores it (kubernetes/kubernetes#49061 deprecated it): it counts as absent.
 */
export const TOLERATE_UNREADY = 'service.alpha.kubernetes.io/tolerate-unready-endpoints';
/** Labels the StatefulSet controller puts on each pod: a selector on them picks exactly one pod. */
const PER_POD_LABELS = ['statefulset.kubernetes.io/pod-name', 'apps.kubernetes.io/pod-index'];

/** `docker.io/bitnami/kafka:3.7@sha256:...` -> `kafka`. */
export function imageName(image: string): string {
  const noDigest = image.split('@')[0];
  const last = noDigest.slice(noDigest.lastIndexOf('/') + 1);
  const colon = last.indexOf(':');
  return (colon < 0 ? last : last.slice(0, colon)).toLowerCase();
}

function toleratesUnready(s: ServiceView): boolean {
  return s.publishNotReadyAddresses;
}

function legacyAnnotationOnly(s: ServiceView): boolean {
  return !s.publishNotReadyAddresses && s.annotations[TOLERATE_UNREADY]?.trim().toLowerCase() === 'true';
}

function isPerPod(s: ServiceView): boolean {
  return s.selector.kind === 'selector' && s.selector.requirements.some((r) => PER_POD_LABELS.includes(r.key));
}

/**
 * Whether the pods of `w` are held at most one per node: a required pod anti-affinity term on
 * kubernetes.io/hostname whose selector matches the pods' own labels in their own namespace (no
 * matchLabelKeys/mismatchLabelKeys, which narrow it to pods sharing a label value, so an old and a new
 * revision could share a node), or a host port (kube-scheduler's NodePorts filter keeps two pods
 * binding it off one node).
 */
function onePodPerNode(w: Workload): boolean {
  if (hostPortBindings(w).length > 0) return true;
  return antiAffinityTerms(w).some((t) => {
    if (!t.required || !t.selectsOwn || t.topologyKey !== HOSTNAME_KEY) return false;
    const keys = [t.raw.matchLabelKeys, t.raw.mismatchLabelKeys].some((k) => Array.isArray(k) && k.length > 0);
    const names = Array.isArray(t.raw.namespaces) ? t.raw.namespaces : [];
    const nsSel = t.raw.namespaceSelector;
    // (Null/empty namespaces and no namespaceSelector: the pod's own namespace; an empty
    // namespaceSelector: all namespaces; a non-empty one may not match the own namespace.)
    const emptySel = nsSel !== undefined && nsSel !== null && typeof nsSel === 'object' && !Array.isArray(nsSel) && Object.keys(nsSel).length === 0;
    const ownNs = names.includes(w.obj.namespace ?? '') || emptySel || (names.length === 0 && (nsSel === undefined || nsSel === null));
    return !keys && ownNs;
  });
}

/**
 * A NodePort Service with externalTrafficPolicy: Local over one StatefulSet whose pods are held one
 * per node is per-pod in effect: a node port forwards external traffic to node-local endpoints only
 * (kubernetes/website content/en/docs/concepts/services-networking/service.md, "Traffic policies"),
 * so each node's port reaches the one member there, and members that advertise their own
 * node-port address (the redpanda chart's default external access: ADVERTISED_*_ADDRESSES[$POD_ORDINAL],
 * redpanda-operator charts/redpanda/secrets.go) must be reached whatever their readiness, like the
 * chart's per-pod LoadBalancer Services. (Not a LoadBalancer: its address spreads clients over every
 * node with a local endpoint, Ready or not; nor a Deployment, whose pods have no identity of their own
 * that a client would need to reach.)
 */
function perNodePort(s: ServiceView, ws: Workload[]): boolean {
  return s.type === 'NodePort' && s.externalTrafficPolicy === 'Local' && ws.length === 1 && ws[0].kind === 'StatefulSet' && onePodPerNode(ws[0]);
}

const CLUSTERED = 'is a clustered datastore whose members discover each other through this Service';

/**
 * Why the app needs peer discovery before readiness, or undefined: the hint, else the catalog's
 * peer-discovery entries (lib/catalog/catalog.yaml), or instead the param's regexes when a policy sets them.
 */
function peerNeed(w: Workload, catalog: Catalog, patterns: RegExp[] | undefined): string | undefined {
  const hint = w.annotations[PEER_DISCOVERY_HINT]?.trim().toLowerCase();
  if (hint === 'false') return undefined;
  if (hint === 'true') return `${PEER_DISCOVERY_HINT}: "true"`;
  // (The image guess: one replica, as written, has no peer to discover; a standalone RabbitMQ or
  // MongoDB. A StatefulSet scaled by an HPA is rare; spec.replicas is what the manifest says.)
  if (w.replicas !== undefined && w.replicas <= 1) return undefined;
  if (patterns) {
    for (const c of w.containers) {
      const name = imageName(c.image);
      if (patterns.some((p) => p.test(name))) return `image ${c.image} ${CLUSTERED}`;
    }
    return undefined;
  }
  const r = needsPeerDiscovery(w, catalog);
  return r.need && r.container ? `image ${r.container.image} ${CLUSTERED}` : undefined;
}

function pnraPointer(s: ServiceView): string {
  if (s.publishNotReadyAddresses) return '/spec/publishNotReadyAddresses';
  if (legacyAnnotationOnly(s)) return annotationPointer(TOLERATE_UNREADY);
  return get(s.obj.raw, 'spec', 'publishNotReadyAddresses') !== undefined ? '/spec/publishNotReadyAddresses' : '/spec';
}

function servicesNamed(g: ObjectGraph, w: Workload, name: string): ServiceView | undefined {
  return g.serviceNamed(w.obj.namespace, name);
}

/** StatefulSet spec fields other than replicas, template, updateStrategy, ordinals, minReadySeconds and the PVC retention policy cannot be updated. */
/**
 * The ports a Service translates (port to a different targetPort), as a clause: a headless Service
 * does no translation, so its clients would dial the port on the pod address (review round 10:
 * spire-server's 443 to grpc 8081, which every SPIRE agent dials).
 */
function translatedPorts(svc: ServiceView, w: Workload): string {
  // A named targetPort is the number the pods declare under that name (fluentd's metrics port 24231
  // is containerPort 24231 named metrics: no translation; review round 13).
  const resolve = (tp: number | string, protocol: string): number | string =>
    typeof tp === 'number' ? tp : ([...w.containers, ...w.sidecars].flatMap((c) => c.ports).find((x) => x.name === tp && x.protocol === protocol)?.containerPort ?? tp);
  const moved = svc.ports.filter((p) => p.port !== undefined && p.targetPort !== undefined && resolve(p.targetPort, p.protocol) !== p.port);
  if (!moved.length) return '';
  const list = moved.map((p) => `${p.port} to ${p.targetPort}${typeof p.targetPort === 'string' && resolve(p.targetPort, p.protocol) !== p.targetPort ? ` (${resolve(p.targetPort, p.protocol)})` : ''}`).join(', ');
  return `, and port${moved.length === 1 ? '' : 's'} ${list} would no longer be translated (a headless Service maps no ports: clients would dial ${moved.length === 1 ? `port ${moved[0].port}` : 'those ports'} on the pod)`;
}

/** Why a Service is an admin or operations one (its name, or a label value), else undefined. */
function isAdminService(s: ServiceView): string | undefined {
  const word = /(^|[-_.])(admin|ops|management|maintenance)$/i;
  if (word.test(s.obj.name)) return `named ${s.obj.name}`;
  const labels = get(s.obj.raw, 'metadata', 'labels');
  if (labels && typeof labels === 'object' && !Array.isArray(labels)) {
    for (const [k, v] of Object.entries(labels)) if (typeof v === 'string' && /^(admin|ops|management|maintenance)$/i.test(v)) return `label ${k}: ${v}`;
  }
  return undefined;
}

/**
 * Another headless Service that selects the StatefulSet's pods, for a serviceName that names one with
 * a cluster IP: one that publishes not-ready addresses first, then one over this workload alone.
 */
function headlessSibling(g: ObjectGraph, w: Workload, svc: ServiceView): ServiceView | undefined {
  const hs = servicesSelecting(g, w).filter((s) => s !== svc && s.headless);
  return hs.find((s) => toleratesUnready(s) && g.workloadsFor(s).length === 1) ?? hs.find(toleratesUnready) ?? hs.find((s) => g.workloadsFor(s).length === 1) ?? hs[0];
}

/** Every string in a JSON value (the pod spec's env values, commands, args...). */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
}

/**
 * A string in the pod spec that names a member by its per-pod DNS name, which only the governing
 * (serviceName) Service's records provide (a pod gets a hostname.subdomain record only "if there
 * exists a headless Service in the same namespace as the Pod, with the same name as the subdomain",
 * kubernetes.io/docs/concepts/services-networking/dns-pod-service/, and the StatefulSet controller
 * sets the subdomain to serviceName): `<sts>-<n>.<svc>` (an ordinal, or a shell or env variable in
 * its place), `$(POD_NAME).<svc>` / `${HOSTNAME}.<svc>`, `$(hostname).`, or `hostname -f` (the pod's
 * FQDN, under its subdomain). Undefined when none does (sonarqube-dce's search nodes give node names
 * and a seed-hosts Service; review round 34, report p47 item C).
 */
function perPodNameReference(w: Workload): string | undefined {
  const esc = w.obj.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const patterns = [
    new RegExp(`(^|[^a-z0-9-])${esc}-(\\d+|\\$\\(\\w+\\)|\\$\\{\\w+\\}|\\$\\w+|\\{\\{[^}]*\\}\\})\\.[a-z0-9$]`, 'i'),
    /\$[({]?\w*(HOSTNAME|POD_?NAME)\w*[)}]?\.[a-z0-9$]/i,
    /\$\(hostname\)\.[a-z0-9$]/i,
    /\bhostname (-f|--fqdn)\b/,
  ];
  for (const x of strings(w.podSpec)) {
    for (const re of patterns) {
      const m = re.exec(x);
      if (m) {
        const from = m.index + (/^[a-z0-9$]/i.test(m[0]) ? 0 : 1);
        return /^[\w$(){}.-]+(?: (?:-f|--fqdn))?/.exec(x.slice(from))?.[0];
      }
    }
  }
  return undefined;
}

const SERVICE_NAME_IMMUTABLE = 'spec.serviceName cannot be changed on an existing StatefulSet: recreate it, e.g. kubectl delete statefulset --cascade=orphan, which keeps the pods, then apply';

export const headlessPublishNotReady: Rule = {
  meta: {
    id: 'headless-publish-not-ready',
    spec: 'SVC-002',
    defaultSeverity: 'info',
    severities: ['info', 'warning'],
    description: 'StatefulSet peer discovery without publishNotReadyAddresses; publishNotReadyAddresses on a client-facing Service; serviceName names no headless Service',
    doc: `A StatefulSet's pods get stable DNS names (\`web-0.web.ns.svc\`) from the **headless** Service (\`clusterIP: None\`)
named by \`spec.serviceName\`. By default that Service publishes only Ready pods, so a clustered app whose members must
find each other **before** they are Ready (to form a quorum, gossip, elect a leader) cannot bootstrap or recover after
a full restart. \`publishNotReadyAddresses: true\` publishes them regardless of readiness, which is right for the
peer Service and wrong for a Service that clients use: not-ready pods then receive requests.

**Conditions:**

- **info:** the headless Service named by a StatefulSet's \`serviceName\` has no \`publishNotReadyAddresses: true\`
  while the app needs peer discovery before readiness. The legacy annotation \`${TOLERATE_UNREADY}: "true"\`
  does not count: the EndpointSlice controller, which kube-proxy and CoreDNS read, ignores it
  (kubernetes/kubernetes#49061 deprecated it), and the finding says so; it does say what the Service's authors
  meant, so a governing Service that carries it counts as needing peer discovery whatever the app (cetic's NiFi
  chart). Otherwise the app needs peer discovery when
  the pod template or StatefulSet carries \`${PEER_DISCOVERY_HINT}: "true"\`, or a main container runs a known clustered
  datastore: the peer-discovery entries of the catalog of well-known workloads ([docs/catalog.md](../catalog.md):
  Cassandra, CockroachDB, etcd, ZooKeeper, Kafka, Elasticsearch/OpenSearch, Redis Cluster/Sentinel images, MongoDB,
  Consul, NATS, RabbitMQ; a policy adds or disables entries in \`spec.catalog\`), when it runs more than one replica (a
  single member, such as a standalone RabbitMQ, has no peer to discover). The param \`peerDiscoveryImages\`
  (regexes on the image name without registry and tag), when a policy sets it, replaces the catalog's list.
  \`${PEER_DISCOVERY_HINT}: "false"\` turns the image guess off. Not reported when another Service selecting the
  pods already publishes not-ready addresses (e.g. per-pod "announce" Services, as the redis-ha chart uses).
- **warning:** \`publishNotReadyAddresses: true\` on a Service that clients use: one with a cluster IP (not headless)
  and a selector. Not reported for per-pod Services (selector on \`statefulset.kubernetes.io/pod-name\` or
  \`apps.kubernetes.io/pod-index\`: there is no other endpoint to prefer), nor for a \`NodePort\` Service with
  \`externalTrafficPolicy: Local\` over a single StatefulSet held one pod per node (a required pod anti-affinity on
  \`kubernetes.io/hostname\` selecting its own pods in their namespace, without \`matchLabelKeys\`, or a host
  port): a node port then forwards only to the member on that node, so each node's port addresses one member,
  as members advertising their own node-port address expect (the redpanda chart's default external access);
  a \`LoadBalancer\` Service is still reported, its address spreads clients over the members. Nor for
  metrics-only Services (scraping not-ready pods is wanted). On a \`NodePort\` or \`LoadBalancer\` Service the advice
  does not send the callers to a headless Service, which callers outside the cluster cannot use: over StatefulSet
  members it names per-member Services (or, for a \`NodePort\`, one member per node behind
  \`externalTrafficPolicy: Local\`) for clients that must reach a given member, else removing the flag.
  A headless peer Service with it is correct and never reported. **info** when the Service selects only Vault pods: vault-helm sets it on purpose, so that a sealed or uninitialised Vault (which
  fails the chart's readiness probe) can be reached through the Service to init and unseal it; it is needed only
  without auto-unseal. **info** too for an admin or operations Service (named \`*-admin\`, \`*-ops\`, \`*-management\`
  or \`*-maintenance\`, or labelled with one of those words as a value): reaching pods that are not Ready is its point
  (the neo4j chart's admin Service, "available even if the deployment is not 'ready'", for backups), and clients use
  another Service.
- \`serviceName\` names a Service that is not headless: the pods get no per-pod DNS records. **warning** when the app
  needs peer discovery (as above), else **info**: many apps (e.g. the OpenTelemetry Collector chart's StatefulSet mode)
  never use their pods' DNS names, and nothing is lost. When another headless Service already selects the pods, the
  advice is to point \`serviceName\` at it rather than to add one; and **info** instead of the warning when that
  Service publishes not-ready addresses and nothing in the pod spec names a member by its per-pod DNS name
  (\`<sts>-N.<svc>\`, with an ordinal or a variable, \`$(POD_NAME).<svc>\`, \`$(hostname).\`, \`hostname -f\`): the
  members then find each other through that Service, and only the per-pod records, which the Service named by
  \`serviceName\` alone provides, are missing (sonarqube-dce's search nodes: node names and a seed-hosts Service).
- **info:** \`serviceName\` names no Service in the set, while the set holds Services in the namespace and either
  some of them select the StatefulSet's pods (the app's Services are in the set, so the governing one is missing or
  misnamed) or the app needs peer discovery. Skipped when no Service selects the pods and no peer discovery is
  needed: the Service may come from elsewhere, and many StatefulSets never use their pods' DNS names.

**Fix:** use two Services: a headless peer Service with \`publishNotReadyAddresses: true\` (named by
\`serviceName\`), and a normal client Service without it:

\`\`\`yaml
apiVersion: v1
kind: Service
metadata: {name: db-peers}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
  selector: {app: db}
  ports: [{name: peer, port: 7000}]
---
apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  selector: {app: db}
  ports: [{name: client, port: 9042}]
\`\`\``,
    fixable: false,
    paramsSchema: {
      type: 'object',
      properties: { peerDiscoveryImages: { type: 'array', items: { type: 'string' }, description: 'replaces the catalog peer-discovery entries when set' } },
      additionalProperties: false,
    },
    references: [
      'kubernetes/kubernetes staging/src/k8s.io/api/core/v1/types.go (ServiceSpec.publishNotReadyAddresses)',
      'kubernetes/website content/en/docs/concepts/workloads/controllers/statefulset.md#stable-network-id',
    ],
  },
  check(ctx) {
    const g = ctx.graph;
    const raw = Array.isArray(ctx.params.peerDiscoveryImages) ? (ctx.params.peerDiscoveryImages as unknown[]) : undefined;
    const patterns = raw?.filter((x): x is string => typeof x === 'string').map((x) => new RegExp(x, 'i'));
    const peerless = new Map<ServiceView, { ws: Workload[]; need: string }>();
    for (const w of g.workloads) {
      if (w.kind !== 'StatefulSet') continue;
      const serviceName = get(w.obj.raw, 'spec', 'serviceName');
      if (typeof serviceName !== 'string' || serviceName === '') continue;
      const need = peerNeed(w, ctx.catalog, patterns);
      const svc = servicesNamed(g, w, serviceName);
      if (!svc) {
        if (!g.servicesIn(w.obj.namespace).length) continue;
        const selecting = servicesSelecting(g, w);
        // (Among the headless Services: one named like serviceName (tempo-live-store for live-store), then
        // one of this workload alone, before one shared by many, like Tempo's gossip ring.)
        const headless = selecting.filter((s) => s.headless);
        const other =
          headless.find((s) => s.obj.name.includes(serviceName)) ??
          headless.find((s) => g.workloadsFor(s).length === 1) ??
          headless.find((s) => serviceName.includes(s.obj.name)) ??
          headless[0] ??
          selecting[0];
        if (!other && !need) continue;
        ctx.report({
          object: w.obj,
          pointer: '/spec/serviceName',
          severity: 'info',
          message: `spec.serviceName "${serviceName}" names no Service in the linted set${other ? (other.headless ? ` (the headless Service/${other.obj.name} selects its pods: a typo?)` : ` although Service/${other.obj.name} in the set selects its pods`) : ` (and ${need})`}: without that headless Service the pods get no stable DNS names (${w.obj.name}-0.${serviceName}); create it, or set serviceName to the headless Service that selects the pods (${SERVICE_NAME_IMMUTABLE})`,
          absence: true,
        });
        continue;
      }
      if (!svc.headless) {
        // A headless Service that already selects the pods (sonarqube-dce's search nodes: serviceName
        // names the client Service, sq-search-headless publishes not-ready members for discovery):
        // the advice points serviceName at it rather than asking for a new one, and when it publishes
        // not-ready addresses and nothing in the pod spec names a member by its per-pod DNS name, the
        // members find each other through it, and only those names are missing: info (review round
        // 34, report p47 item C).
        const sibling = headlessSibling(g, w, svc);
        const perPod = sibling && need ? perPodNameReference(w) : undefined;
        const covered = !!sibling && !!need && toleratesUnready(sibling) && !perPod;
        const fix = sibling
          ? `point serviceName at the headless Service/${sibling.obj.name}, which already selects the pods (${SERVICE_NAME_IMMUTABLE})`
          : `add a headless Service (clusterIP: None) selecting the pods and point serviceName at it (${SERVICE_NAME_IMMUTABLE})`;
        const keep = `keeping Service/${svc.obj.name} for its clients: made headless itself, it would send them straight to pod addresses with no load balancing${translatedPorts(svc, w)}`;
        const noRecords = `spec.serviceName names Service/${svc.obj.name}, which is not headless (it has a cluster IP): the pods get no per-pod DNS records (${w.obj.name}-0.${serviceName}) from it`;
        ctx.report({
          object: w.obj,
          pointer: '/spec/serviceName',
          severity: need && !covered ? 'warning' : 'info',
          message: covered
            ? `${noRecords}, but the headless Service/${sibling!.obj.name}, which publishes not-ready addresses, selects the pods for the peer discovery the app needs (${need}), and nothing in the pod spec names a member by its per-pod DNS name (${w.obj.name}-N.<service>); if nothing else resolves those names, nothing is lost and this can stay; otherwise ${fix}, ${keep}`
            : `${noRecords}${need ? `, yet the app needs peer discovery (${need})${perPod ? `, and the pod spec names a member by its per-pod DNS name (${perPod}), which only the Service that serviceName names provides, whatever else selects the pods` : ''}` : ''}; ${need ? '' : `if nothing resolves those names (its clients use Service/${svc.obj.name}), nothing is lost and this can stay; otherwise `}${fix}, ${keep}`,
        });
        continue;
      }
      // The legacy annotation on the governing Service says its authors meant not-ready members to be
      // published (cetic/nifi: members give their per-pod name as their cluster address; review round
      // 27), whether or not the app is known to need it.
      const needed = need ?? (legacyAnnotationOnly(svc) ? "its legacy annotation says its members are meant to be reached before they are Ready" : undefined);
      if (!needed || toleratesUnready(svc)) continue;
      const peer = servicesSelecting(g, w).find((s) => s !== svc && toleratesUnready(s));
      if (peer) continue;
      // Said once per Service: one headless Service may govern several StatefulSets (bitnami
      // mongodb-sharded's config servers and shards, review round 13).
      const e = peerless.get(svc);
      if (e) e.ws.push(w);
      else peerless.set(svc, { ws: [w], need: needed });
    }
    for (const [svc, { ws, need }] of peerless) {
      const names = ws.map(nameOf);
      const of = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
      ctx.report({
        object: svc.obj,
        pointer: pnraPointer(svc),
        severity: 'info',
        message: `Service/${svc.obj.name}: the headless Service of ${of} does not set publishNotReadyAddresses: true${legacyAnnotationOnly(svc) ? ` (its ${TOLERATE_UNREADY} annotation is ignored by the EndpointSlice controller that kube-proxy and CoreDNS read)` : ''}, but the app needs peer discovery before readiness (${need}): members that are not Ready yet are not in DNS, so the cluster may fail to bootstrap or to recover after a full restart; set publishNotReadyAddresses: true on this peer Service and keep clients on a separate Service without it`,
      });
    }
    for (const s of g.services) {
      if (!toleratesUnready(s) || s.headless || s.type === 'ExternalName' || s.selector.kind !== 'selector') continue;
      if (isPerPod(s) || s.metricsOnly) continue;
      const ws = g.workloadsFor(s);
      if (perNodePort(s, ws)) continue;
      const field = 'publishNotReadyAddresses: true';
      const selecting = ws.length ? ` (selecting ${ws.map(nameOf).join(', ')})` : '';
      // Vault: a sealed or uninitialised server fails vault-helm's readiness probe (`vault status`
      // exits 2) and must still be reachable to init and unseal it: the chart sets the flag on purpose.
      const vault = ws.length > 0 && ws.every(runsVault);
      // An admin or operations Service (neo4j's `<release>-admin`, "available even if the deployment is
      // not ready", for backups): reaching pods that are not Ready is its point, and clients use
      // another Service (review round 10).
      const admin = !vault && isAdminService(s);
      // A headless twin over the same pods that already publishes them (Loki's query-frontend and
      // query-frontend-headless): the callers that need not-ready pods move there first (Loki's v1
      // queriers connect through the client Service, and the frontend is Ready only once one has;
      // review round 19).
      const twin = g.servicesIn(s.obj.namespace).find((t) => t !== s && t.headless && toleratesUnready(t) && ws.length > 0 && g.workloadsFor(t).length === ws.length && ws.every((w) => g.workloadsFor(t).includes(w)));
      // A NodePort or LoadBalancer Service may serve callers outside the cluster, which a headless
      // Service cannot reach (review round 33, report p41: redpanda's external Service).
      const external = s.type === 'NodePort' || s.type === 'LoadBalancer';
      const members = ws.length > 0 && ws.every((w) => w.kind === 'StatefulSet');
      const advice = external
        ? `its callers may be outside the cluster, where a headless Service cannot reach them${twin ? ` (Service/${twin.obj.name}, headless over the same pods, already publishes not-ready addresses for callers inside it)` : ''}: ${members ? `if they must reach a particular member whatever its readiness (clients that follow per-member advertised addresses, as Kafka's do), give each member its own Service (a selector on statefulset.kubernetes.io/pod-name)${s.type === 'NodePort' ? ', or keep one member per node (required pod anti-affinity on kubernetes.io/hostname) behind externalTrafficPolicy: Local' : ''}; otherwise ` : ''}remove it here`
        : twin
          ? `Service/${twin.obj.name}, headless over the same pods, already publishes not-ready addresses: first point the callers that need pods before they are Ready at it (a component configured with this Service's name, such as Loki's queriers with frontend_address, whose query-frontend turns Ready only once a querier has connected), then remove it here`
          : "remove it here and publish not-ready addresses only on a separate headless peer Service, or, if something must reach the pods before they are Ready (an init container of another workload that waits for them, as appsmith's rts waits for its backend), on a separate Service for that caller";
      ctx.report({
        object: s.obj,
        pointer: pnraPointer(s),
        severity: vault || admin ? 'info' : 'warning',
        message: vault
          ? `Service/${s.obj.name}: ${field} on a Service with a cluster IP${selecting}: clients are sent to Vault pods that are not Ready, sealed ones included (they answer 503), as its endpoints are marked ready regardless; vault-helm sets it so that a sealed or uninitialised Vault, which fails its readiness probe, can be reached through the Service to init and unseal it: with auto-unseal (a KMS or transit seal) remove it, with manual unsealing keep it`
          : admin
            ? `Service/${s.obj.name}: ${field} on an admin Service (${admin}) with a cluster IP${selecting}: it reaches pods that are not Ready (starting, failing their readiness probe, or terminating), which suits operations such as backups or repair; keep application clients on another Service, and remove it here if they use this one`
            : `Service/${s.obj.name}: ${field} on a Service with a cluster IP${selecting}: clients are sent to pods that are not Ready (starting, failing their readiness probe, or terminating), as its endpoints are marked ready regardless; ${advice}`,
      });
    }
  },
};
