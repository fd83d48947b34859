import { Rule } from '../engine/types';
import { injectedAtAdmission, probeOf, servedPortsLabel, trafficContainers, trafficPorts } from './probe-util';

export const readinessProbeMissing: Rule = {
  meta: {
    id: 'readiness-probe-missing',
    spec: 'PROBE-001',
    defaultSeverity: 'warning',
    severities: ['warning'],
    description: 'served container without readinessProbe',
    doc: `A container without a readiness probe counts as ready as soon as it runs, so the Service sends it
traffic before the app can serve (connection refused, errors during every rollout and restart). Rolling
updates also measure progress by readiness, so a rollout can "succeed" with broken pods.

Readiness is **not** needed to drain on deletion: deletion already marks the endpoint \`ready=false\`.
This rule is about the start of a pod's life.

**Applies to:** served workloads (a Service selects the pod template, or \`kubegrace.dev/served: "true"\`),
not Jobs or CronJobs; every main container and native sidecar that receives a Service-targeted port
carrying user traffic. Metrics ports (by name), Services of exporters
(\`app.kubernetes.io/component: exporter\`) and kube-rbac-proxy ports that a ServiceMonitor scrapes do not
count, and neither do containers the Istio injector
writes at admission (\`image: auto\`, as in the istio/gateway chart), whose probes come from the injection
template.

**Condition:** \`readinessProbe\` is absent. **Severity:** warning.

**Fix:**

\`\`\`yaml
readinessProbe:
  httpGet: {path: /readyz, port: http}
  periodSeconds: 5
  failureThreshold: 3
\`\`\``,
    fixable: false,
    references: ['kubernetes/website content/en/docs/concepts/workloads/pods/pod-lifecycle.md#types-of-probe ("When should you use a readiness probe?")'],
  },
  check(ctx) {
    const { graph } = ctx;
    for (const w of graph.workloads) {
      if (w.isBatch || !graph.served(w)) continue;
      for (const c of trafficContainers(graph, w)) {
        if (probeOf(c, 'readinessProbe') || injectedAtAdmission(w, c)) continue;
        const serves = servedPortsLabel(graph, w, c) ?? 'Service traffic';
        const sp = trafficPorts(graph, w).find((p) => p.container === c);
        const port = sp?.containerPort?.name ?? sp?.containerPort?.containerPort ?? sp?.servicePort.targetPort ?? c.ports[0]?.name ?? c.ports[0]?.containerPort ?? 8080;
        ctx.report({
          object: w.obj,
          pointer: c.pointer,
          message: `container "${c.name}": serves ${serves} but has no readinessProbe: it counts as ready as soon as it starts, so it gets traffic before the app can serve and rollouts cannot tell a broken pod from a working one; add a readinessProbe on a cheap endpoint, e.g. readinessProbe: {httpGet: {path: /readyz, port: ${port}}, periodSeconds: 5}`,
        });
      }
    }
  },
};
