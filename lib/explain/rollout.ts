/**
 * The rollout half of `kubegrace explain`: how a workload's pods are replaced, in how many steps,
 * and roughly how long it takes (graceful-termination.md sections 4, 5, 6, 10 and 11). The
 * resolution of maxSurge/maxUnavailable is the model's own (resolveDeploymentRollout); nothing
 * here re-derives it.
 */
import { singleVersionFact, singleVersionProgram } from '../catalog';
import { KubeVersion } from '../engine/version';
import { HINT, ObjectGraph } from '../model/graph';
import { parseIntOrPercent, scaled } from '../model/intstr';
import { DEFAULTS, enumOr, get, num, Workload } from '../model/workload';
import { stsStrategy } from '../rules/lb-util';
import { replicasNotSpread, spreadDecision } from '../rules/replicas-not-spread';
import { surgeVolumeDeadlock } from '../rules/surge-volume-deadlock';
import { pdbMissing, pdbMissingDecision } from '../rules/pdb-missing';
import { pdbBlocksEviction, pdbBlocksEvictionDecision } from '../rules/pdb-blocks-eviction';
import { daemonSetFullOutageDecision, fullOutageDecision, rolloutFullOutage } from '../rules/rollout-full-outage';
import { oldPodWaitDecision, progressDeadline, progressDeadlineDecision } from '../rules/progress-deadline';
import { budgetProblem, fmtIntOrPercent, pdbAllowance, pdbPods, replicaBasis, rolloutFor, startupEstimate } from '../rules/rollout-util';

export { startupEstimate };
import { maxUnavailableGate } from '../rules/statefulset-max-unavailable';
import { compileNodeProxyPatterns, daemonsetSurge, daemonsetSurgeDecision } from '../rules/daemonset-surge';
import { minReplicasParam, orderedReadyDecision, statefulsetOrderedReady } from '../rules/statefulset-ordered-ready';
import { RuleSetting } from '../engine/policy';
import { Rule } from '../engine/types';
import { Backoff, DEFAULT_BACKOFF, DEFAULT_RECONNECT_PROBABILITY, estimateReconnect, formatBackoff, parseBackoff } from '../timeline/reconnect';

export interface RolloutPlan {
  /** "RollingUpdate", "Recreate", "OnDelete", or "none" for kinds that do not roll out. */
  strategy: string;
  /** One line with the strategy's parameters as written and as resolved. */
  parameters?: string;
  replicas?: number;
  /** Where `replicas` comes from: "spec.replicas", "default", "the minimum of HorizontalPodAutoscaler/web". */
  replicasBasis?: string;
  /** New pods per step (nodes per step for a DaemonSet). */
  podsPerStep?: number;
  steps?: number;
  minReadySeconds?: number;
  progressDeadlineSeconds?: number;
  /** Estimated seconds from pod creation to Ready. */
  startupSeconds: number;
  startupBasis: string;
  stepSeconds?: number;
  durationSeconds?: number;
  /** How the duration is composed, in words. */
  durationBasis?: string;
  /** The duration counts a pod shutdown that is only a lower bound (a preStop hook of unknown length). */
  durationAtLeast?: boolean;
  notes: string[];
}

function fmtS(n: number): string {
  return Number.isInteger(n) ? `${n}s` : `${n.toFixed(1)}s`;
}

export interface RolloutOptions {
  /** The pod shutdown is a lower bound: a preStop hook of unknown length is drawn as returning at once. */
  shutdownAtLeast?: boolean;
  /**
   * The policy's rule settings: a note names the rule that judges its condition only when that
   * rule's own decision reports it, with the policy's params, and the policy does not turn it off.
   */
  ruleSettings?: ReadonlyMap<string, RuleSetting>;
}

export function rolloutPlan(graph: ObjectGraph, w: Workload, version: KubeVersion, podShutdownSeconds: number, opts: RolloutOptions = {}): RolloutPlan {
  /** The rule's params as lint runs it: its defaults, then the policy's. */
  const params = (rule: Rule): Record<string, unknown> => ({ ...(rule.meta.defaults ?? {}), ...(opts.ruleSettings?.get(rule.meta.id)?.params ?? {}) });
  /** " (rule-id)" after a condition the rule reports, unless the policy turns it off. */
  const cite = (id: string): string => (opts.ruleSettings?.get(id)?.off ? '' : ` (${id})`);
  const startup = startupEstimate(w);
  const plan: RolloutPlan = { strategy: 'none', startupSeconds: startup.seconds, startupBasis: startup.basis, notes: [] };
  const basis = replicaBasis(graph, w);
  if (basis) {
    plan.replicas = basis.replicas;
    plan.replicasBasis = basis.source;
  }
  const N = plan.replicas;
  const minReady = num(get(w.obj.raw, 'spec', 'minReadySeconds')) ?? DEFAULTS.minReadySeconds;
  const shutdown = `${opts.shutdownAtLeast ? 'at least ' : ''}${fmtS(podShutdownSeconds)}`;
  // (A duration that counts the shutdown is then a lower bound too.)
  const countsShutdown = () => {
    if (opts.shutdownAtLeast) plan.durationAtLeast = true;
  };

  switch (w.kind) {
    case 'Deployment': {
      const ro = rolloutFor(w, N ?? 1)!;
      plan.strategy = ro.type;
      plan.minReadySeconds = ro.minReadySeconds;
      plan.progressDeadlineSeconds = ro.progressDeadlineSeconds;
      const n = N ?? 1;
      if (ro.type === 'Recreate') {
        plan.parameters = 'all old pods are stopped before any new pod is created';
        plan.podsPerStep = n;
        plan.steps = 1;
        plan.stepSeconds = podShutdownSeconds + startup.seconds + ro.minReadySeconds;
        plan.durationSeconds = plan.stepSeconds;
        countsShutdown();
        plan.durationBasis = `pod shutdown ${shutdown} + startup ${fmtS(startup.seconds)} + minReadySeconds ${ro.minReadySeconds}s`;
        plan.notes.push(`downtime: nothing serves from the old pods' SIGTERM until a new pod is Ready (${opts.shutdownAtLeast ? 'at least' : 'about'} ${fmtS(podShutdownSeconds + startup.seconds)})`);
        const single = singleVersionProgram(w);
        if (single) plan.notes.push(`Recreate is required: container "${single.container.name}" runs ${single.entry.title}, ${single.entry.overlapStalls ? `and ${single.entry.overlapStalls}, so a surge-first rolling update would stall` : singleVersionFact(single.entry)} (catalog entry ${single.entry.id})`);
        break;
      }
      const surgeText = `${fmtIntOrPercent(ro.maxSurge)}${ro.maxSurgeSet ? '' : ' (default)'}`;
      const unavailText = `${fmtIntOrPercent(ro.maxUnavailable)}${ro.maxUnavailableSet ? '' : ' (default)'}`;
      plan.parameters = `maxSurge ${surgeText} → ${ro.surge}, maxUnavailable ${unavailText} → ${ro.unavailable} (for ${n} replica${n === 1 ? '' : 's'})`;
      // The new ReplicaSet never grows past spec.replicas, so a step creates at most n pods (simulate's K = min(surge, N)).
      const per = Math.max(1, Math.min(n, ro.surge + ro.unavailable));
      plan.podsPerStep = per;
      plan.steps = Math.ceil(n / per);
      plan.stepSeconds = startup.seconds + ro.minReadySeconds;
      plan.durationSeconds = plan.steps * plan.stepSeconds;
      plan.durationBasis = `${plan.steps} step${plan.steps === 1 ? '' : 's'} x (startup ${fmtS(startup.seconds)} + minReadySeconds ${ro.minReadySeconds}s); old pods terminate in parallel (${opts.shutdownAtLeast ? shutdown : `up to ${shutdown}`} each), after the last step too`;
      plan.notes.push(`capacity during the rollout: at least ${Math.max(0, n - ro.unavailable)} of ${n} pods available, at most ${n + ro.surge} pods plus the terminating ones`);
      if (ro.unavailable >= n) plan.notes.push(`maxUnavailable ${ro.unavailable} >= replicas ${n}: every pod can be down at once, a full outage for the startup time${fullOutageDecision(graph, w) ? cite(rolloutFullOutage.meta.id) : ''}`);
      // progress-deadline's decision (its realistic step counts image pull and the startup-probe budget);
      // the estimate here counts probe delays it does not, so a step it passes can still be too long.
      const pd = progressDeadlineDecision(w, params(progressDeadline));
      if (pd?.kind === 'rejected') plan.notes.push(`progressDeadlineSeconds ${pd.pds} <= minReadySeconds ${pd.mrs}: the API rejects the Deployment${cite(progressDeadline.meta.id)}`);
      else if (pd?.kind === 'short') plan.notes.push(`a realistic step takes about ${pd.realistic}s (${pd.realisticParts.join(' + ')}), above progressDeadlineSeconds ${pd.pds}s: a healthy rollout can be reported failed${cite(progressDeadline.meta.id)}`);
      else if (pd) plan.notes.push(`the slowest step the startup probes allow takes ${pd.step}s (${pd.parts.join(' + ')}), above progressDeadlineSeconds ${pd.pds}s: a pod that starts that slowly is reported failed while the kubelet still waits for it${cite(progressDeadline.meta.id)}`);
      else if (plan.stepSeconds >= ro.progressDeadlineSeconds) plan.notes.push(`a step takes about ${fmtS(plan.stepSeconds)}, not below progressDeadlineSeconds ${ro.progressDeadlineSeconds}s: the rollout is reported failed`);
      // progress-deadline's other decision: a replacement that must wait for the old pod's node.
      const wait = pd?.kind === 'rejected' ? undefined : oldPodWaitDecision(graph, w, version, params(progressDeadline));
      if (wait) plan.durationBasis += `, when a spare node takes the replacements (without one, each step waits for an old pod's termination: see below)`;
      if (wait) plan.notes.push(`${wait.what} keep${wait.what.startsWith('host ports') ? '' : 's'} a new pod off a node with an old one: without a spare node each step waits for an old pod's termination (${wait.termination.words}), not in parallel, and that is longer than progressDeadlineSeconds ${wait.pds}s: the rollout is reported ProgressDeadlineExceeded; raise it to at least ${wait.needed}s${cite(progressDeadline.meta.id)}`);
      break;
    }
    case 'StatefulSet': {
      const st = stsStrategy(w);
      plan.strategy = st.type;
      plan.minReadySeconds = minReady;
      const n = N ?? 1;
      if (st.type === 'OnDelete') {
        plan.parameters = 'pods take the new template only when you delete them';
        plan.notes.push('no automatic rollout: delete the pods one at a time, highest ordinal first, and wait for each to be Ready');
        break;
      }
      const partition = typeof st.partition === 'number' ? st.partition : 0;
      const updated = Math.max(0, n - partition);
      const gate = maxUnavailableGate(version);
      const mu = parseIntOrPercent(st.maxUnavailable);
      let per = 1;
      let muText = 'maxUnavailable 1 (default)';
      if (mu) {
        const v = scaled(mu, n, true);
        muText = `maxUnavailable ${fmtIntOrPercent(mu)}`;
        if (gate === 'on' && v !== undefined) per = Math.max(1, Math.min(updated, v));
        else muText += gate === 'off' ? ` (ignored on ${version.toString()}: MaxUnavailableStatefulSet is off)` : ' (depends on the 1.35 patch release)';
      }
      plan.parameters = `${st.podManagementPolicy}${st.podManagementPolicySet ? '' : ' (default)'}, ${muText}, partition ${partition}`;
      plan.podsPerStep = per;
      plan.steps = Math.ceil(updated / per);
      plan.stepSeconds = podShutdownSeconds + startup.seconds + minReady;
      plan.durationSeconds = plan.steps * plan.stepSeconds;
      countsShutdown();
      plan.durationBasis = `${plan.steps} step${plan.steps === 1 ? '' : 's'} x (old pod shutdown ${shutdown} + startup ${fmtS(startup.seconds)} + minReadySeconds ${minReady}s): a pod's replacement keeps its name, so it is created only after the old pod is gone`;
      // statefulset-ordered-ready's decision: the hand repair is OrderedReady's (Forced rollback); the rule
      // reports it from minReplicas (param) up.
      const ordered = orderedReadyDecision(graph, w, minReplicasParam(params(statefulsetOrderedReady)));
      const stall = ordered
        ? `a new pod that never becomes Ready stops the rollout until it is repaired by hand${ordered.fires ? cite(statefulsetOrderedReady.meta.id) : ''}`
        : 'a new pod that never becomes Ready stops the rollout';
      plan.notes.push(`ordered: highest ordinal first, ${per === 1 ? 'one pod at a time' : `${per} pods at a time`}; ${stall}`);
      if (partition > 0) plan.notes.push(`partition ${partition}: only ordinals >= ${partition} (${updated} of ${n}) are updated`);
      break;
    }
    case 'DaemonSet': {
      const strategy = get(w.obj.raw, 'spec', 'updateStrategy');
      const type = enumOr(get(strategy, 'type'), 'RollingUpdate').value;
      plan.strategy = type;
      plan.minReadySeconds = minReady;
      if (type === 'OnDelete') {
        plan.parameters = 'pods take the new template only when you delete them';
        plan.notes.push('no automatic rollout: delete the pods node by node');
        break;
      }
      const surgeRaw = parseIntOrPercent(get(strategy, 'rollingUpdate', 'maxSurge'));
      const unavailRaw = parseIntOrPercent(get(strategy, 'rollingUpdate', 'maxUnavailable'));
      const surgeText = surgeRaw ? fmtIntOrPercent(surgeRaw) : '0 (default)';
      const unavailText = unavailRaw ? fmtIntOrPercent(unavailRaw) : '1 (default)';
      plan.parameters = `maxSurge ${surgeText}, maxUnavailable ${unavailText} (counted in nodes; percentages of the nodes that run the DaemonSet)`;
      // daemonset-surge's own decision: whether the node's traffic is node-local, and whether surge can work.
      const ds = daemonsetSurgeDecision(graph, w, version, compileNodeProxyPatterns(params(daemonsetSurge).nodeProxyPatterns as string[]));
      // Below 1.22 the API drops maxSurge; both non-zero is rejected (then nothing rolls out).
      const surging = ds ? ds.kind === 'surges' : surgeRaw !== undefined && surgeRaw.kind !== 'invalid' && surgeRaw.value > 0;
      if (ds?.kind === 'surge-ignored') plan.notes.push(`maxSurge ${fmtIntOrPercent(surgeRaw)} is ignored on ${version.toString()} (DaemonSetUpdateSurge needs >= 1.22): each node's pod is stopped before its replacement starts${cite(daemonsetSurge.meta.id)}`);
      if (ds?.kind === 'surge-blocked') plan.notes.push(`maxSurge ${fmtIntOrPercent(surgeRaw)} with maxUnavailable 0, but the pod binds node ports (${ds.hostPorts.join(', ')}): on each node the surge pod cannot start next to the old one, which is stopped only after it is available, so the rollout never progresses${cite(daemonsetSurge.meta.id)}`);
      if (ds?.kind === 'both-non-zero') plan.notes.push(`maxSurge and maxUnavailable are both non-zero: the API rejects this update strategy, so the DaemonSet cannot be applied as written${cite(daemonsetSurge.meta.id)}`);
      // (A rollout that never progresses, or a strategy the API rejects, has no steps to time.)
      if (ds?.kind === 'surge-blocked' || ds?.kind === 'both-non-zero') break;
      const batch = surging ? surgeRaw! : (unavailRaw ?? { kind: 'int' as const, value: 1 });
      if (batch.kind === 'int') plan.podsPerStep = Math.max(1, batch.value);
      if (surging) {
        plan.stepSeconds = startup.seconds + minReady;
        plan.durationBasis = `per batch of ${batch.kind === 'int' ? batch.value : fmtIntOrPercent(batch)} node(s): startup ${fmtS(startup.seconds)} + minReadySeconds ${minReady}s; the old pod stops once the new one is available`;
      } else {
        plan.stepSeconds = podShutdownSeconds + startup.seconds + minReady;
        countsShutdown();
        plan.durationBasis = `per batch of ${batch.kind === 'int' ? batch.value : fmtIntOrPercent(batch)} node(s): old pod shutdown ${shutdown} + startup ${fmtS(startup.seconds)} + minReadySeconds ${minReady}s, during which the node has no pod`;
        const without = `each node is without its pod for ${opts.shutdownAtLeast ? 'at least' : 'about'} ${fmtS(podShutdownSeconds + startup.seconds)}`;
        if (ds?.kind !== 'no-surge' || ds.reason === undefined) plan.notes.push(without);
        else if (ds.fires) plan.notes.push(`${without}: node-local traffic through it is dropped${cite(daemonsetSurge.meta.id)}`);
        else if (ds.hostPorts.length > 0)
          plan.notes.push(
            `${without}: the pod binds node ports (${ds.hostPorts.join(', ')}), so it cannot surge (a new pod cannot start next to the old one on its node): the rollout replaces the pods in place, up to maxUnavailable nodes at a time, and node-local traffic to a node is dropped while its pod is replaced, unless its source stops sending there first (such as a load balancer whose health check marks the node down while its pod drains)`,
          );
        else plan.notes.push(`${without}: node-local traffic through it is dropped; surging first (maxSurge) needs Kubernetes >= 1.22`);
      }
      // rollout-full-outage's own decision: maxUnavailable 100% (rounded up: every node) on a served DaemonSet.
      const full = daemonSetFullOutageDecision(graph, w);
      if (full) plan.notes.push(`maxUnavailable ${fmtIntOrPercent(full.unavailable)}: the pod of every node is deleted at once, a full outage of the pods' Services until the new pods are Ready${full.single ? ` (required: ${full.single.entry.title}; catalog entry ${full.single.entry.id})` : ''}${cite(rolloutFullOutage.meta.id)}`);
      if (plan.podsPerStep !== undefined) {
        const nodes = 10;
        plan.notes.push(`the node count is not in the manifests: a ${nodes}-node cluster takes ${Math.ceil(nodes / plan.podsPerStep)} steps, about ${fmtS(Math.ceil(nodes / plan.podsPerStep) * plan.stepSeconds)}`);
      }
      break;
    }
    case 'Pod':
      plan.notes.push('a bare Pod is never rolled out: changing it means deleting it (the timeline above) and creating a new one; nothing replaces it if the node fails');
      break;
    case 'ReplicaSet':
      plan.notes.push('a ReplicaSet does not roll out template changes: existing pods keep the old template until they are deleted; use a Deployment');
      break;
    default:
      plan.notes.push('batch workload: no rollout; running pods are terminated with the timeline above when deleted');
  }

  // PDBs, spreading and fan-in clients: what shapes drains and rollouts beyond the strategy.
  if (N !== undefined && w.kind !== 'Pod') {
    for (const p of graph.pdbsFor(w)) {
      const what = p.maxUnavailable ? `maxUnavailable ${fmtIntOrPercent(p.maxUnavailable)}` : p.minAvailable ? `minAvailable ${fmtIntOrPercent(p.minAvailable)}` : 'neither minAvailable nor maxUnavailable';
      const head = `PodDisruptionBudget/${p.obj.name} (${what})`;
      if (budgetProblem(p, version) === 'removed') {
        plan.notes.push(`${head}: policy/v1beta1, not served on ${version.toString()}: applying it fails, so it protects nothing${cite(pdbMissing.meta.id)}`);
        continue;
      }
      // Over every pod the budget matches, as pdb-blocks-eviction and the disruption controller count them.
      const blocks = pdbBlocksEvictionDecision(graph, p, version);
      const allowance = pdbAllowance(graph, p);
      const pods = blocks?.pods ?? pdbPods(graph, graph.workloadsForPdb(p));
      const hooks = pods.testHooks.length ? ` (Helm test hook ${pods.testHooks.map((x) => `${x.kind}/${x.obj.name}`).join(', ')} left out: it exists only while \`helm test\` runs)` : '';
      const podsText = `${pods.replicas} pod${pods.replicas === 1 ? '' : 's'}${pods.counted.length > 1 ? ` (of ${pods.counted.length} workloads)` : ''}${hooks}`;
      if (blocks) plan.notes.push(`${head} allows 0 evictions with ${podsText}: node drains block${cite(pdbBlocksEviction.meta.id)}; rollouts do not consult PDBs`);
      else if (!allowance) plan.notes.push(`${head}: cannot be evaluated${pods.uncounted.length ? ' (it also matches pods whose number is not in the manifests)' : ''}`);
      else if (allowance.allowed === 0) plan.notes.push(`${head} allows 0 evictions with ${podsText}: node drains block; rollouts do not consult PDBs`);
      else plan.notes.push(`${head} allows ${allowance.allowed} eviction${allowance.allowed === 1 ? '' : 's'} at a time with ${podsText} (node drains; rollouts do not consult PDBs)`);
    }
    const noPdb = pdbMissingDecision(graph, w, version);
    // (A budget in an API version no longer served was said above, where pdb-missing reports it.)
    if (noPdb && !(noPdb.empty.length && noPdb.empty.every((p) => budgetProblem(p, version) === 'removed')))
      plan.notes.push(
        noPdb.oneNodeEach
          ? `no PodDisruptionBudget: ${noPdb.oneNodeEach}, but concurrent drains may evict every replica together${cite(pdbMissing.meta.id)}`
          : `no PodDisruptionBudget: a node drain may evict every replica at once${cite(pdbMissing.meta.id)}`,
      );
    if (N >= 2) {
      // replicas-not-spread's decision: what it counts as spreading, node pins, and whether it reports.
      const sp = spreadDecision(graph, w);
      if (sp.sharedClaim)
        plan.notes.push(
          `every replica mounts ${sp.sharedClaim}: ${sp.sharedClaim.endsWith('(ReadWriteOncePod)') ? 'only one pod can use it, so one replica runs and the others stay Pending' : 'the replicas all run only on the node that has the volume attached, so spreading them across nodes makes the others fail (Multi-Attach)'}${sp.spreadBy ? ` (the template spreads them: ${sp.spreadBy})` : ''}${cite(surgeVolumeDeadlock.meta.id)}`,
        );
      else if (sp.spreadBy) plan.notes.push(`spread by ${sp.spreadBy}`);
      else if (sp.pinned) plan.notes.push(`placement pinned by ${sp.pinned}: the replicas run only on the node(s) it names, so they cannot be spread`);
      else plan.notes.push(`replicas are not spread (no hostname/zone topologySpreadConstraints or anti-affinity): one node can hold all of them${sp.fires ? cite(replicasNotSpread.meta.id) : ''}`);
    }
  }
  if ((w.annotations[HINT.connectionPattern] ?? '').trim() === 'fan-in' && (w.kind === 'Deployment' || w.kind === 'StatefulSet') && N !== undefined) {
    let p = DEFAULT_RECONNECT_PROBABILITY;
    const pRaw = Number(w.annotations[HINT.reconnectProbability]);
    if (pRaw > 0 && pRaw < 1) p = pRaw;
    let b: Backoff = DEFAULT_BACKOFF;
    try {
      if (w.annotations[HINT.reconnectBackoff] !== undefined) b = parseBackoff(w.annotations[HINT.reconnectBackoff]);
    } catch {
      b = DEFAULT_BACKOFF;
    }
    const est = estimateReconnect(N, p, b);
    const have = plan.minReadySeconds ?? 0;
    plan.notes.push(
      `fan-in clients (section 11, ${N} replicas, P=${p}, ${formatBackoff(b)}): ${est.retries.toFixed(2)} retries, up to ${est.tMax.toFixed(1)}s to reach each new replica; minReadySeconds ${have}s ${have >= est.suggestedMinReadySeconds ? 'covers it' : `is short: set ${est.suggestedMinReadySeconds} (kubegrace simulate rollout --replicas ${N} --probability ${p})`}`,
    );
  }
  return plan;
}
