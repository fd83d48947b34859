import { Rule } from '../engine/types';
import { isObject, Json } from '../model/types';
import { ContainerView, DEFAULTS, num, Workload } from '../model/workload';
import { startupEstimate } from './rollout-util';

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

export function progressDeadlineDecision(w: Workload, params: Record<string, unknown>): ProgressDeadlineDecision | undefined {
  const d = w.deployment;
  if (w.kind !== 'Deployment' || !d) return undefined;
  const pull = typeof params.imagePullSeconds === 'number' ? params.imagePullSeconds : PROGRESS_DEADLINE_DEFAULTS.imagePullSeconds;
  const gate = typeof params.readinessGateSeconds === 'number' ? params.readinessGateSeconds : PROGRESS_DEADLINE_DEFAULTS.readinessGateSeconds;
  const pds = d.progressDeadlineSeconds;
  const mrs = d.minReadySeconds;
  const startup = startupBudget(w);
  const hasGates = Array.isArray(w.podSpec.readinessGates) && w.podSpec.readinessGates.length > 0;
  const step = mrs + pull + startup.seconds + (hasGates ? gate : 0);
  const parts = [`minReadySeconds ${mrs}`, `image pull ${pull}s`, ...startup.parts];
  if (hasGates) parts.push(`readiness gates ${gate}s`);
  // The startup probes' budget is the most a start may take, not what it takes: a step as the probes
  // pass at their first try (their initial delays, as startupEstimate counts them) is the realistic one.
  const expected = startup.parts.length ? startupEstimate(w) : undefined;
  const realistic = mrs + pull + (expected?.seconds ?? 0) + (hasGates ? gate : 0);
  const realisticParts = [`minReadySeconds ${mrs}`, `image pull ${pull}s`, ...(expected && expected.seconds > 0 ? [`probe delays ${expected.seconds}s`] : [])];
  if (hasGates) realisticParts.push(`readiness gates ${gate}s`);
  const base = { pds, mrs, step, parts, realistic, realisticParts };
  if (pds <= mrs) return { kind: 'rejected', ...base };
  // (A readiness probe's initial delay can make the realistic step the longer one: the deadline must cover it too.)
  const slowest = Math.max(step, realistic);
  if (pds === NO_DEADLINE || pds >= slowest) return undefined;
  return { kind: pds < realistic ? 'short' : 'slowest', ...base, step: slowest };
}

export const progressDeadline: Rule = {
  meta: {
    id: 'progress-deadline',
    spec: 'ROLL-004',
    defaultSeverity: 'error',
    severities: ['error', 'warning', 'info'],
    description: 'progressDeadlineSeconds <= minReadySeconds (API rejects); too short for a realistic step (warning)',
    doc: `\`progressDeadlineSeconds\` (default 600) is how long the Deployment controller waits for a rollout step to
make progress before it sets \`Progressing=False, reason=ProgressDeadlineExceeded\`. Kubernetes does not roll back
on its own; CI running \`kubectl rollout status\` exits non-zero at the deadline.

Conditions:
- **error:** \`progressDeadlineSeconds <= minReadySeconds\`: the API rejects the Deployment ("must be greater than minReadySeconds").
- **warning:** \`progressDeadlineSeconds\` is shorter than a realistic per-step time:
  \`minReadySeconds\` + image pull (param \`imagePullSeconds\`, default 60) + the startup-probe budget
  as the probes pass + readiness-gate registration
  (param \`readinessGateSeconds\`, default 60, counted only when the template has \`readinessGates\`), where the
  startup probes pass at their first try (their \`initialDelaySeconds\`, and the readiness probe's).
- **info:** \`progressDeadlineSeconds\` is long enough for that step but shorter than the slowest step the
  startup probes allow, with their whole budget (\`initialDelaySeconds + failureThreshold × periodSeconds\`, defaults
  0/3/10: the largest among main containers, plus each native sidecar's, since sidecars start one after another). A
  startupProbe budget is a ceiling for slow starts (a first start that runs migrations), not what a start takes:
  a pod that uses most of it is reported ProgressDeadlineExceeded while the kubelet still waits for it, so either
  raise the deadline or, if starts never take that long, lower the budget.
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
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      const v = progressDeadlineDecision(w, ctx.params);
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
