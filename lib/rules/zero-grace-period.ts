import { Rule } from '../engine/types';
import { get, num, runningContainers, Workload } from '../model/workload';
import { neededGrace } from './fix-util';

export const zeroGracePeriod: Rule = {
  meta: {
    id: 'zero-grace-period',
    spec: 'TERM-005',
    defaultSeverity: 'error',
    severities: ['error', 'warning'],
    description: 'terminationGracePeriodSeconds: 0',
    doc: `\`terminationGracePeriodSeconds: 0\` means "stop immediately via the kill signal (no opportunity to
shut down)": the pod object is removed from the API at once, without waiting for the kubelet to confirm
that its containers are gone; the kubelet skips preStop hooks and leaves only its 2 s minimum between
SIGTERM and SIGKILL.

**Conditions:**

- **error** on a StatefulSet: the StatefulSet docs call it unsafe and strongly discourage it. Pod
  identity and storage guarantees rely on the old pod being really gone before its replacement (same
  name, same volume) starts; with 0 the new pod can run next to the old one.
- **warning** on every other workload kind: in-flight requests and work are killed on every rollout,
  scale-down and eviction.

**Fix:** remove the field (default 30 s) or set it to preStop + drain + a margin:

\`\`\`yaml
spec:
  template:
    spec:
      terminationGracePeriodSeconds: 30
\`\`\`

**\`--fix\` (safe):** sets \`terminationGracePeriodSeconds\` to preStop + drain + addend + 5 s.`,
    fixable: true,
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/controllers/statefulset.md (deployment and scaling guarantees)',
      'Kubernetes API reference: PodSpec.terminationGracePeriodSeconds',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      if (num(w.podSpec.terminationGracePeriodSeconds) !== 0) continue;
      const sts = w.kind === 'StatefulSet';
      const grace = neededGrace(ctx.graph, w);
      const hooks = !sts && hasPreStop(w);
      ctx.report({
        object: w.obj,
        pointer: `${w.podSpecPointer}/terminationGracePeriodSeconds`,
        severity: sts ? 'error' : 'warning',
        message: sts
          ? 'terminationGracePeriodSeconds is 0 on a StatefulSet: the pod object is deleted at once, before its containers have stopped, so the replacement with the same identity and volume can start while the old pod still runs (the StatefulSet docs call this unsafe); remove the field (default 30s) or set it to preStop + drain + 5s'
          : `terminationGracePeriodSeconds is 0: ${hooks ? 'its preStop hooks are skipped and ' : ''}the app gets only the kubelet's 2s minimum between SIGTERM and SIGKILL on every rollout, scale-down and eviction, so in-flight work is killed; remove the field (default 30s) or set it to ${hooks ? 'preStop + drain + 5s' : 'drain + 5s'}`,
        fix: {
          description: `set terminationGracePeriodSeconds to ${grace} (preStop + drain + addend + margin)`,
          safety: 'safe',
          edits: [{ op: 'set', pointer: `${w.podSpecPointer}/terminationGracePeriodSeconds`, value: grace }],
        },
      });
    }
  },
};

/** Whether a container that runs for the pod's life has a preStop hook (the ones a grace of 0 skips). */
function hasPreStop(w: Workload): boolean {
  return runningContainers(w).some((c) => {
    const hook = get(c.raw, 'lifecycle', 'preStop');
    return hook !== undefined && hook !== null;
  });
}
