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
remove their node.

**DaemonSet pods** are different: the autoscaler counts them drainable before it reads \`safe-to-evict\`, so the
annotation keeps no node and is neither honoured nor advised for them. Unless \`--drain-priority-config\` is set, it
evicts them best effort (with at most \`--max-graceful-termination-sec\` of grace; not at all with the pod annotation
\`cluster-autoscaler.kubernetes.io/enable-ds-eviction: "false"\`) and deletes the node without waiting for them, so
their shutdown work is cut off when the node goes. The finding says so and advises a shutdown that is safe to cut short,
or \`--drain-priority-config\`, under which the autoscaler waits for DaemonSet pods up to each priority's grace.`,
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
      'kubernetes/autoscaler @2d42588803c7 (cluster-autoscaler-1.35.2) cluster-autoscaler/simulator/drainability/rules/rules.go (Default: daemonset.New() before notsafetoevict.New(); the first rule with an outcome decides) and rules/daemonset/rule.go (a DaemonSet pod: NewDrainableStatus())',
      'kubernetes/autoscaler @2d42588803c7 cluster-autoscaler/core/scaledown/actuation/drain.go (DrainNode: "If priority evictor is not enable, eviction of daemonSet pods is the best effort"; drainNode passes DaemonSet pods as bestEffortEvictionPods unless fullDsEviction, set by actuator.go only with --drain-priority-config; waitPodsToDisappear waits for the full-eviction pods alone; evictPod caps the grace at maxTermination) and utils/daemonset/daemonset.go (PodsToEvict: enable-ds-eviction annotation, else --daemonset-eviction-for-occupied-nodes, default true)',
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
      // Not on a DaemonSet's pods: the autoscaler's drainability rules mark a DaemonSet pod drainable
      // before they read safe-to-evict (cluster-autoscaler simulator/drainability/rules/rules.go Default:
      // daemonset.New() ahead of notsafetoevict.New()), so the annotation keeps no node (review report p26).
      const daemonSet = w.kind === 'DaemonSet';
      const keptByAutoscaler = !daemonSet && (podAnnotations['cluster-autoscaler.kubernetes.io/safe-to-evict'] ?? '').trim() === 'false';
      for (const d of deadlines) {
        if (w.grace <= d.seconds) continue;
        if (d.autoscaler && keptByAutoscaler) continue;
        ctx.report({
          object: w.obj,
          pointer: gracePointer(w),
          message:
            d.autoscaler && daemonSet
              ? `${graceMessageRef(w)} exceeds ${d.what}: when the autoscaler drains a node for scale-down, it evicts DaemonSet pods best effort with at most ${d.seconds}s of grace and deletes the node without waiting for them, so their shutdown work is cut off when the node goes, at the latest after ${d.seconds}s; make the shutdown safe to cut short, or run the autoscaler with --drain-priority-config, under which it waits for DaemonSet pods (the pod annotation cluster-autoscaler.kubernetes.io/safe-to-evict: "false" keeps no DaemonSet pod's node)`
              : `${graceMessageRef(w)} exceeds ${d.what}: ${d.fix}, so shutdown work beyond ${d.seconds}s is cut off; make the app finish within ${d.seconds}s, or raise that deadline${d.autoscaler ? ', or keep the autoscaler from removing its node (pod annotation cluster-autoscaler.kubernetes.io/safe-to-evict: "false")' : ''}`,
        });
      }
    }
  },
};
