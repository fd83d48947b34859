import { Rule, RuleContext } from '../engine/types';
import { METRICS_PORT, notClientPort, ObjectGraph, OPERATOR_PORT, OPERATOR_SERVICE_NAME, ServicePort, ServiceView } from '../model/graph';
import { matches, Selector, stringMap } from '../model/selector';
import { ContainerView, get, Workload } from '../model/workload';
import { helmAnnotationList, passingHelmHook, namespaceHasWorkloads, selectedWorkloads } from './lb-util';
import { isObject, KObject } from '../model/types';
import { isCustomResource, nsPhrase, operatorResourcesFor, operatorWorkload, memberGroup } from './rollout-util';
import { flowValue, nameOf } from './util';
import { envFromVars, namedListenPort } from '../model/listen-ports';
import { apiServerCalls } from '../model/webhook-calls';
import { closest as closestName, editDistance } from '../engine/suggest';

/** The first of each controller's owned workloads (pods of one ReplicaSet share their template). */
function oneEach(ws: Workload[]): Workload[] {
  const seen = new Set<string | undefined>();
  return ws.filter((w) => !seen.has(w.ownedBy) && (seen.add(w.ownedBy), true));
}

function selectorText(sel: Selector): string {
  if (sel.kind !== 'selector') return '{}';
  return `{${sel.requirements.map((r) => `${r.key}: ${flowValue(r.values[0])}`).join(', ')}}`;
}

/**
 * The workload in the namespace whose template labels agree with the most selector pairs, with the
 * pairs that differ. A StatefulSet whose spec.serviceName names the Service is the one it is meant
 * for, and comes first (bitnami/concourse's worker Service: its web Deployment misses by one label too).
 */
function closest(g: ObjectGraph, s: ServiceView): { w: Workload; diff: string[] } | undefined {
  if (s.selector.kind !== 'selector') return undefined;
  const governed = governedStatefulSets(g, s);
  return closestOf(s, governed) ?? closestOf(s, g.workloadsIn(s.obj.namespace));
}

function closestOf(s: ServiceView, ws: readonly Workload[]): { w: Workload; diff: string[] } | undefined {
  if (s.selector.kind !== 'selector') return undefined;
  let best: { w: Workload; diff: string[]; hits: number } | undefined;
  for (const w of ws) {
    if ((w.obj.namespace ?? '') !== (s.obj.namespace ?? '')) continue;
    const diff: string[] = [];
    let hits = 0;
    for (const r of s.selector.requirements) {
      const v = w.templateLabels[r.key];
      if (v === r.values[0]) hits++;
      else diff.push(v === undefined ? `${r.key} is not a template label` : `${r.key}: ${v} in the template`);
    }
    if (hits > 0 && (!best || hits > best.hits)) best = { w, diff, hits };
  }
  return best && { w: best.w, diff: best.diff };
}

/** Selector keys that name the instance of an app (the recommended label, a chart's own `instance` or Helm's `release`). */
const INSTANCE_KEY = /^(release|instance|[\w.-]+\/instance)$/;
/** Selector keys that name a component of an app (`app.kubernetes.io/component`, `component`). */
const COMPONENT_KEY = /(^|\/)component$/;
/** Spec fields that size or image pods: a custom resource with one describes pods its operator makes. */
const POD_FIELD = /^(replicas|instances|members|size|clusterSize|image)$/;

function describesPods(v: unknown, depth: number): boolean {
  if (depth <= 0) return false;
  if (Array.isArray(v)) return v.some((x) => describesPods(x, depth - 1));
  if (!isObject(v)) return false;
  return Object.entries(v).some(([k, x]) => (POD_FIELD.test(k) && (typeof x === 'number' || typeof x === 'string')) || describesPods(x, depth - 1));
}

/**
 * A custom resource of the namespace whose operator makes the pods a Service selects, for a
 * selector no workload of the input matches: the resource describes pods (a replicas, size or
 * image field in its spec) and either its name is the selector's instance label (tidb-operator
 * labels the pods of TidbCluster/demo `app.kubernetes.io/instance: demo`, or the resource's own
 * instance label when it has one: TidbCluster.GetInstanceName), or its own labels match every
 * selector pair but the component (the tidb-cluster chart labels the TidbCluster `component:
 * tidb-cluster`, the operator its pods `component: tidb`; pingcap/tidb-operator @v1.5.5
 * pkg/apis/label/label.go New(), Instance(), TiDB(); pkg/manager/member/tidb_member_manager.go
 * getNewTiDBSetForTidbCluster, `label.New().Instance(instanceName).TiDB()` as the pod labels;
 * review round 34, report p50 item 5). prometheus-operator's resources are not guessed: the
 * labels of their pods are known (operatorResourcesFor).
 */
function operatorOwner(g: ObjectGraph, s: ServiceView): KObject | undefined {
  if (s.selector.kind !== 'selector') return undefined;
  const reqs = s.selector.requirements.filter((r) => r.operator === 'In' && r.values.length === 1);
  if (reqs.length !== s.selector.requirements.length) return undefined;
  const instance = reqs.find((r) => INSTANCE_KEY.test(r.key))?.values[0];
  const rest = reqs.filter((r) => !COMPONENT_KEY.test(r.key));
  const componentOnly = rest.length > 0 && rest.length < reqs.length;
  for (const o of g.objects) {
    if ((o.namespace ?? '') !== (s.obj.namespace ?? '') || !isCustomResource(o) || operatorWorkload(o) || !describesPods(o.raw.spec, 6)) continue;
    if (instance !== undefined && o.name === instance) return o;
    const own = stringMap(get(o.raw, 'metadata', 'labels'));
    if (componentOnly && rest.every((r) => own[r.key] === r.values[0])) return o;
  }
  return undefined;
}

/**
 * A workload of the namespace that carries every selector pair but one, whose value is a typo of
 * the selector's (`component: discovry` for `discovery`): the Service is meant for it, whatever
 * custom resource shares its instance.
 */
function typoOfWorkload(g: ObjectGraph, s: ServiceView): boolean {
  if (s.selector.kind !== 'selector') return false;
  const reqs = s.selector.requirements;
  return g.workloadsIn(s.obj.namespace).some((w) => {
    if ((w.obj.namespace ?? '') !== (s.obj.namespace ?? '')) return false;
    const off = reqs.filter((r) => w.templateLabels[r.key] !== r.values[0]);
    return off.length === 1 && w.templateLabels[off[0].key] !== undefined && closestName(off[0].values[0], [w.templateLabels[off[0].key]]) !== undefined;
  });
}

/** Names of StatefulSets in the set whose spec.serviceName is this Service. */
function governedStatefulSets(g: ObjectGraph, s: ServiceView): Workload[] {
  return g.workloadsIn(s.obj.namespace).filter(
    (w) => w.kind === 'StatefulSet' && (w.obj.namespace ?? '') === (s.obj.namespace ?? '') && get(w.obj.raw, 'spec', 'serviceName') === s.obj.name,
  );
}

function portsOf(ws: Workload[]): { w: Workload; c: ContainerView }[] {
  return ws.flatMap((w) => [...w.containers, ...w.sidecars].map((c) => ({ w, c })));
}

function declared(ws: Workload[]): string {
  const parts: string[] = [];
  for (const { c } of portsOf(ws)) {
    for (const p of c.ports) parts.push(`${p.name ? `${p.name} ` : ''}${p.containerPort}/${p.protocol}`);
  }
  return parts.length ? [...new Set(parts)].join(', ') : 'no ports';
}

/** Port names of side endpoints (metrics, diagnostics, health, admin, probes): not the ports a Service serves. */
function auxPort(name: string): boolean {
  return METRICS_PORT.test(name) || OPERATOR_PORT.test(name);
}

/**
 * The containers declare only side ports (all named, all auxiliary): they evidently do not declare
 * their serving ports, so an undeclared targetPort says nothing about a typo (istio gateways,
 * Teleport: a metrics or diag port is the only one declared).
 */
function onlyAuxiliaryDeclared(all: { c: ContainerView }[]): boolean {
  const ports = all.flatMap(({ c }) => c.ports);
  return ports.length > 0 && ports.every((p) => p.name !== undefined && auxPort(p.name));
}

/** Label keys that mark versions or tracks of one app (the canary pattern of the Kubernetes docs, Istio subsets). */
const VERSION_KEY = /(^|\/)(version|track|canary|variant|stage)$/;

/** A version-like label that every matched template carries with a different value: an intended version split. */
function versionSplit(ws: Workload[]): string | undefined {
  const keys = Object.keys(ws[0].templateLabels).filter((k) => VERSION_KEY.test(k));
  return keys.find((k) => {
    const values = ws.map((w) => w.templateLabels[k]);
    return values.every((v) => v !== undefined) && new Set(values).size === values.length;
  });
}

/**
 * Whether `w` is the canary of `other`: it is named `<other>-canary`, or its template carries the
 * value `canary` under a key where `other`'s does not (emissary-ingress's chart: `profile: canary`
 * beside `profile: main`, the Deployment `emissary-canary` beside `emissary`; review round 30).
 */
function canaryOf(w: Workload, other: Workload): boolean {
  if (w.obj.name === `${other.obj.name}-canary`) return true;
  return Object.entries(w.templateLabels).some(([k, v]) => v.toLowerCase() === 'canary' && other.templateLabels[k]?.toLowerCase() !== 'canary');
}

/**
 * One workload and its canaries (canaryOf): a Service over both is the canary pattern whatever the
 * label key (emissary's `canary.mixPods: true`, "allows for requests to the main ambassador to hit
 * either the pods from the main deployment or the canary deployment", charts/emissary-ingress
 * values.yaml). Undefined when more than one workload is no canary of another.
 */
function canarySplit(ws: Workload[]): Workload | undefined {
  const mains = ws.filter((w) => !ws.some((o) => o !== w && canaryOf(w, o)));
  return mains.length === 1 ? mains[0] : undefined;
}

/** Port names that say TLS (`https`, `tls`, `ssl`, `grpcs`, `wss`, also as a part: `https-api`, `tcp-ssl`). */
const TLS_NAME = /(^|[-_])(https|tls|ssl|grpcs|wss|mtls)($|[-_])/i;
/**
 * Port numbers that say TLS: HTTPS's 443 and its conventional 8443, controller-runtime's webhook
 * 9443, the API server's 6443, Neo4j's HTTPS connector 7473 (HttpsConnector.DEFAULT_PORT).
 */
const TLS_NUMBER = new Set([443, 6443, 7473, 8443, 9443]);

/**
 * What says a Service port speaks TLS to the pods, or undefined: its targetPort number, or its name
 * unless a cloud load balancer terminates TLS before the Service (an annotation naming a
 * certificate: AWS's `service.beta.kubernetes.io/aws-load-balancer-ssl-cert`), whose backends speak
 * plaintext.
 */
function tlsSaid(s: ServiceView, sp: ServicePort, tp: number): string | undefined {
  const annotations = get(s.obj.raw, 'metadata', 'annotations');
  const terminated = isObject(annotations) && Object.keys(annotations).some((k) => /ssl-cert|tls-cert|certificate/i.test(k));
  if (sp.name !== undefined && TLS_NAME.test(sp.name) && !terminated) return `its name "${sp.name}"`;
  return TLS_NUMBER.has(tp) ? `its number ${tp}` : undefined;
}

/**
 * Whether a declared port plausibly is the one a TLS Service port meant: the same name as the Service
 * port, or a name or number that says TLS too (then a wrong number is a typo or a stale port).
 */
function tlsTargetDeclared(all: { c: ContainerView }[], sp: ServicePort): boolean {
  return all.some(({ c }) => c.ports.some((p) => p.protocol === sp.protocol && ((p.name !== undefined && (p.name === sp.name || TLS_NAME.test(p.name))) || TLS_NUMBER.has(p.containerPort))));
}

function portLabel(sp: ServicePort): string {
  return sp.name !== undefined ? `port "${sp.name}" (${sp.port ?? '?'})` : `port ${sp.port ?? '?'}`;
}

/** When the endpoints mix: always, also during rollouts; with batch workloads, while their pods run. */
function mixWhen(ws: Workload[]): string {
  const batch = ws.filter((w) => w.isBatch);
  if (!batch.length) return ', also while either rolls out';
  const lasting = ws.length - batch.length;
  const names = batch.map((w) => `${w.kind}/${w.obj.name}`).join(', ');
  return ` while the pods of ${names} run (a Job's pods are endpoints until they complete)${lasting > 1 ? ', and those of the others always, also while either rolls out' : ''}`;
}

/**
 * A Helm hook whose pods never share a live Service with the release's pods: a test hook (it runs only
 * under `helm test`), or a hook of no phase but pre-install (the release's Service is created after it),
 * unless it serves for good (servingHelmHook: a pre-install StatefulSet that Helm never deletes).
 */
function whileNoTraffic(o: KObject): boolean {
  if (!passingHelmHook(o)) return false;
  const phases = helmAnnotationList(o, 'helm.sh/hook');
  return phases.length > 0 && phases.every((x) => x === 'pre-install' || x === 'crd-install' || x.startsWith('test'));
}

export const serviceSelectorPorts: Rule = {
  meta: {
    id: 'service-selector-ports',
    spec: 'SVC-001',
    defaultSeverity: 'error',
    severities: ['error', 'warning', 'info'],
    description: 'Service selects no pod template; named targetPort matches no container port; selector spans several workloads',
    doc: `A Service's endpoints are the ready pods its \`spec.selector\` matches, and for each port the container port its
\`targetPort\` resolves to in each pod (\`FindPort\`, used by the EndpointSlice controller).

**Conditions** (Services with a non-empty \`spec.selector\`; \`ExternalName\` Services are skipped):

- **error** (or **warning**, below): the selector matches no pod template in the set: the Service has no endpoints. The message names the
  closest workload and the labels that differ. To avoid false positives on partial inputs, this is judged only when
  the Service's namespace holds at least one workload in the linted set (a Service-only file, or Services for
  pods another chart creates, are not reported), and not when a custom resource in the namespace carries labels the
  selector matches (an operator creates those pods; for prometheus-operator's \`Prometheus\`, \`PrometheusAgent\`,
  \`Alertmanager\` and \`ThanosRuler\`, the labels the operator puts on their pods, a shard's own
  \`operator.prometheus.io/shard\` included, not the resource's own labels), nor when a ReplicationController's
  template in the namespace carries the labels (the legacy controller of the upstream guestbook-go example), nor when a
  custom resource of the namespace that describes pods (a \`replicas\`, \`instances\`, \`members\`, \`size\`, \`clusterSize\`
  or \`image\` field in its spec) is named by the selector's instance label (\`app.kubernetes.io/instance\`, \`instance\`,
  \`release\`, \`<prefix>/instance\`) or carries in its own labels every selector pair but the component
  (\`app.kubernetes.io/component\`, \`component\`): its operator makes the pods, with labels the input does not show
  (tidb-operator labels the TiDB pods of \`TidbCluster/demo\` \`app.kubernetes.io/instance: demo\`, \`component: tidb\`,
  while the tidb-cluster chart labels the resource \`component: tidb-cluster\`), unless a workload of the namespace differs
  from the selector in one value only, close to the selector's (a typo: \`component: discovry\`). When no
  pod template of the namespace comes close to the selector (no workload shares a label with it, none carries one of its
  values under any key or a value close to one under the same key, no pods of an operator's resource in the input share a
  label with it, and no StatefulSet names the Service), the pods are likely made elsewhere (another release or addon, an
  operator's custom resource not in the input: kube-thanos's \`thanos-sidecar\` Service selects the Prometheus pods
  prometheus-operator makes; NodeLocal DNSCache's \`kube-dns-upstream\` selects CoreDNS's \`k8s-app: kube-dns\` beside its
  own \`k8s-app: node-local-dns\`: a shared conventional key is no sign of a typo), not a typo: **warning**, saying so, and
  naming no workload of the input to copy. Labels a pod gets besides its
  template's count: those its controller adds (\`pod-template-hash\`, \`statefulset.kubernetes.io/pod-name\`,
  \`apps.kubernetes.io/pod-index\`, \`controller-revision-hash\`: per-pod Services) and those Vault writes on its own
  pod with \`service_registration "kubernetes"\` (\`vault-active\`, \`vault-sealed\`, \`vault-initialized\`,
  \`vault-perf-standby\`: \`"true"\`/\`"false"\`, and \`vault-version\`), which vault-helm's HA Services select, and those
  longhorn-manager writes on its own pod once its webhooks and recovery backend serve (\`longhorn.io/admission-webhook\`,
  \`longhorn.io/conversion-webhook\`, \`longhorn.io/recovery-backend\`), which the Longhorn chart's Services select, those
  kube-ovn's ovn-central writes on its own pod for the raft leader of each database (\`ovn-nb-leader\`, \`ovn-sb-leader\`,
  \`ovn-northd-leader\`: \`"true"\`/\`"false"\`), which its Services ovn-nb, ovn-sb and ovn-northd select, MinIO Operator's
  \`operator: leader\` on its elected pod, which its chart's Service \`operator\` selects, and Patroni's role
  label (\`PATRONI_KUBERNETES_ROLE_LABEL\`, default \`role\`, any value) on a container that runs \`patroni\` or has
  \`PATRONI_KUBERNETES_*\` variables, which a leader Service selects (timescaledb-single's \`role: master\`). Pods and ReplicaSets in the set whose
  controller is not (a \`kubectl get pods,svc -o yaml\` dump) are endpoints too: a Service matching them is checked
  against them (one pod per controller), and they are not said to be mixed (pods of two ReplicaSets are also one
  Deployment mid-rollout). A headless Service without ports
  (DNS-only, e.g. Teleport's "previous major version" Service, which is meant to match nothing after an upgrade) is
  reported only when a StatefulSet names it in \`spec.serviceName\`: its pods' DNS names need it to match them.
- **error:** a \`ports[].targetPort\` is a name that matches no \`ports[].name\` with the same \`protocol\` (default TCP)
  in the selected templates' main containers and native sidecars (recent EndpointSlice controllers also search the
  named ports of native sidecars; **[unverified]** since which version). The port gets no endpoints.
  On a headless Service whose other ports resolve, this is **info**: clients reach the pods by the addresses DNS
  still gives (the EndpointSlice controller lists every selected pod, one none of whose ports resolve in a slice
  without ports, and CoreDNS answers A records for it), and the port only lacks its SRV records and its EndpointSlice
  port (bitnami ZooKeeper's follower and election ports, which its pods declare only with several replicas;
  Cassandra's tls port without internode TLS; bitnami Dremio's peer Service, \`fabric\` and \`conduit\` for the
  declared \`server-fabric\` and \`server-conduit\`). A **warning** when the input shows the port used through the
  Service: an Ingress, Gateway API route or Traefik IngressRoute backend on it, or its SRV name
  (\`_<port>._<protocol>.<service>\`) in another object of the namespace (env, args, a ConfigMap).
- **warning:** a numeric \`targetPort\` (or \`port\`, when \`targetPort\` is absent) that no container of the selected
  templates declares with that protocol, while they declare other ports, and a declared port plausibly is the one
  meant: a client port (same protocol, not named for metrics or operators) that no port of a Service selecting the
  pods reaches yet, and that has the Service port's name, or a number one digit edit away (8000 for 8080), or is the
  only client port the containers declare (port 80 with \`targetPort\` left out, beside \`containerPort: 8080\`): then
  the number is likely a typo or a stale port, and the advice names that port. Otherwise **info**, advising to
  declare the port: \`containerPort\` is informational ("Not specifying a port here DOES NOT prevent that port from
  being exposed. Any port which is listening on the default "0.0.0.0" address inside a container will be accessible
  from the network", the API reference of \`Container.ports\`), a numeric \`targetPort\` is routed whatever the
  containers declare, and charts often leave out ports their program opens (Mailu's front runs a Dovecot proxy on
  2525 and 4190 and declares neither; its declared \`sieve\` 14190, which another Service port reaches, is the
  webmail's listener: repointing 4190 there would be wrong); if nothing listens, clients of that port get refused
  connections. When the Service port says TLS (its name: \`https\`, \`tls\`, \`ssl\`, \`grpcs\`, \`wss\`,
  \`mtls\`, also as a part such as \`https-api\`, unless an annotation of the Service names a certificate, as a load
  balancer that terminates TLS before the pods has; or its targetPort: 443, 6443, 7473, 8443, 9443) and no declared port
  plausibly is its target (none has its name, nor a name or number that says TLS), the advice is to remove the port or
  to enable the app's TLS listener and declare it, never to point it at a declared port, which speaks another protocol:
  the app likely opens it only once TLS is configured (the neo4j chart's LoadBalancer Service always publishes https
  7473, which Neo4j opens only with an SSL policy; pointing it at 7474 would send HTTPS clients to plaintext HTTP).
  Not reported when no container declares any port, nor when every declared port is
  a named side port (metrics, prom, diag, health, admin, debug, status, readiness...): such containers evidently do not declare
  their serving ports (the istio gateway and Teleport charts declare only their metrics/diag port). **info** on a
  headless Service: it maps no ports, so its clients dial the pod addresses DNS gives them on the port they know,
  and the entry only names the port in the EndpointSlice and SRV records (the peer ports a clustered app opens by
  itself, such as neo4j's discovery and raft ports 5000 and 7000 or RabbitMQ's 25672, which its charts do not declare).
  **info** on a Service port named for metrics, operators or peers (\`metrics\`, \`http-metrics\`, \`diag\`, gossip
  names): a wrong number there costs scrapes, not client traffic, and the advice never points it at a serving port
  (jspolicy's \`metrics\` on controller-runtime's undeclared :8080), and on any port of a Service named for operators
  (\`<name>-admin\`, \`-diag\`, \`-diagnostics\`, \`-debug\`, \`-pprof\`, \`-profiling\`) that no Ingress or route uses
  and the API server does not call (emissary-ingress's \`emissary-admin\`: port 8005, Emissary's snapshot server, which
  the container does not declare).
  **info** when a container declares the number with another protocol: the traffic is routed anyway, the declaration
  is what is wrong, and naming the port would leave it without endpoints (ESS's LiveKit UDP mux declared as TCP).
  **info** too, advising to declare the port, when something shows the app listens there: a container's own env or
  args name it as a listen port or address, also a variable it loads by \`envFrom\` from a ConfigMap or Secret of the
  input, with the entry's prefix, unless its inline env sets the same name (harbor-core's \`METRIC_PORT: "8001"\`) (supabase's imgproxy, \`IMGPROXY_BIND=":5001"\` beside a stale
  \`containerPort: 8080\`; the readings of \`lib/model/listen-ports.ts\`; not a \`<P>_PORT\` beside a \`<P>_HOST\` or
  \`<P>_ADDR\` naming another host, the server it dials, as Seldon Core v2's agent's \`SELDON_SCHEDULER_PORT\`), or the API server calls that Service port
  for an admission webhook or an aggregated API (Gloo's validation webhook on 8443).
- **warning:** the selector matches the pods of several workloads: the Service mixes their endpoints, also during a
  rollout of either (deployment.md §Selector); with a Job's or CronJob's pods, while those run (they are endpoints until
  they complete, and do not roll out). Not reported for headless Services (clients resolve and pick pods
  themselves; a governing Service often spans the StatefulSets of one app, as in the bitnami redis chart), for
  metrics-only Services (scraped per endpoint), when the other matches are Helm test hooks (\`helm.sh/hook: test\`,
  the chart's test pods) or pre-install hooks, which run before the release's Service exists (upgrade and rollback hooks
  run beside the serving pods and count, and so does a pre-install Deployment, StatefulSet, DaemonSet or ReplicaSet without
  \`hook-succeeded\` in its \`helm.sh/hook-delete-policy\`: Helm never deletes it), nor when every matched template carries a version-like label (\`version\`, \`track\`, \`canary\`, \`variant\`,
  \`stage\`, also prefixed like \`app.kubernetes.io/version\`) with a different value: that is the documented canary
  pattern (one Service, \`track: stable\` and \`track: canary\` Deployments; Istio version subsets as in bookinfo),
  nor when all but one of them are canaries of another: a template carrying the value \`canary\` under a key where
  the other's does not, or a workload named \`<other>-canary\` (emissary-ingress's \`profile: main\` and
  \`profile: canary\` Deployments, mixed on purpose by the chart's \`canary.mixPods\`),
  nor when they are the StatefulSets of one \`rollout-group\` (zone-aware replicas of one component, grafana/rollout-operator)
  or StatefulSets that run the same images (the members of one clustered app behind one Service, as the neo4j chart
  makes them, one StatefulSet per member).

- **warning:** the selector holds a label whose value changes with every chart release (\`helm.sh/chart\`,
  \`app.kubernetes.io/version\`, \`chart\`, with a digit in the value), which the selected workloads' own selectors do not
  hold (tetragon's chart selects its full label set): an upgrade updates the Service at once, and it then selects none
  of the old pods, so it has no endpoints until a new pod is Ready and only the new pods until the rollout ends.
  **Info** for a metrics-only Service, or one whose only callers are validating webhooks with \`failurePolicy: Ignore\`
  (Kong's validation webhook). Not when another workload of the namespace differs from the selected ones only in
  that label (a Service pinned to one of two versions on purpose).

**Fix:** make the selector equal to the workload's \`spec.selector.matchLabels\`, and use a declared port name:

\`\`\`yaml
apiVersion: v1
kind: Service
spec:
  selector: {app: web}          # = the Deployment's spec.selector.matchLabels
  ports:
  - port: 80
    targetPort: http            # = containers[].ports[].name, same protocol
\`\`\``,
    fixable: false,
    references: [
      'kubernetes/kubernetes pkg/api/v1/pod/util.go (FindPort)',
      'kubernetes/website content/en/docs/concepts/workloads/controllers/deployment.md#selector',
      'kubernetes/website content/en/docs/concepts/services-networking/service.md',
    ],
  },
  check(ctx) {
    const g = ctx.graph;
    /** The label keys and values of the pod templates of each namespace (pods of a dump whose controller is not in it too), read once. */
    type Labels = { keys: Map<string, Set<string>>; values: Set<string> };
    let byNs: Map<string, Labels> | undefined;
    const templateLabels = (namespace: string | undefined): Labels => {
      if (!byNs) {
        byNs = new Map();
        for (const w of [...g.workloads, ...g.ownedWorkloads]) {
          const ns = w.obj.namespace ?? '';
          let e = byNs.get(ns);
          if (!e) byNs.set(ns, (e = { keys: new Map(), values: new Set() }));
          for (const [k, v] of Object.entries(w.templateLabels)) {
            let vs = e.keys.get(k);
            if (!vs) e.keys.set(k, (vs = new Set()));
            vs.add(v);
            e.values.add(v);
          }
        }
      }
      return byNs.get(namespace ?? '') ?? { keys: new Map(), values: new Set() };
    };
    for (const s of g.services) {
      if (s.type === 'ExternalName' || s.selector.kind !== 'selector') continue;
      const who = `Service/${s.obj.name}`;
      let matched = selectedWorkloads(g, s);
      // No controller in the set, but pods it made are (`kubectl get pods,svc -o yaml`): they are
      // the endpoints. One pod per controller stands for its pods in what follows.
      const live = matched.length ? [] : oneEach(g.ownedSelected(s.obj.namespace, s.selector));
      if (live.length) matched = live;
      if (!matched.length) {
        if (!namespaceHasWorkloads(g, s.obj)) continue;
        if (operatorResourcesFor(g, s.obj.namespace, s.selector).length) continue;
        // Pods an operator makes from a custom resource of the input whose pod labels are not known
        // (tidb-operator's TiDB pods of the TidbCluster the tidb-cluster chart renders beside its
        // demo-tidb Service): not judged, as a Service linted without its workload is not, and no
        // workload of the input is offered to copy from (demo-discovery differs only in the component).
        if (!typoOfWorkload(g, s) && operatorOwner(g, s)) continue;
        // A ReplicationController's pods are endpoints too (kubegrace models no RC otherwise).
        if (g.ofKindIn('ReplicationController', s.obj.namespace).some((rc) => matches(s.selector, stringMap(get(rc.raw, 'spec', 'template', 'metadata', 'labels'))))) continue;
        const governed = governedStatefulSets(g, s);
        if (s.headless && s.ports.length === 0 && governed.length === 0) continue;
        const near = closest(g, s);
        const hint = near ? ` (closest: ${nameOf(near.w)}, where ${near.diff.join(', ')})` : '';
        const sts = governed.length ? `; ${governed.map(nameOf).join(', ')} name${governed.length === 1 ? 's' : ''} it as serviceName, so its pods get no DNS records` : '';
        // A selector that no pod template of the namespace comes close to, and that no StatefulSet
        // names: likely a Service for pods made elsewhere (another release or addon, an operator's
        // custom resource not in the input: kube-thanos's thanos-sidecar Service selects the
        // Prometheus pods prometheus-operator makes; NodeLocal DNSCache's kube-dns-upstream selects
        // CoreDNS's k8s-app: kube-dns beside its own k8s-app: node-local-dns), not a typo of a
        // workload here. Said, as a warning, and without pointing at a workload of the input: copying
        // node-local-dns's selector would make every node cache forward to itself. A typo is a value
        // a template of the namespace carries under another key (\`app: shop\` for
        // \`app.kubernetes.io/name: shop\`), or a value close to one it carries under the same key
        // (\`app: wbe\` for \`app: web\`): still the error. (Conventional keys such as \`app\` are
        // shared by unrelated apps: a shared key alone is no sign of a typo.)
        const { keys, values } = templateLabels(s.obj.namespace);
        // (Pods an operator's resource of the input makes count as templates: a Service for a shard
        // the Prometheus does not have shares its other labels.)
        const sel = s.selector;
        const typo =
          sel.kind === 'selector' &&
          sel.requirements.some((r) => r.values.some((v) => values.has(v) || closestName(v, keys.get(r.key) ?? []) !== undefined) || operatorResourcesFor(g, s.obj.namespace, { ...sel, requirements: [r] }).length > 0);
        const foreign = !near && !governed.length && !typo;
        ctx.report({
          object: s.obj,
          pointer: '/spec/selector',
          severity: foreign ? 'warning' : 'error',
          message: foreign
            ? `${who}: spec.selector ${selectorText(s.selector)} matches no pod template${nsPhrase(s.obj)}, and no workload there carries its labels or labels close to them: if its pods come from elsewhere (another release or addon, an operator's custom resource), lint them together; otherwise the Service has no endpoints: make the selector match the labels of the pods it is for`
            : `${who}: spec.selector ${selectorText(s.selector)} matches no pod template${nsPhrase(s.obj)}${hint}, so the Service has no endpoints${sts}; copy ${near && governed.includes(near.w) ? `${nameOf(near.w)}'s` : "the workload's"} spec.selector.matchLabels into the Service selector`,
          absence: true,
        });
        continue;
      }
      // Helm test hooks (test pods) exist only while `helm test` runs, and pre-install hooks before the release's
      // Service does (upgrade and rollback hooks run beside the serving pods: kubevela's certgen Jobs carry the
      // webhook Service's labels; review round 16); headless Services are resolved by clients that
      // pick pods themselves (a governing Service often spans the StatefulSets of one app); metrics-only
      // Services are scraped per endpoint; a version split (track: stable/canary, version: v1/v2) is the
      // documented canary pattern.
      // A workload whose pods resolve none of the Service's ports (named targetPorts their containers
      // do not declare) gets no traffic from it: the EndpointSlice controller skips the ports it
      // cannot find (FindPort), and a pod with no port takes no connection (Grafana OnCall's migrate
      // Job beside its engine, review round 13).
      const resolvesAny = (w: Workload) =>
        s.ports.some((sp) => typeof sp.targetPort !== 'string' || [...w.containers, ...w.sidecars].some((c) => c.ports.some((p) => p.name === sp.targetPort && p.protocol === sp.protocol)));
      const lasting = matched.filter((w) => !whileNoTraffic(w.obj) && resolvesAny(w));
      // (Pods of several controllers in a dump are also an old and a new ReplicaSet mid-rollout.)
      if (!live.length && lasting.length >= 2 && !s.headless && !s.metricsOnly && !versionSplit(lasting) && !canarySplit(lasting) && !memberGroup(lasting)) {
        ctx.report({
          object: s.obj,
          pointer: '/spec/selector',
          severity: 'warning',
          // (A Job's or CronJob's pods are endpoints while they run, then Completed; they do not roll out:
          // step-certificates' bootstrap Job, review round 14.)
          message: `${who}: spec.selector ${selectorText(s.selector)} matches the pods of ${lasting.length} workloads (${lasting.map(nameOf).join(', ')}): the Service mixes their endpoints${mixWhen(lasting)}; add a label that only one workload's template carries (e.g. app.kubernetes.io/component) to the selector`,
        });
      }
      // (Helm test and pre-install hooks never share the Service with the serving pods: their ports are not
      // judged, nor named, unless they are all the Service selects.)
      const live2 = matched.filter((w) => !whileNoTraffic(w.obj));
      const judged = live2.length ? live2 : matched;
      const all = portsOf(judged);
      const anyDeclared = all.some(({ c }) => c.ports.length > 0);
      for (const sp of s.ports) {
        const rawPorts = get(s.obj.raw, 'spec', 'ports');
        const written = Array.isArray(rawPorts) ? get(rawPorts[sp.index], 'targetPort') : undefined;
        const pointer = written !== undefined ? `/spec/ports/${sp.index}/targetPort` : `/spec/ports/${sp.index}/port`;
        const tp = sp.targetPort;
        if (typeof tp === 'string') {
          if (all.some(({ c }) => c.ports.some((p) => p.name === tp && p.protocol === sp.protocol))) continue;
          const other = all.find(({ c }) => c.ports.some((p) => p.name === tp));
          const otherProto = other?.c.ports.find((p) => p.name === tp)?.protocol;
          const why = other
            ? `container "${other.c.name}" of ${nameOf(other.w)} declares "${tp}" with protocol ${otherProto}, not ${sp.protocol} (the match is protocol-sensitive)`
            : `no container of ${judged.map(nameOf).join(', ')} declares a port named "${tp}" (they declare ${declared(judged)})`;
          // A headless Service whose other ports resolve: clients reach the pods by their addresses,
          // which DNS still gives; the port only lacks its SRV records. Bitnami's ZooKeeper and
          // Cassandra name peer ports (follower, election; tls) that the pods declare only with
          // several replicas or internode TLS: the endpoints controller skips the port (FindPort's
          // error) and keeps the others. The EndpointSlice controller lists every selected pod's
          // address even when none of its ports resolve (a slice without ports: getEndpointPorts,
          // reconcileByAddressType), and CoreDNS answers A records for such a slice (a sentinel
          // port), so only the SRV records and the slice's port are lost: info (bitnami/dremio's
          // peer Service with fabric/conduit for server-fabric/server-conduit; review round 25),
          // unless the input shows a client using the port through the Service: an Ingress or
          // route backend, or an SRV name of the port.
          const resolves = (x: (typeof s.ports)[number]) => (typeof x.targetPort === 'string' ? all.some(({ c }) => c.ports.some((p) => p.name === x.targetPort && p.protocol === x.protocol)) : true);
          const softened = s.headless && s.ports.some((x) => x !== sp && resolves(x));
          const used = softened ? portUse(ctx.graph, s, sp) : undefined;
          ctx.report({
            object: s.obj,
            pointer,
            severity: softened ? (used ? 'warning' : 'info') : 'error',
            message: softened
              ? `${who} ${portLabel(sp)}: targetPort "${tp}" with protocol ${sp.protocol} cannot be resolved: ${why}; the EndpointSlice controller skips this port for these pods (no SRV records for it), while the Service is headless and its other ports resolve, so the pods' addresses are still published${used ? `; but ${used}, which gets no endpoint for it: declare the port "${tp}" in the container that listens there, or use its number` : `; nothing in the input uses this port through the Service (no route to it, no SRV lookup of it), so only its SRV records and its EndpointSlice port are missing: declare it or use its number (if the app opens this port only in some configurations, such as peer ports with several replicas or TLS, nothing is lost)`}`
              : `${who} ${portLabel(sp)}: targetPort "${tp}" with protocol ${sp.protocol} cannot be resolved: ${why}; the EndpointSlice controller finds no target port, so this port has no endpoints; use a declared port name with the same protocol, or its number`,
          });
          continue;
        }
        if (typeof tp !== 'number' || !anyDeclared || onlyAuxiliaryDeclared(all)) continue;
        if (all.some(({ c }) => c.ports.some((p) => p.containerPort === tp && p.protocol === sp.protocol))) continue;
        const other = all.find(({ c }) => c.ports.some((p) => p.containerPort === tp));
        const what = written === undefined ? `targetPort (defaults to port ${tp})` : written === 0 || written === '' ? `targetPort ${JSON.stringify(written)} (defaults to port ${tp})` : `targetPort ${tp}`;
        // (A headless Service translates nothing: clients dial pod:port themselves. Review round 10:
        // neo4j's internals Service, RabbitMQ's 25672.)
        const head = `${who} ${portLabel(sp)}: ${what}/${sp.protocol} is not declared by any container of ${judged.map(nameOf).join(', ')} (${other ? `"${other.c.name}" declares ${tp} with another protocol; ` : ''}they declare ${declared(judged)})`;
        // Evidence that the app listens there after all (review round 12): a container's own env or args
        // name the port (supabase's imgproxy, IMGPROXY_BIND=":5001" beside a stale containerPort 8080), or
        // the API server calls this Service port for a webhook or an aggregated API (Gloo's validation
        // webhook on 8443, undeclared). Then the Service is right and the declaration is what is missing.
        const listens = listenEvidence(ctx.graph, s, sp, judged, tp);
        // A port for scrapes, operators or peers by its name (jspolicy's "metrics" on controller-runtime's
        // undeclared :8080; review round 17): a wrong number costs scrapes, not client traffic, and the
        // declared ports are the app's, which a scrape must not be pointed at.
        // Or on a Service named for operators (emissary-admin's undeclared 8005, Emissary's snapshot
        // server, beside its admin port; review round 30), unless a route or the API server uses it.
        const asideByName = !listens && !s.headless && !notClientPort(sp) && operatorService(ctx.graph, s);
        const aside = (!listens && !s.headless && notClientPort(sp)) || asideByName;
        // The number is declared with another protocol (ESS's LiveKit: containerPort 30002/TCP for its UDP
        // mux, which the Service sends as UDP; review round 18): traffic reaches the port either way, the
        // declaration is what is wrong, and naming the port would leave it without endpoints.
        const otherProto = !listens && !s.headless && !aside && other !== undefined;
        // A port that says TLS (by its name or number) while no declared port does: the app opens it
        // only once TLS is configured, and the declared ports speak plaintext. The neo4j chart's LB
        // Service always publishes https 7473, which the container declares, and Neo4j opens, only
        // with an SSL policy ("from 4.0 onwards ... HTTPS server is not enabled by default",
        // https://neo4j.com/docs/upgrade-migration-guide/current/migration/drivers/ssl-bolt-https/);
        // repointing it at 7474 would send HTTPS clients to plaintext HTTP (review round 34, report p50 item 1).
        const tls = !listens && !s.headless && !aside && !otherProto ? tlsSaid(s, sp, tp) : undefined;
        const tlsUnopened = tls !== undefined && !tlsTargetDeclared(all, sp);
        // Only a declared port that plausibly is the one meant makes the number a typo or a stale port
        // (review round 35, report p57 item 4: Mailu's front declares neither 2525 nor 4190, where its
        // Dovecot proxy listens, and the nearest declared port, sieve 14190, is the webmail's listener).
        const target = !listens && !s.headless && !aside && !otherProto && !tlsUnopened ? intendedTarget(ctx.graph, judged, all, sp, tp) : undefined;
        const intended = target && 'port' in target ? target : undefined;
        ctx.report({
          object: s.obj,
          pointer,
          severity: s.headless || listens || aside || otherProto || (target !== undefined && !intended) ? 'info' : 'warning',
          message: otherProto
            ? `${head}: a numeric targetPort is routed whatever the container declares, so if the app listens on ${tp}/${sp.protocol} the traffic arrives; correct the protocol of containerPort ${tp} in "${other!.c.name}" to ${sp.protocol} (naming the port here would not help: a named targetPort also has to match the protocol, so it would have no endpoints)`
            : listens
            ? `${head}: ${listens.text}, so the app listens there: declare containerPort ${tp} in ${listens.container ? `container "${listens.container}"` : 'the container that serves it'} (a declared port it no longer uses may be stale); do not point targetPort elsewhere`
            : asideByName
              ? `${head}: the Service is named for operators (diagnostics, administration), so a wrong number here costs operators' tools, not client traffic; if the app listens there (an endpoint it does not declare), declare containerPort ${tp}, else correct the number; do not point it at a serving port`
            : aside
              ? `${head}: the port is named for metrics, operators or peers, so a wrong number here costs scrapes or peer checks, not client traffic; if the app listens there (a metrics server it does not declare), declare containerPort ${tp}, else correct the number; do not point it at a serving port`
            : tlsUnopened
              ? `${head}: ${tls} says TLS, and none of the declared ports does, so the app likely opens ${tp} only once TLS is configured (as Neo4j opens its HTTPS connector 7473), and until then clients of this port get refused connections; remove the port from the Service, or enable the app's TLS listener and declare containerPort ${tp}; do not point targetPort at a declared port, which speaks another protocol`
            : s.headless
              ? `${head}: the Service is headless, so it maps no ports: clients dial the pod addresses DNS gives them on the port they know, and this entry only names it in the EndpointSlice and SRV records; if the app listens there (a peer port it opens by itself), declare it in the container for clarity, else remove or correct it`
              : intended
                ? `${head}: it works only if the app listens there anyway, and is usually a typo or a stale port: ${intended.why}; point targetPort at ${intended.ref}, preferably by name`
                : `${head}: a numeric targetPort is routed whatever the containers declare (a port the app listens on is reachable undeclared), and no declared port looks like its intended target (${target && 'none' in target ? target.none : ''}), so the app may well listen on ${tp} undeclared: declare containerPort ${tp} in the container that listens there; if none does, clients of this port get refused connections: remove the port from the Service or correct its number`,
        });
      }
    }
    releaseLabelSelectors(ctx);
  },
};

/**
 * Selector labels whose value changes with every release of a chart: Helm's chart label (name and
 * chart version) and the app version, when the value carries a digit (a version, not blue/green).
 */
const RELEASE_LABEL = /^(helm\.sh\/chart|app\.kubernetes\.io\/version|chart)$/;

/** The label keys a workload's own spec.selector uses (matchLabels and matchExpressions). */
function ownSelectorKeys(w: Workload): Set<string> {
  const sel = get(w.obj.raw, 'spec', 'selector');
  const keys = new Set<string>();
  if (isObject(sel) && isObject(sel.matchLabels)) for (const k of Object.keys(sel.matchLabels)) keys.add(k);
  if (isObject(sel) && Array.isArray(sel.matchExpressions)) for (const e of sel.matchExpressions) if (isObject(e) && typeof e.key === 'string') keys.add(e.key);
  return keys;
}

/**
 * A Service whose selector holds a label that changes with every release (tetragon's chart selects
 * its full label set, helm.sh/chart and app.kubernetes.io/version included; review round 22): on an
 * upgrade to a new chart version the Service is updated at once and selects none of the old pods,
 * so it has no endpoints until a new pod is Ready, and only new pods until the rollout ends. Not
 * when another workload of the namespace differs from the selected ones only in that label (a
 * Service pinned to one of two versions on purpose, blue/green), nor when the workloads' own
 * selectors hold the label (their selector is immutable: that chart cannot upgrade in place anyway).
 */
function releaseLabelSelectors(ctx: RuleContext): void {
  const g = ctx.graph;
  for (const s of g.services) {
    if (s.type === 'ExternalName' || s.selector.kind !== 'selector') continue;
    // (The graph's own Service-to-workloads map: a Service that selects nothing has nothing to lose.)
    const ws = g.workloadsFor(s).filter((w) => !w.isBatch && !passingHelmHook(w.obj));
    if (!ws.length) continue;
    const reqs = s.selector.requirements;
    const volatile = reqs.filter(
      (r) => r.operator === 'In' && r.values.length === 1 && RELEASE_LABEL.test(r.key) && /\d/.test(r.values[0]) && ws.every((w) => !ownSelectorKeys(w).has(r.key)),
    );
    if (!volatile.length) continue;
    const rest = { kind: 'selector' as const, requirements: reqs.filter((r) => !volatile.includes(r)) };
    const pinned = rest.requirements.length > 0 && g.workloadsIn(s.obj.namespace).some((w) => (w.obj.namespace ?? '') === (s.obj.namespace ?? '') && !ws.includes(w) && matches(rest, w.templateLabels));
    if (pinned) continue;
    const labels = volatile.map((r) => `${r.key}: ${r.values[0]}`).join(', ');
    // Called only by validating webhooks that fail open (Kong's validation webhook): objects are
    // admitted unchecked meanwhile, no request fails.
    const calls = apiServerCalls(g, s);
    const unchecked = calls.length > 0 && calls.every((c) => c.kind === 'ValidatingWebhookConfiguration' && c.failurePolicy === 'Ignore');
    const stable = ws.length === 1 ? ` (${nameOf(ws[0])}'s spec.selector.matchLabels, or labels every release keeps)` : ' (the workloads\' spec.selector.matchLabels, or labels every release keeps)';
    ctx.report({
      object: s.obj,
      pointer: '/spec/selector',
      severity: s.metricsOnly || unchecked ? 'info' : 'warning',
      message: `Service/${s.obj.name}: spec.selector holds ${labels}, ${volatile.length === 1 ? 'a label whose value changes' : 'labels whose values change'} with every chart release: an upgrade updates the Service at once, and it then selects none of the old pods, so it has no endpoints until a new pod is Ready and only the new pods until the rollout ends${s.metricsOnly ? ' (scrapes through it miss the old pods)' : unchecked ? ' (its only callers are validating webhooks with failurePolicy: Ignore, so objects are admitted unchecked meanwhile)' : ''}; select only stable labels${stable}`,
    });
  }
}

/**
 * The declared port a numeric targetPort that no container declares was plausibly meant for, and
 * why, else why none is (`none`, for the message): a declared client port (same protocol, not named
 * for metrics or operators) that no port of a Service selecting the pods reaches yet (one that another Service port reaches is
 * in use for its own purpose), and that has the Service port's name, or a number one digit edit away
 * (8000 for 8080, 8443 for 8434: editDistance 1), or is the only client port the containers declare
 * (the Service port 80 whose targetPort was left out, beside containerPort 8080). Otherwise nothing
 * says the number is a typo: containerPort is informational ("Not specifying a port here DOES NOT
 * prevent that port from being exposed. Any port which is listening on the default "0.0.0.0" address
 * inside a container will be accessible from the network", kubernetes/kubernetes @001a778f
 * staging/src/k8s.io/api/core/v1/types.go, Container.Ports), and charts often leave out ports their
 * program opens: Mailu's front runs a Dovecot proxy that listens on 2525 (LMTP) and 4190 (ManageSieve)
 * and declares neither (Mailu/Mailu @07512ee8 core/nginx/dovecot/proxy.conf: `service lmtp {
 * inet_listener lmtp { port = 2525 } }`, `inet_listener sieve { port = 4190 }` beside
 * `inet_listener sieve-webmail { port = 14190 }`, the port its chart declares as `sieve`).
 */
function intendedTarget(g: ObjectGraph, ws: Workload[], all: { c: ContainerView }[], sp: ServicePort, tp: number): { port: ContainerPortOf; ref: string; why: string } | { none: string } {
  const client = all.flatMap(({ c }) => c.ports).filter((p) => p.protocol === sp.protocol && !(p.name !== undefined && auxPort(p.name)));
  const reachedBy = (p: ContainerPortOf): string | undefined => {
    for (const w of ws)
      for (const o of g.servicesFor(w))
        for (const x of o.ports)
          if (x.protocol === p.protocol && (typeof x.targetPort === 'string' ? x.targetPort === p.name : x.targetPort === p.containerPort))
            return `Service/${o.obj.name} ${x.name !== undefined ? `port "${x.name}"` : `port ${x.port}`}`;
    return undefined;
  };
  const ref = (p: ContainerPortOf) => (p.name !== undefined ? `${p.name} (${p.containerPort})` : String(p.containerPort));
  const byName = (p: ContainerPortOf) => sp.name !== undefined && p.name === sp.name;
  const byNumber = (p: ContainerPortOf) => editDistance(String(p.containerPort), String(tp)) === 1;
  const free = client.filter((p) => reachedBy(p) === undefined);
  const named = free.find(byName);
  if (named) return { port: named, ref: ref(named), why: `the declared port ${ref(named)} has its name, and no Service port reaches it` };
  const near = free.filter(byNumber);
  if (near.length) {
    const refs = near.map(ref).join(' or ');
    return { port: near[0], ref: refs, why: `the declared port${near.length > 1 ? 's' : ''} ${refs} ${near.length > 1 ? 'are' : 'is'} one digit off, and no Service port reaches ${near.length > 1 ? 'them' : 'it'}` };
  }
  const distinct = [...new Set(client.map((p) => p.containerPort))];
  if (distinct.length === 1 && free.length > 0) return { port: free[0], ref: ref(free[0]), why: `the only client port the containers declare is ${ref(free[0])}, and no Service port reaches it` };
  // Why not, for the message: a look-alike that another Service port already uses, else none.
  const taken = client.find((p) => byName(p) || byNumber(p));
  if (taken) return { none: `${ref(taken)} ${byName(taken) ? `has its name${byNumber(taken) ? ' and is one digit off' : ''}` : 'is one digit off'}, but ${reachedBy(taken)} already reaches it` };
  return { none: `no declared port ${sp.name !== undefined ? `is named "${sp.name}" or ` : ''}is one digit away from ${tp}` };
}
type ContainerPortOf = ContainerView['ports'][number];

/**
 * A Service for operators by its name (OPERATOR_SERVICE_NAME: `emissary-admin`) that no Ingress or
 * route uses and the API server does not call: what it reaches serves diagnostics and tools.
 */
function operatorService(graph: ObjectGraph, s: ServiceView): boolean {
  return OPERATOR_SERVICE_NAME.test(s.obj.name) && !s.ports.some((p) => graph.routedPort(s, p)) && apiServerCalls(graph, s).length === 0;
}

/** What shows that a container of the workloads listens on port `tp` undeclared: its env or args, or the API server calling the Service port. */
function listenEvidence(graph: ObjectGraph, s: ServiceView, sp: ServicePort, ws: Workload[], tp: number): { text: string; container?: string } | undefined {
  for (const w of ws) {
    const all = [...w.containers, ...w.sidecars];
    for (const c of all) {
      const e = namedListenPort(c, tp, all, false, envFromVars(c, w.obj.namespace, (kind, ns) => graph.ofKindIn(kind, ns)));
      if (e) return { text: `container "${c.name}" of ${nameOf(w)} names it in its ${e}`, container: c.name };
    }
  }
  const call = apiServerCalls(graph, s).find((c) => c.port === sp.port);
  if (call) return { text: `the API server calls this port for ${call.kind === 'APIService' ? `APIService ${call.name}` : call.kind === 'CustomResourceDefinition' ? `the conversion webhook of CustomResourceDefinition ${call.name}` : `webhook "${call.name}" (${call.kind}/${call.config})`}` };
  return undefined;
}

/**
 * What in the input uses a port of a headless Service through it: an Ingress or route backend
 * naming the port (ObjectGraph.routedPort), or an SRV name of it (`_<port>._<proto>.<service>`,
 * the DNS name Kubernetes publishes per named port) in another object's text: env, args, config.
 */
function portUse(graph: ObjectGraph, s: ServiceView, sp: ServicePort): string | undefined {
  if (graph.routedPort(s, sp)) return 'an Ingress or route in the input sends traffic to this Service port';
  if (sp.name === undefined) return undefined;
  const srv = `_${sp.name}._${sp.protocol}.${s.obj.name}`.toLowerCase();
  const o = graph.objects.find((x) => x !== s.obj && (x.namespace ?? '') === (s.obj.namespace ?? '') && JSON.stringify(x.raw).toLowerCase().includes(srv));
  return o && `${o.kind}/${o.name} names its SRV record ${srv}`;
}
