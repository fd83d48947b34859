import { Rule } from '../engine/types';
import { labelsForPdb, nsPhrase, replicaBasis } from './rollout-util';

const KINDS = new Set(['Deployment', 'StatefulSet', 'ReplicaSet']);

export const pdbMissing: Rule = {
  meta: {
    id: 'pdb-missing',
    spec: 'PDB-001',
    defaultSeverity: 'warning',
    severities: ['warning'],
    description: 'replicas >= 2 (or HPA minReplicas >= 2) and no PDB selects the pods',
    doc: `Without a PodDisruptionBudget, a node drain, a cluster upgrade or autoscaler consolidation may evict every
replica of a workload at the same time.

Condition (**warning**): a Deployment, StatefulSet or ReplicaSet with \`replicas >= 2\` (the HPA's \`minReplicas\` when an
HPA targets it) and no PodDisruptionBudget in its namespace whose selector matches the pod-template labels.
Single-replica workloads are not reported: a budget cannot protect them without blocking drains
(see \`pdb-blocks-eviction\`).

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
\`\`\``,
    fixable: true,
    references: [
      'kubernetes/website content/en/docs/tasks/run-application/configure-pdb.md',
      'kubernetes/website content/en/docs/concepts/workloads/pods/disruptions.md',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      if (!KINDS.has(w.kind)) continue;
      const basis = replicaBasis(ctx.graph, w);
      if (!basis || basis.replicas < 2) continue;
      if (ctx.graph.pdbsFor(w).length > 0) continue;
      const ns = nsPhrase(w.obj);
      ctx.report({
        object: w.obj,
        pointer: !basis.hpa && w.replicasSet ? '/spec/replicas' : '/spec',
        message: `${basis.phrase} but no PodDisruptionBudget${ns} selects its pods: a node drain or autoscaler consolidation may evict every replica at once; add a PodDisruptionBudget with maxUnavailable: 1 and selector.matchLabels ${labelsForPdb(w)}`,
      });
    }
  },
};
