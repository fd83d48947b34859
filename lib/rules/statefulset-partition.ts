import { Rule } from '../engine/types';
import { num } from '../model/workload';
import { stsStrategy } from './lb-util';

export const statefulsetPartition: Rule = {
  meta: {
    id: 'statefulset-partition',
    spec: 'STS-002',
    defaultSeverity: 'warning',
    severities: ['warning', 'info'],
    description: 'rollingUpdate.partition >= replicas (updates never land) or a leftover canary partition',
    doc: `\`updateStrategy.rollingUpdate.partition\` stages a StatefulSet update: only pods with an ordinal
\`>= partition\` are updated; lower ordinals keep (and are even recreated at) the old revision when deleted. It is
meant for a canary that is then completed by lowering the partition to 0. Left in a committed manifest it silently
holds part or all of the set at the old revision.

**Conditions** (\`updateStrategy.type: RollingUpdate\`, the default, and \`partition > 0\`):

- **warning:** \`partition >= replicas\`: template changes never reach any pod. With an HPA, \`replicas\` is its
  \`maxReplicas\` (the most pods there can be); \`partition >= maxReplicas\` never updates anything.
- **info:** \`0 < partition < replicas\`: a staged canary was left in place; ordinals \`0..partition-1\` stay at the
  old revision.

**Fix:** finish the rollout and commit the partition back to 0 (or remove it):

\`\`\`yaml
spec:
  updateStrategy:
    type: RollingUpdate
    rollingUpdate:
      partition: 0
\`\`\``,
    fixable: false,
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/controllers/statefulset.md#partitions',
      'kubernetes/kubernetes staging/src/k8s.io/api/apps/v1/types.go (RollingUpdateStatefulSetStrategy.Partition)',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      if (w.kind !== 'StatefulSet') continue;
      const s = stsStrategy(w);
      if (s.type !== 'RollingUpdate') continue;
      const partition = num(s.partition);
      if (partition === undefined || partition <= 0) continue;
      const pointer = '/spec/updateStrategy/rollingUpdate/partition';
      const hpa = ctx.graph.hpaFor(w);
      const replicas = hpa ? hpa.maxReplicas : w.replicas;
      if (replicas === undefined) continue;
      const basis = hpa ? `HPA maxReplicas ${replicas} (HorizontalPodAutoscaler/${hpa.obj.name})` : w.replicasSet ? `replicas ${replicas}` : `replicas ${replicas} (default)`;
      if (partition >= replicas) {
        ctx.report({
          object: w.obj,
          pointer,
          severity: 'warning',
          message: `rollingUpdate.partition ${partition} >= ${basis}: only ordinals >= ${partition} are updated, so template changes never reach any pod; set partition to 0 (or remove it) once the staged rollout is done`,
        });
      } else {
        const lower = partition === 1 ? 'ordinal 0 stays' : `ordinals 0..${partition - 1} stay`;
        ctx.report({
          object: w.obj,
          pointer,
          severity: 'info',
          message: `rollingUpdate.partition ${partition} with ${basis}: a staged (canary) update is left in the manifest, so ${lower} at the old revision even when deleted; finish the rollout and set partition to 0`,
        });
      }
    }
  },
};
