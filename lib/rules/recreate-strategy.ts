import { Rule } from '../engine/types';
import { assumedServedNote, likelyServed, SERVED_STATUS_DOC } from '../model/traffic';
import { claimExclusivity, existingPointer, replicaBasis } from './rollout-util';

export const recreateStrategy: Rule = {
  meta: {
    id: 'recreate-strategy',
    spec: 'ROLL-005',
    defaultSeverity: 'warning',
    severities: ['warning'],
    description: 'Recreate on a replicated, served workload without an exclusive volume to justify it',
    doc: `With \`strategy.type: Recreate\` the Deployment controller terminates every pod before it creates any new one,
so each rollout is an outage of termination plus startup time. That is the right trade only when the pods cannot
overlap, typically because they share an exclusive volume (see \`surge-volume-deadlock\`).

Condition (**warning**): a Deployment with \`strategy.type: Recreate\`, at least 2 replicas (HPA \`minReplicas\` when an
HPA targets it), served (a Service selects it, or \`kubegrace.dev/served: "true"\`), and no PersistentVolumeClaim
mount that justifies Recreate. A claim justifies it when its PVC is \`ReadWriteOncePod\` or \`ReadWriteOnce\`, or when
its access mode is unknown (the PVC is not in the linted set). A claim whose PVC allows \`ReadWriteMany\` or
\`ReadOnlyMany\` does not.

Recreate only orders pods during a rollout: a manually deleted pod is replaced at once, so it is not an
"at most one pod" guarantee either.

${SERVED_STATUS_DOC}

Fix (proposed, not automatic):
\`\`\`yaml
strategy:
  type: RollingUpdate
  rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
\`\`\``,
    fixable: false,
    references: ['kubernetes/website content/en/docs/concepts/workloads/controllers/deployment.md#recreate-deployment'],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      if (w.kind !== 'Deployment' || w.deployment?.type !== 'Recreate') continue;
      const basis = replicaBasis(ctx.graph, w);
      if (!basis || basis.replicas < 2 || !likelyServed(ctx.graph, w)) continue;
      const claims = ctx.graph.claimsOf(w);
      if (claims.some((c) => claimExclusivity(c) !== 'shared')) continue;
      const shared = claims.length ? ` (its claims ${claims.map((c) => `"${c.claimName}"`).join(', ')} allow multi-node access, so they do not require it)` : '';
      ctx.report({
        object: w.obj,
        pointer: existingPointer(w.obj.raw, 'spec', 'strategy', 'type'),
        message: `strategy Recreate with ${basis.phrase} on a served workload${shared}: every pod is terminated before any new one starts, so each rollout is a full outage of termination plus startup time; use RollingUpdate with {maxSurge: 1, maxUnavailable: 0}${assumedServedNote(ctx.graph, w)}`,
      });
    }
  },
};
