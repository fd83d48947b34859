import { Rule } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { ObjectGraph } from '../model/graph';
import { isObject, Json } from '../model/types';
import { ContainerView, DEFAULTS, num, Workload } from '../model/workload';
import { containerDrainAssumed } from '../timeline/budget';
import { terminationSchedule } from '../timeline/schedule';
import { antiAffinityTerms, hostPortBindings, hostPortsPhrase, HOSTNAME_KEY, POD_TEMPLATE_HASH } from './mesh-util';
import { replicaBasis, rolloutFor, startupEstimate } from './rollout-util';

/** progressDeadlineSeconds = MaxInt32 means "no deadline" to the Deployment controller. */
const NO_DEADLINE = 2147483647;

export const PROGRESS_DEADLINE_DEFAULTS = { imagePullSeconds: 60, readinessGateSeconds: 60 };

interface StartupBudget {
  seconds: number;
  parts: string[];
}

function probeBudget(c: ContainerView): number | undefined {
  const p: Json | undefined = c.raw.startupProbe;
  if (!isObject(p)) return undefined;
  const d = DEFAULTS.probe;
  return (num(p.initialDelaySeconds) ?? d.initialDelaySeconds) + (num(p.failureThreshold) ?? d.failureThreshold) * (num(p.periodSeconds) ?? d.periodSeconds);
}

/**
 * The startup-probe part of one rollout step: the largest main-container budget, plus the
 * budgets of native sidecars, which start one after another before the main containers (KEP-753).
 */
function startupBudget(w: Workload): StartupBudget {
  const parts: string[] = [];
  let seconds = 0;
  for (const s of w.sidecars) {
    const b = probeBudget(s);
    if (b === undefined) continue;
    seconds += b;
    parts.push(`startupProbe of sidecar "${s.name}" ${b}s`);
  }
  let best: { c: ContainerView; b: number } | undefined;
  for (const c of w.containers) {
    const b = probeBudget(c);
    if (b !== undefined && (!best || b > best.b)) best = { c, b };
  }
  if (best) {
    seconds += best.b;
    parts.push(`startupProbe of "${best.c.name}" ${best.b}s`);
  }
  return { seconds, parts };
}

/**
 * The rule's decision for one Deployment, shared with explain: `rejected` when progressDeadlineSeconds
 * <= minReadySeconds (error), `short` when it is below a realistic step, with the probes passing at
 * their first try (warning), `slowest` when it is below only the slowest step the startup probes
 * allow, their whole failureThreshold x periodSeconds (info); undefined when not reported. `step` is
 * the slowest step (what the repair raises the deadline to) and `parts` what it is made of;
 * `realistic` the realistic step and `realisticParts` its parts.
 */
export interface ProgressDeadlineDecision {
  kind: 'rejected' | 'short' | 'slowest';
  pds: number;
  mrs: number;
  step: number;
  parts: string[];
  realistic: number;
  realisticParts: string[];
}

/** The step times of progressDeadlineDecision: the slowest the startup probes allow, and the realistic one (probes passing at their first try). */
export function rolloutStepTimes(w: Workload, mrs: number, params: Record<string, unknown>): { step: number; parts: string[]; realistic: number; realisticParts: string[] } {
  const pull = typeof params.imagePullSeconds === 'number' ? params.imagePullSeconds : PROGRESS_DEADLINE_DEFAULTS.imagePullSeconds;
  const gate = typeof params.readinessGateSeconds === 'number' ? params.readinessGateSeconds : PROGRESS_DEADLINE_DEFAULTS.readinessGateSeconds;
  const startup = startupBudget(w);
  const hasGates = Array.isArray(w.podSpec.readinessGates) && w.podSpec.readinessGates.length > 0;
  const step = mrs + pull + startup.seconds + (hasGates ? gate : 0);
  const parts = [`minReadySeconds ${mrs}`, `image pull ${pull}s`, ...startup.parts];
  if (hasGates) parts.push(`readiness gates ${gate}s`);
  // The startup probes' budget is the most a start may take, not what it takes: a step as the probes
  // pass at their first try (the larger of their initial delays, as startupEstimate counts them) is the realistic one.
  const expected = startup.parts.length ? startupEstimate(w) : undefined;
  const realistic = mrs + pull + (expected?.seconds ?? 0) + (hasGates ? gate : 0);
  const realisticParts = [`minReadySeconds ${mrs}`, `image pull ${pull}s`, ...(expected && expected.seconds > 0 ? [`probe delays ${expected.seconds}s`] : [])];
  if (hasGates) realisticParts.push(`readiness gates ${gate}s`);
  return { step, parts, realistic, realisticParts };
}

export function progressDeadlineDecision(w: Workload, params: Record<string, unknown>): ProgressDeadlineDecision | undefined {
  const d = w.deployment;
  if (w.kind !== 'Deployment' || !d) return undefined;
  const pds = d.progressDeadlineSeconds;
  const mrs = d.minReadySeconds;
  const { step, parts, realistic, realisticParts } = rolloutStepTimes(w, mrs, params);
  const base = { pds, mrs, step, parts, realistic, realisticParts };
  if (pds <= mrs) return { kind: 'rejected', ...base };
  // (A readiness probe's initial delay can make the realistic step the longer one: the deadline must cover it too.)
  const slowest = Math.max(step, realistic);
  if (pds === NO_DEADLINE || pds >= slowest) return undefined;
  return { kind: pds < realistic ? 'short' : 'slowest', ...base, step: slowest };
}

/**
 * What keeps a new pod of the template off a node that still holds an old one, in words: host
 * ports (kube-scheduler's NodePorts filter), or a required pod anti-affinity on
 * kubernetes.io/hostname selecting the own pods that counts old and new pods together (no
 * matchLabelKeys: [pod-template-hash], or the field is off before 1.31). Undefined when nothing does.
 */
export function onePodPerNode(w: Workload, version: KubeVersion): string | undefined {
  const ports = hostPortBindings(w);
  if (ports.length) return `host ports (${hostPortsPhrase(ports)})`;
  const keysOn = version.atLeast(1, 31);
  const t = antiAffinityTerms(w).find((x) => x.required && x.selectsOwn && x.topologyKey === HOSTNAME_KEY && !(keysOn && x.matchLabelKeys.includes(POD_TEMPLATE_HASH)));
  return t ? `a required pod anti-affinity on ${HOSTNAME_KEY} (requiredDuringSchedulingIgnoredDuringExecution[${t.index}])` : undefined;
}

/**
 * How long an old pod's termination lasts, from the termination schedule (lib/timeline/schedule.ts):
 * when every main container's preStop and drain are known (a declared kubegrace.dev/drain-seconds or
 * the program's own setting read by the catalog), the time the pod is gone (`known`); else up to the
 * grace period, the most the kubelet lets it run.
 */
export function oldPodTermination(graph: ObjectGraph, w: Workload): { seconds: number; known: boolean; words: string } {
  const sched = terminationSchedule(graph, w);
  const known = sched.mains.every((m) => m.preStopSeconds !== undefined && (m.container === undefined || !containerDrainAssumed(w, m.container)));
  if (!known) return { seconds: w.grace, known, words: `up to its grace period, ${w.grace}s${w.graceSet ? '' : ' (default)'}` };
  const gone = Math.max(sched.mainsDoneAt, ...sched.sidecars.filter((s) => s.counted).map((s) => s.exit));
  return { seconds: gone, known, words: `about ${gone}s (preStop and the declared or known drain, grace ${w.grace}s)` };
}

/**
 * A rolling update whose new pod needs the node of the old pod it replaces, with an old pod's
 * termination longer than progressDeadlineSeconds. On a cluster without a spare node the new pod
 * stays Pending until the old pod is gone: kube-scheduler's pod informer watches every pod that is
 * not Succeeded or Failed (pkg/scheduler/scheduler.go newPodInformer), terminating ones included,
 * so a terminating pod keeps its host ports and anti-affinity in the node's info until its
 * containers have exited (kubernetes/kubernetes#126389). The Deployment controller counts progress
 * only when updated, ready or available replicas rise or old replicas fall
 * (pkg/controller/deployment/util/deployment_util.go DeploymentProgressing; terminating pods are
 * not counted in a ReplicaSet's replicas, so the old pod's deletion is the last progress until the
 * new pod is Ready), and DeploymentTimedOut reports ProgressDeadlineExceeded once that is older
 * than progressDeadlineSeconds. Reported only when the termination alone exceeds the deadline:
 * image pull and start-up are estimates, the termination (or the grace period) is the template's.
 * `needed` is the termination plus a realistic step (what the repair raises the deadline to).
 */
export interface OldPodWait {
  pds: number;
  what: string;
  termination: { seconds: number; known: boolean; words: string };
  needed: number;
  realisticParts: string[];
}

/**
 * `assumeUnavailable`: judge the rollout as if it took a pod down first (spread-blocks-surge's
 * proposal maxSurge 0, maxUnavailable 1), else only when the resolved maxUnavailable is >= 1 (with
 * surge only, the rollout stalls outright: spread-blocks-surge's finding).
 */
export function oldPodWaitDecision(graph: ObjectGraph, w: Workload, version: KubeVersion, params: Record<string, unknown>, assumeUnavailable = false): OldPodWait | undefined {
  const d = w.deployment;
  if (w.kind !== 'Deployment' || !d || d.type !== 'RollingUpdate') return undefined;
  const pds = d.progressDeadlineSeconds;
  if (pds === NO_DEADLINE) return undefined;
  const basis = replicaBasis(graph, w);
  if (!basis || basis.replicas <= 0) return undefined;
  if (!assumeUnavailable && (rolloutFor(w, basis.replicas)?.unavailable ?? 0) < 1) return undefined;
  const what = onePodPerNode(w, version);
  if (!what) return undefined;
  const termination = oldPodTermination(graph, w);
  if (termination.seconds <= pds) return undefined;
  const { realistic, realisticParts } = rolloutStepTimes(w, d.minReadySeconds, params);
  return { pds, what, termination, needed: Math.ceil(termination.seconds + realistic), realisticParts };
}

export const progressDeadline: Rule = {
  meta: {
    id: 'progress-deadline',
    spec: 'ROLL-004',
    defaultSeverity: 'error',
    severities: ['error', 'warning', 'info'],
    description: 'progressDeadlineSeconds <= minReadySeconds (API rejects); too short for a realistic step (warning), or for a step that waits for an old pod to terminate on its node (host ports, required hostname anti-affinity; warning)',
    doc: `\`progressDeadlineSeconds\` (default 600) is how long the Deployment controller waits for a rollout step to
make progress before it sets \`Progressing=False, reason=ProgressDeadlineExceeded\`. Kubernetes does not roll back
on its own; CI running \`kubectl rollout status\` exits non-zero at the deadline.

Conditions:
- **error:** \`progressDeadlineSeconds <= minReadySeconds\`: the API rejects the Deployment ("must be greater than minReadySeconds").
- **warning:** \`progressDeadlineSeconds\` is shorter than a realistic per-step time:
  \`minReadySeconds\` + image pull (param \`imagePullSeconds\`, default 60) + the startup-probe budget
  as the probes pass + readiness-gate registration
  (param \`readinessGateSeconds\`, default 60, counted only when the template has \`readinessGates\`), where the
  startup probes pass at their first try: the larger of the startupProbe's and the readinessProbe's
  \`initialDelaySeconds\` (the kubelet counts both from the container's start and runs the readiness probe as soon
  as the startup probe has passed), plus the readiness probe's further successes.
- **info:** \`progressDeadlineSeconds\` is long enough for that step but shorter than the slowest step the
  startup probes allow, with their whole budget (\`initialDelaySeconds + failureThreshold × periodSeconds\`, defaults
  0/3/10: the largest among main containers, plus each native sidecar's, since sidecars start one after another). A
  startupProbe budget is a ceiling for slow starts (a first start that runs migrations), not what a start takes:
  a pod that uses most of it is reported ProgressDeadlineExceeded while the kubelet still waits for it, so either
  raise the deadline or, if starts never take that long, lower the budget.
- **warning:** a rolling update that takes pods down first (resolved \`maxUnavailable >= 1\`) of pods that
  cannot share a node with an old pod of the template (host ports; a required pod anti-affinity on
  \`kubernetes.io/hostname\` selecting the own pods without \`matchLabelKeys: [pod-template-hash]\` on >= 1.31), when an
  old pod's termination is longer than \`progressDeadlineSeconds\`. On a cluster without a spare node the replacement
  stays Pending until the old pod is gone: kube-scheduler watches every pod not yet Succeeded or Failed, terminating
  ones included, so the old pod keeps its ports and anti-affinity until its containers exit. The controller's last
  progress is the old pod's deletion (a terminating pod no longer counts in the ReplicaSet), the next is the new pod
  turning Ready. The termination is the termination schedule's (preStop + drain, sidecars) when every main container's
  drain is declared (\`kubegrace.dev/drain-seconds\`) or known from the catalog, else up to the grace period. Only the
  termination is compared with the deadline (image pull and start-up are estimates): a grace period below the deadline
  is never reported here. The repair raises the deadline to the termination plus a realistic step; the price is that a
  rollout that is really stuck is reported that much later.
  \`progressDeadlineSeconds: 2147483647\` (no deadline) is not judged.

Fix: raise \`progressDeadlineSeconds\` above the step time:
\`\`\`yaml
spec:
  minReadySeconds: 15
  progressDeadlineSeconds: 600   # > minReadySeconds + image pull + startup budget + readiness gates
\`\`\`

**\`--fix\`:** raises \`progressDeadlineSeconds\` above \`minReadySeconds\` when the API would reject the spec (safe); raising it to a realistic step time is a proposal (\`--fix-proposals\`).`,
    fixable: true,
    paramsSchema: {
      type: 'object',
      properties: {
        imagePullSeconds: { type: 'integer', minimum: 0, default: PROGRESS_DEADLINE_DEFAULTS.imagePullSeconds, description: 'seconds allowed for pulling the image in one rollout step' },
        readinessGateSeconds: { type: 'integer', minimum: 0, default: PROGRESS_DEADLINE_DEFAULTS.readinessGateSeconds, description: 'seconds allowed for readiness-gate registration (e.g. a load balancer target), counted when the template has readinessGates' },
      },
      additionalProperties: false,
    },
    defaults: { ...PROGRESS_DEADLINE_DEFAULTS },
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/controllers/deployment.md#progress-deadline-seconds',
      'kubernetes/kubernetes pkg/apis/apps/validation/validation.go',
      'kubernetes/kubernetes pkg/controller/deployment/util/deployment_util.go (DeploymentProgressing, DeploymentTimedOut)',
      'kubernetes/kubernetes pkg/scheduler/scheduler.go (newPodInformer: every pod not Succeeded or Failed, terminating ones included)',
      'kubernetes/kubernetes#126389 (a pod with hostname anti-affinity is placed only once the old pod on the node has reached a terminal phase)',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      const v = progressDeadlineDecision(w, ctx.params);
      const wait = v?.kind === 'rejected' ? undefined : oldPodWaitDecision(ctx.graph, w, ctx.version, ctx.params);
      if (wait) {
        const d = w.deployment!;
        const pdsText = d.progressDeadlineSet ? `progressDeadlineSeconds ${wait.pds}` : `the default progressDeadlineSeconds (${wait.pds})`;
        ctx.report({
          object: w.obj,
          pointer: d.progressDeadlineSet ? '/spec/progressDeadlineSeconds' : '/spec',
          severity: 'warning',
          message: `${pdsText} is shorter than a rollout step of this Deployment: it takes pods down first (maxUnavailable >= 1) and ${wait.what} keep${wait.what.startsWith('host ports') ? '' : 's'} a new pod off a node that still runs an old one, so on a cluster without a spare node the replacement stays Pending until the old pod is gone (kube-scheduler counts a terminating pod until its containers exit), and an old pod's termination lasts ${wait.termination.words}: no progress for longer than the deadline, so the Deployment is reported ProgressDeadlineExceeded and \`kubectl rollout status\` (and CD tools) fail the rollout while it still proceeds; raise progressDeadlineSeconds to at least ${wait.needed}s (the termination + ${wait.realisticParts.join(' + ')})${wait.termination.known ? '' : ', or declare the real drain with kubegrace.dev/drain-seconds if the app exits sooner'}, or keep a spare node so replacements need not wait`,
          fix: { description: `raise progressDeadlineSeconds to ${wait.needed} (an old pod's termination plus a realistic rollout step)`, safety: 'proposal', edits: [{ op: 'set', pointer: '/spec/progressDeadlineSeconds', value: wait.needed }] },
        });
        continue;
      }
      if (!v) continue;
      const d = w.deployment!;
      const { pds, mrs, step } = v;
      const pdsText = d.progressDeadlineSet ? `progressDeadlineSeconds ${pds}` : `the default progressDeadlineSeconds (${pds})`;
      if (v.kind === 'rejected') {
        ctx.report({
          object: w.obj,
          pointer: d.progressDeadlineSet ? '/spec/progressDeadlineSeconds' : '/spec/minReadySeconds',
          severity: 'error',
          message: `${pdsText} <= minReadySeconds ${mrs}: the API rejects it ("must be greater than minReadySeconds"); raise progressDeadlineSeconds to at least ${Math.max(step, mrs + 1)}s`,
          fix: {
            description: `raise progressDeadlineSeconds to ${Math.max(step, mrs + 1)} (above minReadySeconds ${mrs})`,
            safety: 'safe',
            edits: [{ op: 'set', pointer: '/spec/progressDeadlineSeconds', value: Math.max(step, mrs + 1) }],
          },
        });
        continue;
      }
      ctx.report({
        object: w.obj,
        pointer: d.progressDeadlineSet ? '/spec/progressDeadlineSeconds' : '/spec',
        severity: v.kind === 'short' ? 'warning' : 'info',
        message:
          v.kind === 'short'
            ? `${pdsText} is shorter than a realistic rollout step of ${v.realistic}s (${v.realisticParts.join(' + ')}): a healthy rollout can be marked ProgressDeadlineExceeded and fail CI; raise progressDeadlineSeconds to at least ${step}s${step > v.realistic ? ` (the slowest step the startup probes allow: ${v.parts.join(' + ')})` : ''}`
            : `${pdsText} covers a rollout step whose probes pass at their first try (${v.realistic}s: ${v.realisticParts.join(' + ')}), but not the slowest step the startup probes allow, ${step}s (${v.parts.join(' + ')}): a pod that takes most of its startupProbe budget to start is reported ProgressDeadlineExceeded (and \`kubectl rollout status\` fails CI) while the kubelet still waits for it; raise progressDeadlineSeconds to ${step}s if starts can take that long (a first start that migrates a schema or loads an index), else lower the startupProbe's failureThreshold`,
        // Above minReadySeconds already: a longer deadline is advice about this cluster, not a repair.
        fix: { description: `raise progressDeadlineSeconds to ${step} (a realistic rollout step)`, safety: 'proposal', edits: [{ op: 'set', pointer: '/spec/progressDeadlineSeconds', value: step }] },
      });
    }
  },
};
