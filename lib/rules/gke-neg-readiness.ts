import { Rule } from '../engine/types';
import { ServiceView } from '../model/graph';
import { get, Workload } from '../model/workload';
import { annotationsOf, GKE, ingressBackendServices, isNegService, readinessGates } from './lb-util';

/** GKE Ingress classes: their backends use NEGs automatically on VPC-native clusters. */
const GCE_INGRESS_CLASSES = new Set(['gce', 'gce-internal']);

export const gkeNegReadiness: Rule = {
  meta: {
    id: 'gke-neg-readiness',
    spec: 'LB-003',
    defaultSeverity: 'info',
    severities: ['info'],
    description: 'NEG readiness gate hard-coded with no NEG Service',
    doc: `With GKE container-native load balancing, Google's load balancer targets pod IPs through network endpoint
groups (NEGs), and GKE **injects** the readiness gate \`cloud.google.com/load-balancer-neg-ready\` into pods that
belong to a NEG. The NEG controller sets it True when the endpoint is healthy in the backend service, when no
health check is attached, or after a fail-safe timeout (\`LoadBalancerNegReady\`, \`…WithoutHealthCheck\`,
\`…Timeout\`).

**Condition (info):** the pod template hard-codes \`readinessGates[].conditionType:
cloud.google.com/load-balancer-neg-ready\`, but no Service selecting the pods uses NEGs. A Service counts as a NEG
Service when it has \`cloud.google.com/neg\` (\`{"ingress": true}\` or \`{"exposed_ports": ...}\`) or the controller's
\`cloud.google.com/neg-status\`, or when an Ingress of class \`gce\`/\`gce-internal\` or a Gateway API route in the set
routes to it (GKE then creates NEGs automatically on VPC-native clusters). The gate is copied from a running pod
or from another cluster. On GKE the NEG controller marks a pod that belongs to no NEG ready at once ("Pod does
not belong to any NEG", kubernetes/ingress-gce's readiness reflector), so the gate does nothing there; on a
cluster without that controller nothing ever sets the condition, and the pods never become Ready. Either way the
gate in the template hides the real setup.

Not reported when the workload is marked \`kubegrace.dev/served: "true"\` and no Service in the set selects it (the
Service lives elsewhere and may well be a NEG Service).

**Fix:** remove the hard-coded gate and let GKE inject it, or annotate the Service that should use NEGs:

\`\`\`yaml
apiVersion: v1
kind: Service
metadata:
  annotations:
    cloud.google.com/neg: '{"ingress": true}'
\`\`\`

Timing behind NEGs is judged by \`lb-deregistration-delay\`.`,
    fixable: false,
    references: [
      'kubernetes/ingress-gce pkg/neg/types/shared (NegReadinessGate)',
      'kubernetes/ingress-gce pkg/neg/readiness/reflector.go ("mark pod as ready if it belongs to no NEGs")',
      'https://cloud.google.com/kubernetes-engine/docs/how-to/container-native-load-balancing',
    ],
  },
  check(ctx) {
    const g = ctx.graph;
    // Services that an Ingress of a GKE class or a Gateway API route sends traffic to.
    const routed = new Set<string>();
    for (const o of g.objects) {
      const ns = o.namespace ?? '';
      if (o.kind === 'Ingress') {
        const cls = annotationsOf(o)['kubernetes.io/ingress.class'] ?? get(o.raw, 'spec', 'ingressClassName');
        if (typeof cls === 'string' && GCE_INGRESS_CLASSES.has(cls)) for (const n of ingressBackendServices(o)) routed.add(`${ns}/${n}`);
      }
      if (o.apiVersion.startsWith('gateway.networking.k8s.io/') && o.kind.endsWith('Route')) {
        const rules = get(o.raw, 'spec', 'rules');
        if (!Array.isArray(rules)) continue;
        for (const r of rules) {
          const refs = get(r, 'backendRefs');
          if (!Array.isArray(refs)) continue;
          for (const b of refs) {
            const name = get(b, 'name');
            const kind = get(b, 'kind');
            const refNs = get(b, 'namespace');
            if (typeof name !== 'string' || (kind !== undefined && kind !== 'Service')) continue;
            routed.add(`${typeof refNs === 'string' ? refNs : ns}/${name}`);
          }
        }
      }
    }
    const usesNeg = (s: ServiceView) => isNegService(s) || routed.has(`${s.obj.namespace ?? ''}/${s.obj.name}`);
    for (const w of g.workloads) {
      if (!readinessGates(w).includes(GKE.negReadinessGate)) continue;
      const services = g.servicesFor(w);
      if (services.some(usesNeg)) continue;
      if (!services.length && g.servedHint(w) === true) continue;
      const which = services.length
        ? `no Service selecting it uses NEGs (${services.map((s) => `Service/${s.obj.name}`).join(', ')} ${services.length === 1 ? 'has' : 'have'} no ${GKE.neg} annotation and no GKE Ingress or Gateway route)`
        : 'no Service in the linted set selects its pods';
      ctx.report({
        object: w.obj,
        pointer: `${w.podSpecPointer}/readinessGates/${readinessGateIndex(w, GKE.negReadinessGate)}`,
        message: `the pod template hard-codes the readiness gate ${GKE.negReadinessGate}, but ${which}: GKE injects this gate itself for pods in a network endpoint group; without one, GKE's NEG controller marks the condition true at once (the gate does nothing), and a cluster without that controller never sets it, so its pods never become Ready; remove the gate from the template, or annotate the Service with ${GKE.neg}: '{"ingress": true}'`,
      });
    }
  },
};

/** Index of the gate in the raw readinessGates list. */
function readinessGateIndex(w: Workload, type: string): number {
  const list = w.podSpec.readinessGates;
  if (!Array.isArray(list)) return 0;
  return Math.max(0, list.findIndex((x) => get(x, 'conditionType') === type));
}
