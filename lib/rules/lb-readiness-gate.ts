import { Rule } from '../engine/types';
import { servedStateOf } from '../model/traffic';
import { AWS, AWS_IP_KINDS, awsReadinessGate, labelsOf, lbFronts } from './lb-util';
import { existingPointer, replicaBasis } from './rollout-util';

const KINDS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Pod']);

export const lbReadinessGate: Rule = {
  meta: {
    id: 'lb-readiness-gate',
    spec: 'LB-001',
    defaultSeverity: 'warning',
    severities: ['error', 'warning'],
    description: 'AWS LB controller IP targets without the pod readiness gate',
    doc: `With **IP targets**, the AWS Load Balancer Controller registers pod IPs directly in the ALB/NLB target group.
Without its pod readiness gate, a new pod counts as Ready (and the rollout moves on, deleting an old pod) before
its target is healthy in the load balancer. With few replicas the target group can hold only \`initial\` and
\`draining\` targets: an outage on every rollout. The controller injects the gate
(\`readinessGates[].conditionType: target-health.elbv2.k8s.aws/<target group binding>\`) into pods created in a
namespace labelled \`elbv2.k8s.aws/pod-readiness-gate-inject: enabled\`.

**Applies to** served workloads whose pods are IP targets of the AWS Load Balancer Controller:

- a LoadBalancer Service selecting the pods with \`service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip\`
  (or the older \`service.beta.kubernetes.io/aws-load-balancer-type: nlb-ip\`);
- an Ingress with \`alb.ingress.kubernetes.io/target-type: ip\` (on the Ingress, or on the backend Service, which
  overrides it) whose backends (\`spec.rules[].http.paths[].backend.service.name\`, \`spec.defaultBackend\`) name a
  Service selecting the pods;
- a \`TargetGroupBinding\` (elbv2.k8s.aws) with \`spec.targetType: ip\` whose \`spec.serviceRef.name\` names a Service
  selecting the pods.

No gate exists for \`instance\` targets (the default for ALB Ingresses), which are not reported.

**Condition:** the Namespace lacks the label **and** the pod template has no \`readinessGates[].conditionType\`
starting \`target-health.elbv2.k8s.aws/\`:

- **error** when the replicas (HPA \`minReplicas\` when an HPA targets the workload) are <= 2 (a bare Pod counts 1);
- **warning** otherwise (and for DaemonSets, whose pod count the manifests do not give).

When the Namespace object is **not in the linted set** (the usual case for a chart installed into an existing
namespace), its labels cannot be checked. The rule still reports, at **warning** whatever the replicas, and says so:
the label is the only supported way to get the gate (the gate's name is generated per target group binding, so it
cannot reasonably be hard-coded), a missing label fails silently, and the finding is one \`kubegrace.dev/ignore\` away
when the platform labels namespaces. It is not an error because the loss is not certain.

**Fix:** label the namespace, and create the Service/Ingress before the pods (the gate is injected only at pod
creation, and only once the target group binding exists). The webhook's \`failurePolicy\` is \`Ignore\` since
v2.11.0, so pods created while the controller is down silently lack the gate.

\`\`\`yaml
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels: {elbv2.k8s.aws/pod-readiness-gate-inject: enabled}
\`\`\``,
    fixable: false,
    references: [
      'kubernetes-sigs/aws-load-balancer-controller docs/deploy/pod_readiness_gate.md',
      'kubernetes-sigs/aws-load-balancer-controller docs/guide/ingress/annotations.md (target-type)',
      'kubernetes-sigs/aws-load-balancer-controller docs/guide/service/annotations.md (nlb-target-type)',
    ],
  },
  check(ctx) {
    const g = ctx.graph;
    for (const w of g.workloads) {
      if (!KINDS.has(w.kind) || servedStateOf(g, w) === 'unserved') continue;
      const fronts = lbFronts(g, w).filter((f) => AWS_IP_KINDS.has(f.kind));
      if (!fronts.length || awsReadinessGate(w)) continue;
      const nsName = w.obj.namespace;
      const ns = g.namespace(nsName);
      if (ns && labelsOf(ns)[AWS.readinessGateInjectLabel] === 'enabled') continue;
      const basis = w.kind === 'Pod' ? { replicas: 1, phrase: 'a single bare Pod' } : replicaBasis(g, w);
      const few = basis !== undefined && basis.replicas <= 2;
      const via = fronts.map((f) => f.label).join(', ');
      const nsRef = nsName ? `Namespace ${nsName}` : 'its Namespace';
      const pointer = existingPointer(w.obj.raw, ...w.podSpecPointer.slice(1).split('/'), 'readinessGates');
      const label = `${AWS.readinessGateInjectLabel}: enabled`;
      if (!ns) {
        ctx.report({
          object: w.obj,
          pointer,
          severity: 'warning',
          message: `its pods are AWS load balancer IP targets (${via}) and the template has no ${AWS.readinessGatePrefix}* readiness gate; ${nsRef} is not in the linted set, so whether it carries the label ${label} cannot be checked. Without the label the controller does not inject the gate, and a new pod counts as Ready before its target is healthy, so rollouts can leave ${few ? `its ${basis!.replicas === 1 ? 'only target' : 'few targets'}` : 'the target group'} unhealthy or draining; make sure the namespace is labelled ${label} (or add the Namespace manifest)`,
        });
        continue;
      }
      ctx.report({
        object: w.obj,
        pointer,
        severity: few ? 'error' : 'warning',
        message: `its pods are AWS load balancer IP targets (${via}), but Namespace ${ns.name} lacks the label ${label} and the template has no ${AWS.readinessGatePrefix}* readiness gate: a new pod counts as Ready before its target is healthy, so a rollout ${few ? `with ${basis!.phrase} can leave the target group with only initial or draining targets (an outage)` : 'can remove healthy targets faster than new ones pass the health check'}; label Namespace ${ns.name} with ${label} and recreate the pods`,
      });
    }
  },
};
