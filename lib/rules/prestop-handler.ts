import { Rule } from '../engine/types';
import { get } from '../model/workload';
import { portLabel, preStopFix } from './probe-util';

export const prestopHandler: Rule = {
  meta: {
    id: 'prestop-handler',
    spec: 'TERM-004',
    defaultSeverity: 'info',
    severities: ['error', 'info'],
    description: 'httpGet preStop caveats (info); tcpSocket preStop, which fails at runtime (error)',
    doc: `A preStop \`httpGet\` is sent by the kubelet to the pod IP. It has caveats that are easy to miss:

- the kubelet **blocks** until the handler answers or the grace period ends, and the time is taken from
  \`terminationGracePeriodSeconds\`;
- a failing handler only emits a \`FailedPreStopHook\` event; termination goes on;
- delivery is **at-least-once**: the handler can be called twice, so it must be idempotent;
- it helps only if the handler starts the drain and returns **after** the endpoint-propagation delay
  (5–15 s); a handler that returns at once gives no delay at all.

**Conditions:**

- **info:** \`lifecycle.preStop.httpGet\` on any container (main, native sidecar, init).
- **error:** \`lifecycle.preStop.tcpSocket\`: it is deprecated, kept only for API compatibility, not
  validated, and the kubelet fails it at runtime, so the hook never delays anything.

**Fix** (when the handler is only meant to delay SIGTERM):

\`\`\`yaml
lifecycle:
  preStop:
    sleep: {seconds: 10}
\`\`\``,
    fixable: false,
    references: [
      'kubernetes/website content/en/docs/concepts/containers/container-lifecycle-hooks.md',
      'Kubernetes API reference: LifecycleHandler.tcpSocket',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      for (const c of [...w.containers, ...w.sidecars, ...w.initContainers]) {
        const pre = get(c.raw, 'lifecycle', 'preStop');
        const http = get(pre, 'httpGet');
        const tcp = get(pre, 'tcpSocket');
        const base = `${c.pointer}/lifecycle/preStop`;
        if (tcp !== undefined && tcp !== null) {
          ctx.report({
            object: w.obj,
            pointer: `${base}/tcpSocket`,
            severity: 'error',
            message: `container "${c.name}": preStop tcpSocket (port ${portLabel(c, get(tcp, 'port'))}) is deprecated and not supported as a lifecycle handler: the kubelet fails it at runtime, so it never delays SIGTERM; use ${preStopFix(ctx.version)}`,
          });
        } else if (http !== undefined && http !== null) {
          const path = get(http, 'path');
          ctx.report({
            object: w.obj,
            pointer: `${base}/httpGet`,
            severity: 'info',
            message: `container "${c.name}": preStop httpGet ${typeof path === 'string' ? path : '/'} on port ${portLabel(c, get(http, 'port'))}: the kubelet blocks termination until it answers (the time counts against terminationGracePeriodSeconds), a failure only emits FailedPreStopHook, and it may be delivered more than once; make the handler idempotent, start draining and respond only after the endpoint-propagation delay (5-15s), or use a sleep preStop`,
          });
        }
      }
    }
  },
};
