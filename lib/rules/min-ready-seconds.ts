import { Fix, FixEdit, Rule } from '../engine/types';
import { servedStateOf } from '../model/traffic';
import { connectionPatternOf } from '../catalog';
import { rolloutFor } from './rollout-util';
import { HINT, ServiceView } from '../model/graph';
import { isObject } from '../model/types';
import { DEFAULTS, get, num, Workload } from '../model/workload';
import { Backoff, DEFAULT_BACKOFF, DEFAULT_RECONNECT_PROBABILITY, estimateReconnect, formatBackoff, parseBackoff } from '../timeline/reconnect';
import { RuleContext } from '../engine/types';

const AWS_NLB_TARGET = 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type';
const ALB_TARGET = 'alb.ingress.kubernetes.io/target-type';

/** Behind an AWS load balancer with IP targets (LB-001): a Service annotation or an ALB Ingress. */
function externalLb(ctx: RuleContext, w: Workload, services: ServiceView[]): string | undefined {
  for (const s of services) if (s.annotations[AWS_NLB_TARGET] === 'ip') return `NLB IP targets (Service ${s.obj.name})`;
  const names = new Set(services.map((s) => s.obj.name));
  for (const o of ctx.graph.ofKindIn('Ingress', w.obj.namespace)) {
    if (o.namespace !== w.obj.namespace) continue;
    if (get(o.raw, 'metadata', 'annotations', ALB_TARGET) !== 'ip') continue;
    const backends: string[] = [];
    const def = get(o.raw, 'spec', 'defaultBackend', 'service', 'name');
    if (typeof def === 'string') backends.push(def);
    const rules = get(o.raw, 'spec', 'rules');
    if (Array.isArray(rules)) {
      for (const r of rules) {
        const paths = get(r, 'http', 'paths');
        if (Array.isArray(paths)) for (const p of paths) if (isObject(p) && typeof get(p, 'backend', 'service', 'name') === 'string') backends.push(get(p, 'backend', 'service', 'name') as string);
      }
    }
    if (backends.some((b) => names.has(b))) return `ALB IP targets (Ingress ${o.name})`;
  }
  return undefined;
}

/**
 * minReadySeconds to the value the finding names. The API requires progressDeadlineSeconds >
 * minReadySeconds (ROLL-004); when the deadline is not above it, it goes to minReadySeconds plus the
 * default deadline (600 s), so the rest of a step keeps the budget it had by default. A proposal:
 * it slows every rollout (section 12).
 */
function minReadyFix(w: Workload, seconds: number): Fix {
  const edits: FixEdit[] = [{ op: 'set', pointer: '/spec/minReadySeconds', value: seconds }];
  const d = w.deployment;
  if (d && d.progressDeadlineSeconds <= seconds) {
    const pds = seconds + DEFAULTS.progressDeadlineSeconds;
    edits.push({ op: 'set', pointer: '/spec/progressDeadlineSeconds', value: pds });
    return { description: `set minReadySeconds to ${seconds} and progressDeadlineSeconds to ${pds}`, safety: 'proposal', edits };
  }
  return { description: `set minReadySeconds to ${seconds}`, safety: 'proposal', edits };
}

export const minReadySeconds: Rule = {
  meta: {
    id: 'min-ready-seconds',
    spec: 'ROLL-003',
    defaultSeverity: 'info',
    severities: ['error', 'warning', 'info'],
    description: 'long-lived-connection or fan-in workload with minReadySeconds below what its reconnect model needs',
    doc: `A pod joins the Service endpoints as soon as it is Ready, but the rollout counts it as
*available* only after \`minReadySeconds\`, and only then replaces the next old pod. That pause is
the time clients get to connect to the new pod before another one goes away.

The connection pattern comes from the \`kubegrace.dev/connection-pattern\` hint, else from the
catalog of well-known workloads ([docs/catalog.md](../catalog.md): e.g. the Teleport proxy is
fan-in, istiod and the Linkerd destination controller are long-lived), else it is
\`short\`. The hint always wins; a policy can add or disable catalog entries (\`spec.catalog\`).

- **fan-in** (\`kubegrace.dev/connection-pattern: fan-in\`): clients must hold a connection to
  *every* replica (Teleport-style reverse tunnels). Through a load balancer each attempt reaches
  the new replica with probability 1/N, so reconnecting takes retries. The reconnect model of
  graceful-termination.md section 11 gives the wait for a target probability
  (\`kubegrace.dev/reconnect-probability\`, default 0.7) and the client's backoff
  (\`kubegrace.dev/reconnect-backoff\`, default the catalog entry's backoff, else \`linear:2-4\`): a warning when \`minReadySeconds\` is
  below it, an error when the needed wait does not even fit under \`progressDeadlineSeconds\`
  (the rollout would be reported as failed).
- **long-lived** connections (WebSockets, gRPC streams) with at least 2 replicas (with one there
  is no next old pod to protect) and a rollout in steps (not a Deployment whose \`maxSurge\` covers
  every replica, such as istiod's 100%: all new pods start at once, so there is no pause between
  replacements to add), or pods behind an AWS load balancer with IP targets: info when
  \`minReadySeconds\` is 0.

Not judged: a Deployment with \`strategy.type: Recreate\` (every old pod goes before the new ones
start) and a StatefulSet with \`updateStrategy.type: OnDelete\` (no rollout steps): there is no next
old pod for \`minReadySeconds\` to hold back (\`recreate-strategy\` judges the former).

Fix (3 replicas, P = 0.7, linear:2-4 backoff: Y = 1.97 retries, T <= 19.5 s):

\`\`\`yaml
spec:
  minReadySeconds: 20
  strategy:
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
\`\`\`

A full rollout with \`maxSurge: 1\` then takes about N x (startup + minReadySeconds). StatefulSet
\`minReadySeconds\` needs Kubernetes >= 1.23 (beta on; GA 1.25).

**\`--fix\`** (proposal): fan-in workloads get \`minReadySeconds\` from the reconnect model (section 11) and, when that reaches \`progressDeadlineSeconds\`, a deadline of minReadySeconds + 600 s; long-lived and IP-target LB workloads get the \`minReadySeconds\` param (and a deadline above it). Malformed hints get no fix.`,
    fixable: true,
    versionGate: 'StatefulSet minReadySeconds (StatefulSetMinReadySeconds): beta on 1.23, GA 1.25',
    paramsSchema: { type: 'object', properties: { longLivedMinReadySeconds: { type: 'integer', minimum: 1 } }, additionalProperties: false },
    defaults: { longLivedMinReadySeconds: 10 },
    references: [
      'kubernetes/website content/en/docs/concepts/workloads/controllers/deployment.md#min-ready-seconds',
      'gravitational/teleport#13129 and PR #16465 (chart default minReadySeconds: 15)',
      'graceful-termination.md section 11 (reconnect model)',
    ],
  },
  check(ctx) {
    for (const w of ctx.graph.workloads) {
      if (w.kind !== 'Deployment' && w.kind !== 'StatefulSet') continue;
      if (w.kind === 'StatefulSet' && !ctx.version.atLeast(1, 23)) continue;
      // minReadySeconds paces the steps of a rolling update (ROLL-003's semantics): Recreate removes
      // every old pod first, and OnDelete has no steps, so there is nothing for it to pace.
      if (w.deployment?.type === 'Recreate') continue;
      if (w.kind === 'StatefulSet' && get(w.obj.raw, 'spec', 'updateStrategy', 'type') === 'OnDelete') continue;
      // A connection pattern (hint or catalog) is itself evidence of clients: skip only known-unserved pods.
      if (servedStateOf(ctx.graph, w) === 'unserved') continue;
      const current = num(get(w.obj.raw, 'spec', 'minReadySeconds')) ?? 0;
      const pointer = get(w.obj.raw, 'spec', 'minReadySeconds') !== undefined ? '/spec/minReadySeconds' : '/spec';
      // The hint, else the catalog of well-known workloads (e.g. the Teleport proxy: fan-in), else short.
      const cp = connectionPatternOf(w, { catalog: ctx.catalog, routedPorts: ctx.graph.servicesFor(w).flatMap((s) => s.ports) });
      const pattern = cp.pattern;
      const known = cp.entry ? ` (${cp.entry.title}: catalog entry ${cp.entry.id})` : '';
      if (pattern === 'fan-in') {
        const replicas = ctx.graph.effectiveReplicas(w) ?? 1;
        // Scaled to zero (or a malformed count): no replica is replaced, so there is nothing to size.
        if (!Number.isInteger(replicas) || replicas < 1) continue;
        let probability = DEFAULT_RECONNECT_PROBABILITY;
        let backoff: Backoff = cp.reconnectBackoff ? parseBackoff(cp.reconnectBackoff) : DEFAULT_BACKOFF;
        const pRaw = w.annotations[HINT.reconnectProbability];
        if (pRaw !== undefined) {
          const p = Number(pRaw);
          if (!(p > 0 && p < 1)) {
            ctx.report({ object: w.obj, pointer: w.templatePointer ? `${w.templatePointer}/metadata/annotations` : '/metadata/annotations', severity: 'warning', message: `${HINT.reconnectProbability} "${pRaw}" is not a probability between 0 and 1 (exclusive); using ${DEFAULT_RECONNECT_PROBABILITY}` });
          } else probability = p;
        }
        const bRaw = w.annotations[HINT.reconnectBackoff];
        if (bRaw !== undefined) {
          try {
            backoff = parseBackoff(bRaw);
          } catch (e) {
            ctx.report({ object: w.obj, pointer: w.templatePointer ? `${w.templatePointer}/metadata/annotations` : '/metadata/annotations', severity: 'warning', message: `${(e as Error).message}; using ${formatBackoff(DEFAULT_BACKOFF)}` });
          }
        }
        const est = estimateReconnect(replicas, probability, backoff);
        const needed = est.suggestedMinReadySeconds;
        if (current >= needed) continue;
        const model = `${replicas} replicas, P=${probability}, ${formatBackoff(backoff)}: ${est.retries.toFixed(2)} retries, up to ${est.tMax.toFixed(1)}s`;
        const deadline = w.deployment?.progressDeadlineSeconds;
        if (deadline !== undefined && needed >= deadline) {
          ctx.report({
            object: w.obj,
            pointer,
            severity: 'error',
            message: `fan-in clients${known} need minReadySeconds >= ${needed}s to reconnect to each new replica (${model}), which is not below progressDeadlineSeconds (${deadline}s): the rollout would be reported failed; lower the target probability or replicas, or raise progressDeadlineSeconds above ${needed}s`,
            fix: minReadyFix(w, needed),
          });
        } else {
          ctx.report({
            object: w.obj,
            pointer,
            severity: 'warning',
            message: `minReadySeconds ${current}s is below the ${needed}s fan-in clients${known} need to reconnect to a new replica before the next one is replaced (${model}); set minReadySeconds: ${needed}`,
            fix: minReadyFix(w, needed),
          });
        }
        continue;
      }
      if (current > 0) continue;
      const lb = externalLb(ctx, w, ctx.graph.trafficServices(w));
      // With one replica there is no next old pod for the pause to protect: long-lived clients
      // simply move to the new pod (an LB target registration lag still matters with one). Nor when
      // the surge covers every replica (istiod's maxSurge 100%): all new pods start at once and the
      // old ones go as they become available, so minReadySeconds delays that step but puts no pause
      // between replacements.
      const replicas = ctx.graph.effectiveReplicas(w) ?? 1;
      const oneStep = w.kind === 'Deployment' && (rolloutFor(w, replicas)?.surge ?? 0) >= replicas;
      const longLived = pattern === 'long-lived' && replicas >= 2 && !oneStep;
      if (longLived || lb) {
        const why = longLived ? `clients hold long-lived connections${known}` : `it sits behind ${lb}, whose target registration lags readiness`;
        ctx.report({
          object: w.obj,
          pointer,
          severity: 'info',
          message: `minReadySeconds is 0 while ${why}: each new pod is counted available at once and the next old pod goes before clients have moved; set minReadySeconds: ${ctx.params.longLivedMinReadySeconds as number} or more`,
          fix: minReadyFix(w, ctx.params.longLivedMinReadySeconds as number),
        });
      }
    }
  },
};
