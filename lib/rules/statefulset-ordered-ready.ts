import { Rule } from '../engine/types';
import { ObjectGraph } from '../model/graph';
import { ContainerView, get, Workload } from '../model/workload';
import { imageName } from './headless-publish-not-ready';
import { stsStrategy } from './lb-util';
import { normalizePath, probeOf } from './probe-util';
import { ReplicaBasis, replicaBasis } from './rollout-util';

/**
 * An etcd container whose readiness probe passes only when the cluster has a leader, in words; else
 * undefined. etcd's /readyz runs a linearizable_read check ("checks if there is consensus in the
 * cluster"), and /health answers 503 without a leader; /readyz?exclude=linearizable_read and
 * /health?serializable=true are answered by a member alone (etcd server/etcdserver/api/etcdhttp/health.go
 * and its tests: "Unhealthy if no leader", "Healthy if no leader and serializable=true").
 */
export function quorumReadiness(c: ContainerView): string | undefined {
  if (imageName(c.image) !== 'etcd') return undefined;
  const path = get(probeOf(c, 'readinessProbe'), 'httpGet', 'path');
  if (typeof path !== 'string') return undefined;
  const query = path.includes('?') ? path.slice(path.indexOf('?') + 1) : '';
  const p = normalizePath(path);
  if (p === '/readyz' && !/(^|&)exclude=linearizable_read(&|$)/.test(query)) return `readinessProbe httpGet ${path}, whose linearizable_read check needs the cluster's quorum`;
  if (p === '/health' && !/(^|&)serializable=true(&|$)/.test(query)) return `readinessProbe httpGet ${path}, which answers 503 while the member has no leader`;
  return undefined;
}

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
    severities: ['info', 'error'],
    description: 'OrderedReady + RollingUpdate: a bad revision stalls and needs manual pod deletion; OrderedReady with a readiness that needs quorum never starts',
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

\`OnDelete\` makes every update manual instead; that is a choice, not a fix.

**Condition (error):** an OrderedReady StatefulSet (any update strategy) of 2 or more replicas whose etcd container
reports Ready only when the cluster has a leader: a readinessProbe on \`/readyz\` (its \`linearizable_read\` check needs
the quorum) or \`/health\` (503 without a leader), unless \`?exclude=linearizable_read\` or \`?serializable=true\` makes it
a member's own check. The controller creates pod N+1 only once pod N is Running and Ready, and pod 0 alone never has a
leader: the cluster never forms, at the first install and after every pod is gone at once (karmada's chart; review round
26). The fix is \`podManagementPolicy: Parallel\` (immutable: delete the StatefulSet with \`--cascade=orphan\` and apply it
again; the bitnami etcd chart sets it), or a readiness check the member answers alone.`,
    fixable: false,
    paramsSchema: { type: 'object', properties: { minReplicas: { type: 'integer', minimum: 0, default: 2 } }, additionalProperties: false },
    defaults: { minReplicas: 2 },
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/controllers/statefulset.md#forced-rollback',
      'kubernetes/website content/en/docs/concepts/workloads/controllers/statefulset.md#pod-management-policies',
      'https://github.com/kubernetes/kubernetes/issues/67250',
      'kubernetes/kubernetes staging/src/k8s.io/api/apps/v1/types.go',
      'etcd-io/etcd server/etcdserver/api/etcdhttp/health.go',
    ],
  },
  check(ctx) {
    const minReplicas = minReplicasParam(ctx.params);
    for (const w of ctx.graph.workloads) {
      if (w.kind === 'StatefulSet') {
        const s = stsStrategy(w);
        const n = ctx.graph.effectiveReplicas(w);
        const etcd = s.podManagementPolicy === 'OrderedReady' && n !== undefined && n >= 2 ? w.containers.map((c) => ({ c, why: quorumReadiness(c) })).find((x) => x.why) : undefined;
        if (etcd)
          ctx.report({
            object: w.obj,
            pointer: s.podManagementPolicySet ? '/spec/podManagementPolicy' : '/spec',
            severity: 'error',
            message: `podManagementPolicy OrderedReady${s.podManagementPolicySet ? '' : ' (default)'} with replicas ${n}, and container "${etcd.c.name}" reports Ready only when the etcd cluster has a leader (${etcd.why!}): the StatefulSet controller creates pod 1 only once pod 0 is Ready, and pod 0 alone never has a leader, so the cluster never forms, at the first install and after every pod is gone at once (a full restart); set podManagementPolicy: Parallel (immutable: delete the StatefulSet with --cascade=orphan and apply it again), or probe a check a member answers alone (/readyz?exclude=linearizable_read, /health?serializable=true)`,
          });
      }
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
