import { Rule } from '../engine/types';
import { get } from '../model/workload';
import { canonicalHandler, describeHandler, handlerType, normalizePath, probeOf, probeWindow } from './probe-util';

/**
 * Liveness paths that suggest readiness or dependency checks (exact match on the path, query and a
 * trailing slash ignored). Kept to names whose meaning is unambiguous: readiness endpoints of common
 * conventions (Kubernetes components' /readyz, Spring Boot's readiness group, MicroProfile /health/ready)
 * and explicit "deep" health checks. Generic names such as /health or /healthz are not listed.
 */
export const DEFAULT_DEPENDENCY_CHECK_PATHS = [
  '/ready',
  '/readyz',
  '/readiness',
  '/health/ready',
  '/health/readiness',
  '/healthz/ready',
  '/actuator/health/readiness',
  '/health/deep',
  '/healthz/deep',
  '/deep',
];

export const livenessEqualsReadiness: Rule = {
  meta: {
    id: 'liveness-equals-readiness',
    spec: 'PROBE-002',
    defaultSeverity: 'warning',
    severities: ['warning'],
    description: 'identical liveness and readiness handler and window',
    doc: `When a container's liveness and readiness probes run the same check with the same failure window,
the container is restarted at the very moment it turns unready: it never spends time unready-but-alive.
Under load or during a downstream outage this restarts every replica together, the cascading failure the
probe documentation warns about. The recommended pattern is the same cheap endpoint with a **higher**
\`failureThreshold\` for liveness, so the pod sits unready for a while before it is killed.

**Applies to:** main containers and native sidecars.

**Conditions** (warning; one finding per container, the first that matches):

1. \`livenessProbe\` and \`readinessProbe\` are deep-equal on the handler (\`httpGet\` path, port, host, scheme
   and headers; \`exec.command\`; \`tcpSocket.port\`; \`grpc\` port and service) **and** on
   \`failureThreshold × periodSeconds\` (defaults 3 × 10 s). Named ports are resolved through the
   container's ports, so \`port: http\` and \`port: 8080\` compare equal; the query string is ignored.
2. The liveness \`httpGet\` path is in the param \`dependencyCheckPaths\` (exact match, query and trailing
   slash ignored): it suggests the check includes readiness or dependencies, so a dependency outage
   restarts healthy processes. Default: ${DEFAULT_DEPENDENCY_CHECK_PATHS.map((p) => `\`${p}\``).join(', ')}.
   Generic names such as \`/health\` or \`/healthz\` are not listed.

**Fix:** \`livenessProbe.failureThreshold\` >= 2 × the readiness \`failureThreshold\`, or separate endpoints:

\`\`\`yaml
livenessProbe:
  httpGet: {path: /livez, port: http}
  periodSeconds: 10
  failureThreshold: 6
readinessProbe:
  httpGet: {path: /readyz, port: http}
  periodSeconds: 10
  failureThreshold: 3
\`\`\``,
    fixable: false,
    paramsSchema: {
      type: 'object',
      properties: { dependencyCheckPaths: { type: 'array', items: { type: 'string' } } },
      additionalProperties: false,
    },
    defaults: { dependencyCheckPaths: DEFAULT_DEPENDENCY_CHECK_PATHS },
    references: ['kubernetes/website content/en/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes.md (introduction and caution notes)'],
  },
  check(ctx) {
    const depPaths = new Set((ctx.params.dependencyCheckPaths as string[]).map((p) => normalizePath(p)));
    for (const w of ctx.graph.workloads) {
      for (const c of [...w.containers, ...w.sidecars]) {
        const live = probeOf(c, 'livenessProbe');
        if (!live) continue;
        const ready = probeOf(c, 'readinessProbe');
        const lh = canonicalHandler(c, live);
        if (ready && lh !== undefined && lh === canonicalHandler(c, ready)) {
          const lw = probeWindow(live);
          const rw = probeWindow(ready);
          if (lw.seconds === rw.seconds) {
            ctx.report({
              object: w.obj,
              pointer: `${c.pointer}/livenessProbe`,
              message: `container "${c.name}": livenessProbe and readinessProbe run the same check (${describeHandler(c, live)}) with the same failure window (liveness ${lw.failureThreshold} x ${lw.periodSeconds}s = ${lw.seconds}s, readiness ${rw.failureThreshold} x ${rw.periodSeconds}s = ${rw.seconds}s): the container is restarted the moment it turns unready, and under load or a downstream outage every replica restarts together; set livenessProbe.failureThreshold to at least ${2 * rw.failureThreshold} (2 x readiness) or use a separate liveness endpoint`,
            });
            continue;
          }
        }
        if (handlerType(live) === 'httpGet') {
          const path = get(live, 'httpGet', 'path');
          const norm = normalizePath(path);
          if (depPaths.has(norm)) {
            ctx.report({
              object: w.obj,
              pointer: `${c.pointer}/livenessProbe/httpGet/path`,
              message: `container "${c.name}": livenessProbe checks ${String(path)}, a path that suggests readiness or dependency checks: when a dependency fails the kubelet restarts every replica, which does not fix the dependency and turns a partial outage into a full one; point liveness at an endpoint that checks only the process itself (e.g. /livez or /healthz) and keep ${norm} for the readinessProbe`,
            });
          }
        }
      }
    }
  },
};
