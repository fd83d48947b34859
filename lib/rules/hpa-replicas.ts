import { Fix, FixEdit, Rule } from '../engine/types';
import { assumedServedNote, likelyServed, SERVED_STATUS_DOC, servedStateOf } from '../model/traffic';
import { hpaNotServed, HpaView, scaleTargetKindIs } from '../model/graph';
import { nameOf } from './util';
import { replicaExclusiveClaims } from './surge-volume-deadlock';
import { get } from '../model/workload';

const SCALED_KINDS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'ReplicaSet']);

/**
 * minReplicas 2, and maxReplicas 2 when it is below (the API requires maxReplicas >= minReplicas).
 * A proposal: it changes capacity (section 12). The PodDisruptionBudget is pdb-missing's fix.
 */
function minReplicasFix(h: HpaView): Fix {
  const edits: FixEdit[] = [{ op: 'set', pointer: '/spec/minReplicas', value: 2 }];
  const raiseMax = h.maxReplicas !== undefined && h.maxReplicas < 2;
  if (raiseMax) edits.push({ op: 'set', pointer: '/spec/maxReplicas', value: 2 });
  return { description: raiseMax ? 'set minReplicas and maxReplicas to 2' : 'set minReplicas to 2', safety: 'proposal', edits };
}

/** The built-in kinds with a scale subresource an HPA can target. */
const SCALABLE_KINDS = ['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController'];

export const hpaReplicas: Rule = {
  meta: {
    id: 'hpa-replicas',
    spec: 'PDB-005 extras',
    defaultSeverity: 'warning',
    severities: ['error', 'warning', 'info'],
    description: 'spec.replicas set on an HPA-managed Deployment; an HPA whose target kind is miscased; HPA minReplicas < 2 on a served workload; an HPA apiVersion the target version no longer serves',
    doc: `A HorizontalPodAutoscaler owns the replica count of the workload it targets.

**Conditions:**

- **error:** the HPA is \`autoscaling/v2beta1\` on >= 1.25 or \`autoscaling/v2beta2\` on >= 1.26: the API server no longer
  serves that version (deprecated-API migration guide), so applying it fails and nothing scales the workload; it runs its
  \`spec.replicas\` (1 when unset). No rule counts such an HPA's \`minReplicas\` (\`pdb-missing\`,
  \`replicas-not-spread\`, ...). Not in a Helm render (\`helm.sh/chart\` or \`app.kubernetes.io/managed-by: Helm\`):
  charts often choose the version by \`.Capabilities.APIVersions\`, which \`helm template\` does not take from the
  cluster (it answers true for \`autoscaling/v2beta1\` and false for \`autoscaling/v2/HorizontalPodAutoscaler\`), so
  the render may hold a version the chart would not install; as a \`policy/v1beta1\` budget (\`pdb-missing\`).
- **warning:** \`spec.replicas\` is set on a Deployment, StatefulSet or ReplicaSet that an HPA in the set targets
  (\`spec.scaleTargetRef\`). Every \`kubectl apply\`, Helm upgrade or GitOps sync writes that number back, scaling the
  workload away from what the HPA chose (a scale-down in the middle of a traffic peak) until the HPA corrects it again;
  the Deployment docs say to remove \`spec.replicas\` from the manifest when an HPA manages it.
- **warning:** the HPA's \`scaleTargetRef.kind\` names a workload of that name only without regard to case
  (\`Statefulset\`): the HPA controller maps the kind through the discovery RESTMapper, which knows each kind as
  written and all in lower case (client-go \`restmapper/discovery.go\`), so it reports \`FailedGetScale\` and never
  scales it. The all-lower-case form (\`statefulset\`, \`deployment\`) resolves and is not reported; the HPA then
  counts for the workload like one with the kind as written.
  Also when no workload of the set has that name: a miscased built-in scalable kind (Deployment, StatefulSet,
  ReplicaSet, ReplicationController) names nothing in any cluster; the message then also doubts the name when the set
  holds workloads of the namespace, naming the one of that kind whose name starts with it.
- **warning:** the kind is a built-in scalable kind (as written or all in lower case) but no workload of the set has
  the HPA's \`scaleTargetRef.name\`, and exactly one workload of that kind in the namespace has a name that starts with
  it (bitnami/concourse's worker HPA names the chart's full name without \`-worker\`): unless that workload is
  created elsewhere, the HPA controller reports \`FailedGetScale\` and never scales.
- **info:** the HPA's \`minReplicas\` (default 1) is below 2 and the workload is served (a Service selects it, or
  \`kubegrace.dev/served: "true"\`): whenever the HPA scales down to one pod there is no redundancy during rollouts,
  node drains and evictions, and a PDB then either blocks drains or protects nothing (PDB-005). Not reported for a
  Deployment or ReplicaSet that mounts a \`ReadWriteOnce\` (not pinned to a node) or \`ReadWriteOncePod\`
  PersistentVolumeClaim: a second replica would share the claim and could not attach it on another node (RWOP: at
  all); see \`surge-volume-deadlock\`.

${SERVED_STATUS_DOC}

**Fix:**

\`\`\`yaml
apiVersion: apps/v1
kind: Deployment
spec:
  # replicas: removed, the HPA owns it
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
spec:
  minReplicas: 2
---
apiVersion: policy/v1
kind: PodDisruptionBudget
spec:
  maxUnavailable: 1
\`\`\`

**\`--fix\`** (proposal): removes \`spec.replicas\` from the HPA-managed workload (note: with client-side \`kubectl apply\` the next apply after the removal resets it to 1 replica once; server-side apply does not), or raises \`minReplicas\` to 2 (and \`maxReplicas\` with it if lower).`,
    fixable: true,
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/controllers/deployment.md#replicas',
      'kubernetes/website content/en/docs/tasks/run-application/horizontal-pod-autoscale.md#migrating-deployments-and-statefulsets-to-horizontal-autoscaling',
      'kubernetes/kubernetes staging/src/k8s.io/api/autoscaling/v2/types.go (minReplicas defaults to 1)',
      'kubernetes/website content/en/docs/reference/using-api/deprecation-guide.md#horizontalpodautoscaler-v125 (autoscaling/v2beta1 not served from 1.25, autoscaling/v2beta2 from 1.26)',
    ],
  },
  check(ctx) {
    const g = ctx.graph;
    // An HPA of a version the API server no longer serves never exists (the graph leaves it out:
    // hpaNotServed); the Pomerium chart's proxy HPA is autoscaling/v2beta1 (review report p28 item 4).
    for (const o of g.ofKind('HorizontalPodAutoscaler')) {
      const from = hpaNotServed(o, ctx.version);
      if (!from) continue;
      const kind = get(o.raw, 'spec', 'scaleTargetRef', 'kind');
      const name = get(o.raw, 'spec', 'scaleTargetRef', 'name');
      const w = g.workloadsIn(o.namespace).find((x) => typeof kind === 'string' && scaleTargetKindIs(kind, x.kind) && x.obj.name === name && (x.obj.namespace ?? '') === (o.namespace ?? ''));
      const runs = w ? `${nameOf(w)} is not autoscaled and runs ${w.replicasSet ? `its spec.replicas ${w.replicas}` : '1 replica (no spec.replicas)'}` : 'its target is not autoscaled';
      const metrics = get(o.raw, 'spec', 'metrics');
      const beta1Targets = o.apiVersion === 'autoscaling/v2beta1' && JSON.stringify(metrics ?? null).includes('"targetAverage');
      ctx.report({
        object: o,
        pointer: '/apiVersion',
        severity: 'error',
        message: `HorizontalPodAutoscaler/${o.name} is ${o.apiVersion}, which the API server no longer serves from ${from} (on ${ctx.version.toString()} applying it fails): ${runs}; use apiVersion: autoscaling/v2${beta1Targets ? ' (its metrics write targetAverageUtilization: N as target: {type: Utilization, averageUtilization: N}, targetAverageValue as target: {type: AverageValue, averageValue: ...})' : ''}`,
      });
    }
    for (const w of g.workloads) {
      const h = g.hpaFor(w);
      if (!h) continue;
      const hpaName = `HorizontalPodAutoscaler/${h.obj.name}`;
      if (SCALED_KINDS.has(w.kind) && w.replicasSet) {
        ctx.report({
          object: w.obj,
          pointer: '/spec/replicas',
          severity: 'warning',
          // (Below the HPA's minReplicas the reset is certain to remove pods, not a maybe: kestra's worker groups; review round 23.)
          message: `spec.replicas ${w.replicas} is set although ${hpaName} manages its replica count: every apply or sync resets the workload to ${w.replicas} pod${w.replicas === 1 ? '' : 's'}${h.minReplicas > (w.replicas ?? 0) ? `, below the HPA's minReplicas ${h.minReplicas}, so every apply terminates pods the HPA then has to start again` : ' until the HPA scales it again'}; remove spec.replicas from the manifest`,
          // A proposal: with client-side `kubectl apply`, the first apply after the removal resets the
          // workload to 1 replica once (the field disappears from last-applied-configuration); the
          // HPA migration guide has the one-off step that avoids it.
          fix: { description: `remove spec.replicas (${hpaName} owns the replica count)`, safety: 'proposal', edits: [{ op: 'remove', pointer: '/spec/replicas' }] },
        });
      }
      // Pods that mount a claim they cannot share across nodes (ReadWriteOnce not pinned to a node,
      // ReadWriteOncePod) cannot all run as more replicas: surge-volume-deadlock, not a second replica.
      if (h.minReplicas < 2 && likelyServed(g, w) && replicaExclusiveClaims(g, w).length === 0) {
        const min = h.minReplicasSet ? `minReplicas ${h.minReplicas}` : `minReplicas ${h.minReplicas} (default)`;
        ctx.report({
          object: h.obj,
          pointer: h.minReplicasSet ? '/spec/minReplicas' : '/spec',
          severity: 'info',
          message: `${min} for the ${servedStateOf(g, w) === 'served' ? 'served ' : ''}${nameOf(w)}: when it scales down to ${h.minReplicas === 1 ? 'one pod' : `${h.minReplicas} pods`} there is no redundancy during rollouts, node drains and evictions; set minReplicas: 2 (with a PodDisruptionBudget maxUnavailable: 1)${assumedServedNote(g, w)}`,
          fix: minReplicasFix(h),
        });
      }
    }
    // An HPA whose scaleTargetRef.kind matches a workload of that name only without regard to case, and
    // is not the kind's all-lower-case form either: the HPA controller resolves a kind only as written
    // or in lower case (scaleTargetKindIs), reports FailedGetScale and never scales (bitnami/charts#30834:
    // `no matches for kind "Statefulset"`; open-telemetry-helm-charts#1024). `statefulset` and
    // `deployment` resolve (Grafana Alloy's chart writes them; review report p34 item B).
    for (const o of g.ofKind('HorizontalPodAutoscaler')) {
      if (hpaNotServed(o, ctx.version)) continue;
      const kind = get(o.raw, 'spec', 'scaleTargetRef', 'kind');
      const name = get(o.raw, 'spec', 'scaleTargetRef', 'name');
      if (typeof kind !== 'string' || typeof name !== 'string') continue;
      const ws = g.workloadsIn(o.namespace).filter((w) => w.obj.name === name);
      if (ws.some((w) => scaleTargetKindIs(kind, w.kind))) continue;
      const near = ws.find((w) => w.kind.toLowerCase() === kind.toLowerCase());
      if (near) {
        ctx.report({
          object: o,
          pointer: '/spec/scaleTargetRef/kind',
          severity: 'warning',
          message: `scaleTargetRef.kind "${kind}" names no workload: the HPA controller resolves a kind only as written or all in lower case, so it cannot find ${near.kind}/${name} (FailedGetScale) and never scales it; write kind: ${near.kind}`,
        });
        continue;
      }
      // A built-in scalable kind, miscased, with no workload of that name in the set either; or the kind
      // right (as written or all in lower case) and no workload of that name, while the namespace holds
      // exactly one of that kind whose name starts with it (bitnami/concourse's worker HPA: kind:
      // statefulset, name: the chart's full name without -worker).
      const builtin = SCALABLE_KINDS.find((k) => k.toLowerCase() === kind.toLowerCase());
      if (!builtin) continue;
      const sameNs = g.workloadsIn(o.namespace).filter((w) => (w.obj.namespace ?? '') === (o.namespace ?? ''));
      const like = sameNs.filter((w) => w.kind === builtin && w.obj.name.startsWith(name));
      if (scaleTargetKindIs(kind, builtin)) {
        if (ws.length || like.length !== 1) continue;
        ctx.report({
          object: o,
          pointer: '/spec/scaleTargetRef/name',
          severity: 'warning',
          message: `scaleTargetRef.name "${name}" names no workload in the set, which holds ${nameOf(like[0])}: unless ${builtin}/${name} is created elsewhere, the HPA controller cannot find its target (FailedGetScale) and never scales it; did you mean name: ${like[0].obj.name}?`,
        });
        continue;
      }
      const nameNote = sameNs.length && !ws.length
        ? `; no workload in the set is named ${name} either${like.length === 1 ? ` (did you mean ${nameOf(like[0])}?)` : ''}, so check scaleTargetRef.name too`
        : '';
      ctx.report({
        object: o,
        pointer: '/spec/scaleTargetRef/kind',
        severity: 'warning',
        message: `scaleTargetRef.kind "${kind}" is no kind: the HPA controller resolves a kind only as written or all in lower case, so it cannot resolve its target (FailedGetScale) and never scales it; write kind: ${builtin}${nameNote}`,
      });
    }
  },
};
