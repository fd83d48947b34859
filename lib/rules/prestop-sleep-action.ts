import { Fix, FixEdit, Rule } from '../engine/types';
import { isObject } from '../model/types';
import { ContainerView, get, Workload } from '../model/workload';
import { containerDrainSeconds, recommendedGrace } from '../timeline/budget';
import { classifyPreStop } from '../timeline/prestop';
import { DEFAULT_SHELL_LESS_IMAGE_PATTERNS, shellLessImage, shellLessPatterns } from '../timeline/shell-less';
import { neededGrace, raiseGraceEdit } from './fix-util';
import { trafficContainers } from './probe-util';
import { graceMessageRef } from './util';

export { DEFAULT_SHELL_LESS_IMAGE_PATTERNS } from '../timeline/shell-less';

const SERVED_KINDS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);
const HOOKS = ['preStop', 'postStart'] as const;

function secondsText(s: number): string {
  return Number.isInteger(s) ? String(s) : String(Math.ceil(s));
}

export const prestopSleepAction: Rule = {
  meta: {
    id: 'prestop-sleep-action',
    spec: 'TERM-003',
    defaultSeverity: 'info',
    severities: ['error', 'warning', 'info'],
    description:
      'exec `sleep` preStop where the `sleep` action exists (warning for shell-less images); `sleep` action used on a Kubernetes version without it enabled (error); sleep.seconds out of API range (error)',
    doc: `Since Kubernetes 1.30 the kubelet can sleep in a preStop hook by itself (\`lifecycle.preStop.sleep\`),
so the image needs neither a shell nor a \`sleep\` binary. An \`exec\` hook that only sleeps
(\`["sleep", "10"]\`, \`["/bin/sleep", "10"]\`, \`["sh", "-c", "sleep 10"]\`) fails with
\`FailedPreStopHook\` on distroless or scratch images, and then SIGTERM is sent at once: the delay the hook
was meant to give silently disappears (real case: linkerd/linkerd2#14011).

**Conditions:**

- **info:** a container that serves a Service port, in a served Deployment, StatefulSet, DaemonSet or
  ReplicaSet, has an exec preStop that runs only a sleep, and the target version is >= 1.30: use the
  sleep action.
- **warning:** the same exec sleep in any running container (main or native sidecar, any workload) whose
  image looks shell-less (param \`shellLessImagePatterns\`: regular expressions matched against the image;
  default \`distroless/\` except \`:debug\` tags, \`chainguard/static\`, and the control plane's images on
  \`registry.k8s.io\` or \`k8s.gcr.io\` (\`kube-apiserver\`, \`kube-controller-manager\`, \`kube-scheduler\`, built on the
  distroless go-runner), \`oauth2-proxy/oauth2-proxy\` from v7.6.0 and \`latest\` except \`-alpine\` tags (distroless),
  and \`zitadel/zitadel\` except \`-debug\` tags (scratch); add your own scratch-based or
  minimal images in the policy). The hook cannot run on
  any version; before 1.30 the message says so and suggests an image with a \`sleep\` binary. Such a hook gives no
  delay, so \`grace-period-budget\` and \`kubegrace explain\` count it as 0 s (the same patterns, the policy's included).
- **error:** the \`sleep\` action (in \`preStop\` or \`postStart\`, any container) on a target version where
  \`PodLifecycleSleepAction\` is not enabled (< 1.30): the API server drops the field and rejects the
  handler.
- **error:** \`sleep.seconds\` out of the API range: it must be > 0 (>= 0 from 1.33, where
  \`PodLifecycleSleepActionAllowZero\` is on) and <= the pod's \`terminationGracePeriodSeconds\`
  (\`validateSleepAction\`).

**Fix:**

\`\`\`yaml
lifecycle:
  preStop:
    sleep: {seconds: 10}
\`\`\`

**\`--fix\`:** raises \`terminationGracePeriodSeconds\` when \`sleep.seconds\` exceeds it (safe). With \`--fix-proposals\`: replaces an exec sleep by the sleep action (>= 1.30), a sleep action by exec sleep (< 1.30), rounds fractional seconds up, writes quoted seconds as a number, and removes a \`sleep: {seconds: 0}\` hook the version rejects.`,
    fixable: true,
    versionGate:
      'PodLifecycleSleepAction: alpha 1.29 (off), beta 1.30 (on), GA 1.34; sleep.seconds: 0 needs PodLifecycleSleepActionAllowZero: alpha 1.32, beta 1.33 (on), GA 1.34',
    paramsSchema: {
      type: 'object',
      properties: { shellLessImagePatterns: { type: 'array', items: { type: 'string' } } },
      additionalProperties: false,
    },
    defaults: { shellLessImagePatterns: DEFAULT_SHELL_LESS_IMAGE_PATTERNS },
    references: [
      'kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/PodLifecycleSleepAction.md',
      'kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/PodLifecycleSleepActionAllowZero.md',
      'kubernetes/enhancements keps/sig-node/4818-allow-zero-value-for-sleep-action-of-prestop-hook/README.md',
      'https://github.com/linkerd/linkerd2/issues/14011',
    ],
  },
  check(ctx) {
    const patterns = shellLessPatterns(ctx.params);
    const sleepOn = ctx.version.atLeast(1, 30);
    const zeroOk = ctx.version.atLeast(1, 33);
    for (const w of ctx.graph.workloads) {
      const served = SERVED_KINDS.has(w.kind) ? new Set(trafficContainers(ctx.graph, w)) : new Set<ContainerView>();
      for (const c of [...w.containers, ...w.sidecars, ...w.initContainers]) {
        for (const hook of HOOKS) checkSleepAction(w, c, hook);
        if (c.role === 'init') continue;
        const pre = classifyPreStop(get(c.raw, 'lifecycle', 'preStop'));
        if (pre.kind !== 'exec-sleep') continue;
        const n = secondsText(pre.seconds ?? 10);
        const cmd = JSON.stringify(pre.command ?? []);
        const pointer = `${c.pointer}/lifecycle/preStop/exec`;
        const toSleep = sleepOn ? toSleepAction(w, c, Number(n)) : undefined;
        if (shellLessImage(c.image, patterns)) {
          ctx.report({
            object: w.obj,
            pointer,
            severity: 'warning',
            message: sleepOn
              ? `container "${c.name}": preStop exec ${cmd} cannot run in the shell-less image "${c.image}": the hook fails (FailedPreStopHook) and SIGTERM is sent at once, without the ${n}s delay; use lifecycle: {preStop: {sleep: {seconds: ${n}}}}`
              : `container "${c.name}": preStop exec ${cmd} cannot run in the shell-less image "${c.image}": the hook fails (FailedPreStopHook) and SIGTERM is sent at once, without the ${n}s delay; on ${ctx.version.toString()} the sleep action is not available (needs >= 1.30): use an image variant with a sleep binary (e.g. a :debug tag) or upgrade and use lifecycle: {preStop: {sleep: {seconds: ${n}}}}`,
            fix: toSleep,
          });
        } else if (sleepOn && served.has(c)) {
          ctx.report({
            object: w.obj,
            pointer,
            severity: 'info',
            // (The first clause is what the short output shows: say the point there; review round 23.)
            message: `container "${c.name}": preStop exec ${cmd} only sleeps ${n}s, which the kubelet's sleep action does without a shell or sleep binary in the image (on ${ctx.version.toString()}); use lifecycle: {preStop: {sleep: {seconds: ${n}}}}`,
            fix: toSleep,
          });
        }
      }
    }

    /** exec sleep -> the sleep action with the same delay, and the grace period it needs. */
    function toSleepAction(w: Workload, c: ContainerView, seconds: number): Fix | undefined {
      if (seconds <= 0 && !(seconds === 0 && zeroOk)) return undefined;
      const edits: FixEdit[] = [{ op: 'set', pointer: `${c.pointer}/lifecycle/preStop`, value: { sleep: { seconds } } }];
      const raise = raiseGraceEdit(w, Math.max(seconds, c.role === 'main' ? neededGrace(ctx.graph, w, new Map([[c.pointer, seconds]]), undefined, patterns) : 0));
      if (raise) edits.push(raise);
      // (A grace raise the repair makes is said: the budget's margin can ask for one that no finding
      // reported; Windmill's app, 30s of sleep in 40s of grace; review round 23.)
      const raised = raise && raise.op === 'set' ? ` and raise terminationGracePeriodSeconds to ${String(raise.value)} (the delay, the drain and a margin)` : '';
      return { description: `replace the exec sleep preStop of container "${c.name}" with the sleep action (${seconds}s)${raised}`, safety: 'proposal', edits };
    }

    /** The API requires sleep.seconds <= the grace period: raise the grace period (safe, section 12). */
    /** The grace period a sleep needs: the sleep, the container's drain and the margin, or grace-period-budget's need with the sleep (the larger). */
    function sleepGraceNeed(w: Workload, c: ContainerView, hook: string, seconds: number): number {
      return Math.max(recommendedGrace(seconds, containerDrainSeconds(w, c)), hook === 'preStop' && c.role === 'main' ? neededGrace(ctx.graph, w, new Map([[c.pointer, seconds]]), undefined, patterns) : 0);
    }

    function graceForSleep(w: Workload, c: ContainerView, hook: string, seconds: number): Fix | undefined {
      const need = sleepGraceNeed(w, c, hook, seconds);
      const raise = raiseGraceEdit(w, need);
      return raise && { description: `raise terminationGracePeriodSeconds to ${need} (sleep + drain + margin)`, safety: 'safe', edits: [raise] };
    }

    function checkSleepAction(w: Workload, c: ContainerView, hook: (typeof HOOKS)[number]): void {
      const sleep = get(c.raw, 'lifecycle', hook, 'sleep');
      if (sleep === undefined || sleep === null) return;
      const pointer = `${c.pointer}/lifecycle/${hook}/sleep`;
      const seconds = isObject(sleep) ? sleep.seconds : undefined;
      if (!sleepOn) {
        const n = typeof seconds === 'number' ? String(seconds) : '10';
        ctx.report({
          object: w.obj,
          pointer,
          severity: 'error',
          message: `container "${c.name}": the ${hook} sleep action needs Kubernetes >= 1.30 (PodLifecycleSleepAction${ctx.version.atLeast(1, 29) ? ' is alpha and off by default on 1.29' : ` does not exist on ${ctx.version.toString()}`}): the API server drops the field and rejects the hook; use exec: {command: ["sleep", "${n}"]} (needs a sleep binary in the image) or target >= 1.30`,
          fix: {
            description: `replace the ${hook} sleep action of container "${c.name}" with exec ["sleep", "${n}"] (the image needs a sleep binary)`,
            safety: 'proposal',
            edits: [{ op: 'set', pointer: `${c.pointer}/lifecycle/${hook}`, value: { exec: { command: ['sleep', n] } } }],
          },
        });
        return;
      }
      if (typeof seconds !== 'number') {
        const parsed = typeof seconds === 'string' && /^\s*\d+\s*$/.test(seconds) ? Number(seconds) : undefined;
        ctx.report({
          object: w.obj,
          pointer,
          severity: 'error',
          message: `container "${c.name}": ${hook} sleep action without a numeric seconds: the API rejects it; set sleep: {seconds: 10}`,
          fix:
            parsed === undefined
              ? undefined
              : { description: `write the ${hook} sleep.seconds of container "${c.name}" as the number ${parsed}`, safety: 'proposal', edits: [{ op: 'set', pointer: `${pointer}/seconds`, value: parsed }] },
        });
        return;
      }
      const sp = `${pointer}/seconds`;
      if (seconds < 0 || (seconds === 0 && !zeroOk)) {
        ctx.report({
          object: w.obj,
          pointer: sp,
          severity: 'error',
          message: zeroOk
            ? `container "${c.name}": ${hook} sleep.seconds is ${seconds}: the API requires a non-negative value; set it to the delay you need (e.g. 10)`
            : `container "${c.name}": ${hook} sleep.seconds is ${seconds}: the API requires a value > 0 on ${ctx.version.toString()} (0 is allowed from 1.33, PodLifecycleSleepActionAllowZero); set it to the delay you need (e.g. 10) or remove the hook`,
          // A hook that asks for no delay is the same as no hook.
          fix: { description: `remove the ${hook} hook of container "${c.name}" (it asks for no delay)`, safety: 'proposal', edits: [{ op: 'remove', pointer: `${c.pointer}/lifecycle/${hook}` }] },
        });
      } else if (seconds > w.grace) {
        ctx.report({
          object: w.obj,
          pointer: sp,
          severity: 'error',
          message: `container "${c.name}": ${hook} sleep.seconds ${seconds} exceeds ${graceMessageRef(w)}: the API rejects it; shorten the sleep or raise terminationGracePeriodSeconds to ${sleepGraceNeed(w, c, hook, seconds)}s (the sleep, the drain and a 5s margin, as grace-period-budget counts them)`,
          fix: graceForSleep(w, c, hook, seconds),
        });
      } else if (!Number.isInteger(seconds)) {
        ctx.report({
          object: w.obj,
          pointer: sp,
          severity: 'error',
          message: `container "${c.name}": ${hook} sleep.seconds ${seconds} is not an integer: the API rejects it; use ${Math.ceil(seconds)}`,
          fix: { description: `round the ${hook} sleep.seconds of container "${c.name}" up to ${Math.ceil(seconds)}`, safety: 'proposal', edits: [{ op: 'set', pointer: sp, value: Math.ceil(seconds) }] },
        });
      }
    }
  },
};
