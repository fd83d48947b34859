import { Fix, Rule } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { ObjectGraph, PdbView, ServiceView } from '../model/graph';
import { isObject, Json, JsonObject } from '../model/types';
import { imageRepository } from '../catalog';
import { matches, parseLabelSelector } from '../model/selector';
import { Workload } from '../model/workload';
import { copyJson } from './fix-util';
import { budgetProblem, existingPointer, fmtIntOrPercent, isDataStore, labelsForPdb, memberGroup, nearMissBudgets, nsPhrase, OperatorPodGroup, OperatorWorkload, operatorReplicas, operatorWorkloads, ReplicaBasis, replicaBasis, rolesBoundTo, selectsOperatorPods, serviceAccountOf } from './rollout-util';
import { antiAffinityTerms, HOSTNAME_KEY, hostPortBindings, hostPortsPhrase, spreadConstraints } from './mesh-util';
import { sharedClaimDecision } from './surge-volume-deadlock';
import { isHelmHook, lastingHelmHook, passingHelmHook, runHelmHookJob } from './lb-util';
import { exporterImage, likelyServed, SERVED_STATUS_DOC, trafficPortsOf } from '../model/traffic';
import { apiServerCallsOnly } from '../model/webhook-calls';
import { isIdleContainer } from '../model/idle';

const KINDS = new Set(['Deployment', 'StatefulSet', 'ReplicaSet']);

/**
 * A new PDB right after the workload (a proposal: a new object): maxUnavailable 1 never blocks an
 * eviction and follows scale changes; the selector is a copy of the workload's own (never edited);
 * AlwaysAllow on >= 1.27 except for StatefulSets, treated as data stores (section 12), whose budget
 * states IfHealthyBudget.
 */
function newPdbFix(graph: ObjectGraph, version: KubeVersion, w: Workload): Fix | undefined {
  const selector = pdbSelector(w);
  if (!selector || alsoSelected(graph, w, selector).length) return undefined;
  // An index lookup per candidate name: filtering every PDB per workload made this quadratic.
  const taken = { has: (n: string) => graph.pdbNamed(w.obj.namespace, n) !== undefined };
  let name = w.obj.name;
  for (let i = 2; taken.has(name); i++) name = i === 2 ? `${w.obj.name}-pdb` : `${w.obj.name}-pdb-${i - 1}`;
  const metadata: JsonObject = { name };
  const rawNs = isObject(w.obj.raw.metadata) ? w.obj.raw.metadata.namespace : undefined;
  if (typeof rawNs === 'string' && rawNs !== '') metadata.namespace = rawNs;
  const spec: JsonObject = { maxUnavailable: 1 };
  // (A StatefulSet's budget says IfHealthyBudget, the default, explicitly: pdb-unhealthy-eviction-policy
  // reads the explicit value as the choice made, and would report the proposal otherwise.)
  if (version.atLeast(1, 27)) spec.unhealthyPodEvictionPolicy = isDataStore(w) ? 'IfHealthyBudget' : 'AlwaysAllow';
  spec.selector = selector;
  return {
    description: `add PodDisruptionBudget ${name} (maxUnavailable: 1) for ${w.kind}/${w.obj.name}`,
    safety: 'proposal',
    edits: [{ op: 'add-object', value: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata, spec } }],
  };
}

/** The selector the proposed budget copies: the workload's own, else its template labels. */
function pdbSelector(w: Workload): JsonObject | undefined {
  const sel = w.obj.raw.spec && isObject(w.obj.raw.spec) ? w.obj.raw.spec.selector : undefined;
  const hasSel = isObject(sel) && ((isObject(sel.matchLabels) && Object.keys(sel.matchLabels).length > 0) || (Array.isArray(sel.matchExpressions) && sel.matchExpressions.length > 0));
  return hasSel ? copyJson(sel) : Object.keys(w.templateLabels).length ? { matchLabels: { ...w.templateLabels } } : undefined;
}

/**
 * The workloads of the namespace without a scale subresource (Jobs, CronJobs, DaemonSets, bare
 * Pods) whose pods that selector also selects (Grafana OnCall's migrate Job carries its engine's
 * labels, review round 13). The disruption controller cannot size a budget over their pods ("does
 * not implement the scale subresource") and allows no disruption while one exists, so no budget
 * is proposed and the message says to narrow it. (Sibling Deployments or StatefulSets under one
 * budget, a canary beside its stable track, are a budget's normal use; so are the pods of Helm
 * hooks, the charts' test-connection Pods, which exist only while \`helm test\` runs.)
 */
const NO_SCALE = new Set(['Job', 'CronJob', 'DaemonSet', 'Pod']);
function alsoSelected(graph: ObjectGraph, w: Workload, selector: JsonObject): Workload[] {
  const candidates = noScaleWorkloads(graph).get(w.obj.namespace ?? '');
  if (!candidates) return [];
  const sel = parseLabelSelector(selector);
  return candidates.filter((o) => o !== w && matches(sel, o.templateLabels));
}

/**
 * The workloads without a scale subresource that carry pod labels (Helm hooks left out unless a hook Job stays after it ran), by
 * namespace, listed once per graph: each workload then checks only those (usually a few Jobs and
 * DaemonSets), not every workload of its namespace (issue 16: every rule O(n)).
 */
function noScaleWorkloads(graph: ObjectGraph): Map<string, Workload[]> {
  return graph.memo(noScaleWorkloads, graph, () => {
    const out = new Map<string, Workload[]>();
    for (const o of graph.workloads) {
      // (A Helm hook Job counts when it stays after it ran, with its Completed pod (lastingHelmHook), and
      // when it runs at install, upgrade or rollback (runHelmHookJob): a budget over its pods allows no
      // disruption while they exist, as pdb-selector says of it; a test Pod or a delete hook does not.)
      if (!NO_SCALE.has(o.kind) || (isHelmHook(o.obj) && !(lastingHelmHook(o.obj) && o.kind !== 'Pod') && !runHelmHookJob(o.obj)) || Object.keys(o.templateLabels).length === 0) continue;
      const ns = o.obj.namespace ?? '';
      const l = out.get(ns);
      if (l) l.push(o);
      else out.set(ns, [o]);
    }
    return out;
  });
}

/** The message's note when the workload's selector also selects other workloads' pods. */
function others(graph: ObjectGraph, w: Workload): string {
  const selector = pdbSelector(w);
  const also = selector ? alsoSelected(graph, w, selector) : [];
  if (!also.length) return '';
  return `, narrowed by a label that only its pods carry: that selector also selects the pods of ${also.map((o) => `${o.kind}/${o.obj.name}`).join(', ')}, which a budget with maxUnavailable cannot size (they have no scale subresource), so it would allow no disruption while they exist`;
}

/**
 * What keeps a single drain to one replica, as a clause for the message: required hostname
 * anti-affinity on its own pods (at most one per node), or a DoNotSchedule hostname spread with
 * maxSkew 1, which only evens the counts out (with fewer nodes than replicas a node holds two:
 * review round 14, timescaledb); undefined otherwise.
 */
function oneNodeEach(w: Workload): string | undefined {
  if (antiAffinityTerms(w).some((t) => t.required && t.selectsOwn && t.topologyKey === HOSTNAME_KEY)) return 'required pod anti-affinity on kubernetes.io/hostname keeps one replica per node, so a single drain takes only one';
  // (Host ports, also a hostNetwork pod's declared ports: the scheduler puts at most one such pod on a
  // node; review round 18, azuredisk-csi-driver's controller.)
  const ports = hostPortBindings(w);
  if (ports.length) return `host ports (${hostPortsPhrase(ports)}) keep one replica per node, so a single drain takes only one`;
  if (spreadConstraints(w).some((c) => c.selectsOwn && c.topologyKey === HOSTNAME_KEY && c.whenUnsatisfiable === 'DoNotSchedule' && c.maxSkew === 1))
    return 'a DoNotSchedule topology spread on kubernetes.io/hostname (maxSkew 1) evens the replicas out over the nodes, so a single drain takes only one while there are at least as many nodes as replicas';
  return undefined;
}

/**
 * The rule's decision for one workload, shared with explain: defined (reported) for a Deployment,
 * StatefulSet or ReplicaSet with at least 2 replicas that no working PodDisruptionBudget protects,
 * with what keeps one replica per node when something does, and (`empty`) the budgets that select
 * it but protect nothing (budgetProblem), which the rule reports instead. No budget is asked for
 * replicas sharing an exclusive claim (surge-volume-deadlock): the replacement of an evicted
 * replica cannot attach the volume on another node while another replica holds it, so a budget
 * stalls the drain. Nor for a workload whose every container is idle (idleWorkload): placeholders
 * that hold capacity, whose eviction is their purpose.
 */
export function pdbMissingDecision(graph: ObjectGraph, w: Workload, version?: KubeVersion): { basis: ReplicaBasis; oneNodeEach?: string; empty: PdbView[] } | undefined {
  if (!KINDS.has(w.kind) || idleWorkload(w)) return undefined;
  const basis = replicaBasis(graph, w);
  if (!basis || basis.replicas < 2) return undefined;
  const budgets = graph.pdbsFor(w);
  if (budgets.some((p) => budgetProblem(p, version) === undefined)) return undefined;
  // (A budget that selects them but protects nothing is still a mistake in that budget, said at it.)
  if (budgets.length === 0 && sharedClaimDecision(graph, w)) return undefined;
  return { basis, oneNodeEach: oneNodeEach(w), empty: budgets };
}

/**
 * Whether every container of the workload that runs for the pod's life (main containers and native
 * sidecars) is idle (lib/model/idle.ts isIdleContainer: the pause image, or a sleep forever): pods
 * that do no work an eviction can interrupt. JupyterHub's user placeholders are a StatefulSet of
 * pause containers with a PriorityClass below the users' pods, so that users' pods preempt them and
 * the autoscaler keeps spare capacity; the chart gives them a budget of minAvailable: 0 on purpose
 * ("The cluster autoscaler should be allowed to evict and reschedule these pods if it would help in
 * order to scale down a node", jupyterhub/zero-to-jupyterhub-k8s @48ea50e3
 * jupyterhub/templates/scheduling/user-placeholder/pdb.yaml:1-4; statefulset.yaml:41, :58, :64-65:
 * priorityClassName, terminationGracePeriodSeconds: 0, container pause). A budget would only make
 * drains wait on them (review round 34, report p51 item 1).
 */
export function idleWorkload(w: Workload): boolean {
  const all = [...w.containers, ...w.sidecars];
  if (!all.length || !all.every((c) => isIdleContainer(c.raw))) return false;
  // A pod that asks for an injected proxy is a shell for it: Kuma's zone ingress and egress are a
  // pause container with kuma.io/sidecar-injection: enabled, and the injected kuma-dp does the work
  // (review round 34: the kuma-ha render of report p29).
  return !Object.entries({ ...w.templateLabels, ...w.annotations }).some(([k, v]) => INJECT_KEY.test(k) && !INJECT_OFF.test(v));
}

/** Sidecar-injection switches: sidecar.istio.io/inject, linkerd.io/inject, kuma.io/sidecar-injection, consul.hashicorp.com/connect-inject... */
const INJECT_KEY = /(?:^|[./-])(?:inject|injection)$/;
const INJECT_OFF = /^(?:false|disabled|0|no|off)$/i;

/**
 * When the workload's only clients are the API server's calls to admission webhooks that match only
 * custom resources (or CRD conversion webhooks): every Service that routes client traffic to it is
 * called by the API server alone, on each of its client ports (webhook-calls.ts apiServerCallsOnly,
 * the test prestop-missing uses), its webhooks fail closed and name only API groups of no built-in
 * API (customResourcesOnly), and no kubegrace.dev/served hint says it has other clients. Losing every
 * replica then rejects writes (or conversions) of those resources only, which
 * webhook-backend-availability and prestop-missing rate info (External Secrets' webhook; review round 33, report p40).
 * Undefined otherwise: a webhook on built-in kinds or pods (Kyverno, Gatekeeper: `*` groups)
 * blocks writes cluster-wide, and another Service or port has other clients.
 */
export function customResourceWebhookBackend(graph: ObjectGraph, w: Workload): { names: string; custom: string; conversion: boolean } | undefined {
  if (graph.servedHint(w) !== undefined) return undefined;
  // (The Services whose ports carry client traffic to it, as prestop-missing reads them: not those
  // that carry only scrapes beside the webhook Service.)
  const clients = new Set(trafficPortsOf(graph, w).map((p) => p.service));
  const traffic = graph.trafficServices(w).filter((s) => !clients.size || clients.has(s));
  const only = apiServerCallsOnly(graph, traffic);
  return only?.custom ? { names: only.names, custom: only.custom, conversion: only.conversion === true } : undefined;
}

/** A group of one-replica members that one Service serves together and no budget selects (memberGroupsWithoutBudget). */
export interface BareMemberGroup {
  members: Workload[];
  /** The Service that selects them all (a non-headless one when there is one). */
  svc: ServiceView;
  /** What makes them a group (memberGroup): `StatefulSets of the image neo4j`, `rollout-group ingester`. */
  why: string;
}

/**
 * The groups of one-replica StatefulSets that one Service selects together (its selector, not a
 * metrics-only one; Jobs and Helm hooks left out) and that memberGroup names the members of one
 * group (the same images, or one rollout-group), when no budget of the namespace selects any
 * member: the members of one clustered program, one StatefulSet each, as the neo4j chart installs a
 * cluster (one release per member, podDisruptionBudget.enabled false by default). pdb-missing
 * judges no member alone (one replica each), but concurrent drains may evict several members at
 * once, and a clustered store then loses its quorum (review round 34, report p50 item 2). A member
 * with an HPA, more than one replica (judged alone), or any budget (pdb-blocks-eviction and the
 * budget's own findings judge it), or a group whose every container is idle, is left out. Once per
 * graph, each group once (the first Service found that selects it, a non-headless one first).
 */
export function memberGroupsWithoutBudget(graph: ObjectGraph): BareMemberGroup[] {
  return graph.memo(memberGroupsWithoutBudget, graph, () => {
    const out = new Map<string, BareMemberGroup>();
    for (const svc of [...graph.services].sort((a, b) => Number(a.headless) - Number(b.headless))) {
      if (svc.metricsOnly || svc.selector.kind !== 'selector') continue;
      const members = graph.workloadsFor(svc).filter((x) => !x.isBatch && !passingHelmHook(x.obj));
      if (members.length < 2) continue;
      const why = memberGroup(members);
      if (!why) continue;
      const one = members.every((m) => {
        const b = replicaBasis(graph, m);
        return b !== undefined && !b.hpa && b.replicas === 1 && graph.pdbsFor(m).length === 0;
      });
      if (!one || members.every(idleWorkload)) continue;
      const key = members.map((m) => `${m.kind}/${m.obj.namespace ?? ''}/${m.obj.name}`).sort().join(' ');
      if (!out.has(key)) out.set(key, { members, svc, why });
    }
    return [...out.values()];
  });
}

/** Whether every member has required hostname anti-affinity over every member's pods (one member per node). */
function groupOneNodeEach(g: BareMemberGroup): boolean {
  return g.members.every((m) =>
    antiAffinityTerms(m).some((t) => t.required && t.topologyKey === HOSTNAME_KEY && isObject(t.raw.labelSelector) && g.members.every((o) => matches(parseLabelSelector(t.raw.labelSelector), o.templateLabels))),
  );
}

/** The selector of a member group's budget: the Service's, as labels. */
function groupSelector(g: BareMemberGroup): Record<string, string> {
  const l: Record<string, string> = {};
  if (g.svc.selector.kind === 'selector') for (const r of g.svc.selector.requirements) l[r.key] = r.values[0];
  return l;
}

/**
 * The proposed budget for a member group: one over the Service's selector (the labels the members
 * share), maxUnavailable 1, named after the Service (suffixed if taken); IfHealthyBudget stated on
 * >= 1.27 when a member keeps data (isDataStore, as newPdbFix), AlwaysAllow otherwise. None when
 * the selector also selects the pods of a Job, CronJob, DaemonSet or bare Pod (alsoSelected).
 */
function groupPdbFix(graph: ObjectGraph, version: KubeVersion, g: BareMemberGroup): Fix | undefined {
  const labels = groupSelector(g);
  const selector = { matchLabels: { ...labels } };
  const first = g.members[0];
  if (!Object.keys(labels).length || alsoSelected(graph, first, selector).length) return undefined;
  const base = g.svc.obj.name;
  let name = base;
  for (let i = 2; graph.pdbNamed(first.obj.namespace, name) !== undefined; i++) name = i === 2 ? `${base}-pdb` : `${base}-pdb-${i - 1}`;
  const metadata: JsonObject = { name };
  const rawNs = isObject(first.obj.raw.metadata) ? first.obj.raw.metadata.namespace : undefined;
  if (typeof rawNs === 'string' && rawNs !== '') metadata.namespace = rawNs;
  const spec: JsonObject = { maxUnavailable: 1 };
  if (version.atLeast(1, 27)) spec.unhealthyPodEvictionPolicy = g.members.some(isDataStore) ? 'IfHealthyBudget' : 'AlwaysAllow';
  spec.selector = selector;
  return {
    description: `add PodDisruptionBudget ${name} (maxUnavailable: 1) over the ${g.members.length} members ${g.members.map((m) => m.obj.name).join(', ')}`,
    safety: 'proposal',
    edits: [{ op: 'add-object', value: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata, spec } }],
  };
}

/** The phrase of pdbMissingMildReason and replicas-not-spread for such a backend. */
export function customResourceWebhookPhrase(b: { names: string; custom: string; conversion: boolean }): string {
  return `its only client is the API server, calling ${b.names}, which match${b.names.includes(',') || b.names.includes(' and ') ? '' : 'es'} only custom resources (${b.custom}): losing every replica fails only ${b.conversion ? 'requests' : 'writes'} of those, which GitOps controllers and the operator's own reconcilers retry (a one-shot kubectl apply or helm upgrade fails and must be run again), as webhook-backend-availability rates that outage`;
}

/** A pflag/flag boolean value that reads true (strconv.ParseBool). */
const LEADER_ELECT = /^--?(leader-elect|leader-election|enable-leader-election)(?:=(?:1|t|T|TRUE|true|True))?$/;

/**
 * The main container that runs leader election, by its flag: `--leader-elect` (kubebuilder since v3,
 * the Kubernetes components), `--enable-leader-election` (kubebuilder v2, Flux) or
 * `--leader-election` (the CSI sidecars), bare or `=true` (a boolean flag takes its value only after
 * `=`): `--leader-elect=true in container "manager"`; undefined when none does. A default that the
 * manifest does not write is not read.
 */
export function leaderElectionFlag(w: Workload): string | undefined {
  for (const c of w.containers) {
    const words = [c.raw.command, c.raw.args].flatMap((l) => (Array.isArray(l) ? l : [])).flatMap((a) => (typeof a === 'string' ? a.split(/\s+/) : []));
    const hit = words.find((x) => LEADER_ELECT.test(x));
    if (hit) return `${hit} in container "${c.name}"`;
  }
  return undefined;
}

/**
 * A leader-election switch written false (strconv.ParseBool): a flag (`--leader-elect=false`,
 * `--enable-leader-election=false`, `--leader-election-enabled=false`) or an environment variable
 * (`PXCO_LEADER_ELECTION_ENABLED: "false"`, the Percona XtraDB operator's switch, whose default is
 * true: percona/percona-xtradb-cluster-operator cmd/manager/main.go envConfig LeaderElection
 * `default:"true" envconfig:"PXCO_LEADER_ELECTION_ENABLED"`). Leader election is then off, whatever
 * else says.
 */
const LEADER_ELECT_OFF = /^--?[a-z-]*leader-elect(?:ion)?(?:-[a-z]+)*=(?:0|f|F|FALSE|false|False)$/;
const LEADER_ELECT_ENV = /leader_?elect/i;
const FALSE_VALUE = /^(?:0|f|F|FALSE|false|False)$/;

/**
 * `leaderElect: true` (or false) in a component config: KubeSchedulerConfiguration's
 * `leaderElection: {leaderElect: true}` and the other component configs
 * (k8s.io/component-base/config LeaderElectionConfiguration, JSON name `leaderElect`), in YAML or
 * JSON, one per line.
 */
const LEADER_ELECT_KEY = /^\s*(?:-\s*)?"?leaderElect"?\s*:\s*"?(true|false)"?\s*,?\s*(?:#.*)?$/gm;

/**
 * Whether the workload runs leader election, and the evidence, for pdbMissingMildReason: a written
 * flag (leaderElectionFlag); else, unless a flag or an environment variable turns it off
 * (LEADER_ELECT_OFF), `leaderElect: true` in a ConfigMap that
 * a main container mounts (leaderElectionConfig), or a grant on the lease lock to its ServiceAccount
 * (leaseLockGrant). TiDB's controllers elect a leader without a flag (review round 34, report p50
 * item 4): tidb-controller-manager always runs client-go's leader election on a lease
 * (pingcap/tidb-operator @edf76fd6 (v1.6.6) cmd/controller-manager/main.go:225-250,
 * resourcelock.New then leaderelection.RunOrDie), tidb-scheduler's kube-scheduler reads
 * `leaderElection: {leaderElect: true}` from its mounted config
 * (charts/tidb-operator/templates/config/_scheduler-config-yaml.tpl:4-5, scheduler-deployment.yaml:74,
 * :96-97, :117-121), and the v2 operator defaults `--leader-elect` to true (@42684baa
 * cmd/tidb-operator/main.go:120); each chart grants its ServiceAccount create and update on leases.
 */
export function leaderElectionEvidence(graph: ObjectGraph, w: Workload): string | undefined {
  const flag = leaderElectionFlag(w);
  if (flag) return flag;
  const words = w.containers.flatMap((c) => [c.raw.command, c.raw.args]).flatMap((l) => (Array.isArray(l) ? l : [])).flatMap((a) => (typeof a === 'string' ? a.split(/\s+/) : []));
  if (words.some((x) => LEADER_ELECT_OFF.test(x))) return undefined;
  const env = w.containers.flatMap((c) => (Array.isArray(c.raw.env) ? c.raw.env : []));
  if (env.some((e) => isObject(e) && typeof e.name === 'string' && LEADER_ELECT_ENV.test(e.name) && typeof e.value === 'string' && FALSE_VALUE.test(e.value))) return undefined;
  const config = leaderElectionConfig(graph, w);
  if (config !== undefined) return config || undefined;
  return leaseLockGrant(graph, w);
}

/**
 * `leaderElect: true in ConfigMap/x, which container "c" mounts`, when a ConfigMap of the input that a
 * main container mounts (a configMap volume, or a projected one's configMap source) sets it and none
 * sets it false; '' when one sets it false (leader election is off: no evidence, and no other
 * evidence counts); undefined when none says.
 */
function leaderElectionConfig(graph: ObjectGraph, w: Workload): string | undefined {
  const volumes = Array.isArray(w.podSpec.volumes) ? w.podSpec.volumes : [];
  const ns = w.obj.namespace;
  let found: string | undefined;
  for (const c of w.containers) {
    const mounts = Array.isArray(c.raw.volumeMounts) ? c.raw.volumeMounts : [];
    for (const m of mounts) {
      if (!isObject(m) || typeof m.name !== 'string') continue;
      const v = volumes.find((x) => isObject(x) && x.name === m.name);
      if (!isObject(v)) continue;
      const names: string[] = [];
      if (isObject(v.configMap) && typeof v.configMap.name === 'string') names.push(v.configMap.name);
      if (isObject(v.projected) && Array.isArray(v.projected.sources))
        for (const src of v.projected.sources) if (isObject(src) && isObject(src.configMap) && typeof src.configMap.name === 'string') names.push(src.configMap.name);
      for (const name of names) {
        const cm = graph.ofKindIn('ConfigMap', ns).find((o) => o.name === name);
        const data = cm && isObject(cm.raw.data) ? cm.raw.data : undefined;
        if (!data) continue;
        for (const text of Object.values(data)) {
          if (typeof text !== 'string') continue;
          for (const hit of text.matchAll(LEADER_ELECT_KEY)) {
            if (hit[1] === 'false') return '';
            found ??= `leaderElect: true in ConfigMap/${name}, which container "${c.name}" mounts`;
          }
        }
      }
    }
  }
  return found;
}

/**
 * `its ServiceAccount x may create and update coordination.k8s.io leases (ClusterRole/y), the lock
 * of client-go's leader election`, when the roles bound to the workload's ServiceAccount (named, not
 * `default`) in the input grant both verbs (or `*`) on leases of coordination.k8s.io, spelled out
 * (not `*` groups or resources: cluster-admin grants everything and says nothing), over any of
 * their rules; or update on configmaps or endpoints limited by resourceNames to a lock's name
 * (`...leader...`, `...election...`, `...lock...`: the older ConfigMap and Endpoints locks). A
 * candidate creates the lease when it is absent and updates it to acquire and renew it (client-go
 * tools/leaderelection/resourcelock/leaselock.go: LeaseLock.Create, LeaseLock.Update; leaderelection.go
 * tryAcquireOrRenew). Undefined as well when another workload of the namespace running other images
 * shares the ServiceAccount: the grant may be that one's.
 */
function leaseLockGrant(graph: ObjectGraph, w: Workload): string | undefined {
  // (serviceAccountOf reads the deprecated serviceAccount alias too: the v1.6 tidb-operator chart writes it.)
  const sa = serviceAccountOf(w);
  if (sa === 'default') return undefined;
  const ns = w.obj.namespace ?? 'default';
  const images = (x: Workload) => [...new Set(x.containers.map((c) => imageRepository(c.image).full))].sort().join(' ');
  const mine = images(w);
  if (graph.workloadsIn(w.obj.namespace).some((x) => x !== w && (x.obj.namespace ?? 'default') === ns && serviceAccountOf(x) === sa && images(x) !== mine)) return undefined;
  const { roles } = rolesBoundTo(graph, ns, sa);
  const listed = (l: Json | undefined, x: string) => Array.isArray(l) && l.includes(x);
  const any = (l: Json | undefined, x: string) => Array.isArray(l) && (l.includes(x) || l.includes('*'));
  const LOCK_NAME = /leader|election|lock/i;
  for (const r of roles) {
    const rules = (Array.isArray(r.raw.rules) ? r.raw.rules : []).filter(isObject);
    const leases = rules.filter((rule) => listed(rule.apiGroups, 'coordination.k8s.io') && listed(rule.resources, 'leases'));
    if (any(leases.flatMap((x) => (Array.isArray(x.verbs) ? x.verbs : [])), 'create') && any(leases.flatMap((x) => (Array.isArray(x.verbs) ? x.verbs : [])), 'update'))
      return `its ServiceAccount ${sa} may create and update coordination.k8s.io leases through ${r.kind}/${r.name}, the lock of client-go's leader election`;
    for (const rule of rules) {
      if (!listed(rule.apiGroups, '') || !any(rule.verbs, 'update')) continue;
      const res = ['configmaps', 'endpoints'].find((x) => listed(rule.resources, x));
      const names = Array.isArray(rule.resourceNames) ? rule.resourceNames.filter((x): x is string => typeof x === 'string') : [];
      if (res && names.length && names.every((x) => LOCK_NAME.test(x)))
        return `its ServiceAccount ${sa} may update ${res} ${names.join(', ')} through ${r.kind}/${r.name}, a lock of client-go's leader election`;
    }
  }
  return undefined;
}

/**
 * Why evicting every replica at once costs little here, for the info level, or undefined (warning).
 * For a workload whose only client is the API server calling webhooks that match only custom
 * resources (customResourceWebhookBackend), and otherwise only for a workload no client reaches (not
 * likelyServed: no Service routes user traffic to it, the advice rules' served test), when one of
 * three facts of the manifest bounds the loss:
 * - a Deployment with strategy Recreate: every rollout already stops all replicas before any new
 *   one starts, so its owner accepts that pause in its work at each upgrade, and a drain that
 *   evicts them all costs the same pause (Mastodon's sidekiq workers: "Recreate will help reduce
 *   the number of retried jobs ... as the pods are all replaced immediately", mastodon/chart 6.9.3
 *   values.yaml mastodon.sidekiq.updateStrategy; review p37). Workers under RollingUpdate keep the
 *   warning: their owner chose to keep some running.
 * - a Prometheus exporter (pod label app.kubernetes.io/component: exporter, or every main
 *   container's image named *-exporter / *_exporter, traffic.ts exporterImage): its Services carry
 *   scrapes, so losing every replica costs a gap in metrics, not requests or work (harbor-exporter;
 *   review p32), the reason its Services do not make it served.
 * - a main container that runs leader election (leaderElectionEvidence: a flag, a mounted component
 *   config, or its ServiceAccount's grant on the lease lock): one replica works, the others
 *   wait for its lease. Evicting the leader alone already pauses the work until a standby takes
 *   the lease over (client-go leaderelection: a candidate acquires only a lease whose
 *   leaseDurationSeconds, 15 s in controller-runtime, have passed since the holder's last renewal,
 *   unless the holder releases it on cancel); evicting every replica adds the replacement's start
 *   to that pause, and no client traffic is lost (the Solr operator; review round 33, report p44).
 * Unserved workers with a RollingUpdate (Celery, Kafka consumers) stay warnings: every replica
 * works, so losing every replica at once stalls their processing, which their strategy avoids on a
 * rollout.
 */
export function pdbMissingMildReason(graph: ObjectGraph, w: Workload): string | undefined {
  if (likelyServed(graph, w)) {
    const b = customResourceWebhookBackend(graph, w);
    return b && customResourceWebhookPhrase(b);
  }
  if (w.kind === 'Deployment' && w.deployment?.type === 'Recreate')
    return 'no Service routes clients to it, and its strategy Recreate already stops every replica at once on each rollout, so a drain that evicts them all costs the same pause in its work';
  const main = w.containers;
  const component = w.templateLabels['app.kubernetes.io/component'] === 'exporter';
  if (component || (main.length > 0 && main.every((c) => exporterImage(c))))
    return `it is a Prometheus exporter (${component ? 'app.kubernetes.io/component: exporter' : `image ${main[0].image}`}) that no Service routes clients to, so evicting every replica costs a gap in scrapes, not client traffic`;
  const le = leaderElectionEvidence(graph, w);
  if (le)
    return `no Service routes clients to it, and it runs leader election (${le}), so one replica works while the others wait for its lease: evicting the leader alone already pauses that work until a standby takes the lease over, and evicting every replica adds the start of a replacement to the pause; no client traffic is lost`;
  return undefined;
}

/** `{a: x, b: "1"}`, for messages: a value YAML would not read as a string is quoted. */
function labelText(l: Record<string, string>): string {
  const e = Object.entries(l);
  const q = (v: string) => (/^(?:[-+]?[0-9][0-9._]*|true|false|yes|no|on|off|null|~)?$/i.test(v) ? JSON.stringify(v) : v);
  return e.length ? `{${e.map(([k, v]) => `${k}: ${q(v)}`).join(', ')}}` : '{}';
}

/** What pdb-missing decides for a prometheus-operator resource (operatorWorkload). */
export interface OperatorPdbDecision {
  ow: OperatorWorkload;
  /** "replicas 3", "replicas 2 (default)", "HPA minReplicas 2 (HorizontalPodAutoscaler/am)". */
  phrase: string;
  replicas: number;
  /** The StatefulSets (shards) of the resource that no budget selects: reported at the resource. */
  bare: OperatorPodGroup[];
  /** The budgets that select some StatefulSet but protect nothing (reported at the budget). */
  empty: PdbView[];
}

/**
 * The rule's decision for a resource of prometheus-operator (Prometheus, PrometheusAgent in
 * StatefulSet mode, Alertmanager, ThanosRuler): the operator runs it as one StatefulSet (one per
 * shard for Prometheus and PrometheusAgent) of spec.replicas pods each, and a StatefulSet with at
 * least 2 replicas that no working budget protects is reported, as one in the input would be. An
 * HPA can scale an Alertmanager's replicas (its scale subresource is spec.replicas); a Prometheus's
 * scale subresource is spec.shards, so an HPA on it does not change the replicas of a shard.
 * Undefined when every StatefulSet has a working budget, or fewer than 2 replicas.
 */
export function operatorPdbDecision(graph: ObjectGraph, ow: OperatorWorkload, version?: KubeVersion): OperatorPdbDecision | undefined {
  const r = operatorReplicas(graph, ow);
  if (!r || r.replicas < 2) return undefined;
  const { replicas, phrase } = r;
  const ns = ow.obj.namespace ?? '';
  const pdbs = graph.pdbs.filter((p) => (p.obj.namespace ?? '') === ns);
  const bare: OperatorPodGroup[] = [];
  const empty = new Set<PdbView>();
  for (const gr of ow.groups) {
    const budgets = pdbs.filter((p) => selectsOperatorPods(p.selector, gr));
    if (budgets.some((p) => budgetProblem(p, version) === undefined)) continue;
    if (budgets.length) for (const p of budgets) empty.add(p);
    else bare.push(gr);
  }
  if (!bare.length && !empty.size) return undefined;
  return { ow, phrase, replicas, bare, empty: [...empty] };
}

/** The StatefulSets named in a message: at most three, then how many more. */
function groupNames(gs: readonly OperatorPodGroup[], total: number): string {
  const names = gs.slice(0, 3).map((g) => g.name);
  const more = total - names.length;
  return `StatefulSet${gs.length === 1 ? '' : 's'} ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/**
 * The proposed budgets for a prometheus-operator resource: one over all its pods (its
 * app.kubernetes.io/name and name labels, every shard) when no StatefulSet of it has one, else one
 * per unprotected shard (with its operator.prometheus.io/shard label), so no pod gets two budgets.
 * Named after the StatefulSet (alertmanager-main, prometheus-k8s: kube-prometheus's names), with
 * IfHealthyBudget stated on >= 1.27, not AlwaysAllow (a StatefulSet: section 12), as newPdbFix.
 */
function operatorPdbFix(graph: ObjectGraph, version: KubeVersion, d: OperatorPdbDecision): Fix | undefined {
  const { ow } = d;
  if (d.empty.length) return undefined;
  const all = d.bare.length === ow.groups.length;
  const targets = all ? [{ name: ow.groups[0].name, labels: ow.selectLabels }] : d.bare.map((g) => ({ name: g.name, labels: { ...ow.selectLabels, 'operator.prometheus.io/shard': String(g.shard) } }));
  const used = new Set<string>();
  const taken = (n: string) => used.has(n) || graph.pdbNamed(ow.obj.namespace, n) !== undefined;
  const rawNs = isObject(ow.obj.raw.metadata) ? ow.obj.raw.metadata.namespace : undefined;
  const objects: JsonObject[] = targets.map((t) => {
    let name = t.name;
    for (let i = 2; taken(name); i++) name = i === 2 ? `${t.name}-pdb` : `${t.name}-pdb-${i - 1}`;
    used.add(name);
    const metadata: JsonObject = { name };
    if (typeof rawNs === 'string' && rawNs !== '') metadata.namespace = rawNs;
    const spec: JsonObject = { maxUnavailable: 1 };
    if (version.atLeast(1, 27)) spec.unhealthyPodEvictionPolicy = 'IfHealthyBudget';
    spec.selector = { matchLabels: { ...t.labels } };
    return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata, spec };
  });
  const names = objects.map((o) => (o.metadata as JsonObject).name as string);
  return {
    description: `add PodDisruptionBudget${names.length === 1 ? '' : 's'} ${names.join(', ')} (maxUnavailable: 1) for ${ow.kind}/${ow.obj.name}`,
    safety: 'proposal',
    edits: objects.map((value) => ({ op: 'add-object' as const, value })),
  };
}

export const pdbMissing: Rule = {
  meta: {
    id: 'pdb-missing',
    spec: 'PDB-001',
    defaultSeverity: 'warning',
    severities: ['error', 'warning', 'info'],
    description: 'replicas >= 2 (or HPA minReplicas >= 2) and no PDB selects the pods',
    doc: `Without a PodDisruptionBudget, a node drain, a cluster upgrade or autoscaler consolidation may evict every
replica of a workload at the same time.

Condition (**warning**): a Deployment, StatefulSet or ReplicaSet with \`replicas >= 2\` (the HPA's \`minReplicas\` when an
HPA targets it) and no PodDisruptionBudget in its namespace whose selector matches the pod-template labels.
Single-replica workloads are not reported: a budget cannot protect them without blocking drains
(see \`pdb-blocks-eviction\`). Nor are Deployments and ReplicaSets whose replicas all mount one \`ReadWriteOnce\` (not
pinned to a node) or \`ReadWriteOncePod\` PersistentVolumeClaim, which \`surge-volume-deadlock\` reports: the
replacement of an evicted replica cannot attach the volume on another node while a second replica still holds it,
so it never becomes Ready and a budget then blocks the rest of the drain. Nor are workloads whose every container is
idle (the pause image with its own entrypoint, or a command that only sleeps forever; not in a pod template that asks for
an injected proxy, such as Kuma's zone proxies with \`kuma.io/sidecar-injection: enabled\`, where the proxy works): placeholders that hold capacity
and exist to be preempted or evicted, such as JupyterHub's user placeholders (a StatefulSet of pause containers whose
budget is \`minAvailable: 0\` on purpose, so that the autoscaler may evict them); their budget is not reported either.

One-replica StatefulSets are judged together when one Service (not a metrics-only one) selects them all and they are
the members of one group: the same images (whatever the tags), or one \`rollout-group\` label value. That is how the
neo4j chart installs a cluster, one release and one StatefulSet per member, with no budget by default. When no budget
of the namespace selects any member, one **warning** at the first member names them all: concurrent drains may evict
several members at once, and a program that needs a majority of its members (a Raft quorum) then stops. The advice is
one budget over the labels the members share (the Service's selector) with \`maxUnavailable: 1\`, not one per member,
which would still let concurrent drains evict one of each. A single one-replica workload stays silent; so does a group
with a member that has a budget (\`pdb-blocks-eviction\` judges a one-replica member's budget), an HPA, or several
replicas (judged alone).

The rule does not require the workload to be served: a queue worker whose replicas are all evicted together stalls its
work. It is **info** instead, for a workload no Service routes clients to (the served test below) when the manifest
bounds that loss: a Deployment with \`strategy.type: Recreate\`, whose every rollout already stops all replicas at once
(the owner accepts that pause at each upgrade; Mastodon's sidekiq workers), or a Prometheus exporter (pod label
\`app.kubernetes.io/component: exporter\`, or every main container's image named \`*-exporter\` or \`*_exporter\`), whose
Services carry scrapes: losing every replica costs a gap in metrics, not client traffic; or a main container that runs
leader election: a flag (\`--leader-elect\`, \`--enable-leader-election\` or \`--leader-election\`, bare or \`=true\`), else,
unless a flag or an environment variable named for leader election is written false (\`--leader-elect=false\`,
the Percona XtraDB operator's \`PXCO_LEADER_ELECTION_ENABLED: "false"\`), \`leaderElect: true\` in a ConfigMap of the input that a main container mounts
(a component config such as KubeSchedulerConfiguration's \`leaderElection\`), or roles bound to its ServiceAccount (named,
and not shared with a workload running other images) that grant \`create\` and \`update\` (or \`*\`) on \`leases\` of
\`coordination.k8s.io\`, spelled out (the lock client-go's leader election creates and renews), or \`update\` on
\`configmaps\` or \`endpoints\` limited by \`resourceNames\` to a lock's name (\`leader\`, \`election\`, \`lock\`; the older
locks). So a program that elects a leader from code or a flag default is read through its RBAC (TiDB's
tidb-controller-manager, which always runs client-go's leader election). One replica works while the others wait for its lease, so evicting the leader
alone already pauses the work until a standby takes the lease over (client-go's leader election takes over a lease only
once its duration, 15 s in controller-runtime, has passed since the last renewal, unless the holder releases it), and
evicting every replica adds a replacement's start to that pause (the Solr operator). Unserved workers under
RollingUpdate without leader election stay warnings: every replica works, and their strategy shows the owner keeps some
running.

It is **info** as well for a served workload whose only client is the API server calling admission webhooks that match
only custom resources (or CRD conversion webhooks): every Service that routes client traffic to it is called by the
API server alone, on each of its client ports, and its webhooks fail closed and name only API groups of no built-in API
(External Secrets' webhook; cert-manager's, on cert-manager.io and acme.cert-manager.io). Losing every replica then fails only writes of those resources, which their clients retry:
the outage \`webhook-backend-availability\` and \`prestop-missing\` rate info (\`replicas-not-spread\` says the same). A
webhook on built-in kinds or pods (Kyverno, Gatekeeper: \`*\` groups), a webhook that fails open (a mutating one
admits objects unmutated), another client port, or \`kubegrace.dev/served: "true"\` keeps the warning.

${SERVED_STATUS_DOC}

prometheus-operator's resources are judged the same way, since the operator runs each as a StatefulSet:
an \`Alertmanager\` or \`ThanosRuler\` with \`spec.replicas >= 2\` (an HPA's \`minReplicas\` for an \`Alertmanager\`, whose
scale subresource is \`spec.replicas\`), and a \`Prometheus\` or a \`PrometheusAgent\` (not in DaemonSet mode) with
\`spec.replicas >= 2\` per shard (one StatefulSet per shard, \`spec.shards\`), when no budget in the namespace selects the
labels the operator puts on their pods (\`app.kubernetes.io/name: alertmanager\`, \`alertmanager: NAME\`;
\`app.kubernetes.io/name: prometheus\`, \`operator.prometheus.io/name: NAME\`, \`operator.prometheus.io/shard: N\`, ...,
over \`spec.podMetadata.labels\`). Shards that no budget selects are named when others have one.

A budget that selects the pods but protects nothing does not count; it is reported at the budget instead:
- **error:** it sets both \`minAvailable\` and \`maxUnavailable\`, which are mutually exclusive: the API rejects it
  (\`ValidatePodDisruptionBudgetSpec\`: "minAvailable and maxUnavailable cannot be both set"). Since applying it fails,
  this is reported whatever the budget selects: over a single replica, beside another budget that works, or over no
  workload of the input (z2jh's \`proxy.chp.pdb\` with both values set);
- **warning:** \`minAvailable: 0\` (or \`"0%"\`) or \`maxUnavailable: "100%"\`, which allow every eviction as written
  (argo-events renders \`minAvailable: 0\` from a \`maxUnavailable: 0\` value that Go templates read as false).

A budget that sets neither field does count: it protects too much, refusing every eviction
(\`pdb-blocks-eviction\` reports it).

A budget of \`apiVersion: policy/v1beta1\` on >= 1.25 does not count either, and is an **error** at the budget: the API
server no longer serves that version (removed in 1.25, deprecated-api-migration-guide), so applying it fails
(cp-helm-charts' ZooKeeper budget), whatever it selects. \`pdb-unhealthy-eviction-policy\` and \`pdb-blocks-eviction\` skip
such a budget, and one with both fields.

Nor does the \`minReplicas\` of an HPA the API server no longer serves (\`autoscaling/v2beta1\` on >= 1.25,
\`autoscaling/v2beta2\` on >= 1.26, outside a Helm render): it never exists, and the workload runs its \`spec.replicas\`
(\`hpa-replicas\` reports the HPA as an error).

Fix: add a budget; \`maxUnavailable\` is preferred because it follows scale changes:
\`\`\`yaml
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  maxUnavailable: 1
  unhealthyPodEvictionPolicy: AlwaysAllow   # >= 1.27 (beta, on); GA 1.31
  selector:
    matchLabels: {app: web}
\`\`\`

**\`--fix-proposals\`:** adds a PodDisruptionBudget named after the workload (suffixed if the name is taken) as a new document right after it: \`maxUnavailable: 1\`, the workload's own \`spec.selector\` copied, \`unhealthyPodEvictionPolicy: AlwaysAllow\` on >= 1.27, and for StatefulSets that keep data (data stores: volumeClaimTemplates, a PersistentVolumeClaim or a hostPath volume; their Running-but-not-Ready pods a drain should not evict while the budget is short) \`IfHealthyBudget\` stated explicitly, which pdb-unhealthy-eviction-policy takes as the choice made. None when that selector also selects the pods of a Job, CronJob, DaemonSet or bare Pod of the namespace (a migration Job carrying the app's labels): the disruption controller cannot size a \`maxUnavailable\` budget over pods whose controller has no scale subresource and then allows no disruption, so the message says to narrow the selector by a label only the workload's pods carry. (The Pods of Helm hooks, a chart's test-connection Pod, do not count: the disruption controller leaves pods without a controller out. A hook Job does count: without \`hook-succeeded\` in its \`helm.sh/hook-delete-policy\` and without \`ttlSecondsAfterFinished\`, Helm deletes it only before the hook runs again, so it stays, with its Completed pod, which a budget selecting it still lists, as openfga's migration Job; with them, its pods still exist for its run at each install, upgrade or rollback, when the budget would allow no disruption, as \`pdb-selector\` warns. A delete hook does not count: it runs at uninstall, when the budget goes too.) None either when a budget of the namespace that selects no workload misses this one's pods by one label value (a template label under the same key whose value contains the wanted one or is a near spelling of it; among several such workloads, the one the budget is named after): the message names that budget and the label to correct, since a second budget would leave the pods with two once it is corrected, and the eviction API refuses every eviction of such a pod. For a prometheus-operator resource, the budget is named after its
StatefulSet (\`alertmanager-main\`, \`prometheus-k8s\`) and selects \`app.kubernetes.io/name\` and the resource's name label
(every shard of a Prometheus); when some shards already have a budget, one budget per unprotected shard, with its
\`operator.prometheus.io/shard\` label, so that no pod gets two budgets.`,
    fixable: true,
    references: [
      'kubernetes/website content/en/docs/tasks/run-application/configure-pdb.md',
      'kubernetes/website content/en/docs/concepts/workloads/pods/disruptions.md',
    ],
  },
  check(ctx) {
    const empty = new Map<PdbView, string[]>();
    for (const w of ctx.graph.workloads) {
      const d = pdbMissingDecision(ctx.graph, w, ctx.version);
      if (!d) continue;
      const { basis, oneNodeEach: each } = d;
      const ns = nsPhrase(w.obj);
      if (d.empty.length) {
        // A budget selects the pods but protects nothing: said once at the budget, whose fix it is
        // (after every workload, naming each one it leaves unprotected).
        for (const p of d.empty) {
          const l = empty.get(p) ?? [];
          l.push(`${w.kind}/${w.obj.name} (${basis.phrase})`);
          empty.set(p, l);
        }
        continue;
      }
      const mild = pdbMissingMildReason(ctx.graph, w);
      const risk =
        (each ? `${each}, but drains run concurrently (cluster upgrades drain several nodes at a time, the autoscaler consolidates several at once) and without a budget they may evict every replica together` : 'a node drain or autoscaler consolidation may evict every replica at once') +
        (mild ? `; that costs little here: ${mild}, and a budget still spaces drains out` : '');
      const severity = mild ? ('info' as const) : undefined;
      const near = nearMissBudgets(ctx.graph).byWorkload.get(w);
      if (near) {
        // A budget meant for these pods with one label wrong: correcting it is the fix; a second
        // budget beside it would leave the pods with two once it is corrected.
        ctx.report({
          object: w.obj,
          pointer: !basis.hpa && w.replicasSet ? '/spec/replicas' : '/spec',
          severity,
          message: `${basis.phrase} but no PodDisruptionBudget${ns} selects its pods: ${risk}; PodDisruptionBudget/${near.pdb.obj.name} looks meant for them but selects ${near.key}: ${near.want}, and the template has ${near.key}: ${near.has}: correct that budget's selector rather than adding one (with a second budget, the pods would have two once it is corrected, and the eviction API refuses every eviction of a pod that two budgets select)`,
          absence: true,
        });
        continue;
      }
      ctx.report({
        object: w.obj,
        pointer: !basis.hpa && w.replicasSet ? '/spec/replicas' : '/spec',
        severity,
        message: `${basis.phrase} but no PodDisruptionBudget${ns} selects its pods: ${risk}; add a PodDisruptionBudget with maxUnavailable: 1 and selector.matchLabels ${labelsForPdb(w)}${others(ctx.graph, w)}`,
        fix: newPdbFix(ctx.graph, ctx.version, w),
        absence: true,
      });
    }
    // One-replica members of one group that a Service serves together, with no budget: one finding
    // per group, at its first member, since the fix is one budget over all of them (one per member
    // would let concurrent drains evict several members at once; review round 34, report p50 item 2).
    for (const g of memberGroupsWithoutBudget(ctx.graph)) {
      const [first] = g.members;
      const names = g.members.map((m) => `${m.kind}/${m.obj.name}`);
      const each = groupOneNodeEach(g);
      ctx.report({
        object: first.obj,
        pointer: first.replicasSet ? '/spec/replicas' : '/spec',
        message: `${names.length} one-replica StatefulSets (${names.join(', ')}; ${g.why}) are the members of one group that Service/${g.svc.obj.name} serves together, and no PodDisruptionBudget${nsPhrase(first.obj)} selects any of them: ${each ? 'required pod anti-affinity on kubernetes.io/hostname over the members keeps one member per node, so a single drain takes only one, but ' : ''}concurrent drains (cluster upgrades drain several nodes at a time, the autoscaler consolidates several at once) may evict several members at once, and a clustered program that needs a majority of its members (a Raft quorum) then stops; add one PodDisruptionBudget over the labels the members share, such as the Service's selector ${labelText(groupSelector(g))}, with maxUnavailable: 1 (or a minAvailable that keeps the quorum), not one per member (maxUnavailable: 1 on each member would still let concurrent drains evict one of each)`,
        fix: groupPdbFix(ctx.graph, ctx.version, g),
        absence: true,
      });
    }
    // Resources prometheus-operator runs as StatefulSets (their pods are in no template of the input).
    for (const ow of operatorWorkloads(ctx.graph)) {
      const d = operatorPdbDecision(ctx.graph, ow, ctx.version);
      if (!d) continue;
      const who = `${ow.kind}/${ow.obj.name} (${d.phrase}${ow.shards > 1 ? ` in each of ${ow.shards} shards` : ''})`;
      for (const p of d.empty) {
        const l = empty.get(p) ?? [];
        l.push(who);
        empty.set(p, l);
      }
      if (!d.bare.length) continue;
      const ns = nsPhrase(ow.obj);
      const all = d.bare.length === ow.groups.length;
      const sharded = ow.shards > 1;
      const pods = all
        ? `${sharded ? ' in each of its ' + ow.shards + ' shards' : ''} but no PodDisruptionBudget${ns} selects its pods (${groupNames(ow.groups, ow.shards)}, which prometheus-operator makes from it)`
        : ` in each of its ${ow.shards} shards but no PodDisruptionBudget${ns} selects the pods of shard${d.bare.length === 1 ? '' : 's'} ${d.bare.map((g) => g.shard).join(', ')} (${groupNames(d.bare, d.bare.length)})`;
      const advice = all
        ? `add a PodDisruptionBudget with maxUnavailable: 1 and selector.matchLabels ${labelText(ow.selectLabels)}${sharded ? ' (every shard)' : ''}`
        : `add a PodDisruptionBudget with maxUnavailable: 1 for ${d.bare.length === 1 ? 'it' : 'each'}, selector.matchLabels ${labelText({ ...ow.selectLabels, 'operator.prometheus.io/shard': String(d.bare[0].shard) })}${d.bare.length === 1 ? '' : ' and so on'} (a budget over every shard would give the pods already protected a second budget, and the eviction API refuses to evict those)`;
      ctx.report({
        object: ow.obj,
        pointer: d.phrase.startsWith('HPA') ? existingPointer(ow.obj.raw, 'spec') : existingPointer(ow.obj.raw, 'spec', 'replicas'),
        message: `${d.phrase}${pods}: a node drain or autoscaler consolidation may evict every replica${sharded ? ' of a shard' : ''} at once; ${advice}`,
        fix: operatorPdbFix(ctx.graph, ctx.version, d),
        absence: true,
      });
    }
    // A budget the API server rejects (both fields; policy/v1beta1 from 1.25) fails to apply whatever
    // it selects: said at the budget even when no workload above left it in \`empty\` (one replica,
    // another budget that works, no workload of the input; review round 34, report p51 item 8).
    for (const p of ctx.graph.pdbs) {
      if (empty.has(p)) continue;
      const problem = budgetProblem(p, ctx.version);
      if (problem === 'removed') {
        ctx.report({
          object: p.obj,
          pointer: '/apiVersion',
          severity: 'error',
          message: `PodDisruptionBudget/${p.obj.name} is policy/v1beta1, which the API server no longer serves from 1.25 (on ${ctx.version.toString()} applying it fails); use apiVersion: policy/v1 (the same fields; in v1 an empty selector selects every pod of the namespace)`,
        });
      } else if (problem === 'both') {
        ctx.report({
          object: p.obj,
          pointer: '/spec',
          severity: 'error',
          message: `PodDisruptionBudget/${p.obj.name} sets both minAvailable and maxUnavailable, which are mutually exclusive: the API server rejects it ("minAvailable and maxUnavailable cannot be both set"), so applying it fails (a helm install or upgrade fails with it); keep only maxUnavailable: 1 (it follows scale changes)`,
        });
      }
    }
    for (const [p, workloads] of empty) {
      const problem = budgetProblem(p, ctx.version);
      const both = problem === 'both';
      const who = workloads.join(', ');
      if (problem === 'removed') {
        ctx.report({
          object: p.obj,
          pointer: '/apiVersion',
          severity: 'error',
          message: `PodDisruptionBudget/${p.obj.name} is policy/v1beta1, which the API server no longer serves from 1.25 (on ${ctx.version.toString()} applying it fails): ${who} ${workloads.length === 1 ? 'has' : 'have'} no budget, so a node drain or autoscaler consolidation may evict every replica at once; use apiVersion: policy/v1 (the same fields; in v1 an empty selector selects every pod of the namespace)`,
        });
        continue;
      }
      const written = problem === 'all' ? (p.minAvailable ? `minAvailable: ${fmtIntOrPercent(p.minAvailable)}` : `maxUnavailable: ${fmtIntOrPercent(p.maxUnavailable!)}`) : undefined;
      ctx.report({
        object: p.obj,
        pointer: '/spec',
        severity: both ? 'error' : 'warning',
        message: both
          ? `PodDisruptionBudget/${p.obj.name} sets both minAvailable and maxUnavailable, which are mutually exclusive: the API rejects it, so ${who} ${workloads.length === 1 ? 'has' : 'have'} no budget and a node drain or autoscaler consolidation may evict every replica at once; keep only maxUnavailable: 1 (it follows scale changes)`
          : `PodDisruptionBudget/${p.obj.name} sets ${written}, which allows every eviction, so ${who} ${workloads.length === 1 ? 'is' : 'are'} not protected; set maxUnavailable: 1`,
      });
    }
  },
};
