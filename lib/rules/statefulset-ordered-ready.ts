import { Rule } from '../engine/types';
import { ObjectGraph } from '../model/graph';
import { Workload } from '../model/workload';
import { stsStrategy } from './lb-util';
import { ReplicaBasis, replicaBasis } from './rollout-util';

/**
 * The rule's decision for one workload, shared with explain: undefined unless it is an OrderedReady
 * RollingUpdate StatefulSet (where a bad revision stalls and needs its pods deleted by hand);
 * `fires` when it has at least `minReplicas` replicas (param) and is reported.
 */
export function orderedReadyDecision(graph: ObjectGraph, w: Workload, minReplicas: number): { fires: boolean; basis?: ReplicaBasis; strategy: ReturnType<typeof stsStrategy> } | undefined {
  if (w.kind !== 'StatefulSet') return undefined;
  const s = stsStrategy(w);
  if (s.podManagementPolicy !== 'OrderedReady' || s.type !== 'RollingUpdate') return undefined;
  const basis = replicaBasis(graph, w);
  return { fires: basis !== undefined && basis.replicas >= minReplicas && basis.replicas !== 0, basis, strategy: s };
}

/** The minReplicas param as the rule reads it (default 2). */
export function minReplicasParam(params: Record<string, unknown>): number {
  return typeof params.minReplicas === 'number' ? params.minReplicas : 2;
}

export const statefulsetOrderedReady: Rule = {
  meta: {
    id: 'statefulset-ordered-ready',
    spec: 'STS-001',
    defaultSeverity: 'info',
    severities: ['info'],
    description: 'OrderedReady + RollingUpdate: a bad revision stalls and needs manual pod deletion',
    doc: `With \`podManagementPolicy: OrderedReady\` (the default) and \`updateStrategy.type: RollingUpdate\` (the
default), the StatefulSet controller replaces pods one by one, from the highest ordinal down, and waits for each
new pod to be Running and Ready. If a new revision never becomes Ready (a bad image, a crash loop, a failing
probe), the rollout stops there. Reverting the template is **not enough**: the controller does not replace a pod
that is not Running and Ready, so the pods already created from the bad revision must be deleted by hand
(the known issue kubernetes/kubernetes#67250, the "Forced rollback" section of the StatefulSet docs).

**Condition (info):** a StatefulSet with \`podManagementPolicy\` \`OrderedReady\` (absent or explicit) and
\`updateStrategy.type\` \`RollingUpdate\` (absent or explicit), with at least \`minReplicas\` replicas (param,
default 2; the HPA's \`minReplicas\` when an HPA targets it).

Single-replica StatefulSets are not reported by default: the configuration is the ordinary one for a single
database or controller instance, there is no ordering to enforce, and a stalled update is an immediate, visible
outage of the only pod. Set \`minReplicas: 1\` to include them (the recovery note applies to them too).

**Fix:** the finding is advisory; no field of a RollingUpdate StatefulSet makes the controller replace a stuck pod
(\`maxUnavailable\` does not either, KEP-3541). Keep a runbook for failed StatefulSet rollouts, and make automation
(CD pipelines, auto-repair controllers) apply the two steps as a pair:

\`\`\`sh
kubectl rollout undo statefulset/db          # or re-apply the previous template
kubectl delete pod db-2                      # every pod still at the bad revision
\`\`\`

\`OnDelete\` makes every update manual instead; that is a choice, not a fix.`,
    fixable: false,
    paramsSchema: { type: 'object', properties: { minReplicas: { type: 'integer', minimum: 0, default: 2 } }, additionalProperties: false },
    defaults: { minReplicas: 2 },
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/controllers/statefulset.md#forced-rollback',
      'kubernetes/website content/en/docs/concepts/workloads/controllers/statefulset.md#pod-management-policies',
      'https://github.com/kubernetes/kubernetes/issues/67250',
      'kubernetes/kubernetes staging/src/k8s.io/api/apps/v1/types.go',
    ],
  },
  check(ctx) {
    const minReplicas = minReplicasParam(ctx.params);
    for (const w of ctx.graph.workloads) {
      const d = orderedReadyDecision(ctx.graph, w, minReplicas);
      if (!d?.fires || !d.basis) continue;
      const { basis, strategy: s } = d;
      const pmp = s.podManagementPolicySet ? 'podManagementPolicy OrderedReady' : 'podManagementPolicy OrderedReady (default)';
      const type = s.typeSet ? 'updateStrategy RollingUpdate' : 'updateStrategy RollingUpdate (default)';
      ctx.report({
        object: w.obj,
        pointer: s.podManagementPolicySet ? '/spec/podManagementPolicy' : s.typeSet ? '/spec/updateStrategy/type' : '/spec',
        message: `${pmp} with ${type} and ${basis.phrase}: if a new revision never becomes Running and Ready, the rollout stops, and reverting the template does not heal it: the pods already created from the bad revision must be deleted by hand (kubernetes/kubernetes#67250); keep a runbook that reverts and then deletes the stuck pods (kubectl delete pod ${w.obj.name}-N), and make automation apply both steps together`,
      });
    }
  },
};
