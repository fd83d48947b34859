import { Fix, FixEdit, Rule } from '../engine/types';
import { Catalog } from '../catalog';
import { assumedServedNote, containerGuess, likelyServed, removedContainersOf, removedPortsOf, SERVED_STATUS_DOC, UNDECLARED_PORT_DOC } from '../model/traffic';
import { KubeVersion } from '../engine/version';
import { HINT, notClientPort, ObjectGraph, ServiceView } from '../model/graph';
import { apiServerCalls, apiServerCallsOnly } from '../model/webhook-calls';
import { ContainerView, get, Workload } from '../model/workload';
import { parseSeconds } from '../timeline/duration';
import { DEFAULT_PRESTOP_SECONDS, podPreStopDelay, PreStopDelay } from '../timeline/prestop';
import { servesAfterSigterm as programServesAfterSigterm, servesAfterSigtermSetting } from '../timeline/serves-after-sigterm';
import { cloudLbReadinessGate, containerRef, injectedAtAdmission, preStopFix, servedPortsLabel, declaredPortsLabel } from './probe-util';
import { neededGrace, preStopHandler, raiseGraceEdit, sleepActionAvailable } from './fix-util';
import { shellLessImage, shellLessPatterns } from '../timeline/shell-less';
import { sigtermIgnored } from '../timeline/sigterm';
import { delayAdvice, hookDelayWords, isExternalLocal, passingHelmHook, preStopDelayEdit, servicesSelecting, sleepFix } from './lb-util';
import { LINKERD, linkerdMesh } from '../timeline/mesh';
import { namespaceOf } from './mesh-util';
import { graceMessageRef } from './util';
import { loopbackBackends } from '../model/loopback';
import { claimExclusivity, rolloutFor } from './rollout-util';
import { daemonsetSurgeDecision } from './daemonset-surge';

/** The user's mark that the app keeps serving for N seconds after SIGTERM (its own shutdown delay). */
export const SERVES_AFTER_SIGTERM = HINT.servesAfterSigterm;

const KINDS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);

/**
 * A single pod that is replaced only after it is gone (StatefulSet, bare ReplicaSet, Deployment
 * without surge), as readiness-probe-missing reads it.
 * prestop-missing itself decides with `handover`, which also reads the target version, the
 * claims and node-local DaemonSets.
 */
export function noOverlap(graph: ObjectGraph, w: Workload): boolean {
  if ((graph.effectiveReplicas(w) ?? 2) > 1) return false;
  if (!(w.kind === 'StatefulSet' || w.kind === 'ReplicaSet' || (w.kind === 'Deployment' && w.deployment !== undefined && w.deployment.surge === 0))) return false;
  return !servedWithSiblings(graph, w);
}

/**
 * What takes a pod's traffic while it terminates, for prestop-missing:
 * - `overlap`: other ready endpoints (more replicas, a surge pod that is ready before this one is
 *   deleted, the other nodes' pods behind a cluster traffic policy): the endpoint removal races SIGTERM;
 * - `sole`: the only pod, whose replacement is created as soon as this one is deleting (the
 *   ReplicaSet controller counts only pods without a deletionTimestamp: kubernetes
 *   pkg/controller/replicaset/replica_set.go @003e8629 syncReplicaSet, controller.FilterActivePods; the
 *   Deployment controller scales the new ReplicaSet up once the old one's spec.replicas is 0:
 *   pkg/controller/deployment/util/deployment_util.go NewRSNewReplicas), and kube-proxy keeps sending
 *   the Service's connections to this pod while it is serving, as long as no endpoint is ready
 *   (pkg/proxy/topology.go @008b3652 CategorizeEndpoints: "fall back to Serving-Terminating
 *   endpoints ... if no Ready endpoints are available"; ProxyTerminatingEndpoints beta and on by
 *   default in 1.26, GA in 1.28): a delay keeps it serving while its replacement starts;
 * - `none`: nothing serves the traffic while it terminates but the pod itself, and nothing can
 *   until it is gone, so a delay postpones the outage without shortening it: a StatefulSet's pod
 *   (its replacement has the same name), Recreate, an exclusive claim the replacement cannot
 *   attach elsewhere before this pod is gone (unless the old pod waits for the new one to be
 *   ready: maxUnavailable 0), a target before the fallback, only headless Services (no proxy falls
 *   back), or a DaemonSet whose Services are all node-local and that does not surge (the
 *   DaemonSet controller creates a node's new pod only once no pod of it is left on the node:
 *   pkg/controller/daemon/daemon_controller.go @0033f658 podsShouldBeOnNode, `case shouldRun &&
 *   !exists`, and without surge it only prunes).
 * Review round 35, reports p56 item 1 (the Datadog agent DaemonSet) and p57 item 1 (Kubecost's
 * one-replica cost-analyzer with maxSurge 1, maxUnavailable 1 and a ReadWriteOnce claim).
 */
export type Handover = 'overlap' | 'sole' | 'none';

/** Kubernetes version from which kube-proxy falls back to serving, terminating endpoints by default (ProxyTerminatingEndpoints beta). */
export const TERMINATING_FALLBACK_VERSION: readonly [number, number] = [1, 26];

export function handover(graph: ObjectGraph, w: Workload, version: KubeVersion): Handover {
  if (w.kind === 'DaemonSet') return nodeLocalWithoutSurge(graph, w, version) ? 'none' : 'overlap';
  if ((graph.effectiveReplicas(w) ?? 2) > 1 || servedWithSiblings(graph, w)) return 'overlap';
  if (w.kind === 'StatefulSet') return 'none';
  const exclusive = graph.claimsOf(w).some((c) => claimExclusivity(c) !== 'shared');
  if (w.kind === 'Deployment' && w.deployment) {
    const d = rolloutFor(w, 1) ?? w.deployment;
    if (d.type !== 'RollingUpdate') return 'none';
    // maxUnavailable 0: the old pod is deleted only once the new one is ready, which with an
    // exclusive claim means on the same node (or never: surge-volume-deadlock): the pods overlap.
    if (exclusive && d.unavailable >= 1) return 'none';
    if (d.surge > 0) return 'overlap';
  } else if (w.kind === 'ReplicaSet') {
    if (exclusive) return 'none';
  } else {
    return 'overlap';
  }
  const traffic = trafficServicesOf(graph, w);
  if (traffic.length > 0 && traffic.every((s) => s.headless)) return 'none';
  return version.atLeast(TERMINATING_FALLBACK_VERSION[0], TERMINATING_FALLBACK_VERSION[1]) ? 'sole' : 'none';
}

/**
 * The Services whose client ports lose the pod's endpoint (removedPortsOf), not those that carry
 * only scrapes (jobset's jobset-metrics-service beside its webhook Service; review round 26), nor
 * those with publishNotReadyAddresses (they keep the terminating pod as an endpoint).
 */
function trafficServicesOf(graph: ObjectGraph, w: Workload): ServiceView[] {
  const clients = new Set(removedPortsOf(graph, w).map((p) => p.service));
  return graph.trafficServices(w).filter((s) => !s.publishNotReadyAddresses && (!clients.size || clients.has(s)));
}

/**
 * A DaemonSet whose traffic Services all keep a client's traffic on its own node (ClusterIP,
 * internalTrafficPolicy: Local; a LoadBalancer or NodePort Service also takes external traffic,
 * which the LB moves to other nodes) and whose node's old and new pod never run side by side
 * (maxSurge 0 or absent, a surge host ports block, below 1.22, or OnDelete).
 */
function nodeLocalWithoutSurge(graph: ObjectGraph, w: Workload, version: KubeVersion): boolean {
  const traffic = trafficServicesOf(graph, w);
  if (!traffic.length || servedWithSiblings(graph, w)) return false;
  if (!traffic.every((s) => !s.headless && s.type === 'ClusterIP' && get(s.obj.raw, 'spec', 'internalTrafficPolicy') === 'Local')) return false;
  if (get(w.obj.raw, 'spec', 'updateStrategy', 'type') === 'OnDelete') return true;
  // (The node-proxy patterns only name the reason daemonset-surge gives; the kind does not depend on them.)
  const d = daemonsetSurgeDecision(graph, w, version, []);
  return d !== undefined && (d.kind === 'no-surge' || d.kind === 'surge-blocked' || d.kind === 'surge-ignored');
}

/**
 * Whether a Service with a cluster IP that carries the workload's traffic also sends it to the pods
 * of another workload (the members of a cluster split into one-replica StatefulSets, as the neo4j
 * chart does behind one load balancer): then the Service has other endpoints while this pod
 * terminates, and a delay lets them take its new connections (review round 10). A headless
 * Service does not count: clients pick addresses themselves, and a governing Service spans
 * different roles (a primary and its replicas).
 */
function servedWithSiblings(graph: ObjectGraph, w: Workload): boolean {
  return graph.trafficServices(w).some(
    (s) => !s.headless && !s.publishNotReadyAddresses && graph.workloadsFor(s).some((x) => x !== w && !x.isBatch && !passingHelmHook(x.obj) && (graph.effectiveReplicas(x) ?? 1) > 0),
  );
}

function servesAfterSigterm(w: Workload): number | undefined {
  const s = parseSeconds(w.annotations[SERVES_AFTER_SIGTERM]);
  return s !== undefined && s > 0 ? s : undefined;
}

/** Traefik keeps accepting requests for requestAcceptGraceTimeout after SIGTERM. */
const TRAEFIK_ACCEPT_GRACE = /^--entry[pP]oints\.[^.]+\.transport\.lifeCycle\.requestAcceptGraceTimeout=(.+)$/;

/**
 * Whether the program keeps accepting new requests after SIGTERM on every listener that carries
 * traffic, for some time (> 0 s, as a preStop delay is judged: a hook of 0 s is reported, a longer
 * one is not). The catalog knows the programs (lib/timeline/serves-after-sigterm.ts): Traefik, the
 * minimum over the user entry points, so one entry point without requestAcceptGraceTimeout still
 * needs the hook; CoreDNS, the lameduck of the Corefile in the ConfigMap it mounts, unknown (so the
 * hook is asked for) when that ConfigMap is not in the input. For an image the catalog does not
 * know (a Traefik build under another name), the Traefik flag alone is taken as the evidence.
 */
function acceptsAfterSigterm(graph: ObjectGraph, catalog: Catalog, w: Workload, c: ContainerView): boolean {
  const known = programServesAfterSigterm(c, w, graph, catalog);
  if (known) return (known.seconds ?? 0) > 0;
  const args = [get(c.raw, 'args'), get(c.raw, 'command')].flatMap((a) => (Array.isArray(a) ? a : []));
  return args.some((a) => {
    const m = typeof a === 'string' ? TRAEFIK_ACCEPT_GRACE.exec(a.trim()) : null;
    const s = m ? parseSeconds(m[1]) : undefined;
    return s !== undefined && s > 0;
  });
}

/**
 * A hook known to keep the container accepting for 0 s: a zero sleep, a program of the catalog
 * whose delay is 0 with the flags as written (ingress-nginx /wait-shutdown without
 * --shutdown-grace-period), or a hook the user's prestop-seconds hint says takes 0 s. It gives
 * endpoint removal no more time than no hook at all. (A program that waits for a drain of unknown
 * length, a delay that cannot be read, httpGet and other commands are not judged.)
 */
function zeroDelayHook(c: ContainerView, w: Workload): PreStopDelay | undefined {
  const d = podPreStopDelay(c, w.annotations, undefined, w.containers);
  if (d.seconds !== 0) return undefined;
  // (A script that signals the app before it sleeps, `killall -INT pgbouncer && sleep 120`: the app
  // stops accepting at the signal, at once; review round 33, report p39.)
  if (d.hinted || d.kind === 'sleep' || d.kind === 'exec-sleep' || d.kind === 'exec-stop-then-sleep') return d;
  return d.kind === 'exec-known' && d.bound !== 'at-least' ? d : undefined;
}

/**
 * A classic Linkerd proxy (the identity controller's own pod) stops with the pod whatever the app's
 * hook does: the delay needs the proxy's wait too, or linkerd-proxy-drain reports it next.
 */
function classicProxyNote(graph: ObjectGraph, w: Workload): string {
  const lk = linkerdMesh(w, { namespace: namespaceOf(graph, w) });
  if (!lk || lk.mode !== 'classic' || lk.modeOrigin === 'default' || lk.waitBeforeExitSeconds > DEFAULT_PRESTOP_SECONDS) return '';
  return `; the pod's linkerd-proxy is a classic container that stops ${lk.waitBeforeExitSeconds > 0 ? `${lk.waitBeforeExitSeconds}s after` : 'as soon as'} termination starts, so also set ${LINKERD.waitBeforeExit} above the delay (see linkerd-proxy-drain)`;
}

/** Whether prestop-missing judges the workload at all (its pods take Service traffic and overlap in a rollout). */
function inScope(graph: ObjectGraph, w: Workload, version: KubeVersion): boolean {
  return KINDS.has(w.kind) && likelyServed(graph, w) && servesAfterSigterm(w) === undefined && handover(graph, w, version) !== 'none';
}

/** Whether prestop-missing judges the container's hook: a main container the admission chain does not change, whose program does not keep accepting by itself. */
function judged(graph: ObjectGraph, catalog: Catalog, w: Workload, c: ContainerView): boolean {
  return c.role === 'main' && !injectedAtAdmission(w, c) && !acceptsAfterSigterm(graph, catalog, w, c);
}

/**
 * The traffic containers of a workload that prestop-missing reports for having no preStop hook,
 * whatever its grace period: with terminationGracePeriodSeconds 0 it reports none (no hook would
 * run; zero-grace-period reports the grace period, and its repair adds these hooks too, so that
 * the two repairs do not come one after the other).
 */
export function containersWithoutPreStop(graph: ObjectGraph, catalog: Catalog, w: Workload, version: KubeVersion): ContainerView[] {
  if (!inScope(graph, w, version)) return [];
  return removedContainersOf(graph, w).filter((c) => {
    const hook = get(c.raw, 'lifecycle', 'preStop');
    return (hook === undefined || hook === null) && judged(graph, catalog, w, c);
  });
}

/**
 * preStop delay for the container, plus the grace period it then needs (never lowered). A proposal
 * when the container is a guess (`guessed`: traffic.ts containerGuess), since it may not be the one
 * that serves the port.
 */
function addPreStopFix(version: KubeVersion, w: Workload, c: ContainerView, grace: number, guessed: boolean, seconds: number): Fix {
  const h = preStopHandler(version, seconds);
  const edits: FixEdit[] = [{ op: 'set', pointer: `${c.pointer}/lifecycle/preStop`, value: h.handler }];
  const raise = raiseGraceEdit(w, grace);
  if (raise) edits.push(raise);
  return {
    description: `add ${h.text} to container "${c.name}"${raise ? ` and raise terminationGracePeriodSeconds to ${grace}` : ''}${guessed ? ' (a guess: no container declares the port or names it in its env or args)' : ''}`,
    safety: guessed ? 'proposal' : h.safety,
    edits,
  };
}

export const prestopMissing: Rule = {
  meta: {
    id: 'prestop-missing',
    spec: 'TERM-002',
    defaultSeverity: 'warning',
    severities: ['error', 'warning', 'info'],
    description: 'container serving a Service port has no preStop delay, so endpoint removal races SIGTERM',
    doc: `When a pod is deleted, the kubelet signals the containers and the control plane removes the
endpoint **in parallel**. kube-proxy, ingress controllers, meshes and cloud load balancers learn about
the removal asynchronously, with no upper bound on the lag. A container without a preStop hook gets
SIGTERM at once, so it can close its listener while clients are still being sent to it: connection
refused, 502s. A short preStop delay keeps the old process serving until routing has caught up
(KEP-3960 cites exactly this).

**Applies to:** served Deployments, StatefulSets, DaemonSets and ReplicaSets (a Service in the namespace
selects the pod template, or \`kubegrace.dev/served: "true"\`); the main containers that receive a
Service \`targetPort\` carrying user traffic. Metrics and operator ports (by name, except on port 80 or 443 of a web server or proxy image, nginx or envoy say, which clients use whatever it is named, and except a metrics name on the one HTTP server of a Loki, Mimir, Tempo or Cortex component whose API clients call, such as the distributor or the query-frontend, by its \`-target\`, or of a Prometheus server not in agent mode, whose port named \`prometheus\` serves its query API and UI: the Service port's
name, else the name of the container port it reaches; \`metrics\`, \`http-metrics\`, \`cmetrics\`, \`status\`,
\`admin\`, \`health\`, ...), Services of exporters and metrics components (\`app.kubernetes.io/component:
exporter\`, or \`metrics\` on the Service; a Service named \`*-metrics\` or \`*-metrics-service\`; never one an APIService or an admission webhook calls), Service ports that reach a Prometheus exporter's container (an image named \`*-exporter\` or \`*_exporter\`, such as Couchbase's sync-gateway-prometheus-exporter sidecar), the port of a controller-runtime manager's \`--metrics-bind-address\` or of a health probe listen flag (\`--health-probe-bind-address\`, \`--<name>-probe-port\`, \`--health-port\`: probes only), gossip ports (a name with \`gossip\`, \`memberlist\`, \`membership\`, \`ringpop\`, \`serf\` or \`clusterpeer\` as a part of it, such as
\`http-memberlist\`, \`serflan-tcp\` or Temporal's \`grpc-membership\`, and Alertmanager's \`cluster-tcp\` and \`tcp-mesh\`: peer membership), kube-rbac-proxy ports that a
ServiceMonitor scrapes or whose \`--upstream\` is a loopback address on the pod's controller-runtime metrics port, and the monitoring server of a program the catalog knows (Fluent Bit's HTTP server on its
\`HTTP_Port\`, 2020 by default, which its chart names \`http\`; see docs/catalog.md) do not count: Prometheus scrapes the endpoints directly, and a missed scrape is
not lost traffic. Nor do Services with \`publishNotReadyAddresses: true\` (a data store's peer Service): the
EndpointSlice controller keeps a terminating pod as a ready endpoint of such a Service until the pod is
deleted, so its clients are routed to the pod through the whole termination whatever a hook does: there is
no removal for a delay to wait for (\`headless-publish-not-ready\` judges the flag itself). Nor do idle containers (the
pause image, or a command that only sleeps forever such as \`sleep infinity\`): nothing listens there. Nor does a
container whose PID 1 never gets SIGTERM (a shell held above the server, such as \`sh -c 'gunicorn …'\` where \`sh\`
is dash: see \`grace-period-budget\`, which warns about it): its socket stays open until SIGKILL at the deadline. Nor do the
components of Grafana Loki, Mimir and Tempo (and Cortex) that no client reaches through a Service, by their \`-target\`:
ring members, which the distributors and queriers pick from the hash ring and dial by pod address (the ingester, the
store-gateway, Tempo's metrics-generator), the querier of Mimir, Cortex and Tempo, which pulls its work from the
query-frontend or scheduler, and Mimir's query-scheduler and overrides-exporter: at SIGTERM they leave the ring or tell
their clients they are stopping, and no endpoint removal is raced (Loki's querier stays judged: its gateway proxies the
tail API to its Service). Nor do the same kind of components of Grafana Pyroscope (an image named \`pyroscope\`, such as \`grafana/pyroscope\`, by
\`-target\`): the ingester, store-gateway and segment-writer (ring members, dialled at the address each registered),
the querier and compaction-worker (they pull their work), the compactor (sharded by its ring), the query-scheduler
(found through its ring), the metastore (a raft group: one client per server, at the address resolved from its
headless Service) and the query-backend (gRPC round robin over its headless Service's DNS, with retries); the
distributor, query-frontend, tenant-settings, ad-hoc-profiles, admin and the single binary stay judged. Unlike the
others these stay served for every other rule (their peers are their clients: \`replicas-not-spread\`, \`pdb-missing\` and
the rollout rules judge them); only the endpoint removal they do not race is left out here. The same holds for a
Hazelcast member (\`hazelcast/hazelcast\`, \`hazelcast/hazelcast-enterprise\`) behind a headless Service: its clients keep
a connection to every member and send each operation to the partition's owner, and a stopping member leaves by the
membership protocol (with \`GRACEFUL\` shutdown it migrates its data away first), so a delay only postpones that; a
ClusterIP or load-balanced Service in front of it stays judged. Nor do Flink TaskManagers (the official image's \`taskmanager\` argument, Bitnami's
\`FLINK_MODE=taskmanager\`): the JobManager and the other TaskManagers dial each by the address it registered with. Nor do
Trino workers (the \`trinodb/trino\` image with \`coordinator=false\` in the \`/etc/trino/config.properties\` of a ConfigMap of
the input): the coordinator sends tasks to the URI each worker announced to it. Nor do Druid's Historicals, MiddleManagers
and Indexers (the service argument \`historical\`, \`middleManager\` or \`indexer\` of the \`apache/druid\` image's
entrypoint, of a \`druid.sh\` or \`run-druid\` script, or of \`org.apache.druid.cli.Main server\`): the Brokers and the Overlord
dial the host:port each one announced, and a preStop sleep only delays its unannouncement; what covers the window between
the unannouncement and the stop is Druid's own \`druid.server.http.unannouncePropagationDelay\` (then
\`druid.server.http.gracefulShutdownTimeout\` for the queries in flight; both \`PT0S\` by default). Nor do Thanos Receive
ingestors (\`thanos receive\` with \`--receive.local-endpoint\` and neither \`--receive.hashrings-file\` nor
\`--receive.hashrings\`, Thanos's IngestorOnly mode): the routers forward each series to the ingestor the hash ring picks,
at the address the ring lists for it, and no other endpoint takes its series (the routers, and receivers that route and
ingest, stay judged: Prometheus writes to them through a Service). A Service
port that an Ingress, a Gateway API route or a Traefik IngressRoute sends traffic to counts whatever it is named.

**Condition:** such a container has no \`lifecycle.preStop\`, or has one known to give no delay: a sleep of
0 s, a program of the catalog that keeps accepting for 0 s with the flags as written (ingress-nginx's
\`/wait-shutdown\` without \`--shutdown-grace-period\`, whose default is 0: nginx quits at once), a shell hook that
signals the app before any sleep (\`killall -INT pgbouncer && sleep 120\`, the Airflow chart's pgbouncer, whose SIGINT
closes its listeners at once; \`kill -SIGTERM 1; sleep 30\`: a \`kill\`, \`pkill\` or \`killall\` with no signal or TERM, INT
or KILL, not HUP, USR1 or USR2, which reload, nor QUIT, a JVM's thread dump), whose sleep after the signal only keeps the
container up while the app drains (the advice puts a sleep first, \`sleep 10 && killall -INT pgbouncer && sleep 120\`,
with the grace period that needs, as a proposal with \`--fix-proposals\`; or, where the app's SIGTERM starts the same
drain, a plain delay in place of the hook), or a hook that the \`kubegrace.dev/prestop-seconds\` hint says takes 0 s. Hooks whose delay is unknown (\`httpGet\`,
other commands) are not judged. For a known program the advice is its own setting
(\`--shutdown-grace-period=10\`, chart value \`controller.extraArgs.shutdown-grace-period\`).

- **warning** by default (when the API server is the only caller of its Services, through admission webhooks, an
  APIService or the conversion webhook of a CustomResourceDefinition, the message says so and what fails in the
  window: requests its fail-closed webhooks intercept are rejected, objects are admitted unmutated or unchecked, the
  aggregated API answers errors, reads and writes of custom resources that need a conversion fail);
- **error** when an external load balancer gates the pods: a cloud LB readiness gate in the template
  (\`readinessGates[].conditionType\` starting \`target-health.elbv2.k8s.aws/\`, or
  \`cloud.google.com/load-balancer-neg-ready\`) or a Service with \`externalTrafficPolicy: Local\` whose ports
  reach the container (a Local Service that carries only another container's ports leaves it a warning), of type
  \`LoadBalancer\` (a \`NodePort\` Service gets no \`healthCheckNodePort\` and no LB: a warning). These LBs keep sending for seconds to tens of seconds after the endpoint
  goes away, so the loss is certain;
- **info** when every Service that carries its traffic is called, in the input, only by validating admission
  webhooks with \`failurePolicy: Ignore\` (no APIService, no mutating webhook, no webhook that fails closed), on
  every client port it has (\`clientConfig.service.port\`, 443 when unset; another port has other clients): a
  call refused while the endpoint removal propagates admits the object unchecked, and no request fails (ECK's
  operator). A mutating webhook that fails open stays a warning: the object is admitted unmutated (a pod without
  the proxy Linkerd's injector would have added);
- **info** too when the API server is the only caller through webhooks alone (no APIService), some failing closed,
  none a mutating one that fails open, and every one matches only custom resources (API groups of no built-in API,
  as \`webhook-backend-availability\` reads them, which rates the longer outage of the same calls as info), a CRD's
  conversion webhook counting as one that fails closed on its own custom resource: only requests for those fail in
  the window (writes; reads too where a conversion is needed), and their clients (GitOps controllers, the
  operator's reconcilers) retry them.

**Skipped:**

- \`terminationGracePeriodSeconds: 0\`: no hook runs (\`zero-grace-period\` reports it, and names these containers in its advice and its repair);
- workloads where no pod can take the traffic while one terminates, so a delay only postpones the outage (the
  old pod serves during the delay, then nothing serves until its replacement is ready, which cannot start
  before the old pod is gone):
  - one replica (counting HPA \`minReplicas\`) of a StatefulSet (the replacement has the same name), of a
    Deployment with \`strategy: Recreate\`, or of a Deployment whose pod mounts an exclusive claim
    (ReadWriteOnce, ReadWriteOncePod, or a PVC not in the input) and is deleted before its replacement is
    ready (\`maxUnavailable\` resolving to at least 1, whatever \`maxSurge\` is: Kubecost's cost-analyzer with
    \`maxSurge: 1, maxUnavailable: 1\`): the new pod cannot attach the volume on another node until the old one
    is gone; a bare ReplicaSet with such a claim likewise. With \`maxUnavailable: 0\` the old pod is deleted only
    once the new one is ready, which with such a claim means on the same node, so the pods overlap and the
    container is judged;
  - one replica of a Deployment with \`maxSurge\` 0 (or a bare ReplicaSet) on a target below 1.26, or whose only
    traffic Services are headless. From 1.26 it is judged: the ReplicaSet controller creates the replacement as
    soon as the pod is deleting (it counts only pods without a deletionTimestamp), in a rollout and in a drain,
    and kube-proxy sends a Service's connections to its terminating endpoints that still serve when none is
    ready (KEP-1669 \`ProxyTerminatingEndpoints\`: beta and on by default in 1.26, GA in 1.28), so a delay keeps
    the old pod serving while the replacement starts; the message says so;
  - a DaemonSet whose traffic Services are all ClusterIP Services with \`internalTrafficPolicy: Local\` (the
    Datadog agent's DogStatsD and APM ports) and that does not surge (\`maxSurge\` 0 or absent, a surge its host
    ports block, below 1.22, or \`OnDelete\`): a node's clients reach only that node's pod, and the DaemonSet
    controller creates the node's new pod only once the old one is gone. \`daemonset-surge\` asks for the surge
    where it can work; once the DaemonSet surges, the node's old pod overlaps the new one and a delay is asked
    for here. A Service with a cluster traffic policy, or of type LoadBalancer or NodePort, keeps it judged: the
    other nodes' pods take the traffic;

  unless a Service with a cluster IP sends the same traffic to the pods of another workload too (the members of
  a cluster made of one-replica StatefulSets behind one load balancer, as the neo4j chart makes them): then it
  has other endpoints, and the pod is judged;
- containers the Istio injector writes at admission (\`image: auto\` with injection requested, as in the
  istio/gateway chart): their lifecycle is not in the manifest, and pilot-agent keeps Envoy serving for
  \`terminationDrainDuration\` after SIGTERM (\`istio-proxy-drain\` judges that duration);
- programs the catalog knows to keep accepting after SIGTERM on every traffic listener (when one falls short,
  the advice also gives the program's own setting for the entry points that lack it): Traefik with
  \`--entryPoints.<name>.transport.lifeCycle.requestAcceptGraceTimeout\` > 0 on each user entry point (one
  entry point without it still needs the hook; the internal \`traefik\` and \`metrics\` entry points do not
  count). For an image the catalog does not know, the Traefik flag > 0 on any entry point is taken as the
  evidence. CoreDNS (\`coredns-lameduck\`) with \`lameduck\` > 0 s in the health block of its Corefile: on
  SIGTERM it keeps answering for that long (its readiness already failing), then stops. The Corefile is read
  from the ConfigMap the pod mounts where \`-conf\` points (kubeadm and the coredns chart: ConfigMap
  \`coredns\`, key \`Corefile\`, at \`/etc/coredns\`); when that ConfigMap is not in the input the Corefile is not
  assumed, the finding stays and says so, and its advice names the lameduck setting besides the preStop
  sleep. Any time above 0 s counts, as a preStop sleep of any length does here (behind an external load
  balancer, \`lb-deregistration-delay\` and \`external-traffic-local\` judge the preStop delay against their
  window and do not count the program's own time):

\`\`\`yaml
data:
  Corefile: |
    .:53 {
        health {
            lameduck 10s
        }
        ...
\`\`\`

- the KEDA HTTP add-on interceptor (\`keda-http-interceptor\`, images 0.15.0 and later, or untagged as the
  kustomize config's \`ko://\` image): on SIGTERM its readiness fails while its proxy keeps accepting for
  \`KEDA_HTTP_SHUTDOWN_DELAY\` (default 5s when the container's \`env\` does not set it), then it drains for
  \`KEDA_HTTP_DRAIN_TIMEOUT\` (default 30s). The 5s default counts as a 5s preStop sleep would: no finding.
  Set to 0, or from a ConfigMap, Secret or \`envFrom\` (not read), the finding stays and its advice names the
  variable (chart value \`interceptor.shutdownDelay\`);
- Skipper (\`skipper-wait-for-healthcheck\`, images \`*/teapot/skipper\` and \`*/zalando/skipper\` v0.10.185 and later
  running the \`skipper\` binary): on SIGTERM its \`/kube-system/healthz\` route answers 503 while it keeps
  proxying for \`-wait-for-healthcheck-interval\` (default 45s; a \`-config-file\` YAML may set it, read from its
  ConfigMap), then it shuts down gracefully. Set to 0, the finding stays and its advice names the flag;
- the SeaweedFS volume server (\`seaweedfs-volume-prestop-seconds\`, images \`*/seaweedfs\` running \`weed volume\`,
  not its master, filer, s3, \`weed server\` or the Rust \`weed-volume\`): on SIGTERM it stops heartbeating, so the
  master stops handing out its address, turns \`/healthz\` to 503 and keeps serving for \`-preStopSeconds\` (default
  10s), read from the container's command and args and from inside a \`sh -c\` script such as the chart's. Set to 0,
  the finding stays and its advice names the flag;
- VictoriaMetrics (\`victoriametrics-http-shutdown-delay\`, images \`victoriametrics/victoria-metrics\`, \`vmagent\`,
  \`vmalert\`, \`vmauth\`, \`vminsert\`, \`vmselect\`, \`vmstorage\`, v1.35.3 and later): on SIGTERM \`/health\` answers 503
  while the HTTP server keeps serving for \`-http.shutdownDelay\` (\`--http.shutdownDelay\` in the charts). Its
  default is 0, so without the flag the finding stays and its advice names it;
- programs the catalog knows to keep serving for a time fixed in their code, with no setting to read:
  Knative's activator (\`knative-activator\`, 45s) and the knative.dev/pkg webhooks of Knative Serving and
  Tekton Pipelines (at least 45s), and the Percona XtraDB Cluster operator (\`percona-xtradb-cluster-operator\`,
  images 1.7.0 and later run with command \`percona-xtradb-cluster-operator\`: at least 5s, its webhook server
  serving until it has slept 5s and no cluster is being deleted with finalizers);
- apps that keep serving after SIGTERM by themselves (e.g. an app that sleeps in its SIGTERM handler before
  closing its listener). Mark such a workload, on the pod template or the workload metadata, with the
  number of seconds (> 0) it keeps accepting requests:

\`\`\`yaml
metadata:
  annotations:
    kubegrace.dev/serves-after-sigterm-seconds: "15"
\`\`\`

${SERVED_STATUS_DOC}

${UNDECLARED_PORT_DOC}

**Fix:** a preStop delay of 5–15 s for in-cluster clients (longer behind an external LB, see
\`lb-deregistration-delay\`), then check that \`grace-period-budget\` still holds. On Kubernetes >= 1.30 use the
sleep action, which needs nothing in the image:

\`\`\`yaml
containers:
- name: app
  lifecycle:
    preStop:
      sleep: {seconds: 10}
\`\`\`

Before 1.30: \`exec: {command: ["sleep", "10"]}\` (the image must contain a \`sleep\` binary).

Behind an external load balancer (the error cases) the delay must also cover the LB's own window, which
\`external-traffic-local\` and \`lb-deregistration-delay\` size; the message says so next to the 10 s. When the
pod's Linkerd proxy is a classic container (as in the Linkerd identity controller's own pod) that waits no longer
than the delay, the advice adds \`config.alpha.linkerd.io/proxy-wait-before-exit-seconds\`: the proxy stops with the
pod whatever the app's hook does (\`linkerd-proxy-drain\` judges it once the hook is there).

**Loopback backends:** a main container that a served container of the same pod reaches over loopback gets
its stop signal when its own preStop ends, so it must wait at least as long as the front: nginx in front of
php-fpm (\`fastcgi_pass 127.0.0.1:9000\`), Pi-hole forwarding to cloudflared (\`127.0.0.1#5053\`). The evidence
is a loopback address and port in the front's env values, command, args or a file of a ConfigMap of the input
that it mounts, on a port the backend declares, checks with a probe or, for a php-fpm image (\`*-fpm\`), 9000;
or, for a proxy that writes the loopback host itself (the KubeRay security proxy forwards to
\`"http://localhost:" + HTTP_REMOTE_PORT\`), a bare port in a front env var named \`*_REMOTE_PORT\`, \`*_UPSTREAM_PORT\` or
\`*_BACKEND_PORT\` that the backend declares as a containerPort, unless a same-prefix \`*_HOST\` (\`_HOSTNAME\`,
\`_ADDR\`, \`_ADDRESS\`) env names a host other than loopback.
When the front has a preStop delay of known length and the backend a shorter one (or none), the backend is
reported (**warning**), with a repair that gives it the front's delay (raising the grace period if needed). A
front without a delay is reported as above first; its backends are judged once it has one. A backend that also
serves a Service port and has no delay (OpenFaaS Pro's provider beside the gateway, which calls it on
\`127.0.0.1:8081\`) is reported once, for its Service, with the front named in the message and a delay at least as
long as the front's.

**\`--fix\`:** on >= 1.30 adds \`lifecycle.preStop.sleep.seconds: 10\` (safe); before 1.30 adds \`exec: {command: ["sleep", "10"]}\` only with \`--fix-proposals\`, since the image needs a sleep binary. When the new delay would break the budget, the same fix raises \`terminationGracePeriodSeconds\` (never lowers it). A zero sleep is lengthened to 10 s only with \`--fix-proposals\` (it changes a hook the user wrote); a known program's flag is left to the advice. On a container that serves the port only by a guess (see Undeclared ports) the hook is added only with \`--fix-proposals\`, since it may be the wrong container.`,
    fixable: true,
    versionGate: 'the fix uses the preStop sleep action on >= 1.30 (PodLifecycleSleepAction beta), exec sleep before; a one-replica Deployment with maxSurge 0 or bare ReplicaSet is judged from 1.26 (ProxyTerminatingEndpoints beta, on by default)',
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/pods/pod-lifecycle.md#pod-termination',
      'kubernetes/enhancements keps/sig-node/3960-pod-lifecycle-sleep-action/README.md#summary',
      'kubernetes/enhancements keps/sig-network/1669-proxy-terminating-endpoints/README.md#example-all-endpoints-terminating-and-traffic-policy-is-cluster',
      'kubernetes/kubernetes pkg/proxy/topology.go @008b3652 (CategorizeEndpoints)',
      'kubernetes/kubernetes pkg/controller/daemon/daemon_controller.go @0033f658 (podsShouldBeOnNode)',
    ],
  },
  check(ctx) {
    const { graph } = ctx;
    const shellLess = shellLessPatterns(ctx.paramsOf('prestop-sleep-action'));
    for (const w of graph.workloads) {
      if (w.grace === 0 || !inScope(graph, w, ctx.version)) continue;
      const hand = handover(graph, w, ctx.version);
      const gate = cloudLbReadinessGate(w);
      // (Services with publishNotReadyAddresses keep the terminating pod as an endpoint: removedPortsOf.)
      // The Services whose client ports lose the endpoint (removedPortsOf), not those that carry only
      // scrapes (jobset's jobset-metrics-service beside its webhook Service; review round 26): who calls
      // those decides the wording below.
      const traffic = trafficServicesOf(graph, w);
      // (Which Local Service raises the error is decided per container below.)
      // (LoadBalancer only: a NodePort Service with Local has no LB and no health check, isExternalLocal.)
      const locals = traffic.filter(isExternalLocal);
      // (Per-pod Services, such as redis-ha's "announce" ones, reach the pods through kube-proxy too.)
      const headlessOnly = traffic.length > 0 && traffic.every((s) => s.headless) && servicesSelecting(graph, w).every((s) => s.headless || s.metricsOnly);
      // The API server is the only caller, and only for validating webhooks that fail open: a refused
      // call skips a check, no request fails (a mutating one admits the object unmutated, which can
      // matter: Linkerd's proxy injector fails open too).
      const uncheckedOnly = uncheckedCallsOnly(graph, traffic);
      const apiServerOnly = apiServerCallsOnly(graph, traffic);
      // (Per workload, made at its first finding.)
      let proxyNote: string | undefined;
      // (The containers reported here: a loopback backend among them is not reported again below.)
      const reported = new Set<ContainerView>();
      for (const c of removedContainersOf(graph, w)) {
        if (c.role !== 'main') continue;
        const preStop = get(c.raw, 'lifecycle', 'preStop');
        const zero = preStop !== undefined && preStop !== null ? zeroDelayHook(c, w) : undefined;
        if (preStop !== undefined && preStop !== null && !zero) continue;
        if (!judged(graph, ctx.catalog, w, c)) continue;
        // PID 1 never gets SIGTERM (a shell above the server, tail): the socket stays open until
        // SIGKILL at the deadline; grace-period-budget says so instead.
        if (sigtermIgnored(w, c)) continue;
        const declared = declaredPortsLabel(graph, w, c);
        // On unknown served status the first clause already says it is an assumption (the short text
        // output shows only the first sentence; the full note with the hint comes at the end).
        const serves =
          servedPortsLabel(graph, w, c, removedPortsOf(graph, w)) ??
          (declared && graph.servedState(w) === 'unknown' ? `${declared} (assumed served: no Service in the input selects it)` : declared) ??
          'Service traffic';
        // Before 1.30 the only hook is an exec sleep, which a shell-less image cannot run (karmada's
        // registry.k8s.io/kube-apiserver; review round 26): no repair then, and the advice says why.
        // (The images prestop-sleep-action's shellLessImagePatterns name, the policy's too: zitadel's scratch image; review round 29.)
        const noSleep = !sleepActionAvailable(ctx.version) && shellLessImage(c.image, shellLess);
        // A sibling that reaches it over loopback and keeps accepting for longer (OpenFaaS Pro's
        // gateway in front of its provider on 127.0.0.1:8081, review report p28): one finding with
        // both reasons, and a delay at least as long as the sibling's.
        const front = loopbackFront(graph, w, c, shellLess);
        const seconds = front ? Math.max(DEFAULT_PRESTOP_SECONDS, Math.ceil(front.seconds)) : DEFAULT_PRESTOP_SECONDS;
        const fix = noSleep
          ? `a preStop delay another way: the image "${c.image}" has no sleep binary for an exec hook and the sleep action needs Kubernetes >= 1.30, so use the program's own shutdown delay or a sleep binary in the image`
          : preStopFix(ctx.version, seconds);
        // (`probably container "x" (...)` when the port reaches it only by a guess.)
        const who = containerRef(c, removedPortsOf(graph, w));
        const guessed = containerGuess(c, removedPortsOf(graph, w)) !== undefined;
        // A Local Service raises the error only for the containers behind its own ports: pihole's chart
        // puts cloudflared's port on a ClusterIP Service beside the Local LoadBalancer one that carries
        // only pihole's DNS port (review round 30), and what that LB does never reaches cloudflared.
        const mine = new Set(removedPortsOf(graph, w).filter((p) => p.container === c).map((p) => p.service));
        const local = locals.find((s) => mine.has(s));
        let why: string;
        let severity: 'error' | 'warning' | 'info' = 'warning';
        // Behind an external LB the delay must cover the LB's own window, which another rule sizes
        // (10s is the in-cluster figure): said next to the advice, so the two numbers do not clash.
        let lbLonger = '';
        if (gate) {
          severity = 'error';
          lbLonger = ' (behind this load balancer the delay must also cover the time it takes to deregister the pod: see lb-deregistration-delay)';
          why = `the pods carry the load-balancer readiness gate "${gate}", and the external LB keeps sending new requests for tens of seconds after the endpoint goes away: requests are certain to fail`;
        } else if (local) {
          severity = 'error';
          lbLonger = ` (behind Service ${local.obj.name} the delay must also cover the LB health-check window: external-traffic-local gives the length)`;
          why = `Service ${local.obj.name} has externalTrafficPolicy: Local, so the external LB keeps sending to the node until its health check fails (interval x unhealthy threshold): requests are certain to fail`;
        } else if (uncheckedOnly) {
          // (Review round 10: ECK's operator, whose 16 validating webhooks all use Ignore.)
          severity = 'info';
          why = `${traffic.length === 1 ? `its Service ${traffic[0].obj.name} is` : 'its Services are'} called only by validating admission webhooks with failurePolicy: Ignore (${uncheckedOnly}): a call refused while the endpoint removal propagates admits the object unchecked, and no client request fails`;
        } else if (apiServerOnly) {
          // The API server is the only client (review rounds 20 and 21: kruise-manager, a webhook backend
          // reached by nothing else): no ingress is involved, and what fails is admission. The API server dials
          // the Service's cluster IP (kube-aggregator NewClusterIPServiceResolver, the default of kube-apiserver's
          // buildServiceResolver), or one endpoint from its own watch with --enable-aggregator-routing
          // (NewEndpointServiceResolver): either way the stale state is on its path, not in the pod (review round 33, report p40 item 3).
          why = `${traffic.length === 1 ? `its Service ${traffic[0].obj.name} is` : 'its Services are'} called only by the API server (${apiServerOnly.names}), which reaches ${traffic.length === 1 ? 'it' : 'them'} through the Service's cluster IP (or, with --enable-aggregator-routing, an endpoint it picks from its own watch), so its calls keep reaching this pod until the endpoint removal propagates to that path, and those in that window hit a closed socket: ${apiServerOnly.effect}`;
          if (apiServerOnly.custom) {
            severity = 'info';
            why += `; they match only custom resources (${apiServerOnly.custom}), so this is an info: only ${apiServerOnly.conversion ? 'requests' : 'writes'} of those fail in that window: GitOps controllers and the operator's own reconcilers retry them, while a one-shot kubectl apply or helm upgrade fails and must be run again`;
          }
        } else if (headlessOnly) {
          // No proxy routes a headless Service: clients connect to the addresses DNS gave them.
          why = `its Service${traffic.length === 1 ? ` ${traffic[0].obj.name} is` : 's are'} headless, so clients connect to the pod addresses DNS gave them: CoreDNS drops the address only after the endpoint removal reaches it, and clients keep addresses they resolved before (DNS caches, connection pools), so new connections can hit a closed socket`;
        } else if (hand === 'sole') {
          // The only pod, replaced as soon as it is deleting (review round 35, report p57 item 1): the
          // delay keeps it serving while its replacement starts, not while routing catches up.
          why = `it is the only pod (${w.kind === 'ReplicaSet' ? 'a ReplicaSet of one replica' : 'one replica with maxSurge 0'}), and its replacement is created as soon as it starts terminating (a rollout or a drain): until the replacement is ready, kube-proxy keeps sending the Service's connections to this pod while it still counts as ready (with no ready endpoint it falls back to the terminating ones that serve, by default since Kubernetes 1.26), so without a delay it closes its listener at once and requests fail until the replacement is ready; a delay about as long as the replacement takes to get ready bridges that gap`;
        } else {
          why = 'proxies, ingresses and meshes stop routing to it only after the endpoint removal reaches them, so in-flight and new requests can hit a closed socket';
        }
        if (front) {
          why += `; container "${front.container.name}" of the same pod also reaches it over loopback (${front.evidence}) and keeps accepting for ${front.seconds}s after termination starts (its preStop), so its delay must be at least as long`;
        }
        // Never advise a delay the grace period cannot hold: raise it in the same advice.
        const grace = neededGrace(graph, w, new Map([[c.pointer, seconds]]));
        const budget =
          grace > w.grace
            ? ` and raise terminationGracePeriodSeconds to ${grace} (from ${w.grace}s: the delay, the app's drain time and a margin must fit in it)`
            : ` and keep the delay plus drain time within ${graceMessageRef(w)}`;
        proxyNote ??= classicProxyNote(graph, w);
        const instead = `if the app itself keeps serving after SIGTERM, annotate ${SERVES_AFTER_SIGTERM} instead${assumedServedNote(graph, w)}`;
        if (zero?.kind === 'exec-stop-then-sleep' && !zero.hinted && zero.command?.length === 3) {
          // The hook signals the app before its sleep: the delay goes before the signal, and the sleep
          // after it stays the drain window (a proposal: it changes a script the user wrote).
          const script = `sleep ${seconds} && ${zero.command[2].trim()}`;
          const raise = raiseGraceEdit(w, grace);
          reported.add(c);
          ctx.report({
            object: w.obj,
            pointer: `${c.pointer}/lifecycle/preStop`,
            severity,
            message: `${who}: serves ${serves} but its preStop signals the app before it sleeps ("${zero.stop}"): the app starts its shutdown and stops accepting as soon as termination starts, while clients are still routed to it, and the sleep ${zero.waitSeconds}s after the signal only keeps the container up; ${why}. Put the delay first: ["${zero.command[0]}", "-c", ${JSON.stringify(script)}]${lbLonger}${budget}${proxyNote}; or, if the app's SIGTERM starts the same drain, replace the hook with ${sleepFix(ctx.version, seconds)}; ${instead}`,
            fix: {
              description: `run "sleep ${seconds}" before the preStop script of container "${c.name}"${raise ? ` and raise terminationGracePeriodSeconds to ${grace}` : ''}`,
              safety: 'proposal',
              edits: [{ op: 'set', pointer: `${c.pointer}/lifecycle/preStop/exec/command/2`, value: script }, ...(raise ? [raise] : [])],
            },
          });
          continue;
        }
        if (zero) {
          // The hook is there but gives no delay: its own knob (a known program's flag) or a longer sleep.
          const edit = preStopDelayEdit(ctx.version, c, seconds);
          const raise = edit ? raiseGraceEdit(w, grace) : undefined;
          reported.add(c);
          ctx.report({
            object: w.obj,
            pointer: `${c.pointer}/lifecycle/preStop`,
            severity,
            message: `${who}: serves ${serves} but its ${hookDelayWords(zero, 0)} gives no delay: it stops accepting as soon as termination starts, while clients are still routed to it; ${why}. Set ${delayAdvice(ctx.version, zero, seconds)}${lbLonger}${budget}${proxyNote}; ${instead}`,
            // Lengthening a hook the user wrote is a proposal (graceful-termination.md section 12); a
            // program's own flag is left to the advice.
            fix: edit && {
              description: `${edit.text}${raise ? ` and raise terminationGracePeriodSeconds to ${grace}` : ''}`,
              safety: 'proposal',
              edits: raise ? [...edit.edits, raise] : edit.edits,
            },
          });
          continue;
        }
        // A program that can keep accepting by itself (Traefik's requestAcceptGraceTimeout, CoreDNS's
        // lameduck): its own setting too.
        const own = servesAfterSigtermSetting(c, w, seconds, graph, ctx.catalog);
        const ownAdvice = own ? `, or use the program's own setting (${own.entry.title}, catalog entry ${own.entry.id}): ${own.text}` : '';
        reported.add(c);
        ctx.report({
          object: w.obj,
          pointer: c.pointer,
          severity,
          message: `${who}: serves ${serves} but has no preStop hook: SIGTERM arrives while clients are still routed to it; ${why}. Add ${fix}${ownAdvice}${lbLonger}${budget}${proxyNote}; ${instead}`,
          fix: noSleep ? undefined : addPreStopFix(ctx.version, w, c, grace, guessed, seconds),
        });
      }
      loopbackBackendFindings(ctx, w, shellLess, reported);
    }
  },
};

/**
 * A container that a served container of the pod reaches over loopback (nginx's fastcgi_pass
 * 127.0.0.1:9000 to php-fpm, Pi-hole's upstream 127.0.0.1#5053 to cloudflared: model/loopback.ts)
 * gets its stop signal when its own preStop ends: with a shorter delay than the front's (none), it
 * stops while the front still accepts, and what the front takes then fails at the backend (a 502).
 * Judged only where the front's delay is known and runs (a front without one is reported above; once
 * it has one, the next lint, or --fix's next pass, judges its backends). Review round 30: the
 * nextcloud chart's fpm flavour, pihole with cloudflared.
 */
function loopbackBackendFindings(ctx: Parameters<Rule['check']>[0], w: Workload, shellLess: readonly string[], reported: ReadonlySet<ContainerView>): void {
  const { graph } = ctx;
  // (A backend already reported for its Service names the loopback front there: one finding.)
  const done = new Set<ContainerView>(reported);
  for (const front of removedContainersOf(graph, w)) {
    if (front.role !== 'main') continue;
    const d = podPreStopDelay(front, w.annotations, undefined, w.containers, shellLess);
    if (d.kind === 'none' || d.seconds === undefined || d.seconds <= 0) continue;
    const seconds = Math.ceil(d.seconds);
    for (const use of loopbackBackends(graph, w, front)) {
      const b = use.backend;
      if (done.has(b) || sigtermIgnored(w, b)) continue;
      const own = podPreStopDelay(b, w.annotations, undefined, w.containers, shellLess);
      const ownSeconds = own.kind === 'none' ? 0 : own.seconds;
      // (A hook of unknown length is not judged.)
      if (ownSeconds === undefined || ownSeconds >= d.seconds) continue;
      done.add(b);
      const grace = neededGrace(graph, w, new Map([[b.pointer, seconds]]));
      const edit = preStopDelayEdit(ctx.version, b, seconds);
      const raise = edit ? raiseGraceEdit(w, grace) : undefined;
      const has = own.kind === 'none' ? 'has no preStop hook, so it gets its stop signal as soon as termination starts' : `stops after its own preStop (${ownSeconds}s)`;
      const budget = grace > w.grace ? ` and raise terminationGracePeriodSeconds to ${grace} (from ${w.grace}s)` : '';
      ctx.report({
        object: w.obj,
        pointer: own.kind === 'none' ? b.pointer : `${b.pointer}/lifecycle/preStop`,
        severity: 'warning',
        message: `container "${b.name}": container "${front.name}" of the same pod reaches it over loopback (${use.evidence}) and keeps accepting for ${d.seconds}s after termination starts (its preStop), but "${b.name}" ${has}: what "${front.name}" takes in that window fails at its backend (a proxy answers 502, a forwarder times out). Give "${b.name}" a preStop delay at least as long as "${front.name}"'s: ${own.kind === 'none' ? `add ${preStopFix(ctx.version, seconds)} to it` : `make its delay ${seconds}s`}${budget}`,
        fix: edit && {
          description: `${edit.text}${raise ? ` and raise terminationGracePeriodSeconds to ${grace}` : ''}`,
          // A new sleep action is the rule's safe repair; changing a hook the user wrote, or an exec sleep
          // (the image needs a sleep binary), is a proposal.
          safety: edit.safe ? 'safe' : 'proposal',
          edits: raise ? [...edit.edits, raise] : edit.edits,
        },
      });
    }
  }
}

/**
 * The sibling that reaches `b` over loopback with the longest known preStop delay (> 0s), with the
 * evidence, if any: the fronts loopbackBackendFindings judges `b` against.
 */
function loopbackFront(graph: ObjectGraph, w: Workload, b: ContainerView, shellLess: readonly string[]): { container: ContainerView; evidence: string; seconds: number } | undefined {
  let best: { container: ContainerView; evidence: string; seconds: number } | undefined;
  for (const front of removedContainersOf(graph, w)) {
    if (front === b || front.role !== 'main') continue;
    const d = podPreStopDelay(front, w.annotations, undefined, w.containers, shellLess);
    if (d.kind === 'none' || d.seconds === undefined || d.seconds <= 0 || (best && best.seconds >= d.seconds)) continue;
    const use = loopbackBackends(graph, w, front).find((u) => u.backend === b);
    if (use) best = { container: front, evidence: use.evidence, seconds: d.seconds };
  }
  return best;
}

/**
 * When every Service is called only by validating webhooks with failurePolicy: Ignore in the input
 * (no APIService, no mutating webhook, no webhook that fails closed): their names, else undefined.
 */
function uncheckedCallsOnly(graph: ObjectGraph, traffic: readonly ServiceView[]): string | undefined {
  if (!traffic.length) return undefined;
  const names: string[] = [];
  for (const s of traffic) {
    const calls = apiServerCalls(graph, s);
    if (!calls.length || !calls.every((c) => c.kind === 'ValidatingWebhookConfiguration' && c.failurePolicy === 'Ignore')) return undefined;
    if (s.ports.some((p) => graph.routedPort(s, p))) return undefined;
    // Every client port of the Service is a port the webhooks call: another port has other clients
    // (Gloo's Service: 443 for its validation webhook, 9977 and 9976 for the Envoys' xDS; review round 12).
    const called = new Set(calls.map((c) => c.port));
    if (s.ports.some((p) => !notClientPort(p) && (p.port === undefined || !called.has(p.port)))) return undefined;
    for (const c of calls) names.push(c.name);
  }
  const shown = [...new Set(names)];
  return shown.length > 3 ? `${shown.slice(0, 2).join(', ')} and ${shown.length - 2} more` : shown.join(', ');
}
