import { activeCatalog, knownPreStopAdvice } from '../catalog';
import { Rule } from '../engine/types';
import { ContainerView, get, Workload } from '../model/workload';
import { podPreStopDelay } from '../timeline/prestop';
import { portLabel, preStopFix } from './probe-util';

/** The propagation delay advised when a known program's hook has less (graceful-termination.md TERM-002: 5-15 s). */
const PROPAGATION_SECONDS = 10;

/**
 * The advice for an httpGet hook: the generic one (idempotent handler, respond after the
 * propagation delay, or a sleep instead); for the half of a catalog handshake (the hook waits for a
 * known preStop program of another container, catalog `awaitedBy`: Contour's Envoy calling its
 * shutdown-manager's /shutdown), keep the handshake and set that program's delay, since a sleep in
 * its place would drop what the program does (Contour: the health-check fail and the drain).
 */
function httpAdvice(w: Workload, c: ContainerView): string {
  const generic = 'make the handler idempotent, start draining and respond only after the endpoint-propagation delay (5-15s), or use a sleep preStop';
  const d = podPreStopDelay(c, w.annotations, undefined, w.containers);
  if (d.kind !== 'httpGet' || d.awaits === undefined || d.program === undefined) return generic;
  const e = activeCatalog().get(d.program);
  const which = `container "${d.awaits}"'s preStop program ${e?.title ?? d.program} (catalog entry ${d.program})`;
  const keep = `it returns when ${which} ends, which drains this container: keep it (a sleep preStop in its place would skip that drain)`;
  if (d.seconds !== undefined && d.seconds >= 5) return `${keep}; that hook already keeps it accepting for ${d.bound === 'at-least' ? 'at least ' : ''}${d.seconds}s, which covers the endpoint-propagation delay`;
  const set = knownPreStopAdvice(d.program, undefined, PROPAGATION_SECONDS);
  if (d.seconds === undefined || !set) return `${keep}, and let that hook give the endpoint-propagation delay (5-15s)`;
  return `${keep}, and give it the endpoint-propagation delay (5-15s) with ${set} of container "${d.awaits}" (it keeps it accepting for ${d.bound === 'at-least' ? 'at least ' : ''}${d.seconds}s now)`;
}

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

When the hook is one half of a handshake the catalog knows (it waits for a known preStop program of
another container of the pod, \`awaitedBy\` in docs/catalog.md: Contour's Envoy calling its
shutdown-manager's \`/shutdown\`), the advice is to keep it and to set the program's own delay where it
is under 5 s (Contour: \`--drain-delay\`), not to replace it by a sleep, which would skip the
program's drain.

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
            message: `container "${c.name}": preStop httpGet ${typeof path === 'string' ? path : '/'} on port ${portLabel(c, get(http, 'port'))}: the kubelet blocks termination until it answers (the time counts against terminationGracePeriodSeconds), a failure only emits FailedPreStopHook, and it may be delivered more than once; ${httpAdvice(w, c)}`,
          });
        }
      }
    }
  },
};
