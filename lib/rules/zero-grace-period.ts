import { FixEdit, Rule } from '../engine/types';
import { isIdleContainer } from '../model/idle';
import { ContainerView, DEFAULTS, get, num, runningContainers, Workload } from '../model/workload';
import { DEFAULT_PRESTOP_SECONDS } from '../timeline/prestop';
import { neededGrace, preStopHandler, unknownPreStops } from './fix-util';
import { containersWithoutPreStop } from './prestop-missing';
import { containerGuess, removedPortsOf } from '../model/traffic';
import { isHelmTestHook } from './lb-util';

export const zeroGracePeriod: Rule = {
  meta: {
    id: 'zero-grace-period',
    spec: 'TERM-005',
    defaultSeverity: 'error',
    severities: ['error', 'warning', 'info'],
    description: 'terminationGracePeriodSeconds: 0',
    doc: `\`terminationGracePeriodSeconds: 0\` means "stop immediately via the kill signal (no opportunity to
shut down)": the pod object is removed from the API at once, without waiting for the kubelet to confirm
that its containers are gone; the kubelet skips preStop hooks and leaves only its 2 s minimum between
SIGTERM and SIGKILL.

**Conditions:**

- **error** on a StatefulSet: the StatefulSet docs call it unsafe and strongly discourage it. Pod
  identity and storage guarantees rely on the old pod being really gone before its replacement (same
  name, same volume) starts; with 0 the new pod can run next to the old one.
- **warning** on Deployments, DaemonSets, ReplicaSets and Pods: in-flight requests and work are killed on every
  rollout, scale-down and eviction (for a bare Pod: every deletion, eviction and node drain).
- **info** on Jobs and CronJobs: their pods do not roll out or scale down; an eviction or a drain cuts the work,
  and the Job runs it again (a failure counted against \`backoffLimit\` unless a \`podFailurePolicy\` ignores
  disruptions). The same for a bare Pod that runs to completion (\`restartPolicy: Never\` or \`OnFailure\`), except that
  nothing runs it again. The exported admission policy carries the warning only, so it passes them.
- Not reported on a Helm test hook Pod (\`helm.sh/hook: test\`): it exists only while \`helm test\` runs.
- Not reported when every container is idle (the pause image, or a command that only sleeps forever, such as
  \`sleep infinity\`): there is no work to cut, and a sleep as PID 1 ignores SIGTERM, so a grace period only delays
  its SIGKILL (Istio's \`samples/curl\`, JupyterHub's user placeholders and image pullers set 0 on purpose).

**Fix:** remove the field (default 30 s) or set it to preStop + drain + a margin:

\`\`\`yaml
spec:
  template:
    spec:
      terminationGracePeriodSeconds: 30
\`\`\`

A container that serves Service traffic without a preStop hook is named too: \`prestop-missing\`
reports it only once the grace period is above 0 (no hook runs before), so the advice here already
counts the delay it needs.

**\`--fix\` (safe):** sets \`terminationGracePeriodSeconds\` to preStop + drain + addend + 5 s, and to at least the API
default 30 s when a preStop hook runs for a time nothing tells (a program without the \`kubegrace.dev/prestop-seconds\`
hint, such as calico-node's \`calico component node shutdown\`). On >= 1.30
it also gives each such container the preStop sleep (10 s) that \`prestop-missing\` would ask for, and
counts it in the grace period, so that one repair does what would otherwise take two rounds (unless
\`prestop-missing\` is off in the policy or ignored on the object). Not a container that serves the port
only by a guess (a numeric \`targetPort\` that no container of the pod declares or names in its env or args,
see \`prestop-missing\`): the advice names it as a guess, and the repair leaves it alone.`,
    fixable: true,
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/controllers/statefulset.md (deployment and scaling guarantees)',
      'Kubernetes API reference: PodSpec.terminationGracePeriodSeconds',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      if (num(w.podSpec.terminationGracePeriodSeconds) !== 0) continue;
      // Pods of idle containers (the pause image, a sleep forever) have no work to cut, and a sleep as
      // PID 1 ignores SIGTERM: a grace period would only delay its SIGKILL (Istio's samples/curl and
      // JupyterHub's user placeholders set 0 on purpose). A StatefulSet's identity guarantee matters
      // only for the volumes it gives its pods, which such pods do not use.
      if ([...w.containers, ...w.sidecars].every((c) => isIdleContainer(c.raw))) continue;
      // A Helm test hook Pod exists only while \`helm test\` runs (one curl in pihole's chart): no rollout,
      // scale-down or drain ever touches it (review round 30).
      if (isHelmTestHook(w.obj)) continue;
      // A bare Pod that runs to completion is a one-off task like a Job's pod: nothing rolls it out or
      // scales it down; only an eviction or a drain cuts its work, and no controller runs it again.
      const restart = w.podSpec.restartPolicy;
      const oneOff = w.kind === 'Pod' && (restart === 'Never' || restart === 'OnFailure');
      const sts = w.kind === 'StatefulSet';
      // Containers prestop-missing reports once the grace period allows a hook: the advice counts
      // their delay, and the repair adds it where the hook is a safe edit (the sleep action, >= 1.30).
      const missing = ctx.active('prestop-missing', w.obj) ? containersWithoutPreStop(ctx.graph, ctx.catalog, w, ctx.version) : [];
      // (Not a container that serves the port only by a guess, which may be the wrong one: traffic.ts containerGuess.)
      const sure = missing.filter((c) => containerGuess(c, removedPortsOf(ctx.graph, w)) === undefined);
      const safeHooks = preStopHandler(ctx.version, DEFAULT_PRESTOP_SECONDS).safety === 'safe' ? sure : [];
      const overrides = new Map(safeHooks.map((c) => [c.pointer, DEFAULT_PRESTOP_SECONDS]));
      // A hook whose length nothing tells (a custom program, calico-node's `calico component node
      // shutdown`) is not counted by neededGrace: the repair then gives at least the API default (what
      // removing the field gives), not a grace of 0 that changes nothing (review round 10).
      const unknown = unknownPreStops(ctx.graph, w, overrides);
      const grace = Math.max(neededGrace(ctx.graph, w, overrides), unknown.length ? DEFAULTS.terminationGracePeriodSeconds : 0);
      const hooks = !sts && hasPreStop(w);
      const one = missing.length === 1;
      // (With no Service in the input for the namespace, prestop-missing assumes traffic from the declared ports: said so.)
      const why = ctx.graph.servedState(w) === 'unknown' ? `${one ? 'it has' : 'they have'} none and ${one ? 'declares a port' : 'declare ports'}, so ${one ? 'it is' : 'they are'} assumed served (no Service in the input selects the pods)` : `${one ? 'it serves' : 'they serve'} Service traffic without one`;
      const guessed = missing.filter((c) => !sure.includes(c));
      const probably = guessed.length ? ` (${guessed.map((c) => `"${c.name}" is a guess: ${containerGuess(c, removedPortsOf(ctx.graph, w))}`).join('; ')})` : '';
      const also = missing.length ? `, and give ${containerList(missing)} a preStop delay: ${why}${probably} (prestop-missing reports ${one ? 'it' : 'them'} once the grace period is above 0)` : '';
      const edits: FixEdit[] = [{ op: 'set', pointer: `${w.podSpecPointer}/terminationGracePeriodSeconds`, value: grace }];
      for (const c of safeHooks) edits.push({ op: 'set', pointer: `${c.pointer}/lifecycle/preStop`, value: preStopHandler(ctx.version, DEFAULT_PRESTOP_SECONDS).handler });
      ctx.report({
        object: w.obj,
        pointer: `${w.podSpecPointer}/terminationGracePeriodSeconds`,
        // (A Job's or CronJob's pods do not roll out or scale down: an eviction cuts the work, and the Job
        // runs it again; review round 18, milvus's minio-provisioning hook Job.)
        severity: sts ? 'error' : w.isBatch || oneOff ? 'info' : 'warning',
        message: oneOff
          ? `terminationGracePeriodSeconds is 0: this Pod runs to completion (restartPolicy ${restart}), so no rollout or scale-down replaces it, but when it is evicted or its node drained, ${hooks ? 'its preStop hooks are skipped and ' : ''}the app gets only the kubelet's 2s minimum between SIGTERM and SIGKILL, so its work is cut, and nothing runs it again (a bare Pod has no controller); remove the field (default 30s) or set it to ${hooks || missing.length ? 'preStop + drain + 5s' : 'drain + 5s'}${also}`
          : w.isBatch
          ? `terminationGracePeriodSeconds is 0: when a pod of this ${w.kind} is evicted or its node drained, ${hooks ? 'its preStop hooks are skipped and ' : ''}the app gets only the kubelet's 2s minimum between SIGTERM and SIGKILL, so its work is cut and the ${w.kind === 'CronJob' ? 'Job' : w.kind} runs it again (a failure counted against backoffLimit unless a podFailurePolicy ignores disruptions); remove the field (default 30s) or set it to ${hooks || missing.length ? 'preStop + drain + 5s' : 'drain + 5s'}${also}`
          : sts
          ? `terminationGracePeriodSeconds is 0 on a StatefulSet: the pod object is deleted at once, before its containers have stopped, so the replacement with the same identity and volume can start while the old pod still runs (the StatefulSet docs call this unsafe); remove the field (default 30s) or set it to preStop + drain + 5s${also}`
          : `terminationGracePeriodSeconds is 0: ${hooks ? 'its preStop hooks are skipped and ' : ''}the app gets only the kubelet's 2s minimum between SIGTERM and SIGKILL on every ${w.kind === 'Pod' ? 'deletion, eviction and node drain' : 'rollout, scale-down and eviction'}, so in-flight work is killed; remove the field (default 30s) or set it to ${hooks || missing.length ? 'preStop + drain + 5s' : 'drain + 5s'}${also}`,
        fix: {
          description: `set terminationGracePeriodSeconds to ${grace}${safeHooks.length ? ` and add ${preStopHandler(ctx.version, DEFAULT_PRESTOP_SECONDS).text} to ${containerList(safeHooks)}` : ''} (preStop + drain + addend + margin${unknown.length ? `; at least the API default ${DEFAULTS.terminationGracePeriodSeconds}s, since the preStop hook of ${containerList(unknown)} runs for an unknown time: set the kubegrace.dev/prestop-seconds annotation to size it` : ''})`,
          safety: 'safe',
          edits,
        },
      });
    }
  },
};

/** `container "a"`, `containers "a" and "b"`. */
function containerList(cs: ContainerView[]): string {
  const names = cs.map((c) => `"${c.name}"`);
  return `container${cs.length === 1 ? '' : 's'} ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`}`;
}

/** Whether a container that runs for the pod's life has a preStop hook (the ones a grace of 0 skips). */
function hasPreStop(w: Workload): boolean {
  return runningContainers(w).some((c) => {
    const hook = get(c.raw, 'lifecycle', 'preStop');
    return hook !== undefined && hook !== null;
  });
}
