import { Rule, Severity } from '../engine/types';
import { ClaimMount, ObjectGraph } from '../model/graph';
import { matches, parseLabelSelector } from '../model/selector';
import { isObject, Json, KObject } from '../model/types';
import { get, Workload } from '../model/workload';
import { antiAffinityTerms, hostPortBindings, hostPortsPhrase, HOSTNAME_KEY, spreadConstraints, ZONE_KEYS } from './mesh-util';
import { claimExclusivity, fmtIntOrPercent, HOSTNAME_LABEL, nodePinning, ReplicaBasis, replicaBasis, rolloutFor } from './rollout-util';
import { isHelmTestHook } from './lb-util';

/** A claim whose pods cannot run apart: `pod` (ReadWriteOncePod) or `node` (ReadWriteOnce, template not pinned to one node). */
export interface ExclusiveClaim {
  claim: ClaimMount;
  exclusivity: 'pod' | 'node';
}

/**
 * The claims the workload's pods cannot share across nodes (ReadWriteOncePod: not at all): RWOP,
 * and RWO unless the template is pinned to one node (then every pod runs there, and they share it).
 * Claims whose PVC is not in the set have an unknown mode and are not counted.
 */
export function exclusiveClaims(graph: ObjectGraph, w: Workload): ExclusiveClaim[] {
  const pinned = nodePinning(w);
  const out: ExclusiveClaim[] = [];
  for (const claim of graph.claimsOf(w)) {
    const ex = claimExclusivity(claim);
    if (ex === 'pod' || (ex === 'node' && !pinned)) out.push({ claim, exclusivity: ex });
  }
  return out;
}

/**
 * Kinds whose every replica mounts the template's claims. A StatefulSet's volumeClaimTemplates are
 * per pod: the controller gives each pod its own claim under the template's name, in place of a
 * template volume of that name (cockroachdb's "datadir"), so only its other claim volumes are shared.
 */
const SHARED_KINDS = new Set(['Deployment', 'ReplicaSet', 'StatefulSet']);

/** The names of a StatefulSet's volumeClaimTemplates (each pod's own claims). */
function perPodClaimNames(w: Workload): Set<string> {
  const out = new Set<string>();
  if (w.kind !== 'StatefulSet') return out;
  const vcts = get(w.obj.raw, 'spec', 'volumeClaimTemplates');
  if (Array.isArray(vcts)) for (const t of vcts) {
    const n = get(t, 'metadata', 'name');
    if (typeof n === 'string') out.add(n);
  }
  return out;
}

/** The exclusive claims every replica of a Deployment, ReplicaSet or StatefulSet would mount, whatever the replica count. */
export function replicaExclusiveClaims(graph: ObjectGraph, w: Workload): ExclusiveClaim[] {
  if (!SHARED_KINDS.has(w.kind)) return [];
  const perPod = perPodClaimNames(w);
  return exclusiveClaims(graph, w).filter((c) => !perPod.has(c.claim.volumeName));
}

/**
 * Replicas (>= 2; the HPA's minReplicas when an HPA targets the workload) of a Deployment or
 * ReplicaSet that all mount one exclusive claim: only one pod (RWOP), or only pods on one node
 * (RWO), can use it. Shared with the rules whose advice needs the replicas apart (replicas-not-spread,
 * pdb-missing, hpa-replicas) and with explain.
 */
export function sharedClaimDecision(graph: ObjectGraph, w: Workload): { basis: ReplicaBasis; claims: ExclusiveClaim[]; scaleOut?: number } | undefined {
  if (!SHARED_KINDS.has(w.kind)) return undefined;
  const basis = replicaBasis(graph, w);
  if (!basis) return undefined;
  // An HPA that may scale one replica out: the replicas it adds share the claim (a warning).
  const max = basis.hpa?.maxReplicas;
  const scaleOut = basis.replicas < 2 && max !== undefined && max >= 2 ? max : undefined;
  if (basis.replicas < 2 && scaleOut === undefined) return undefined;
  const claims = replicaExclusiveClaims(graph, w);
  if (!claims.length) return undefined;
  return scaleOut === undefined ? { basis, claims } : { basis: { ...basis, phrase: `${basis.phrase}, scaling out to maxReplicas ${scaleOut}` }, claims, scaleOut };
}

const SPREAD_KEYS = new Set([HOSTNAME_KEY, ...ZONE_KEYS]);

/**
 * What in the template puts the replicas on different nodes, in words: `hard` when it keeps two
 * of them off one node (required anti-affinity, a DoNotSchedule spread with maxSkew 1, host ports),
 * else a preference the scheduler follows when it can (ScheduleAnyway, preferred anti-affinity).
 */
function keptApart(w: Workload): { what: string; hard: boolean } | undefined {
  const req = antiAffinityTerms(w).find((t) => t.required && t.selectsOwn && t.topologyKey !== undefined && SPREAD_KEYS.has(t.topologyKey));
  if (req) return { what: `required pod anti-affinity on ${req.topologyKey}`, hard: true };
  const tscs = spreadConstraints(w).filter((c) => c.selectsOwn && c.topologyKey !== undefined && SPREAD_KEYS.has(c.topologyKey));
  const hard = tscs.find((c) => c.whenUnsatisfiable === 'DoNotSchedule' && c.maxSkew === 1);
  if (hard) return { what: `topologySpreadConstraints[${hard.index}] (DoNotSchedule, maxSkew 1 on ${hard.topologyKey})`, hard: true };
  const ports = hostPortBindings(w);
  if (ports.length) return { what: `host ports (${hostPortsPhrase(ports)})`, hard: true };
  if (tscs.length) return { what: `topologySpreadConstraints[${tscs[0].index}] on ${tscs[0].topologyKey}`, hard: false };
  const pref = antiAffinityTerms(w).find((t) => t.selectsOwn && t.topologyKey !== undefined && SPREAD_KEYS.has(t.topologyKey));
  return pref ? { what: `preferred pod anti-affinity on ${pref.topologyKey}`, hard: false } : undefined;
}

/** A workload whose pods mount an exclusive claim that the pods of another workload mount too. */
export interface ClaimUser {
  w: Workload;
  claim: ClaimMount;
  /** The workload's own replicas share the claim (sharedClaimDecision), said in the same finding. */
  replicas?: ReplicaBasis;
}

/** One exclusive claim mounted by the pods of two or more workloads, in input order. */
export interface CrossWorkloadClaim {
  pvc: KObject;
  exclusivity: 'pod' | 'node';
  users: ClaimUser[];
  /**
   * ReadWriteOnce only: the pods are kept on one node (all pinned to one hostname, or a required
   * podAffinity on kubernetes.io/hostname ties each workload to the others): nothing to report.
   */
  together: boolean;
  /** Workloads whose own required hostname podAffinity puts their pods beside the others' (so their surge pod too). */
  followers: Set<Workload>;
  /** ReadWriteOnce: when some are tied, the users neither pinned nor tied to the others, which start anywhere. */
  untied: Workload[];
  /** ReadWriteOnce, together: false when their podAffinity terms select only each other's pods, so none can start first. */
  startable: boolean;
  /** What keeps two of them on different nodes; `hard` when it is required. */
  apart?: { what: string; hard: boolean };
}

/** Whether the workload runs pods at all: not scaled to 0, not a suspended CronJob. */
function runsPods(graph: ObjectGraph, w: Workload): boolean {
  if (w.kind === 'CronJob' && get(w.obj.raw, 'spec', 'suspend') === true) return false;
  const basis = replicaBasis(graph, w);
  return basis === undefined || basis.replicas >= 1;
}

/** The one node the template is pinned to (nodeName, hostname nodeSelector, required node affinity naming one host), if any. */
function pinnedHost(w: Workload): string | undefined {
  if (!nodePinning(w)) return undefined;
  const ps = w.podSpec;
  if (typeof ps.nodeName === 'string' && ps.nodeName) return ps.nodeName;
  const sel = get(ps, 'nodeSelector', HOSTNAME_LABEL);
  if (typeof sel === 'string') return sel;
  const hosts = new Set<string>();
  const terms = get(ps, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms');
  for (const t of Array.isArray(terms) ? terms : []) {
    for (const [list, key] of [
      ['matchExpressions', HOSTNAME_LABEL],
      ['matchFields', 'metadata.name'],
    ] as const) {
      const reqs = get(t, list);
      for (const r of Array.isArray(reqs) ? reqs : []) {
        if (isObject(r) && r.key === key && r.operator === 'In' && Array.isArray(r.values) && r.values.length === 1) hosts.add(String(r.values[0]));
      }
    }
  }
  return hosts.size === 1 ? [...hosts][0] : undefined;
}

/** A DaemonSet not pinned to one node runs a pod on every node it admits: no affinity keeps them beside one claim. */
function spansNodes(w: Workload): boolean {
  return w.kind === 'DaemonSet' && pinnedHost(w) === undefined;
}

/** Whether the DaemonSet restricts its nodes at all (nodeSelector, required node affinity). */
function selectsNodes(w: Workload): boolean {
  const sel = w.podSpec.nodeSelector;
  return (isObject(sel) && Object.keys(sel).length > 0) || get(w.podSpec, 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution') !== undefined;
}

/** A pod (anti-)affinity term of a template with the workloads of the input whose pods it selects. */
interface PodTerm {
  required: boolean;
  topologyKey?: string;
  /**
   * The other workloads of the namespace whose template labels the selector matches; undefined when
   * the term may select pods the input cannot name (namespaces, namespaceSelector, matchLabelKeys).
   */
  targets?: Workload[];
}

function podTerms(graph: ObjectGraph, w: Workload, which: 'podAffinity' | 'podAntiAffinity'): PodTerm[] {
  const ns = w.obj.namespace ?? '';
  const resolve = (t: Json | undefined, required: boolean): PodTerm | undefined => {
    if (!isObject(t)) return undefined;
    const topologyKey = typeof t.topologyKey === 'string' ? t.topologyKey : undefined;
    const names = Array.isArray(t.namespaces) ? t.namespaces : [];
    const keys = [t.matchLabelKeys, t.mismatchLabelKeys].some((k) => Array.isArray(k) && k.length > 0);
    if ((t.namespaceSelector !== undefined && t.namespaceSelector !== null) || names.some((n) => n !== w.obj.namespace) || keys) return { required, topologyKey };
    const sel = parseLabelSelector(t.labelSelector);
    return { required, topologyKey, targets: graph.workloads.filter((x) => x !== w && (x.obj.namespace ?? '') === ns && matches(sel, x.templateLabels)) };
  };
  const out: PodTerm[] = [];
  const req = get(w.podSpec, 'affinity', which, 'requiredDuringSchedulingIgnoredDuringExecution');
  for (const t of Array.isArray(req) ? req : []) {
    const r = resolve(t, true);
    if (r) out.push(r);
  }
  const pref = get(w.podSpec, 'affinity', which, 'preferredDuringSchedulingIgnoredDuringExecution');
  for (const p of Array.isArray(pref) ? pref : []) {
    const r = resolve(get(p, 'podAffinityTerm'), false);
    if (r) out.push(r);
  }
  return out;
}

const name = (w: Workload): string => `${w.kind}/${w.obj.name}`;

/**
 * Whether a ReadWriteOnce claim's users are kept on one node. Union-find over the workloads: those
 * pinned to the same host are joined, and a workload joins the ones its required podAffinity on
 * kubernetes.io/hostname selects when they are all already together and each runs in one place (a
 * user of the claim, a pinned template, one pod): its pods then land beside them (it "follows"). A
 * term that selects pods of two places (web and sidekiq, when they are not tied to each other)
 * puts the pod beside either, and ties nothing. Every user must be pinned or follow: one that does
 * not (`untied`) starts wherever the scheduler puts it when it is replaced (a Recreate rollout, an
 * eviction) while the others hold the volume. `startable`: when none of them runs, one can start
 * (it is pinned, or its own labels match all its required podAffinity terms, the scheduler's
 * first-pod exception: pkg/scheduler/framework/plugins/interpodaffinity/filtering.go
 * satisfyPodAffinity); terms that select only each other's pods otherwise keep them all Pending.
 */
interface CoLocation {
  together: boolean;
  followers: Set<Workload>;
  untied: Workload[];
  startable: boolean;
}

function coLocation(graph: ObjectGraph, users: Workload[]): CoLocation {
  const parent = new Map<Workload, Workload>();
  const find = (w: Workload): Workload => {
    let r = w;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  const union = (a: Workload, b: Workload): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  const byHost = new Map<string, Workload>();
  for (const u of users) {
    const host = pinnedHost(u);
    if (host === undefined) continue;
    const first = byHost.get(host);
    if (first) union(u, first);
    else byHost.set(host, u);
  }
  const onePlace = (t: Workload): boolean => users.includes(t) || pinnedHost(t) !== undefined || t.kind === 'Pod' || replicaBasis(graph, t)?.replicas === 1;
  const ties = new Map<Workload, Workload[][]>();
  for (const u of users) {
    if (spansNodes(u)) continue;
    const targets = podTerms(graph, u, 'podAffinity')
      .filter((t) => t.required && t.topologyKey === HOSTNAME_KEY && t.targets && t.targets.length > 0 && t.targets.every((x) => onePlace(x) && !spansNodes(x)))
      .map((t) => t.targets!);
    if (targets.length) ties.set(u, targets);
  }
  const followers = new Set<Workload>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const [u, terms] of ties) {
      for (const targets of terms) {
        const roots = new Set(targets.map(find));
        if (roots.size !== 1) continue;
        followers.add(u);
        if (find(u) !== [...roots][0]) {
          union(u, targets[0]);
          changed = true;
        }
      }
    }
  }
  const root = find(users[0]);
  const pinned = users.filter((u) => pinnedHost(u) !== undefined);
  const untied = users.filter((u) => !followers.has(u) && pinnedHost(u) === undefined);
  const together = users.every((u) => find(u) === root) && untied.length === 0;
  return { together, followers, untied, startable: pinned.length > 0 || users.some((u) => followers.has(u) && startsAlone(u)) };
}

/** Whether the workload's own pods match every required podAffinity term of theirs (the scheduler's first-pod exception). */
function startsAlone(w: Workload): boolean {
  const terms = get(w.podSpec, 'affinity', 'podAffinity', 'requiredDuringSchedulingIgnoredDuringExecution');
  return (
    Array.isArray(terms) &&
    terms.every((t) => {
      if (!isObject(t)) return false;
      const names = Array.isArray(t.namespaces) ? t.namespaces : [];
      const ownNs = (t.namespaceSelector !== undefined && t.namespaceSelector !== null) || names.length === 0 || names.includes(w.obj.namespace ?? '');
      return ownNs && matches(parseLabelSelector(t.labelSelector), w.templateLabels);
    })
  );
}

/** What keeps two users of one claim on different nodes (required: `hard`), or asks the scheduler to. */
function usersApart(graph: ObjectGraph, users: Workload[]): { what: string; hard: boolean } | undefined {
  const pinned = users.map((u) => [u, pinnedHost(u)] as const).filter((p): p is readonly [Workload, string] => p[1] !== undefined);
  const other = pinned.find((p) => p[1] !== pinned[0][1]);
  if (other) return { what: `the pinning of ${name(pinned[0][0])} to node ${pinned[0][1]} and of ${name(other[0])} to node ${other[1]}`, hard: true };
  const anti = (required: boolean): string | undefined => {
    for (const u of users) {
      for (const t of podTerms(graph, u, 'podAntiAffinity')) {
        if (t.required !== required || t.topologyKey === undefined || !SPREAD_KEYS.has(t.topologyKey)) continue;
        // (Every user the term selects is named: matomo's anti-affinity selects both its CronJobs; review round 15.)
        const hits = t.targets?.filter((x) => users.includes(x) && x !== u) ?? [];
        if (hits.length) return `the ${required ? 'required' : 'preferred'} pod anti-affinity of ${name(u)} on ${t.topologyKey} against the pods of ${andList(hits.map(name))}`;
      }
    }
    return undefined;
  };
  const hardAnti = anti(true);
  if (hardAnti) return { what: hardAnti, hard: true };
  const ds = users.find(spansNodes);
  if (ds && !selectsNodes(ds)) return { what: `${name(ds)}, which runs a pod on every node,`, hard: true };
  const softAnti = anti(false);
  if (softAnti) return { what: softAnti, hard: false };
  return ds ? { what: `${name(ds)}, which runs a pod on every node its nodeSelector or node affinity admits,`, hard: false } : undefined;
}

/**
 * The exclusive claims (PVC in the input; ReadWriteOncePod, or ReadWriteOnce) mounted by the pods
 * of two or more workloads of the input (Deployments, ReplicaSets, StatefulSet template volumes,
 * DaemonSets, Jobs, CronJobs, bare Pods; the PVC lookup keeps them in one namespace), each with
 * its users in input order and whether they are kept together. Node pinning does not drop a claim
 * here, as it does for one workload: two workloads pinned to different nodes are the failure.
 */
export function crossWorkloadClaims(graph: ObjectGraph): CrossWorkloadClaim[] {
  return graph.memo(crossWorkloadClaims, graph, () => {
    const groups = new Map<KObject, { exclusivity: 'pod' | 'node'; users: ClaimUser[] }>();
    for (const w of graph.workloads) {
      // A `helm test` Pod exists only while the test runs: it can hang the test, never a rollout or a drain.
      if (!runsPods(graph, w) || isHelmTestHook(w.obj)) continue;
      const shared = sharedClaimDecision(graph, w);
      for (const claim of graph.claimsOf(w)) {
        const ex = claimExclusivity(claim);
        if (!claim.pvc || (ex !== 'pod' && ex !== 'node')) continue;
        let g = groups.get(claim.pvc);
        if (!g) groups.set(claim.pvc, (g = { exclusivity: ex, users: [] }));
        if (g.users.some((u) => u.w === w)) continue;
        const own = shared?.claims.some((c) => c.claim.pvc === claim.pvc);
        g.users.push({ w, claim, replicas: own ? shared!.basis : undefined });
      }
    }
    const out: CrossWorkloadClaim[] = [];
    for (const [pvc, g] of groups) {
      if (g.users.length < 2) continue;
      const ws = g.users.map((u) => u.w);
      if (g.exclusivity === 'pod') {
        out.push({ pvc, exclusivity: 'pod', users: g.users, together: false, followers: new Set(), untied: [], startable: true });
        continue;
      }
      const apart = usersApart(graph, ws);
      const co: CoLocation = apart?.hard ? { together: false, followers: new Set(), untied: [], startable: true } : coLocation(graph, ws);
      out.push({ pvc, exclusivity: 'node', users: g.users, ...co, untied: co.followers.size ? co.untied : [], apart });
    }
    return out;
  });
}

/** "A and B", "A, B and C". */
function andList(xs: string[]): string {
  return xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/** "; a rollout adds its surge pod (maxSurge 1 resolves to 1) to the same claim" when a rollout of the workload adds one. */
function surgePod(w: Workload, basis: ReplicaBasis, of = ''): string {
  const d = w.deployment?.type === 'RollingUpdate' ? rolloutFor(w, basis.replicas) : undefined;
  return d && d.surge >= 1 ? `; a rollout${of} adds its surge pod (maxSurge ${fmtIntOrPercent(d.maxSurge)}${d.maxSurgeSet ? '' : ' (default)'} resolves to ${d.surge}) to the same claim` : '';
}

/** What to do about replicas sharing an exclusive claim. */
function sharedFix(basis: ReplicaBasis, w?: Workload): string {
  const one = basis.hpa ? `run one replica (remove HorizontalPodAutoscaler/${basis.hpa.obj.name}, or set its minReplicas and maxReplicas to 1)` : 'run one replica';
  if (w?.kind === 'StatefulSet') return `${one}, use ReadWriteMany storage if the replicas may share the data, or move the claim into volumeClaimTemplates if each replica can own its data`;
  return `${one} with strategy.type: Recreate so a rollout never runs two, use ReadWriteMany storage if the replicas may share the data, or make it a StatefulSet with volumeClaimTemplates if each replica can own its data`;
}

export const surgeVolumeDeadlock: Rule = {
  meta: {
    id: 'surge-volume-deadlock',
    spec: 'ROLL-002',
    defaultSeverity: 'error',
    severities: ['error', 'warning'],
    description: 'surge rollout of a Deployment mounting an exclusive PVC: the new pod can never attach it; replicas or workloads sharing an exclusive PVC',
    doc: `A RollingUpdate Deployment with a resolved \`surge >= 1\` starts the new pod while the old one still
runs. When both mount the same exclusive PersistentVolumeClaim, the new pod cannot get the volume:
- \`ReadWriteOncePod\` (GA 1.29) is pod-exclusive: the surge pod never starts. The rollout always deadlocks (**error**).
- \`ReadWriteOnce\` is node-exclusive: the surge pod can mount it only if it lands on the old pod's node, so the
  deadlock is intermittent: the new pod stays Pending with Multi-Attach errors, the old pod is never removed, and the
  rollout ends in \`ProgressDeadlineExceeded\` (**warning**). When the template keeps the surge pod off the old pod's
  node (a required pod anti-affinity on the hostname or a zone, a \`DoNotSchedule\` spread with \`maxSkew: 1\` on one,
  host ports) and maxUnavailable resolves to 0, it never lands there, so on a cluster of more than one node every
  rollout deadlocks (**error**; the gitea chart's hard anti-affinity with one replica). Not reported when the template is pinned to one node
  (\`nodeName\`, a \`kubernetes.io/hostname\` nodeSelector, or required node affinity on \`kubernetes.io/hostname\`),
  or when the claim also lists \`ReadWriteMany\`/\`ReadOnlyMany\` (multi-attach is then allowed). Nor when
  maxUnavailable resolves to the replica count or more (one replica with \`{maxSurge: 1, maxUnavailable: 1}\`): the
  controller scales the old ReplicaSet down in the same sync that creates the surge pod, so the old pod releases the
  volume without waiting for the new one, which then starts; the rollout behaves like Recreate, an outage
  (kubernetes \`pkg/controller/deployment/rolling.go\`, \`reconcileOldReplicaSets\`).

**Replicas sharing an exclusive PVC.** The same reading applies to the replicas themselves: a Deployment,
ReplicaSet or StatefulSet with \`replicas >= 2\` (the HPA's \`minReplicas\` when an HPA targets it), whatever its strategy,
whose template mounts such a claim as a plain volume runs every replica on one claim. An HPA whose \`minReplicas\` is 1
and \`maxReplicas\` 2 or more adds replicas on the same claim when it scales out (**warning**, whatever the mode).
- \`ReadWriteOncePod\`: only one pod can use the claim; the other replicas stay Pending (**error**).
- \`ReadWriteOnce\` (not pinned to one node): the volume "can be mounted as read-write by a single node", so the
  replicas all run only while the scheduler puts every one on the node that has it attached, which nothing in the
  template guarantees; a replica scheduled elsewhere stays in ContainerCreating with a Multi-Attach error
  (**warning**). When the template keeps the replicas on different nodes (a required pod anti-affinity on the
  hostname or a zone, a \`DoNotSchedule\` spread with \`maxSkew: 1\` on one, host ports), every replica but one fails on
  a cluster of more than one node (**error**); a preferred spread makes the failure likely, and the message says so.

This finding replaces the surge finding for the same claim (its fix covers the surge too). Spreading the replicas
(\`replicas-not-spread\`), a PodDisruptionBudget (\`pdb-missing\`: the replacement of an evicted replica cannot attach the
volume on another node while a second replica holds it, so the budget stalls the drain) and \`minReplicas: 2\`
(\`hpa-replicas\`) are not advised for such a workload. A StatefulSet's \`volumeClaimTemplates\` give each pod its own
claim (in place of a template volume of the same name) and are not judged here.

**Workloads sharing an exclusive PVC.** The pods of two or more workloads (Deployments, ReplicaSets, StatefulSets
mounting it as a template volume, DaemonSets, Jobs, CronJobs, bare Pods; not scaled to 0, not a suspended CronJob)
that mount one such claim (the PVC in the same namespace) meet the same limit, whatever their replica counts: mastodon's
web and Sidekiq Deployments both mount the ReadWriteOnce \`mastodon-system\` claim, and the chart's values say it
"requires the Rails and Sidekiq pods to run on the same node" while neither template asks for it. Jobs and CronJobs
count: their pod stays in ContainerCreating while a long-running pod holds the volume on another node, and the Job
never completes. Reported once per claim, at the volume of the first of them in input order, naming the others:
- \`ReadWriteOncePod\`: only one pod can use the claim at all; while one runs, the others stay Pending (**error**).
- \`ReadWriteOnce\`: the volume attaches to one node at a time, so they all run only while every pod lands on that
  node (**warning**). Read-only mounts do not help: the attach/detach controller allows a second node only when the
  PersistentVolume lists \`ReadWriteMany\` or \`ReadOnlyMany\` (\`IsMultiAttachAllowed\`, pkg/volume/util/util.go), never
  from the pod's \`readOnly\`; \`ReadOnlyMany\` is the mode for many nodes reading. **Error** when something keeps two of
  them on different nodes: they are pinned to different nodes, a required pod anti-affinity (hostname or zone) of one
  selects the pods of another, or a DaemonSet with no nodeSelector or required node affinity runs a pod on every node
  (a preferred anti-affinity, or a DaemonSet limited to some nodes, is named as making the failure likely). Not
  reported when they are kept on one node: all pinned to the same node (\`nodeName\`, a hostname nodeSelector, required
  node affinity naming one host), or each pinned there or tied to the others by a required \`podAffinity\` on
  \`kubernetes.io/hostname\`. A workload is tied when its term selects pods that are already together and each run in
  one place (a user of the claim, a pinned template, one pod); a term that selects the pods of two workloads not tied
  to each other (mastodon's media-remove CronJob selecting \`app.kubernetes.io/part-of: rails\` while web and Sidekiq
  have no terms) lands the pod beside either, and ties nothing. Every one must be tied or pinned: one that is not
  starts its replacement pod (a Recreate rollout, an eviction) on any node while the others hold the volume, and the
  message names it. When every one is tied but each term selects only the others' pods, none can start while none
  runs (the first install, or after all were evicted): the scheduler lets a pod start alone only when its own labels
  match all its required terms (\`satisfyPodAffinity\`, pkg/scheduler/framework/plugins/interpodaffinity/filtering.go),
  so that is an **error** advising a label they all carry. Terms naming other namespaces, a \`namespaceSelector\` or
  \`matchLabelKeys\` are not followed. A tied workload's own replicas and surge pod land beside the others too, so its
  surge finding, and the finding on its own replicas, are not reported for that claim.

When a workload's own replicas also share the claim, that finding is folded into this one (one finding per claim):
it names the replicas, what spreads them and their surge pod, and adds their fix. A Deployment's surge on the claim
is still reported at that Deployment (its fix is its own strategy). Fix: put them on one node with a required
\`podAffinity\` on \`kubernetes.io/hostname\` in each template selecting a label all of their pods carry (for
\`ReadWriteOncePod\`: with \`ReadWriteOnce\` storage), use
\`ReadWriteMany\` storage, or let one workload own the data and serve it to the others. Spreading advice is not
changed by this finding: a workload with one pod gets none, and one with replicas sharing the claim is already skipped
(\`replicas-not-spread\`, \`pdb-missing\`, \`hpa-replicas\`, above).

Only claims whose PVC is in the linted set are judged (the access mode is otherwise unknown). The surge is
resolved as in section 4, with the HPA's \`minReplicas\` when an HPA targets the Deployment.

Fix (not automatic: converting to a StatefulSet with \`volumeClaimTemplates\` can orphan data):
\`\`\`yaml
strategy:
  type: Recreate          # or RollingUpdate with maxSurge: 0, maxUnavailable: 1
\`\`\`
For replicas sharing the claim: one replica with \`strategy.type: Recreate\`, \`ReadWriteMany\` storage if the replicas may
share the data, or a StatefulSet with \`volumeClaimTemplates\` if each replica can own its data.`,
    fixable: false,
    references: [
      'gravitational/teleport#11484 and PR #42331 ("re-create pods when a PV is mounted")',
      'sourcegraph/deploy-sourcegraph PR #154',
      'kubernetes/website feature-gates ReadWriteOncePod.md',
      'kubernetes/website content/en/docs/concepts/storage/persistent-volumes.md#access-modes',
      'kubernetes/kubernetes pkg/volume/util/util.go IsMultiAttachAllowed (the PersistentVolume access modes decide, not readOnly)',
      'mastodon/chart values.yaml persistence ("requires the Rails and Sidekiq pods to run on the same node"), templates/cronjob-media-remove.yaml',
    ],
  },
  check(ctx) {
    // Claims of a workload said by the cross-workload finding (its own replicas' finding folded in),
    // and claims its required podAffinity keeps beside the other workloads' pods (no finding at all).
    const folded = new Map<Workload, Set<KObject>>();
    const beside = new Map<Workload, Set<KObject>>();
    const mark = (m: Map<Workload, Set<KObject>>, w: Workload, pvc: KObject): void => {
      const s = m.get(w);
      if (s) s.add(pvc);
      else m.set(w, new Set([pvc]));
    };
    for (const c of crossWorkloadClaims(ctx.graph)) {
      // A follower's pods (its replicas, its surge pod) all land beside the pods its podAffinity selects.
      for (const f of c.followers) mark(beside, f, c.pvc);
      if (c.together && c.startable) continue;
      for (const u of c.users) if (u.replicas && !c.followers.has(u.w)) mark(folded, u.w, c.pvc);
      reportCross(c);
    }

    for (const w of ctx.graph.workloads) {
      const shared = sharedClaimDecision(ctx.graph, w);
      const sharedClaims = new Set(shared?.claims.map((c) => c.claim.pointer));
      const said = (c: ClaimMount, m: Map<Workload, Set<KObject>>): boolean => c.pvc !== undefined && m.get(w)?.has(c.pvc) === true;
      const own = shared?.claims.filter((c) => !said(c.claim, folded) && !said(c.claim, beside));
      if (shared && own?.length) reportShared(w, shared.basis, own, shared.scaleOut !== undefined);
      if (w.kind !== 'Deployment' || !w.deployment || w.deployment.type !== 'RollingUpdate') continue;
      const basis = replicaBasis(ctx.graph, w);
      if (!basis || basis.replicas <= 0) continue;
      const d = rolloutFor(w, basis.replicas)!;
      if (d.surge < 1) continue;
      // maxUnavailable covers every replica: in the sync that creates the surge pod the controller also
      // scales the old ReplicaSet down (reconcileOldReplicaSets: minAvailable = replicas - maxUnavailable
      // <= 0, maxScaledDown = allPods - minAvailable - newRSUnavailable >= the old pods), so the old pods
      // release the claim without waiting for the surge pod, which then starts: it rolls like Recreate,
      // nothing stalls (kubernetes pkg/controller/deployment/rolling.go; review round 30: pihole's chart,
      // replicas 1 with maxSurge 1 and maxUnavailable 1). rollout-full-outage speaks of that outage.
      if (d.unavailable >= basis.replicas) continue;
      const surge = `maxSurge ${fmtIntOrPercent(d.maxSurge)}${d.maxSurgeSet ? '' : ' (default)'} resolves to ${d.surge} with ${basis.phrase}`;
      for (const { claim: c, exclusivity: ex } of exclusiveClaims(ctx.graph, w)) {
        // Said by the replicas' finding (or the cross-workload one it is folded into), whose fix covers the surge pod too.
        if (sharedClaims.has(c.pointer)) continue;
        // The template's required podAffinity puts the surge pod beside the pods that hold the volume.
        if (said(c, beside)) continue;
        if (ex === 'pod') {
          ctx.report({
            object: w.obj,
            pointer: c.pointer,
            severity: 'error',
            message: `volume "${c.volumeName}" mounts PVC "${c.claimName}" (ReadWriteOncePod) and ${surge}: the surge pod can never use the claim while the old pod holds it, so every rollout deadlocks; set strategy.type: Recreate (or RollingUpdate with maxSurge: 0, maxUnavailable: 1), or move to a StatefulSet with volumeClaimTemplates`,
          });
        } else {
          // The template keeps the surge pod off the old pod's node while no old pod goes first: it can
          // only land where the volume is not (gitea's chart: hard anti-affinity, one replica; review round 15).
          const apart = keptApart(w);
          const certain = apart?.hard && d.unavailable === 0;
          ctx.report({
            object: w.obj,
            pointer: c.pointer,
            severity: certain ? 'error' : 'warning',
            message: certain
              ? `volume "${c.volumeName}" mounts PVC "${c.claimName}" (ReadWriteOnce) and ${surge}: ${apart!.what} keeps the surge pod off the node of the old pod, which holds the volume, and maxUnavailable ${fmtIntOrPercent(d.maxUnavailable)}${d.maxUnavailableSet ? '' : ' (default)'} resolves to 0, so no old pod goes first: on a cluster of more than one node the surge pod stays in ContainerCreating on a Multi-Attach error, and every rollout deadlocks: progressDeadlineSeconds only marks it failed (ProgressDeadlineExceeded), the surge pod stays and nothing rolls back; set strategy.type: Recreate (or RollingUpdate with maxSurge: 0, maxUnavailable: 1)`
              : `volume "${c.volumeName}" mounts PVC "${c.claimName}" (ReadWriteOnce) and ${surge}: a surge pod scheduled on another node stays Pending on Multi-Attach while the old pod keeps the volume, and the rollout stalls: progressDeadlineSeconds only marks it failed (ProgressDeadlineExceeded), the Pending pod stays and nothing rolls back; set strategy.type: Recreate (or RollingUpdate with maxSurge: 0, maxUnavailable: 1)`,
          });
        }
      }
    }

    /** One finding per shared claim, at its volume; the rollout's surge pod, when there is one, is named in it. */
    function reportShared(w: Workload, basis: ReplicaBasis, claims: ExclusiveClaim[], scaleOut = false): void {
      const surge = surgePod(w, basis);
      const apart = keptApart(w);
      for (const { claim: c, exclusivity: ex } of claims) {
        const head = `volume "${c.volumeName}" mounts PVC "${c.claimName}" (${ex === 'pod' ? 'ReadWriteOncePod' : 'ReadWriteOnce'}) in every replica (${basis.phrase})`;
        let what: string;
        if (ex === 'pod') what = 'only one pod can use a ReadWriteOncePod claim, so one replica runs and the others stay Pending';
        else if (apart?.hard)
          what = `a ReadWriteOnce volume attaches to one node at a time, and ${apart.what} keeps the replicas on different nodes, so on a cluster of more than one node every replica but one stays in ContainerCreating on a Multi-Attach error`;
        else
          what = `a ReadWriteOnce volume attaches to one node at a time, so a replica scheduled on a node other than the one that has it attached stays in ContainerCreating on a Multi-Attach error, and the replicas all run only while every one lands on that node, which nothing in the template ensures${apart ? ` (${apart.what} asks the scheduler to place them on different nodes, which makes the failure likely)` : ''}`;
        ctx.report({
          object: w.obj,
          pointer: c.pointer,
          // (Scaling out is when it happens: a warning.)
          severity: !scaleOut && (ex === 'pod' || apart?.hard) ? 'error' : 'warning',
          message: `${head}: ${what}${surge}; ${sharedFix(basis, w)}`,
        });
      }
    }

    /** One finding per claim that pods of several workloads mount, at the first one's volume, naming the others. */
    function reportCross(c: CrossWorkloadClaim): void {
      const [first, ...others] = c.users;
      const mode = c.exclusivity === 'pod' ? 'ReadWriteOncePod' : 'ReadWriteOnce';
      // The replicas' own finding is folded in, unless the workload's podAffinity keeps them beside the others.
      const ownReplicas = (u: ClaimUser): ReplicaBasis | undefined => (c.followers.has(u.w) ? undefined : u.replicas);
      const who = (u: ClaimUser): string => `${name(u.w)}${ownReplicas(u) ? ` (every replica: ${ownReplicas(u)!.phrase})` : ''}`;
      const head = `volume "${first.claim.volumeName}" mounts PVC "${first.claim.claimName}" (${mode})${ownReplicas(first) ? ` in every replica (${ownReplicas(first)!.phrase})` : ''}, and the pods of ${andList(others.map(who))} mount it too`;
      let severity: Severity = c.exclusivity === 'pod' || c.apart?.hard ? 'error' : 'warning';
      let what: string;
      if (c.exclusivity === 'pod') what = 'only one pod can use a ReadWriteOncePod claim, so while one of them runs the others stay Pending';
      else if (c.apart?.hard)
        what = `a ReadWriteOnce volume attaches to one node at a time (read-only mounts included), and ${c.apart.what} keeps them on different nodes, so on a cluster of more than one node the pods away from the node that has it attached stay in ContainerCreating on a Multi-Attach error`;
      else if (c.together) {
        // Tied to one another, but none can start first.
        severity = 'error';
        what = `the required podAffinity terms on ${HOSTNAME_KEY} keep their pods on one node, but each selects only the others' pods, so when none of them runs (the first install, or after all were evicted) none can be scheduled: the scheduler lets a pod start alone only when its own labels match all its terms`;
      } else {
        const ensures = c.untied.length
          ? `which the template${c.untied.length > 1 ? 's' : ''} of ${andList(c.untied.map(name))} ${c.untied.length > 1 ? 'do' : 'does'} not ensure (no required podAffinity on ${HOSTNAME_KEY} towards the others' pods, so a replacement pod starts on any node)`
          : 'which nothing in the templates ensures';
        what = `a ReadWriteOnce volume attaches to one node at a time (read-only mounts included), so a pod scheduled on a node other than the one that has it attached stays in ContainerCreating on a Multi-Attach error, and they all run only while every pod lands on that node, ${ensures}${c.apart ? ` (${c.apart.what} makes the failure likely)` : ''}`;
      }
      // The replicas' own finding, folded in: what spreads them, their surge pod, and their fix.
      const extra: string[] = [];
      const fixes: string[] = [];
      for (const u of c.users) {
        const basis = ownReplicas(u);
        if (!basis) continue;
        const apart = c.exclusivity === 'node' ? keptApart(u.w) : undefined;
        if (apart?.hard) {
          severity = 'error';
          extra.push(`; ${apart.what} keeps the replicas of ${name(u.w)} on different nodes`);
        }
        extra.push(surgePod(u.w, basis, ` of ${name(u.w)}`));
        fixes.push(`; for the replicas of ${name(u.w)}: ${sharedFix(basis, u.w)}`);
      }
      const together = `a required podAffinity on ${HOSTNAME_KEY} in each template selecting a label all of their pods carry (such as app.kubernetes.io/part-of)`;
      const fix =
        c.exclusivity === 'pod'
          ? `use ReadWriteMany storage, or ReadWriteOnce with ${together}, or let one workload own the data and serve it to the others`
          : c.together
            ? `make the terms select a label all of them carry (mastodon's CronJob selects app.kubernetes.io/part-of: rails), so the first pod can start alone and the others join it`
            : `put them on one node with ${together}, use ReadWriteMany storage, or let one workload own the data and serve it to the others`;
      ctx.report({ object: first.w.obj, pointer: first.claim.pointer, severity, message: `${head}: ${what}${extra.join('')}; ${fix}${fixes.join('')}` });
    }
  },
};
