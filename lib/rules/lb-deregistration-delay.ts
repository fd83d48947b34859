import { Rule } from '../engine/types';
import { servedStateOf } from '../model/traffic';
import { HINT, ObjectGraph } from '../model/graph';
import { ContainerView, Workload } from '../model/workload';
import { shutdownAddends } from '../timeline/addends';
import { containerDrainSeconds, GRACE_MARGIN_SECONDS, recommendedGrace } from '../timeline/budget';
import { neededGrace } from './fix-util';
import { DEFAULT_WAIT_PATTERNS, PreStopDelay, podPreStopDelay } from '../timeline/prestop';
import {
  annotationPointer,
  annotationsOf,
  AWS,
  containersBehind,
  delayAdvice,
  FrontKind,
  graceEdit,
  hookDelayWords,
  LbFront,
  lbFronts,
  PreStopDelayEdit,
  preStopDelayEdit,
  preStopPointer,
  withDeregistrationDelay,
} from './lb-util';
import { graceMessageRef, nameOf } from './util';

const KINDS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Pod']);

export const LB_PROPAGATION_DEFAULTS = { albPropagationSeconds: 30, nlbPropagationSeconds: 60, negPropagationSeconds: 30 } as const;

/** The propagation window param for each kind of front; `local` is external-traffic-local's (health-check window). */
const WINDOW_PARAM: Partial<Record<FrontKind, keyof typeof LB_PROPAGATION_DEFAULTS>> = {
  'alb-ip': 'albPropagationSeconds',
  'nlb-ip': 'nlbPropagationSeconds',
  // A TargetGroupBinding does not say whether its target group belongs to an ALB or an NLB: the smaller window.
  'tgb-ip': 'albPropagationSeconds',
  neg: 'negPropagationSeconds',
};

const WINDOW_NAME: Partial<Record<FrontKind, string>> = {
  'alb-ip': 'ALB',
  'nlb-ip': 'NLB (IP mode)',
  'tgb-ip': 'target group binding',
  neg: 'GKE NEG load balancer',
};

/**
 * The propagation window of the slowest pod-targeting LB in front of the workload, with the default
 * params. external-traffic-local sizes its preStop fix with it too, so that when a pod is behind both
 * kinds of LB the first fix applied already satisfies both rules (a second, longer sleep would be a
 * proposal: lengthening an existing hook).
 */
export function defaultPropagationWindow(g: ObjectGraph, w: Workload): number | undefined {
  let window: number | undefined;
  for (const f of lbFronts(g, w)) {
    const p = WINDOW_PARAM[f.kind];
    if (p && (window === undefined || LB_PROPAGATION_DEFAULTS[p] > window)) window = LB_PROPAGATION_DEFAULTS[p];
  }
  return window;
}

export const lbDeregistrationDelay: Rule = {
  meta: {
    id: 'lb-deregistration-delay',
    spec: 'LB-002',
    defaultSeverity: 'warning',
    severities: ['warning', 'info'],
    description: "preStop shorter than the external LB's propagation window; deregistration delay longer than grace",
    doc: `When a pod behind an external load balancer terminates, the controller deregisters its target, but the
ALB/NLB (or Google's load balancer for NEGs) keeps sending **new** requests to it for tens of seconds; one report
measured about 2 minutes for NLB IP mode regardless of the deregistration delay (community measurement, not AWS
documentation). The preStop delay must outlast that window, and the grace period must cover the delay plus the
app's drain.

**Applies to** served pods behind an external LB that targets pods or nodes:

- AWS Load Balancer Controller IP targets: an ALB Ingress with \`alb.ingress.kubernetes.io/target-type: ip\`, a
  LoadBalancer Service with \`service.beta.kubernetes.io/aws-load-balancer-nlb-target-type: ip\` (or
  \`aws-load-balancer-type: nlb-ip\`), a \`TargetGroupBinding\` with \`targetType: ip\` (see \`lb-readiness-gate\`);
- GKE container-native load balancing: a Service with \`cloud.google.com/neg\`;
- LoadBalancer Services with \`externalTrafficPolicy: Local\` (a NodePort Service gets no health check and no LB).

The containers checked are those behind the fronting Service's client ports (not those for scrapes, operators or
peers, which \`prestop-missing\` skips too: metrics-named ports, an exporter's). Let \`S\` = the preStop delay (0 without a
hook; hooks whose delay is unknown, such as \`httpGet\` or other commands, are skipped), \`G\` = the grace period,
\`drain\` = \`kubegrace.dev/drain-seconds\` (default 10).

**Conditions:**

- **warning:** \`S < LBPropagation\`, the window of the slowest LB in front of the pods: params
  \`albPropagationSeconds\` (default 30; also used for TargetGroupBindings, whose LB type is unknown),
  \`nlbPropagationSeconds\` (default 60, NLB IP mode; the spec gives 60–120) and \`negPropagationSeconds\` (default 30,
  **[unverified]**). For \`externalTrafficPolicy: Local\` the window is the LB health check's, judged by
  \`external-traffic-local\`, so it is not repeated here. The message gives the grace period the longer delay needs.
- A grace period that does not cover a long enough delay and the drain (\`G < S + drain\`) is
  \`grace-period-budget\`'s finding (TERM-001), with the same fix: it is not reported twice.
- **info:** the AWS target group's deregistration delay \`DD\` > \`G\`. \`DD\` is
  \`deregistration_delay.timeout_seconds\` in \`alb.ingress.kubernetes.io/target-group-attributes\` (Ingress, or the
  backend Service, which overrides it) or \`service.beta.kubernetes.io/aws-load-balancer-target-group-attributes\`
  (comma-separated \`key=value\` list), else the AWS default **300**. The LB keeps "draining" a target that has
  already exited, so rollouts and scale-downs only take longer; lower \`DD\` to about \`G\`. Where \`G\` is itself too
  short (the conditions above, or \`grace-period-budget\`'s), \`G\` is the grace period the pods need. Reported on the Ingress
  or Service. Not judged for TargetGroupBindings, whose target group is configured outside the manifests.

**Fix:**

\`\`\`yaml
metadata:
  annotations:
    alb.ingress.kubernetes.io/target-group-attributes: deregistration_delay.timeout_seconds=60
# ...and in the Deployment's pod template:
terminationGracePeriodSeconds: 90
containers:
- name: app
  lifecycle: {preStop: {sleep: {seconds: 45}}}
\`\`\`

**\`--fix\`**: with no preStop hook on >= 1.30, adds a \`sleep\` action covering the window and raises \`terminationGracePeriodSeconds\` to fit (safe); lengthening an existing sleep or exec sleep, or adding exec sleep before 1.30, is a proposal. A grace period shorter than preStop + drain is raised (safe). A deregistration delay longer than grace is lowered in the attributes annotation (proposal), never below the longest grace of the workloads sharing it. Hooks that do more than sleep get no fix.`,
    fixable: true,
    versionGate: 'the fix uses the preStop sleep action on >= 1.30 (PodLifecycleSleepAction beta), exec sleep before',
    paramsSchema: {
      type: 'object',
      properties: {
        albPropagationSeconds: { type: 'number', minimum: 0, default: LB_PROPAGATION_DEFAULTS.albPropagationSeconds },
        nlbPropagationSeconds: { type: 'number', minimum: 0, default: LB_PROPAGATION_DEFAULTS.nlbPropagationSeconds },
        negPropagationSeconds: { type: 'number', minimum: 0, default: LB_PROPAGATION_DEFAULTS.negPropagationSeconds },
        waitPatterns: { type: 'array', items: { type: 'string' } },
      },
      additionalProperties: false,
    },
    defaults: { ...LB_PROPAGATION_DEFAULTS, waitPatterns: DEFAULT_WAIT_PATTERNS },
    references: [
      'kubernetes-sigs/aws-load-balancer-controller docs/guide/ingress/annotations.md (target-group-attributes)',
      'kubernetes-sigs/aws-load-balancer-controller docs/guide/service/annotations.md (target-group-attributes)',
      'https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/1064',
      'https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/1719',
      'https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/2106',
      'https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/2366',
      'https://cloud.google.com/kubernetes-engine/docs/how-to/container-native-load-balancing',
    ],
  },
  check(ctx) {
    const g = ctx.graph;
    const patterns = ctx.params.waitPatterns as string[] | undefined;
    const windowOf = (f: LbFront): number | undefined => {
      const p = WINDOW_PARAM[f.kind];
      if (!p) return undefined;
      const v = ctx.params[p];
      return typeof v === 'number' ? v : LB_PROPAGATION_DEFAULTS[p];
    };

    // First the findings per workload and the grace period its fixes set: every fix of one workload
    // sets the same (largest) value, so applying them in any order converges, and the
    // deregistration-delay fix can be sized to the grace period the pods will have.
    const plans: Plan[] = [];
    for (const w of g.workloads) {
      if (!KINDS.has(w.kind) || servedStateOf(g, w) === 'unserved' || w.grace === 0) continue;
      const fronts = lbFronts(g, w);
      if (!fronts.length) continue;
      const addends = shutdownAddends(g, w);
      const addend = addends.reduce((a, x) => a + x.seconds, 0);
      // The slowest LB in front of the pods sets the window.
      let slowest: LbFront | undefined;
      let window: number | undefined;
      for (const f of fronts) {
        const s = windowOf(f);
        if (s !== undefined && (window === undefined || s > window)) {
          window = s;
          slowest = f;
        }
      }
      const plan: Plan = { w, fronts, addend, items: [], graceTarget: w.grace };
      const services = new Set(fronts.map((f) => f.service));
      for (const c of containersBehind(g, w, services)) {
        const d = podPreStopDelay(c, w.annotations, patterns, w.containers);
        if (d.kind !== 'none' && d.seconds === undefined) continue; // httpGet (unless it waits for a known hook), other commands: delay unknown
        const s = d.kind === 'none' ? 0 : d.seconds!;
        // The container's drain as grace-period-budget counts it (declared, its program's own setting, or the default).
        const drain = containerDrainSeconds(w, c);
        if (window !== undefined && slowest && s < window) {
          // The grace period must then cover the longer delay, the drain and the native sidecars (TERM-001).
          const graceNeed = w.grace < window + drain + addend ? recommendedGrace(window, drain, addend) : undefined;
          const edit = preStopDelayEdit(ctx.version, c, window, patterns);
          plan.items.push({ c, d, s, drain, window, slowest, graceNeed, edit });
          if (edit && graceNeed !== undefined) plan.graceTarget = Math.max(plan.graceTarget, graceNeed);
        }
        // A delay long enough whose grace period is too short for it and the drain (G < S + drain)
        // is grace-period-budget's finding (TERM-001: preStop + drain + addend > grace, the same
        // condition and the same fix): one problem, reported once. Its raise still sizes the
        // deregistration-delay fix below (the grace period the pods will have).
        else if ((d.kind !== 'none' || w.annotations[HINT.drainSeconds] !== undefined) && w.grace < s + drain + addend) {
          // grace-period-budget's own raise (fix-util neededGrace: the neediest main container's
          // preStop, serving after SIGTERM, drain and addends, with the margin), so the two agree.
          plan.graceTarget = Math.max(plan.graceTarget, neededGrace(g, w, undefined, patterns));
        }
      }
      plans.push(plan);
    }

    // A deregistration delay shared by several workloads (one Ingress in front of many backends)
    // may only go down to the longest grace period among them: lower, and it would cut the
    // in-flight requests of the slowest one.
    const sharedGrace = new Map<string, number>();
    for (const p of plans) {
      for (const f of p.fronts) {
        if (!f.dd) continue;
        const key = ddKey(f);
        sharedGrace.set(key, Math.max(sharedGrace.get(key) ?? 0, p.graceTarget));
      }
    }

    const ddReported = new Set<string>();
    for (const { w, fronts, addend, items, graceTarget } of plans) {
      const sidecars = addend > 0 ? ` + native sidecars ${addend}s` : '';
      const raise = graceTarget > w.grace ? [graceEdit(w, graceTarget)] : [];
      for (const it of items) {
        const { c, s, window, drain } = it;
        const hook = it.d.kind === 'none' ? 'has no preStop delay' : hookDelayWords(it.d, s);
        {
          const grace = it.graceNeed !== undefined ? `, and raise terminationGracePeriodSeconds to at least ${it.graceNeed}s (preStop ${window}s + drain ${drain}s${sidecars} + margin ${GRACE_MARGIN_SECONDS}s; now ${graceMessageRef(w)})` : '';
          const edit = it.edit;
          const withGrace = it.graceNeed !== undefined ? raise : [];
          ctx.report({
            object: w.obj,
            pointer: preStopPointer(c),
            severity: 'warning',
            message: `container "${c.name}": ${hook}, shorter than the ${WINDOW_NAME[it.slowest.kind]} propagation window of ${window}s (${it.slowest.label}): the load balancer keeps sending new requests for that long after the pod starts terminating, so they hit a closed socket; set ${delayAdvice(ctx.version, it.d, window)}${grace}`,
            fix: edit && {
              description: `${edit.text}${withGrace.length ? ` and set terminationGracePeriodSeconds to ${graceTarget}` : ''}`,
              safety: edit.safe ? 'safe' : 'proposal',
              edits: [...edit.edits, ...withGrace],
            },
          });
        }
      }
      for (const f of fronts) {
        const dd = f.dd;
        // Against the grace period the pods need (graceTarget: this rule's and grace-period-budget's
        // raise, the same value), not a grace period that is itself too short: else the delay,
        // lowered to it, would be reported again once the grace period is raised.
        if (!dd || dd.seconds <= graceTarget) continue;
        const key = `${dd.object.uid}|${w.obj.uid}`;
        if (ddReported.has(key)) continue;
        ddReported.add(key);
        const attr = ddAttribute(f);
        // Lowered to the grace period the pods will have after their fixes, and never below the
        // longest one of the workloads sharing the target-group attributes. No fix when that does
        // not bring it within this workload's grace period (its own grace fix may resolve it), or
        // when it would not lower it.
        const value = sharedGrace.get(ddKey(f)) ?? graceTarget;
        const fixable = value < dd.seconds && value <= graceTarget;
        ctx.report({
          object: dd.object,
          pointer: dd.pointer,
          severity: 'info',
          message: `the target group's deregistration delay ${dd.seconds}s${dd.set ? '' : ' (the AWS default: deregistration_delay.timeout_seconds is not set)'} exceeds ${graceTarget > w.grace ? `the ${graceTarget}s grace period that ${nameOf(w)} needs (now ${graceMessageRef(w)})` : `${graceMessageRef(w)} of ${nameOf(w)}`}: the load balancer keeps draining targets that have already exited, so rollouts and scale-downs take longer; set deregistration_delay.timeout_seconds=${fixable ? value : graceTarget} in ${attr}`,
          fix: fixable
            ? {
                description: `set deregistration_delay.timeout_seconds=${value} in ${attr}`,
                safety: 'proposal',
                edits: [{ op: 'set', pointer: annotationPointer(attr), value: withDeregistrationDelay(annotationsOf(dd.object)[attr], value) }],
              }
            : undefined,
        });
      }
    }
  },
};

/** One container finding of a workload: its preStop delay is shorter than the LB propagation window. */
interface PlanItem {
  c: ContainerView;
  d: PreStopDelay;
  s: number;
  /** The container's drain (containerDrainSeconds). */
  drain: number;
  window: number;
  slowest: LbFront;
  /** The grace period this finding needs, when it needs a raise. */
  graceNeed?: number;
  /** The preStop edit (window findings), when the hook can be edited safely. */
  edit?: PreStopDelayEdit;
}

interface Plan {
  w: Workload;
  fronts: LbFront[];
  addend: number;
  items: PlanItem[];
  /** The grace period after this rule's fixes: the largest need among its findings, never lower than now. */
  graceTarget: number;
}

/** The annotation holding a front's target-group attributes. */
function ddAttribute(f: LbFront): string {
  return f.kind === 'alb-ip' ? AWS.albTgAttributes : AWS.serviceTgAttributes;
}

/** Identifies the place a deregistration delay is configured: object and annotation. */
function ddKey(f: LbFront): string {
  return `${f.dd!.object.uid}|${ddAttribute(f)}`;
}
