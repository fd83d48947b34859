import { Rule } from '../engine/types';
import { budgetProblem, existingPointer, isDataStore, operatorStatefulSetsFor, pdbAllowance } from './rollout-util';
import { nameOf } from './util';
import { idleWorkload } from './pdb-missing';
import { matchesNoWorkload } from './pdb-selector';
import { inputMayLackBeside } from '../engine/run';

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

A budget that requires no healthy pod (\`maxUnavailable\` covering every replica, e.g. \`maxUnavailable: 1\` over one
replica as many charts ship, or \`minAvailable: 0\`) blocks a crash-looping pod too: the eviction API evicts a
not-Ready pod under \`IfHealthyBudget\` without spending the budget only when \`desiredHealthy > 0\`
(kubernetes/kubernetes \`pkg/registry/core/pod/storage/eviction.go\`); otherwise it needs \`disruptionsAllowed > 0\`, which
is \`currentHealthy - desiredHealthy\` = 0 while no pod is healthy. The message says so for such budgets (the
policy/v1 API comment on \`IfHealthyBudget\` leaves that condition out).

Conditions (**info**, only when the target Kubernetes version is >= 1.27):
- \`unhealthyPodEvictionPolicy\` is absent (it behaves as \`IfHealthyBudget\`);
- it is explicitly \`IfHealthyBudget\`, unless the PDB matches a StatefulSet: data stores keep \`IfHealthyBudget\` on
  purpose, because evicting a recovering member is risky. Setting it explicitly is how to say so. (When it is absent,
  the message suggests that opt-out, and the repair is withheld, only for StatefulSets that keep data:
  volumeClaimTemplates, a PersistentVolumeClaim or a hostPath volume; one with emptyDir caches only is stateless.) The StatefulSets
  prometheus-operator makes from a \`Prometheus\`, \`PrometheusAgent\`, \`Alertmanager\` or \`ThanosRuler\` in the input
  count as StatefulSets here.

Not reported for a budget whose every selected workload only holds capacity: each container idle (the pause image with
its own entrypoint, or a command that only sleeps forever; not in a pod template that asks for an injected proxy) with no
readiness probe, so its pods are never
Running-but-not-Ready (JupyterHub's user placeholders, whose budget is \`minAvailable: 0\` on purpose). Nor for a
budget that pdb-selector warns protects nothing: its selector matches no workload of the linted set, no pod in it and no
custom resource an operator makes pods from, while the set holds workloads to judge it against (bitnami postgresql-ha
renders its witness budget without the witness). A budget linted alone, with no workload in the set, is still reported.

Fix (automatic):
\`\`\`yaml
spec:
  unhealthyPodEvictionPolicy: AlwaysAllow   # >= 1.27 (beta, on); GA 1.31
\`\`\`

**\`--fix\`:** adds \`unhealthyPodEvictionPolicy: AlwaysAllow\` on >= 1.27 (safe), never for PDBs over StatefulSets that keep data (data stores); changing an explicit \`IfHealthyBudget\` is a proposal (\`--fix-proposals\`).`,
    fixable: true,
    versionGate: 'PDBUnhealthyPodEvictionPolicy: alpha 1.26, beta (on) 1.27, GA 1.31; reported only for targets >= 1.27',
    references: [
      'kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/PDBUnhealthyPodEvictionPolicy.md',
      'kubernetes/kubernetes staging/src/k8s.io/api/policy/v1/types.go (UnhealthyPodEvictionPolicy)',
      'kubernetes/kubernetes pkg/registry/core/pod/storage/eviction.go (not-Ready pods: AlwaysAllow, or CurrentHealthy >= DesiredHealthy && DesiredHealthy > 0)',
      'https://kubernetes.io/blog/2023/01/06/unhealthy-pod-eviction-policy-for-pdbs/',
      'kubernetes/enhancements keps/sig-apps/3017-pod-healthy-policy-for-pdb',
    ],
  },
  check(ctx) {
    if (!ctx.version.atLeast(1, 27)) return;
    for (const p of ctx.graph.pdbs) {
      // (A budget in an API version no longer served, or with both minAvailable and maxUnavailable, never exists: pdb-missing reports it.)
      if (['removed', 'both'].includes(budgetProblem(p, ctx.version) ?? '')) continue;
      // (Pods that only hold capacity, every container idle: the pause image, a sleep forever, have no
      // probe and no work to crash in, so they never sit Running-but-not-Ready; JupyterHub's user
      // placeholders. Review round 34, report p51 item 1.)
      // (A budget that selects no workload of the input, no pod and no operator's resource protects
      // nothing, as pdb-selector warns: no pod to evict, so no policy to set. Reported still when
      // the budget is linted alone, with nothing to judge it against. Review round 35, report p53
      // item 3: bitnami postgresql-ha renders the witness budget without the witness. Not when the
      // workload may be in what the input lacks: a chart's template that failed to render, a document
      // that could not be read; pdb-selector's warning is withheld there too.)
      if (matchesNoWorkload(ctx.graph, p) && !inputMayLackBeside(p.obj)) continue;
      const selected = ctx.graph.workloadsForPdb(p);
      if (selected.length && selected.every((w) => idleWorkload(w) && [...w.containers, ...w.sidecars].every((c) => c.raw.readinessProbe === undefined)) && !operatorStatefulSetsFor(ctx.graph, p).length) continue;
      const policy = p.unhealthyPodEvictionPolicy;
      // A budget that requires no healthy pod (maxUnavailable covering every replica, minAvailable 0)
      // reads as harmless, but the eviction API takes IfHealthyBudget's not-Ready path only when the
      // budget requires at least one (DesiredHealthy > 0), so a not-Ready pod needs an allowed
      // disruption, and with none healthy none is allowed.
      const a = pdbAllowance(ctx.graph, p);
      const none =
        a && a.allowed >= a.of
          ? ` (This budget requires no healthy pod of ${a.of}, yet it still blocks the eviction of a not-Ready one: the eviction API evicts a not-Ready pod under IfHealthyBudget without spending the budget only when the budget requires at least one healthy pod, and otherwise needs an allowed disruption, which is 0 while no pod is healthy; so it lets a drain evict the healthy pod${a.of > 1 ? 's' : ''} but not a crash-looping one.)`
          : '';
      // (With the StatefulSets prometheus-operator makes from a Prometheus, Alertmanager... in the input.)
      // (StatefulSets that keep no data, emptyDir caches only, are not data stores: isDataStore.)
      const operatorSts = operatorStatefulSetsFor(ctx.graph, p);
      const sts = [...ctx.graph.workloadsForPdb(p).filter(isDataStore).map(nameOf), ...operatorSts];
      // An explicit IfHealthyBudget over any StatefulSet is the choice made (the constructs write it).
      const anySts = operatorSts.length > 0 || ctx.graph.workloadsForPdb(p).some((w) => w.kind === 'StatefulSet');
      if (policy === undefined) {
        const dataNote = sts.length
          ? ` If ${sts.join(', ')} is a data store where evicting a recovering member is risky, set unhealthyPodEvictionPolicy: IfHealthyBudget explicitly instead.`
          : '';
        ctx.report({
          object: p.obj,
          pointer: existingPointer(p.obj.raw, 'spec'),
          severity: 'info',
          message: `unhealthyPodEvictionPolicy is not set (behaves as IfHealthyBudget): Running-but-not-Ready pods can be evicted only while the budget is met, so a crash-looping workload blocks node drains; set unhealthyPodEvictionPolicy: AlwaysAllow (available since 1.27).${none}${dataNote}`,
          // Data stores keep IfHealthyBudget (section 12), so no repair is offered for them.
          fix: sts.length ? undefined : { description: 'set unhealthyPodEvictionPolicy: AlwaysAllow', safety: 'safe', edits: [{ op: 'set', pointer: '/spec/unhealthyPodEvictionPolicy', value: 'AlwaysAllow' }] },
        });
      } else if (policy === 'IfHealthyBudget' && !anySts) {
        ctx.report({
          object: p.obj,
          pointer: '/spec/unhealthyPodEvictionPolicy',
          severity: 'info',
          message: `unhealthyPodEvictionPolicy IfHealthyBudget on pods that are not a StatefulSet's: a crash-looping workload blocks node drains; prefer AlwaysAllow unless evicting an unready pod is really unsafe${none}`,
          // Written on purpose by someone: changing it is for a person to approve.
          fix: { description: 'change unhealthyPodEvictionPolicy from IfHealthyBudget to AlwaysAllow', safety: 'proposal', edits: [{ op: 'set', pointer: '/spec/unhealthyPodEvictionPolicy', value: 'AlwaysAllow' }] },
        });
      }
    }
  },
};
