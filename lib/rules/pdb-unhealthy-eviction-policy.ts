import { Rule } from '../engine/types';
import { existingPointer } from './rollout-util';
import { nameOf } from './util';

export const pdbUnhealthyEvictionPolicy: Rule = {
  meta: {
    id: 'pdb-unhealthy-eviction-policy',
    spec: 'PDB-004',
    defaultSeverity: 'info',
    severities: ['info'],
    description: 'no `unhealthyPodEvictionPolicy: AlwaysAllow` on Kubernetes >= 1.27',
    doc: `Under the default policy (\`IfHealthyBudget\`), Running-but-not-Ready pods can be evicted only while the budget is
already satisfied. A fully crash-looping workload therefore blocks every node drain. \`AlwaysAllow\` lets unhealthy
pods go while healthy pods stay protected; the feature's announcement calls it usually the better choice.

Conditions (**info**, only when the target Kubernetes version is >= 1.27):
- \`unhealthyPodEvictionPolicy\` is absent (it behaves as \`IfHealthyBudget\`);
- it is explicitly \`IfHealthyBudget\`, unless the PDB matches a StatefulSet: data stores keep \`IfHealthyBudget\` on
  purpose, because evicting a recovering member is risky. Setting it explicitly is how to say so.

Fix (automatic):
\`\`\`yaml
spec:
  unhealthyPodEvictionPolicy: AlwaysAllow   # >= 1.27 (beta, on); GA 1.31
\`\`\`

**\`--fix\`:** adds \`unhealthyPodEvictionPolicy: AlwaysAllow\` on >= 1.27 (safe), never for PDBs over StatefulSets (data stores); changing an explicit \`IfHealthyBudget\` is a proposal (\`--fix-proposals\`).`,
    fixable: true,
    versionGate: 'PDBUnhealthyPodEvictionPolicy: alpha 1.26, beta (on) 1.27, GA 1.31; reported only for targets >= 1.27',
    references: [
      'kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/PDBUnhealthyPodEvictionPolicy.md',
      'kubernetes/kubernetes staging/src/k8s.io/api/policy/v1/types.go (UnhealthyPodEvictionPolicy)',
      'https://kubernetes.io/blog/2023/01/06/unhealthy-pod-eviction-policy-for-pdbs/',
      'kubernetes/enhancements keps/sig-apps/3017-pod-healthy-policy-for-pdb',
    ],
  },
  check(ctx) {
    if (!ctx.version.atLeast(1, 27)) return;
    for (const p of ctx.graph.pdbs) {
      const policy = p.unhealthyPodEvictionPolicy;
      const sts = ctx.graph.workloadsForPdb(p).filter((w) => w.kind === 'StatefulSet');
      if (policy === undefined) {
        const dataNote = sts.length
          ? ` If ${sts.map(nameOf).join(', ')} is a data store where evicting a recovering member is risky, set unhealthyPodEvictionPolicy: IfHealthyBudget explicitly instead.`
          : '';
        ctx.report({
          object: p.obj,
          pointer: existingPointer(p.obj.raw, 'spec'),
          severity: 'info',
          message: `unhealthyPodEvictionPolicy is not set (behaves as IfHealthyBudget): Running-but-not-Ready pods can be evicted only while the budget is met, so a crash-looping workload blocks node drains; set unhealthyPodEvictionPolicy: AlwaysAllow (available since 1.27).${dataNote}`,
          // Data stores keep IfHealthyBudget (section 12), so no repair is offered for them.
          fix: sts.length ? undefined : { description: 'set unhealthyPodEvictionPolicy: AlwaysAllow', safety: 'safe', edits: [{ op: 'set', pointer: '/spec/unhealthyPodEvictionPolicy', value: 'AlwaysAllow' }] },
        });
      } else if (policy === 'IfHealthyBudget' && sts.length === 0) {
        ctx.report({
          object: p.obj,
          pointer: '/spec/unhealthyPodEvictionPolicy',
          severity: 'info',
          message: `unhealthyPodEvictionPolicy IfHealthyBudget on pods that are not a StatefulSet's: a crash-looping workload blocks node drains; prefer AlwaysAllow unless evicting an unready pod is really unsafe`,
          // Written on purpose by someone: changing it is for a person to approve.
          fix: { description: 'change unhealthyPodEvictionPolicy from IfHealthyBudget to AlwaysAllow', safety: 'proposal', edits: [{ op: 'set', pointer: '/spec/unhealthyPodEvictionPolicy', value: 'AlwaysAllow' }] },
        });
      }
    }
  },
};
