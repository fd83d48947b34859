import { KubeVersion } from '../engine/version';
import { Rule, Severity } from '../engine/types';
import { passingHelmHook } from './lb-util';
import { flowValue } from './util';
import { HINT, ObjectGraph, PdbView } from '../model/graph';
import { scaled } from '../model/intstr';
import { budgetless, budgetProblem, fmtIntOrPercent, operatorPdbPods, PdbPods, pdbPods } from './rollout-util';

const OPT_OUT = `if the budget is a deliberate "talk to me first" gate, annotate the PDB with ${HINT.ignore}: pdb-blocks-eviction`;

/**
 * The rule's decision for one PodDisruptionBudget, shared with explain: defined (reported) when it
 * allows zero voluntary disruptions for the pods of every workload it matches: maxUnavailable 0,
 * or (when every matched pod is counted) minAvailable reaching the total.
 */
export interface PdbBlockDecision {
  pods: PdbPods;
  field: 'maxUnavailable' | 'minAvailable' | 'neither';
  /** minAvailable resolved against the total (rounded up). */
  need?: number;
  severity: Severity;
}

export function pdbBlocksEvictionDecision(graph: ObjectGraph, p: PdbView, version?: KubeVersion): PdbBlockDecision | undefined {
  // (Both minAvailable and maxUnavailable, or an API version no longer served: the API rejects the budget, which pdb-missing reports.)
  const problem = budgetProblem(p, version);
  if (problem === 'both' || problem === 'removed') return undefined;
  const matched = graph.workloadsForPdb(p);
  // (No workload of the input: the StatefulSets prometheus-operator makes, counted the same way.)
  const pods = matched.length ? pdbPods(graph, matched) : operatorPdbPods(graph, p);
  if (!pods || !pods.parts.length) return undefined;
  const r = pods.replicas;
  if (r <= 0) return undefined;
  // Neither field: the controller expects no pods and allows no disruption, whatever the count (budgetless).
  if (budgetless(p)) return { pods, field: 'neither', severity: 'error' };
  if (p.maxUnavailable && p.maxUnavailable.kind !== 'invalid' && p.maxUnavailable.value === 0) return { pods, field: 'maxUnavailable', severity: 'warning' };
  // With DaemonSet or Job pods in the match, r is only a lower bound: minAvailable cannot be judged.
  if (pods.uncounted.length || !p.minAvailable || p.minAvailable.kind === 'invalid') return undefined;
  const min = p.minAvailable;
  const need = scaled(min, r, true)!;
  if (need < r) return undefined;
  // One replica with a minAvailable meant for more (an integer 1, or a majority percentage such as
  // bitnami etcd's "51%", which rounds up to 1): every drain blocks by accident, the chart-default
  // case. "100%" says "never evict" as plainly as maxUnavailable: 0, so it stays a warning.
  const accidental = min.kind === 'int' ? min.value >= 1 : min.value > 0 && min.value < 100;
  // A percentage below 100% says "let some go" at any count: one that rounds up to every replica of
  // a fixed count ("90%" of 3: ceil(2.7) = 3) blocks every drain by accident just as well, whatever
  // the count (apisix's chart default minAvailable "90%"; review round 33, report p42 item 2), while an integer >= r
  // on several replicas, like "100%", may say "never evict" on purpose. With an HPA, r is its
  // minReplicas, and at a larger scale the budget does allow evictions: a warning.
  const fixedPercent = min.kind === 'percent' && accidental && !pods.fromHpa;
  return { pods, field: 'minAvailable', need, severity: (r === 1 && accidental) || fixedPercent ? 'error' : 'warning' };
}

export const pdbBlocksEviction: Rule = {
  meta: {
    id: 'pdb-blocks-eviction',
    spec: 'PDB-002, PDB-005',
    defaultSeverity: 'error',
    severities: ['error', 'warning'],
    description: 'the PDB allows zero voluntary disruptions (also computed with HPA minReplicas)',
    doc: `A PodDisruptionBudget that allows zero voluntary disruptions while every pod is healthy makes
\`kubectl drain\` retry forever: node drains never finish and cluster upgrades stall.

With \`r\` = the total replicas of the workloads the PDB matches (for a workload targeted by an HPA, its
\`minReplicas\`, default 1: the HPA may scale down to it at any time, PDB-005), the rule reports when:
- \`maxUnavailable\` resolves to 0 (\`0\` or \`"0%"\`);
- \`minAvailable\` is \`"100%"\` or an integer \`>= r\`;
- \`minAvailable\` is a percentage that rounds **up** to \`r\` or more (percentages round up in the disruption
  controller: \`"90%"\` with \`r = 3\` is ceil(2.7) = 3);
- the budget sets **neither** \`minAvailable\` nor \`maxUnavailable\` (a chart value left empty, such as
  kubernetes-dashboard's PDB toggle with its defaults or tempo-distributed's \`maxUnavailable:\` with nothing after
  it; the API accepts it): the disruption controller's \`getExpectedPodCount\` sets the expected pod count only in
  its \`maxUnavailable\` and \`minAvailable\` branches, and \`updatePdbStatus\` allows no disruption while that count
  is 0, so every eviction is refused, whatever \`r\` is (always an **error**).

Severity: **error** when \`r == 1\` and \`minAvailable\` is an integer >= 1 (the common chart default
\`minAvailable: 1\` on a single replica) or a percentage below 100% (a majority such as \`"51%"\`, meant for a
quorum of several replicas, rounds up to 1: the same budget); **error** too, at any \`r\`, for a percentage below 100%
that rounds up to every replica of a fixed count (no HPA): \`"90%"\` of 3 pods says "let 10% go" and blocks every drain
by accident (apisix's chart default \`minAvailable: 90%\` with 1 to 9 replicas); **warning** otherwise (\`"100%"\`,
an integer \`minAvailable >= r\` on several replicas and \`maxUnavailable: 0\` say "never evict" on purpose as often as
not; with an HPA, \`r\` is its \`minReplicas\`, and at a larger scale the budget allows evictions). PDBs that match no workload in the set, or only
DaemonSets (drains skip DaemonSet pods), are not judged; the StatefulSets prometheus-operator makes from an
\`Alertmanager\`, \`Prometheus\` (per shard) or \`ThanosRuler\` of the input count as workloads (\`spec.replicas\` each); when a PDB also matches DaemonSet or Job pods, whose count
is unknown, only \`maxUnavailable: 0\` is reported.

Opt-out: the "talk to me first" pattern the Kubernetes docs describe (a budget of zero so that an operator must be
consulted before any eviction) is legitimate; mark it with the standard suppression annotation on the PDB:
\`\`\`yaml
metadata:
  annotations:
    kubegrace.dev/ignore: pdb-blocks-eviction
    kubegrace.dev/ignore-reason: evictions need the on-call's approval
\`\`\`

Fix (proposed, not automatic):
\`\`\`yaml
# the workload (or its HPA): minReplicas: 2
spec:
  maxUnavailable: 1
\`\`\`
A program that must not run twice at once (a controller without leader election, such as prometheus-operator)
keeps one replica: give it \`maxUnavailable: 1\` (a drain then evicts it, a short outage while it starts on another
node) or no budget. A one-replica workload that a Service serves together with sibling workloads is a member of a
group (the neo4j chart runs one StatefulSet, with its own budget, per cluster member): the budget belongs on the
group, one PDB over the labels the members share (the Service's selector) with \`maxUnavailable: 1\` or a
\`minAvailable\` that keeps the quorum; one \`maxUnavailable: 1\` budget per member would let concurrent drains
evict several members at once.`,
    fixable: false,
    references: [
      'kubernetes/website content/en/docs/tasks/run-application/configure-pdb.md (zero voluntary evictions; rounding)',
      'kubernetes/kubernetes pkg/controller/disruption/disruption.go',
      'kubernetes/website content/en/docs/concepts/workloads/controllers/deployment.md#replicas (HPA minReplicas)',
    ],
  },
  check(ctx) {
    for (const p of ctx.graph.pdbs) {
      const d = pdbBlocksEvictionDecision(ctx.graph, p, ctx.version);
      if (!d) continue;
      const { pods } = d;
      const r = pods.replicas;
      const podsText = `${r} pod${r === 1 ? '' : 's'} (${pods.parts.join(', ')})`;
      const hpaNote = pods.fromHpa ? ' whenever the HPA has scaled down to its minimum,' : '';
      const effect = `the budget allows zero voluntary disruptions:${hpaNote} kubectl drain never finishes and node upgrades stall`;
      // One replica that a Service serves together with sibling workloads is a member of a group (the
      // neo4j chart's one StatefulSet per cluster member): the budget belongs on the group (review round 10).
      const group = r === 1 && !pods.fromHpa ? memberOf(ctx.graph, p) : undefined;
      const fix = group
        ? `its pods are one member of a group that Service/${group.svc} serves with ${group.siblings}: use one budget over the labels the members share, such as the Service's selector ${group.selector}, with maxUnavailable: 1 (or a minAvailable that keeps the group's quorum), in place of one budget per member; a budget of maxUnavailable: 1 per member would let concurrent drains evict several members at once`
        : pods.fromHpa ? 'set HPA minReplicas to at least 2 and use maxUnavailable: 1' : r === 1
          ? // (A singleton, such as prometheus-operator, which has no leader election, must not run twice.)
            'run at least 2 replicas and use maxUnavailable: 1 if the program can run two at once; for a singleton, use maxUnavailable: 1 (a drain then evicts it: a short outage while it starts on another node) or remove the budget'
          : 'use maxUnavailable: 1';
      if (d.field === 'neither') {
        ctx.report({
          object: p.obj,
          pointer: '/spec',
          severity: d.severity,
          message: `sets neither minAvailable nor maxUnavailable for ${podsText}: the disruption controller then expects no pods (it reads them only from one of the two fields) and allows no disruption at all, so every eviction is refused: kubectl drain never finishes and node upgrades stall; ${group ? fix : `set maxUnavailable: 1${r === 1 ? ' (with one replica: a short outage while the pod starts on another node, or run 2 replicas)' : ''}`}`,
        });
        continue;
      }
      if (d.field === 'maxUnavailable') {
        ctx.report({
          object: p.obj,
          pointer: '/spec/maxUnavailable',
          severity: d.severity,
          message: `maxUnavailable ${fmtIntOrPercent(p.maxUnavailable)} for ${podsText}: ${effect}; ${fix}, or ${OPT_OUT}`,
        });
        continue;
      }
      const min = p.minAvailable!;
      const what =
        min.kind === 'percent' && min.value < 100 ? `minAvailable ${fmtIntOrPercent(min)} rounds up to ${d.need} of ${podsText}` : `minAvailable ${fmtIntOrPercent(min)} with ${podsText}`;
      const optOut = min.kind === 'percent' && min.value >= 100 ? `, or ${OPT_OUT}` : '';
      ctx.report({ object: p.obj, pointer: '/spec/minAvailable', severity: d.severity, message: `${what}: ${effect}; ${fix}${optOut}` });
    }
  },
};

/**
 * When the budget's workloads are served, by one Service, together with other workloads that are not
 * Helm hooks or Jobs: that Service, the siblings and its selector (what the members share).
 */
function memberOf(graph: ObjectGraph, p: PdbView): { svc: string; siblings: string; selector: string } | undefined {
  const own = graph.workloadsForPdb(p);
  if (!own.length) return undefined;
  for (const w of own) {
    for (const svc of graph.servicesFor(w)) {
      if (svc.metricsOnly || svc.selector.kind !== 'selector') continue;
      const siblings = graph.workloadsFor(svc).filter((x) => !own.includes(x) && !x.isBatch && !passingHelmHook(x.obj));
      if (!siblings.length) continue;
      const names = siblings.map((x) => `${x.kind}/${x.obj.name}`);
      return {
        svc: svc.obj.name,
        siblings: names.length > 3 ? `${names.slice(0, 2).join(', ')} and ${names.length - 2} more` : names.join(', '),
        selector: `{${svc.selector.requirements.map((r) => `${r.key}: ${flowValue(r.values[0])}`).join(', ')}}`,
      };
    }
  }
  return undefined;
}

