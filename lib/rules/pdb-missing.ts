import { Fix, Rule } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { ObjectGraph, PdbView } from '../model/graph';
import { isObject, JsonObject } from '../model/types';
import { Workload } from '../model/workload';
import { copyJson } from './fix-util';
import { budgetProblem, fmtIntOrPercent, labelsForPdb, nsPhrase, ReplicaBasis, replicaBasis } from './rollout-util';
import { antiAffinityTerms, HOSTNAME_KEY, spreadConstraints } from './mesh-util';
import { sharedClaimDecision } from './surge-volume-deadlock';

const KINDS = new Set(['Deployment', 'StatefulSet', 'ReplicaSet']);

/**
 * A new PDB right after the workload (a proposal: a new object): maxUnavailable 1 never blocks an
 * eviction and follows scale changes; the selector is a copy of the workload's own (never edited);
 * AlwaysAllow on >= 1.27 except for StatefulSets, treated as data stores (section 12).
 */
function newPdbFix(graph: ObjectGraph, version: KubeVersion, w: Workload): Fix | undefined {
  const sel = w.obj.raw.spec && isObject(w.obj.raw.spec) ? w.obj.raw.spec.selector : undefined;
  const hasSel = isObject(sel) && ((isObject(sel.matchLabels) && Object.keys(sel.matchLabels).length > 0) || (Array.isArray(sel.matchExpressions) && sel.matchExpressions.length > 0));
  const selector: JsonObject | undefined = hasSel ? copyJson(sel) : Object.keys(w.templateLabels).length ? { matchLabels: { ...w.templateLabels } } : undefined;
  if (!selector) return undefined;
  // An index lookup per candidate name: filtering every PDB per workload made this quadratic.
  const taken = { has: (n: string) => graph.pdbNamed(w.obj.namespace, n) !== undefined };
  let name = w.obj.name;
  for (let i = 2; taken.has(name); i++) name = i === 2 ? `${w.obj.name}-pdb` : `${w.obj.name}-pdb-${i - 1}`;
  const metadata: JsonObject = { name };
  const rawNs = isObject(w.obj.raw.metadata) ? w.obj.raw.metadata.namespace : undefined;
  if (typeof rawNs === 'string' && rawNs !== '') metadata.namespace = rawNs;
  const spec: JsonObject = { maxUnavailable: 1 };
  if (version.atLeast(1, 27) && w.kind !== 'StatefulSet') spec.unhealthyPodEvictionPolicy = 'AlwaysAllow';
  spec.selector = selector;
  return {
    description: `add PodDisruptionBudget ${name} (maxUnavailable: 1) for ${w.kind}/${w.obj.name}`,
    safety: 'proposal',
    edits: [{ op: 'add-object', value: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata, spec } }],
  };
}

/**
 * What places at most one replica per node (required hostname anti-affinity on its own pods, or a
 * DoNotSchedule hostname spread with maxSkew 1), for the message; undefined otherwise.
 */
function oneNodeEach(w: Workload): string | undefined {
  if (antiAffinityTerms(w).some((t) => t.required && t.selectsOwn && t.topologyKey === HOSTNAME_KEY)) return 'required pod anti-affinity on kubernetes.io/hostname';
  if (spreadConstraints(w).some((c) => c.selectsOwn && c.topologyKey === HOSTNAME_KEY && c.whenUnsatisfiable === 'DoNotSchedule' && c.maxSkew === 1)) return 'a DoNotSchedule topology spread on kubernetes.io/hostname';
  return undefined;
}

/**
 * The rule's decision for one workload, shared with explain: defined (reported) for a Deployment,
 * StatefulSet or ReplicaSet with at least 2 replicas that no working PodDisruptionBudget protects,
 * with what keeps one replica per node when something does, and (`empty`) the budgets that select
 * it but protect nothing (budgetProblem), which the rule reports instead. No budget is asked for
 * replicas sharing an exclusive claim (surge-volume-deadlock): the replacement of an evicted
 * replica cannot attach the volume on another node while another replica holds it, so a budget
 * stalls the drain.
 */
export function pdbMissingDecision(graph: ObjectGraph, w: Workload): { basis: ReplicaBasis; oneNodeEach?: string; empty: PdbView[] } | undefined {
  if (!KINDS.has(w.kind)) return undefined;
  const basis = replicaBasis(graph, w);
  if (!basis || basis.replicas < 2) return undefined;
  const budgets = graph.pdbsFor(w);
  if (budgets.some((p) => budgetProblem(p) === undefined)) return undefined;
  // (A budget that selects them but protects nothing is still a mistake in that budget, said at it.)
  if (budgets.length === 0 && sharedClaimDecision(graph, w)) return undefined;
  return { basis, oneNodeEach: oneNodeEach(w), empty: budgets };
}

export const pdbMissing: Rule = {
  meta: {
    id: 'pdb-missing',
    spec: 'PDB-001',
    defaultSeverity: 'warning',
    severities: ['error', 'warning'],
    description: 'replicas >= 2 (or HPA minReplicas >= 2) and no PDB selects the pods',
    doc: `Without a PodDisruptionBudget, a node drain, a cluster upgrade or autoscaler consolidation may evict every
replica of a workload at the same time.

Condition (**warning**): a Deployment, StatefulSet or ReplicaSet with \`replicas >= 2\` (the HPA's \`minReplicas\` when an
HPA targets it) and no PodDisruptionBudget in its namespace whose selector matches the pod-template labels.
Single-replica workloads are not reported: a budget cannot protect them without blocking drains
(see \`pdb-blocks-eviction\`). Nor are Deployments and ReplicaSets whose replicas all mount one \`ReadWriteOnce\` (not
pinned to a node) or \`ReadWriteOncePod\` PersistentVolumeClaim, which \`surge-volume-deadlock\` reports: the
replacement of an evicted replica cannot attach the volume on another node while a second replica still holds it,
so it never becomes Ready and a budget then blocks the rest of the drain.

A budget that selects the pods but protects nothing does not count; it is reported at the budget instead:
- **error:** it sets both \`minAvailable\` and \`maxUnavailable\`, which are mutually exclusive: the API rejects it;
- **warning:** it sets neither: the disruption controller then requires no healthy pod (\`getExpectedPodCount\`
  sets the desired healthy count only from one of the two fields) and allows every eviction. A chart renders
  this when a value is left empty (tempo-distributed's \`maxUnavailable:\` with nothing after it);
- **warning:** \`minAvailable: 0\` (or \`"0%"\`) or \`maxUnavailable: "100%"\`, which allow every eviction as written
  (argo-events renders \`minAvailable: 0\` from a \`maxUnavailable: 0\` value that Go templates read as false).

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

**\`--fix-proposals\`:** adds a PodDisruptionBudget named after the workload (suffixed if the name is taken) as a new document right after it: \`maxUnavailable: 1\`, the workload's own \`spec.selector\` copied, \`unhealthyPodEvictionPolicy: AlwaysAllow\` on >= 1.27 except for StatefulSets.`,
    fixable: true,
    references: [
      'kubernetes/website content/en/docs/tasks/run-application/configure-pdb.md',
      'kubernetes/website content/en/docs/concepts/workloads/pods/disruptions.md',
    ],
  },
  check(ctx) {
    const empty = new Map<PdbView, string[]>();
    for (const w of ctx.graph.workloads) {
      const d = pdbMissingDecision(ctx.graph, w);
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
      ctx.report({
        object: w.obj,
        pointer: !basis.hpa && w.replicasSet ? '/spec/replicas' : '/spec',
        message: `${basis.phrase} but no PodDisruptionBudget${ns} selects its pods: ${each ? `${each} keeps one replica per node, so a single drain takes only one, but drains run concurrently (cluster upgrades drain several nodes at a time, the autoscaler consolidates several at once) and without a budget they may evict every replica together` : 'a node drain or autoscaler consolidation may evict every replica at once'}; add a PodDisruptionBudget with maxUnavailable: 1 and selector.matchLabels ${labelsForPdb(w)}`,
        fix: newPdbFix(ctx.graph, ctx.version, w),
        absence: true,
      });
    }
    for (const [p, workloads] of empty) {
      const problem = budgetProblem(p);
      const both = problem === 'both';
      const who = workloads.join(', ');
      const written = problem === 'all' ? (p.minAvailable ? `minAvailable: ${fmtIntOrPercent(p.minAvailable)}` : `maxUnavailable: ${fmtIntOrPercent(p.maxUnavailable!)}`) : undefined;
      ctx.report({
        object: p.obj,
        pointer: '/spec',
        severity: both ? 'error' : 'warning',
        message: both
          ? `PodDisruptionBudget/${p.obj.name} sets both minAvailable and maxUnavailable, which are mutually exclusive: the API rejects it, so ${who} ${workloads.length === 1 ? 'has' : 'have'} no budget and a node drain or autoscaler consolidation may evict every replica at once; keep only maxUnavailable: 1 (it follows scale changes)`
          : `PodDisruptionBudget/${p.obj.name} ${written ? `sets ${written}, which allows` : 'sets neither minAvailable nor maxUnavailable: the disruption controller then requires no healthy pod and allows'} every eviction, so ${who} ${workloads.length === 1 ? 'is' : 'are'} not protected; set maxUnavailable: 1`,
      });
    }
  },
};
