import { Rule } from '../engine/types';
import { isObject, Json } from '../model/types';
import { ContainerView, DEFAULTS, num, Workload } from '../model/workload';

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
 * <= minReadySeconds (error), `short` when it is below a realistic step (warning); undefined when
 * not reported. `step` is that realistic step and `parts` what it is made of.
 */
export interface ProgressDeadlineDecision {
  kind: 'rejected' | 'short';
  pds: number;
  mrs: number;
  step: number;
  parts: string[];
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
  if (pds <= mrs) return { kind: 'rejected', pds, mrs, step, parts };
  if (pds === NO_DEADLINE || pds >= step) return undefined;
  return { kind: 'short', pds, mrs, step, parts };
}

export const progressDeadline: Rule = {
  meta: {
    id: 'progress-deadline',
    spec: 'ROLL-004',
    defaultSeverity: 'error',
    severities: ['error', 'warning'],
    description: 'progressDeadlineSeconds <= minReadySeconds (API rejects); too short for a realistic step (warning)',
    doc: `\`progressDeadlineSeconds\` (default 600) is how long the Deployment controller waits for a rollout step to
make progress before it sets \`Progressing=False, reason=ProgressDeadlineExceeded\`. Kubernetes does not roll back
on its own; CI running \`kubectl rollout status\` exits non-zero at the deadline.

Conditions:
- **error:** \`progressDeadlineSeconds <= minReadySeconds\`: the API rejects the Deployment ("must be greater than minReadySeconds").
- **warning:** \`progressDeadlineSeconds\` is shorter than a realistic per-step time:
  \`minReadySeconds\` + image pull (param \`imagePullSeconds\`, default 60) + the startup-probe budget
  (\`initialDelaySeconds + failureThreshold × periodSeconds\`, defaults 0/3/10: the largest among main containers,
  plus each native sidecar's, since sidecars start one after another) + readiness-gate registration
  (param \`readinessGateSeconds\`, default 60, counted only when the template has \`readinessGates\`).
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
        severity: 'warning',
        message: `${pdsText} is shorter than a realistic rollout step of ${step}s (${v.parts.join(' + ')}): a healthy rollout can be marked ProgressDeadlineExceeded and fail CI; raise progressDeadlineSeconds to at least ${step}s`,
        // Above minReadySeconds already: a longer deadline is advice about this cluster, not a repair.
        fix: { description: `raise progressDeadlineSeconds to ${step} (a realistic rollout step)`, safety: 'proposal', edits: [{ op: 'set', pointer: '/spec/progressDeadlineSeconds', value: step }] },
      });
    }
  },
};
