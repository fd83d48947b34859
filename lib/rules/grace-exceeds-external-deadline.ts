import { Rule } from '../engine/types';
import { graceMessageRef, gracePointer } from './util';
import { stringMap } from '../model/selector';
import { get } from '../model/workload';

export const DEFAULT_AUTOSCALER_MAX_GRACEFUL_TERMINATION_SECONDS = 600;

export const graceExceedsExternalDeadline: Rule = {
  meta: {
    id: 'grace-exceeds-external-deadline',
    spec: 'TERM-006',
    defaultSeverity: 'info',
    severities: ['info'],
    description: 'grace longer than deadlines enforced elsewhere (autoscaler 600 s, node shutdown)',
    doc: `\`terminationGracePeriodSeconds\` is only an upper bound the pod asks for. Other components delete pods with
their own, shorter deadline, and then the pod is killed anyway when that deadline expires:

- **cluster-autoscaler** drains a node it scales down with \`--max-graceful-termination-sec\` (default 600 s):
  a pod with a longer grace period gets at most that long (kubernetes/kubernetes#94435 shows a 3-hour grace period
  cut to 10 minutes);
- **kubelet graceful node shutdown** (\`GracefulNodeShutdown\`, beta and on since 1.21) gives regular pods
  \`shutdownGracePeriod - shutdownGracePeriodCriticalPods\` when the node shuts down;
- spot or preemption notices (provider specific, **[unverified]**): not checked.

**Condition (info):** the grace period (\`terminationGracePeriodSeconds\`, default 30) of any workload's pods is
longer than:

- the autoscaler limit, param \`autoscalerMaxGracefulTerminationSeconds\` (default ${DEFAULT_AUTOSCALER_MAX_GRACEFUL_TERMINATION_SECONDS});
  set it to your cluster-autoscaler's \`--max-graceful-termination-sec\`, or to \`0\` to skip the check (no autoscaler);
- the node-shutdown budget, param \`nodeShutdownGracePeriodSeconds\`: unset by default (the kubelet configuration is
  unknown, so nothing is checked). Set it to the time regular pods get, i.e. the kubelet's
  \`shutdownGracePeriod\` minus \`shutdownGracePeriodCriticalPods\`. Checked on Kubernetes >= 1.21 only.

**Fix:** make the app finish within the shortest deadline (checkpoint long work, shorten drains), or raise the other
deadline (e.g. \`--max-graceful-termination-sec\`), or keep such pods off nodes the autoscaler removes
(\`cluster-autoscaler.kubernetes.io/safe-to-evict: "false"\`). A grace period above the real deadline only hides the
kill. Pods that carry that annotation (on the pod template) are not judged against the autoscaler's limit: it does not
remove their node.`,
    fixable: false,
    versionGate: 'node-shutdown deadline checked on >= 1.21 (GracefulNodeShutdown beta, on by default)',
    paramsSchema: {
      type: 'object',
      properties: {
        autoscalerMaxGracefulTerminationSeconds: { type: 'integer', minimum: 0, default: DEFAULT_AUTOSCALER_MAX_GRACEFUL_TERMINATION_SECONDS },
        nodeShutdownGracePeriodSeconds: { type: 'integer', minimum: 1 },
      },
      additionalProperties: false,
    },
    defaults: { autoscalerMaxGracefulTerminationSeconds: DEFAULT_AUTOSCALER_MAX_GRACEFUL_TERMINATION_SECONDS },
    references: [
      'kubernetes/autoscaler cluster-autoscaler/FAQ.md (--max-graceful-termination-sec)',
      'https://github.com/kubernetes/kubernetes/issues/94435',
      'kubernetes/website content/en/docs/concepts/cluster-administration/node-shutdown.md',
      'kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/GracefulNodeShutdown.md',
    ],
  },
  check(ctx) {
    const ca = ctx.params.autoscalerMaxGracefulTerminationSeconds;
    const shutdown = ctx.params.nodeShutdownGracePeriodSeconds;
    const deadlines: { seconds: number; what: string; fix: string; autoscaler?: boolean }[] = [];
    if (typeof ca === 'number' && ca > 0) {
      deadlines.push({
        seconds: ca,
        what: `the cluster-autoscaler's --max-graceful-termination-sec (${ca}s)`,
        fix: 'the autoscaler kills the pod at its limit when it drains the node for scale-down',
        autoscaler: true,
      });
    }
    if (typeof shutdown === 'number' && shutdown > 0 && ctx.version.atLeast(1, 21)) {
      deadlines.push({
        seconds: shutdown,
        what: `the kubelet's node-shutdown budget for regular pods (${shutdown}s)`,
        fix: 'the kubelet kills the pod at that budget when the node shuts down',
      });
    }
    for (const w of ctx.graph.workloads) {
      // The autoscaler does not scale down a node that runs a pod annotated safe-to-evict "false"
      // (Windmill's workers, which run jobs for up to their 7-day grace; review round 23).
      // (The pods' annotation: the template's, or a bare Pod's own.)
      const podAnnotations = stringMap(w.templatePointer ? get(w.obj.raw, ...w.templatePointer.slice(1).split('/'), 'metadata', 'annotations') : get(w.obj.raw, 'metadata', 'annotations'));
      const keptByAutoscaler = (podAnnotations['cluster-autoscaler.kubernetes.io/safe-to-evict'] ?? '').trim() === 'false';
      for (const d of deadlines) {
        if (w.grace <= d.seconds) continue;
        if (d.autoscaler && keptByAutoscaler) continue;
        ctx.report({
          object: w.obj,
          pointer: gracePointer(w),
          message: `${graceMessageRef(w)} exceeds ${d.what}: ${d.fix}, so shutdown work beyond ${d.seconds}s is cut off; make the app finish within ${d.seconds}s, or raise that deadline${d.autoscaler ? ', or keep the autoscaler from removing its node (pod annotation cluster-autoscaler.kubernetes.io/safe-to-evict: "false")' : ''}`,
        });
      }
    }
  },
};
