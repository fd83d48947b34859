import { Rule } from '../engine/types';
import { claimExclusivity, fmtIntOrPercent, nodePinning, replicaBasis, rolloutFor } from './rollout-util';

export const surgeVolumeDeadlock: Rule = {
  meta: {
    id: 'surge-volume-deadlock',
    spec: 'ROLL-002',
    defaultSeverity: 'error',
    severities: ['error', 'warning'],
    description: 'surge rollout of a Deployment mounting an exclusive PVC: the new pod can never attach it',
    doc: `A RollingUpdate Deployment with a resolved \`surge >= 1\` starts the new pod while the old one still
runs. When both mount the same exclusive PersistentVolumeClaim, the new pod cannot get the volume:
- \`ReadWriteOncePod\` (GA 1.29) is pod-exclusive: the surge pod never starts. The rollout always deadlocks (**error**).
- \`ReadWriteOnce\` is node-exclusive: the surge pod can mount it only if it lands on the old pod's node, so the
  deadlock is intermittent: the new pod stays Pending with Multi-Attach errors, the old pod is never removed, and the
  rollout ends in \`ProgressDeadlineExceeded\` (**warning**). Not reported when the template is pinned to one node
  (\`nodeName\`, a \`kubernetes.io/hostname\` nodeSelector, or required node affinity on \`kubernetes.io/hostname\`),
  or when the claim also lists \`ReadWriteMany\`/\`ReadOnlyMany\` (multi-attach is then allowed).

Only claims whose PVC is in the linted set are judged (the access mode is otherwise unknown). The surge is
resolved as in section 4, with the HPA's \`minReplicas\` when an HPA targets the Deployment.

Fix (not automatic: converting to a StatefulSet with \`volumeClaimTemplates\` can orphan data):
\`\`\`yaml
strategy:
  type: Recreate          # or RollingUpdate with maxSurge: 0, maxUnavailable: 1
\`\`\``,
    fixable: false,
    references: [
      'gravitational/teleport#11484 and PR #42331 ("re-create pods when a PV is mounted")',
      'sourcegraph/deploy-sourcegraph PR #154',
      'kubernetes/website feature-gates ReadWriteOncePod.md',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      if (w.kind !== 'Deployment' || !w.deployment || w.deployment.type !== 'RollingUpdate') continue;
      const basis = replicaBasis(ctx.graph, w);
      if (!basis || basis.replicas <= 0) continue;
      const d = rolloutFor(w, basis.replicas)!;
      if (d.surge < 1) continue;
      const pinned = nodePinning(w);
      const surge = `maxSurge ${fmtIntOrPercent(d.maxSurge)}${d.maxSurgeSet ? '' : ' (default)'} resolves to ${d.surge} with ${basis.phrase}`;
      for (const c of ctx.graph.claimsOf(w)) {
        const ex = claimExclusivity(c);
        if (ex === 'pod') {
          ctx.report({
            object: w.obj,
            pointer: c.pointer,
            severity: 'error',
            message: `volume "${c.volumeName}" mounts PVC "${c.claimName}" (ReadWriteOncePod) and ${surge}: the surge pod can never use the claim while the old pod holds it, so every rollout deadlocks; set strategy.type: Recreate (or RollingUpdate with maxSurge: 0, maxUnavailable: 1), or move to a StatefulSet with volumeClaimTemplates`,
          });
        } else if (ex === 'node' && !pinned) {
          ctx.report({
            object: w.obj,
            pointer: c.pointer,
            severity: 'warning',
            message: `volume "${c.volumeName}" mounts PVC "${c.claimName}" (ReadWriteOnce) and ${surge}: a surge pod scheduled on another node stays Pending on Multi-Attach while the old pod keeps the volume, and the rollout stalls until progressDeadlineSeconds; set strategy.type: Recreate (or RollingUpdate with maxSurge: 0, maxUnavailable: 1)`,
          });
        }
      }
    }
  },
};
