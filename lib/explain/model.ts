/**
 * The termination timeline of one workload (graceful-termination.md section 1 and section 9), as a
 * pure model that the text and SVG renderers draw. Every number comes from the same lib/timeline
 * functions the rules judge with (containerBudget, drainSeconds, shutdownAddends, the mesh readers),
 * so the picture and the linter agree; the linter's own findings for the object are attached too.
 */
import { activeCatalog } from '../catalog';
import { sigtermIgnored } from '../timeline/sigterm';
import { RuleSetting } from '../engine/policy';
import { applySetting } from '../engine/run';
import { Finding } from '../engine/types';
import { KubeVersion } from '../engine/version';
import { HINT, ObjectGraph, ServedState } from '../model/graph';
import { servedStateOf, sideOnlyPushed, sideOnlyReason, trafficContainers } from '../model/traffic';
import { KObject } from '../model/types';
import { ContainerView, Workload, workloadOf } from '../model/workload';
import { isHelmTestHook, lbFronts } from '../rules/lb-util';
import { LB_PROPAGATION_DEFAULTS } from '../rules/lb-deregistration-delay';
import { parseSidecarDrainHint, shutdownAddends, sidecarDrainSeconds, SIDECAR_DRAIN_HINT } from '../timeline/addends';
import { Addend, containerBudget, containerDrainRead, containerDrainSeconds, drainSeconds, MINIMUM_GRACE_AFTER_HOOK, recommendedGrace } from '../timeline/budget';
import { ISTIO, IstioMesh, istioMesh, istioNativeByDefault, LINKERD, LinkerdMesh, linkerdMesh } from '../timeline/mesh';
import { DEFAULT_WAIT_PATTERNS, hookRuns, PRESTOP_SECONDS_HINT, PreStopDelay, podPreStopDelay } from '../timeline/prestop';
import { DEFAULT_SHELL_LESS_IMAGE_PATTERNS } from '../timeline/shell-less';
import { BudgetVerdict, budgetTerms, MainStop, terminationSchedule } from '../timeline/schedule';
import { servesAfterSigterm } from '../timeline/serves-after-sigterm';
import { RolloutPlan, rolloutPlan } from './rollout';

/** What a bar on a lane stands for. */
export type PhaseKind =
  /** Endpoint removal reaching kube-proxy, ingresses, meshes, load balancers (lag unbounded). */
  | 'propagation'
  /** The preStop hook (or a mesh proxy's wait-before-exit) runs; the grace clock is already running. */
  | 'prestop'
  /** After SIGTERM the program keeps accepting by itself before it drains (CoreDNS's lameduck; catalog). */
  | 'serving'
  /** After SIGTERM: the app finishes in-flight work (kubegrace.dev/drain-seconds). */
  | 'drain'
  /** A native sidecar's shutdown after its SIGTERM (kubegrace.dev/sidecar-drain-seconds). */
  | 'sidecar-drain'
  /** A mesh proxy draining (Istio terminationDrainDuration, Linkerd shutdown after wait-before-exit). */
  | 'mesh-drain'
  /** Running, waiting for its SIGTERM (native sidecars wait for the main containers). */
  | 'waiting'
  /** Something the timeline cuts short or gets wrong (drawn red). */
  | 'violation';

export interface Phase {
  kind: PhaseKind;
  start: number;
  end: number;
  label: string;
  /** A shorter label for narrow bars. */
  shortLabel?: string;
  /** The end is an assumption or an upper bound, not a known time. */
  open?: boolean;
  /** For violations: the rule that judges this condition. */
  ruleId?: string;
  /** Drawn over the lane's other phases (a strip), not instead of them: the lane keeps running. */
  overlay?: boolean;
}

export type EventKind = 'deletion' | 'endpoints' | 'prestop-start' | 'prestop-end' | 'sigterm' | 'exit' | 'deadline' | 'sigkill' | 'gone';

export interface TimelineEvent {
  at: number;
  kind: EventKind;
  /** The lane the event belongs to (undefined for pod-wide events). */
  lane?: string;
  label: string;
  violation?: boolean;
}

export type LaneRole = 'endpoints' | 'main' | 'sidecar' | 'proxy-classic' | 'proxy-native';

export interface Lane {
  /** Container name, or "endpoints". */
  name: string;
  role: LaneRole;
  /** Short description under the name: "main", "native sidecar #2", "linkerd-proxy (classic, injected)". */
  detail: string;
  /** Not in the manifest: the mesh injector adds it. */
  injected?: boolean;
  phases: Phase[];
  /** The container's own preStop hook, as classified (absent for lanes that are not containers). */
  preStop?: PreStopDelay;
  /** SIGTERM time, when known. */
  sigterm?: number;
  /** When the container is gone (exit or SIGKILL). */
  exit?: number;
  /** SIGKILL time when it is still running then. */
  killedAt?: number;
}

export interface Violation {
  ruleId: string;
  severity: 'error' | 'warning' | 'info';
  /** Lane the violation is drawn on. */
  lane: string;
  at: number;
  /** One line for the picture. */
  message: string;
}

export interface ContainerBudgetLine {
  container: string;
  preStop: PreStopDelay;
  /** Seconds the program keeps accepting after SIGTERM by itself (catalog), before its drain. */
  servesAfter: number;
  drain: number;
  addend: number;
  /** preStop + servesAfter + drain + addend, when the preStop delay is known. */
  needed?: number;
  /** The grace period the constructs would choose: recommendedGrace(). */
  recommended?: number;
  /** grace-period-budget judges it: a known hook, or no hook with a declared drain time. */
  judged: boolean;
}

export interface Budget {
  grace: number;
  graceSet: boolean;
  addends: Addend[];
  containers: ContainerBudgetLine[];
  /** The container whose need is largest (known needs only). */
  binding?: ContainerBudgetLine;
  /** binding.needed - grace; > 0 means the budget is exceeded. */
  overBy?: number;
}

export interface Timeline {
  object: { apiVersion: string; kind: string; name: string; namespace?: string; file: string; line: number; column: number };
  kind: Workload['kind'];
  served: boolean;
  /** served, unserved, or unknown (no Service in the input and no hint). */
  servedState: ServedState;
  /** Why a workload that Services select is not served (their ports carry no client traffic: sideOnlyReason). */
  servedReason?: string;
  /** A Helm test hook (helm.sh/hook: test): its pod exists only while `helm test` runs. */
  helmTestHook?: boolean;
  grace: number;
  graceSet: boolean;
  /** Seconds the SIGKILL of the last container comes at (grace, or grace + 2 after an over-long hook). */
  sigkillAt: number;
  /** When the whole pod is gone. */
  podGoneAt: number;
  /** podGoneAt is a lower bound: a main container's preStop runs for a time nothing tells. */
  podGoneAtLeast?: boolean;
  lanes: Lane[];
  events: TimelineEvent[];
  violations: Violation[];
  budget: Budget;
  /** The linter's findings for this object (suppressed ones excluded). */
  findings: Finding[];
  rollout: RolloutPlan;
  /** What the model had to assume, in sentences. */
  assumptions: string[];
  /** Right end of the time axis, seconds. */
  horizon: number;
}

export interface ExplainOptions {
  /** preStop wait-command patterns (grace-period-budget param waitPatterns). */
  waitPatterns?: string[];
  /** linkerd-proxy-drain param nativeDefault (default false). */
  linkerdNativeDefault?: boolean;
  /** istio-proxy-drain param istioNativeDefault (default true). */
  istioNativeDefault?: boolean;
  /** The policy's rule settings: the schedule's verdicts get the severities (and offs) lint gives them. */
  ruleSettings?: ReadonlyMap<string, RuleSetting>;
  /** native-sidecar-grace-budget params. */
  maxSidecarPreStopSleepSeconds?: number;
  exitPatterns?: string[];
  /** prestop-sleep-action param shellLessImagePatterns: an exec sleep hook in such an image cannot run (0 s). */
  shellLessImagePatterns?: readonly string[];
  /** The linter's findings of the whole run; those of this object are attached. */
  findings?: Finding[];
}

/** Seconds for messages: "5s", "2.5s". */
export function secs(n: number): string {
  return Number.isInteger(n) ? `${n}s` : `${Math.round(n * 10) / 10}s`;
}

const KNOWN_DELAY = new Set(['sleep', 'exec-sleep', 'exec-sleep-then', 'exec-then-sleep', 'exec-stop-then-sleep', 'exec-wait', 'exec-known']);

/**
 * A delay explain can draw: a known kind, a program whose duration the prestop-seconds hint
 * declares, or an httpGet that waits for another container's known hook.
 */
function knownDelay(p: PreStopDelay): boolean {
  return p.hinted === true || KNOWN_DELAY.has(p.kind) || (p.awaits !== undefined && p.seconds !== undefined);
}

/** Violations whose judgement belongs to a rule with more context than the timeline (see agreeWithLinter). */
const ADVISORY = new Set(['prestop-missing', 'lb-deregistration-delay', 'linkerd-proxy-drain', 'istio-proxy-drain']);

function preStopWords(p: PreStopDelay): string {
  if (p.cannotRun) return `preStop exec sleep ${secs(p.cannotRun.seconds)} that cannot run (shell-less image)`;
  if (p.hinted && p.seconds !== undefined) return `preStop ${p.kind === 'httpGet' ? 'httpGet' : 'program'} ${secs(p.seconds)} (${PRESTOP_SECONDS_HINT})`;
  switch (p.kind) {
    case 'sleep':
      return `preStop sleep ${secs(p.seconds!)}`;
    case 'exec-sleep':
      return `preStop exec sleep ${secs(p.seconds!)}`;
    case 'exec-sleep-then':
      return `preStop sleeps ${secs(p.seconds!)}, then more`;
    case 'exec-then-sleep':
      return `preStop runs a command, then sleeps ${secs(p.seconds!)}`;
    case 'exec-stop-then-sleep':
      return `preStop signals the app (${p.stop}), then sleeps ${secs(p.waitSeconds!)}`;
    case 'exec-wait':
      return `preStop wait ${secs(p.seconds!)}`;
    case 'exec-known':
      return p.seconds === undefined ? `preStop ${p.program}` : `preStop ${p.program} ${p.bound === 'at-least' ? '>= ' : ''}${secs(p.seconds)}`;
    case 'httpGet':
      return p.awaits ? `preStop httpGet, waits for ${p.awaits}${p.seconds === undefined ? '' : ` (${p.bound === 'at-least' ? '>= ' : ''}${secs(p.seconds)})`}` : 'preStop httpGet';
    case 'tcpSocket':
      return 'preStop tcpSocket';
    case 'exec-other':
      return 'preStop exec';
    case 'invalid':
      return 'preStop (invalid)';
    default:
      return 'no preStop';
  }
}

/** The workload's own findings: same file and object, not suppressed. */
function findingsFor(w: Workload, findings: Finding[], withSuppressed = false): Finding[] {
  const o = w.obj;
  return findings.filter((f) => (withSuppressed || !f.suppressed) && f.file === o.file && f.object.kind === o.kind && f.object.name === o.name && (f.object.namespace ?? '') === (o.namespace ?? ''));
}

/** The first sentence of a finding's message (up to the first ": " or "; "). */
function firstSentence(m: string): string {
  const i = m.search(/[:;] /);
  return i > 0 ? m.slice(0, i) : m;
}

/** A nice tick step for an axis that must show `span` seconds. */
export function tickStep(span: number): number {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600];
  for (const s of steps) if (span / s <= 10) return s;
  return Math.ceil(span / 10 / 3600) * 3600;
}

/**
 * The termination timeline of one workload. `workload` is the workload view or its object (as the
 * graph holds it); the graph supplies Services, Namespaces and load balancers.
 */
export function explainWorkload(graph: ObjectGraph, workload: Workload | KObject, version: KubeVersion, opts: ExplainOptions = {}): Timeline {
  const w = 'podSpec' in workload ? workload : workloadOf(workload);
  if (!w) throw new Error(`${(workload as KObject).kind}/${(workload as KObject).name} is not a workload`);
  const G = w.grace;
  const annotations = w.annotations;
  // A hook may wait for another container's (podPreStopDelay, catalog awaitedBy).
  const pod = w.containers;
  const patterns = opts.waitPatterns ?? DEFAULT_WAIT_PATTERNS;
  // An exec sleep in an image without a shell or sleep binary fails at once (the schedule's reading).
  const shellLess = opts.shellLessImagePatterns ?? DEFAULT_SHELL_LESS_IMAGE_PATTERNS;
  const namespace = graph.namespace(w.obj.namespace ?? 'default');
  const lk = linkerdMesh(w, { namespace, nativeDefault: opts.linkerdNativeDefault ?? false });
  const is = istioMesh(w, { namespace, nativeDefault: istioNativeByDefault(opts.istioNativeDefault ?? true, version) });
  const addends = shutdownAddends(graph, w);
  // The one decision lint and explain share: when each container stops, and the budget verdicts.
  const sched = terminationSchedule(graph, w, {
    waitPatterns: patterns,
    maxSidecarPreStopSleepSeconds: opts.maxSidecarPreStopSleepSeconds,
    exitPatterns: opts.exitPatterns,
    shellLessImagePatterns: shellLess,
    linkerdNativeDefault: lk?.mode === 'native',
    istioNativeDefault: is?.mode === 'native',
  });
  const servedState = servedStateOf(graph, w);
  /** Why Services that select the pods carry no client traffic to them (traffic.ts sideOnlyReason), when that is why they are not served. */
  const sideOnly = sideOnlyReason(graph, w);
  // Services that select the pods but whose every port is a side port (a metrics-only Service: the
  // aws-efs-csi-driver controller's efs-csi-controller on "metrics" 3301; review round 13).
  const sideServices = sideOnly === undefined && servedState === 'unserved' ? graph.servicesFor(w).filter((s) => s.metricsOnly) : [];
  const served = servedState === 'served';
  const servedContainers = new Set(trafficContainers(graph, w).map((c) => c.name));
  const assumptions: string[] = [];
  const violations: Violation[] = [];
  const events: TimelineEvent[] = [];
  const lanes: Lane[] = [];
  /** Whether a main container's preStop runs for a time nothing tells (its SIGTERM and the pod's end are then lower bounds). */
  let hookOfUnknownLength = false;
  const D = drainSeconds(w);
  const drainDeclared = w.annotations[HINT.drainSeconds] !== undefined;
  // (Containers whose program's own setting gives the drain say so in their own lines.)
  if (!drainDeclared && w.containers.some((c) => activeCatalog().drainSeconds(c)?.seconds === undefined)) assumptions.push(`app drain after SIGTERM: ${secs(D)} (default; set kubegrace.dev/drain-seconds to state it)`);

  // ---- budget (exactly what grace-period-budget computes)
  const budgetLines: ContainerBudgetLine[] = w.containers.map((c) => {
    const b = containerBudget(w, c, addends, patterns, graph, shellLess);
    const s = b.preStop.kind === 'none' ? 0 : b.preStop.seconds;
    const judged = s !== undefined && (hookRuns(b.preStop) || drainDeclared || b.servesAfter > 0 || containerDrainRead(c));
    return { container: c.name, preStop: b.preStop, servesAfter: b.servesAfter, drain: b.drain, addend: b.addend, needed: b.needed, recommended: s === undefined ? undefined : recommendedGrace(s + b.servesAfter, b.drain, b.addend), judged };
  });
  const binding = budgetLines.filter((l) => l.needed !== undefined).reduce<ContainerBudgetLine | undefined>((a, l) => (!a || l.needed! > a.needed! ? l : a), undefined);
  const budget: Budget = { grace: G, graceSet: w.graceSet, addends, containers: budgetLines, binding, overBy: binding ? binding.needed! - G : undefined };

  // ---- which containers are mesh proxies, and how they behave
  const classicLinkerd = lk && lk.mode === 'classic' ? lk : undefined;
  const classicIstio = is && is.mode === 'classic' && !is.gateway ? is : undefined;
  const proxyKind = (name: string): 'linkerd' | 'istio' | undefined => {
    if (classicLinkerd && name === LINKERD.proxyContainer) return 'linkerd';
    if (classicIstio && name === ISTIO.proxyContainer) return 'istio';
    return undefined;
  };

  // ---- grace 0: the kubelet skips preStop hooks and leaves only its 2 s minimum before SIGKILL
  // (zero-grace-period); the pod object is removed from the API at once.
  if (G === 0) {
    events.push({ at: 0, kind: 'deletion', label: 'pod deleted with grace 0: removed from the API at once, no preStop hook runs' });
    for (const c of [...w.containers, ...w.sidecars]) {
      const sidecar = c.role === 'sidecar';
      const drain = sidecar ? sidecarDrainSeconds(parseSidecarDrainHint(w.annotations[SIDECAR_DRAIN_HINT]), c) : containerDrainSeconds(w, c);
      const kill = MINIMUM_GRACE_AFTER_HOOK;
      const lane: Lane = { name: c.name, role: sidecar ? 'sidecar' : 'main', detail: sidecar ? 'native sidecar' : 'main', phases: [], sigterm: 0 };
      lane.phases.push({ kind: sidecar ? 'sidecar-drain' : 'drain', start: 0, end: Math.min(drain, kill), label: `drain ${secs(drain)}` });
      events.push({ at: 0, kind: 'sigterm', lane: c.name, label: `SIGTERM → ${c.name}`, violation: true });
      if (drain > kill) {
        lane.phases.push({ kind: 'violation', start: kill, end: drain, label: `killed, ${secs(drain - kill)} short`, ruleId: 'zero-grace-period' });
        lane.killedAt = kill;
        lane.exit = kill;
        events.push({ at: kill, kind: 'sigkill', lane: c.name, label: `SIGKILL → ${c.name} (${MINIMUM_GRACE_AFTER_HOOK}s minimum)`, violation: true });
      } else {
        lane.exit = drain;
        events.push({ at: drain, kind: 'exit', lane: c.name, label: `${c.name} exits` });
      }
      lanes.push(lane);
    }
    // zero-grace-period reports every workload with grace 0 (error for a StatefulSet); listed with the
    // severity the policy gives it, and not where the policy turns it off or the object suppresses it.
    const zeroSetting = opts.ruleSettings?.get('zero-grace-period');
    const suppressed = opts.findings !== undefined && findingsFor(w, opts.findings, true).some((f) => f.ruleId === 'zero-grace-period' && f.suppressed);
    if (!zeroSetting?.off && !suppressed) {
      violations.push({
        ruleId: 'zero-grace-period',
        severity: applySetting(w.kind === 'StatefulSet' ? 'error' : 'warning', zeroSetting),
        lane: w.containers[0]?.name ?? '',
        at: 0,
        message: `terminationGracePeriodSeconds 0: no preStop, SIGTERM at once and SIGKILL ${MINIMUM_GRACE_AFTER_HOOK}s later${w.kind === 'StatefulSet' ? '; the replacement with the same identity can start while the old pod still runs' : ''}`,
      });
    }
    return finish();
  }

  // ---- endpoints lane
  const mainLanes: Lane[] = [];
  // When each served container stops accepting: its SIGTERM (a hook longer than the grace period is
  // cut at the deadline), plus the time its program keeps serving by itself (the schedule's).
  const servedPreStops: { at: number; serving: boolean }[] = [];
  for (const c of w.containers) {
    if (!servedContainers.has(c.name)) continue;
    const p = podPreStopDelay(c, annotations, patterns, pod, shellLess);
    const A = stopOfContainer(c)?.servesAfter ?? 0;
    servedPreStops.push({ at: Math.min(G, Math.min(G, p.kind === 'none' ? 0 : (p.seconds ?? 0)) + A), serving: A > 0 });
  }
  const fronts = served ? lbFronts(graph, w) : [];
  const lbWindow = fronts.reduce<{ seconds: number; what: string } | undefined>((a, f) => {
    const s = f.kind === 'nlb-ip' ? LB_PROPAGATION_DEFAULTS.nlbPropagationSeconds : f.kind === 'neg' ? LB_PROPAGATION_DEFAULTS.negPropagationSeconds : f.kind === 'local' ? undefined : LB_PROPAGATION_DEFAULTS.albPropagationSeconds;
    if (s === undefined) return a;
    return !a || s > a.seconds ? { seconds: s, what: f.label } : a;
  }, undefined);
  if (served) {
    const first = servedPreStops.reduce<{ at: number; serving: boolean } | undefined>((a, x) => (!a || x.at < a.at ? x : a), undefined);
    const covered = first?.at ?? 0;
    const lane: Lane = { name: 'endpoints', role: 'endpoints', detail: 'Service routing', phases: [] };
    events.push({ at: 0, kind: 'endpoints', lane: lane.name, label: 'EndpointSlice: ready=false, terminating=true; proxies and load balancers catch up' });
    if (lbWindow) {
      lane.phases.push({ kind: 'propagation', start: 0, end: lbWindow.seconds, label: `LB keeps sending ~${secs(lbWindow.seconds)}`, open: true });
      assumptions.push(`${lbWindow.what}: keeps sending new requests for about ${secs(lbWindow.seconds)} after deregistration (lb-deregistration-delay default window)`);
      if (covered < lbWindow.seconds) {
        lane.phases.push({ kind: 'violation', start: covered, end: lbWindow.seconds, label: 'LB traffic after SIGTERM', ruleId: 'lb-deregistration-delay', overlay: true });
        violations.push({ ruleId: 'lb-deregistration-delay', severity: 'warning', lane: lane.name, at: covered, message: `the load balancer still sends new requests until ~${secs(lbWindow.seconds)}, but SIGTERM comes at ${secs(covered)}` });
      }
    } else if (covered > 0) {
      lane.phases.push({ kind: 'propagation', start: 0, end: covered, label: first?.serving ? `propagating; still served to ${secs(covered)}` : `propagating; preStop holds SIGTERM to ${secs(covered)}`, open: true });
    } else {
      lane.phases.push({ kind: 'propagation', start: 0, end: Math.min(G, 5), label: 'propagating: lag unknown', open: true });
      assumptions.push('endpoint propagation has no upper bound; the bar shows a nominal 5s');
    }
    lanes.push(lane);
  } else {
    assumptions.push(
      servedState === 'unknown'
        ? 'served: unknown (no Service in the input): endpoint removal is not drawn; the budget is judged all the same'
        : sideOnly !== undefined
          ? `not served: ${sideOnly}, so there is no ${sideOnlyPushed(graph, w) ? 'request' : 'client traffic'} whose endpoint removal to wait for`
          : sideServices.length
            ? `not served: ${sideServices.map((s) => `Service ${s.obj.name}`).join(', ')} ${sideServices.length === 1 ? 'routes' : 'route'} to these pods only ports named for metrics, operators or peers (${[...new Set(sideServices.flatMap((s) => s.ports.map((p) => String(p.name ?? p.port))))].join(', ')}), so there is no client traffic whose endpoint removal to wait for`
            : 'not served: no Service in the input routes to these pods (or kubegrace.dev/served: "false"), so there is no endpoint removal to wait for',
    );
  }

  // ---- main containers (app containers and classic proxies), all starting at t=0
  events.push({ at: 0, kind: 'deletion', label: `pod deleted: grace period ${secs(G)} starts` });
  for (const c of w.containers) {
    const proxy = proxyKind(c.name);
    const lane = proxy === 'linkerd' ? linkerdLane(c, classicLinkerd!) : proxy === 'istio' ? istioLane(c, classicIstio!) : appLane(c);
    mainLanes.push(lane);
  }
  // Classic proxies the injector adds (not in the manifest): they stop in parallel with the app.
  if (classicLinkerd && !classicLinkerd.proxy) mainLanes.push(linkerdLane(undefined, classicLinkerd));
  if (classicIstio && !classicIstio.proxy) mainLanes.push(istioLane(undefined, classicIstio));
  lanes.push(...mainLanes);

  // Ordering constraints between classic proxies and the app (linkerd-proxy-drain, istio-proxy-drain).
  const apps = mainLanes.filter((l) => l.role === 'main');
  for (const proxyLane of mainLanes.filter((l) => l.role === 'proxy-classic')) {
    const isLinkerd = proxyLane.name === LINKERD.proxyContainer;
    for (const app of apps) {
      if (app.exit === undefined) continue;
      if (isLinkerd) {
        const n = classicLinkerd!.waitBeforeExitSeconds;
        const appPre = app.sigterm ?? 0;
        if (n > 0 && n < G && appPre > 0 && appPre >= n) markProxyGone(app, proxyLane.sigterm ?? n, 'linkerd-proxy shutting down', 'linkerd-proxy-drain', `linkerd-proxy gets SIGTERM at ${secs(n)}, no later than "${app.name}" (${secs(appPre)}): its calls while draining fail`);
        // No wait: the proxy refuses new connections from 0s, through the app's preStop and drain.
        else if (n === 0 && appPre > 0) markProxyGone(app, proxyLane.sigterm ?? 0, 'linkerd-proxy refusing connections', 'linkerd-proxy-drain', `linkerd-proxy gets SIGTERM at 0s (no wait before exit) and refuses new connections while "${app.name}" sleeps in its preStop until ${secs(appPre)}: requests reaching the pod and its own calls while draining fail`);
      } else if (!classicIstio!.exitOnZeroActiveConnections) {
        const gone = proxyLane.exit ?? 0;
        // As istio-proxy-drain: an app without a hook counts only when its drain time is declared.
        const judged = (app.preStop !== undefined && app.preStop.kind !== 'none') || drainDeclared;
        if (judged && app.exit > gone) markProxyGone(app, gone, 'istio-proxy gone', 'istio-proxy-drain', `istio-proxy stops after terminationDrainDuration ${secs(classicIstio!.terminationDrainDurationSeconds)}, before "${app.name}" finishes draining at ${secs(app.exit)}: its calls after that fail`);
      }
    }
  }

  // ---- native sidecars: drawn from the schedule (SIGTERM after every main container exited, one by
  // one in reverse order, after their own preStop), which also decides the violations.
  const drawnProxies = mainLanes.filter((l) => l.role === 'proxy-classic' && !sched.mains.some((m) => m.name === l.name && m.counted));
  if (sched.sidecars.length) {
    for (const l of drawnProxies) assumptions.push(`${l.name}: classic mode is only the default here; the native sidecars' turn is judged without waiting for it`);
  }
  const nativeLanes: Lane[] = [];
  sched.sidecars.forEach((s, i) => {
    const lane: Lane = {
      name: s.name,
      role: s.mesh ? 'proxy-native' : 'sidecar',
      detail: `${s.mesh ? `${s.mesh} proxy, ` : ''}native sidecar${s.injected ? ' (injected)' : ''}`,
      injected: s.injected,
      phases: [],
      sigterm: s.sigterm,
      exit: s.exit,
    };
    if (s.injected && !s.counted) assumptions.push(`${s.name}: native mode is the ${s.mesh === 'istio' ? 'Istio >= 1.28 default on Kubernetes >= 1.33' : 'assumed default'}; it quits at once after its SIGTERM, and the budget (shutdownAddends) does not count it`);
    if (s.preStopSeconds !== undefined && s.preStopSeconds > 0) lane.phases.push({ kind: 'prestop', start: 0, end: Math.min(s.preStopSeconds, G), label: `own preStop ${secs(s.preStopSeconds)} (runs at once)` });
    if (s.sigterm > 0) lane.phases.unshift({ kind: 'waiting', start: 0, end: s.sigterm, label: s.noTurn ? 'waits for the main containers' : 'waits for its turn' });
    const why = s.noTurn ? 'deadline reached' : i === 0 ? 'main containers gone' : 'previous sidecar gone';
    events.push({ at: s.sigterm, kind: 'sigterm', lane: s.name, label: `SIGTERM → ${s.name} (${why})`, violation: s.cut });
    if (s.cut) {
      const end = s.sigterm + s.drain;
      if (s.noTurn) lane.phases.push({ kind: 'violation', start: G, end, label: 'no turn before the deadline', ruleId: 'native-sidecar-grace-budget' });
      else {
        if (s.killedAt! > s.sigterm) lane.phases.push({ kind: 'sidecar-drain', start: s.sigterm, end: s.killedAt!, label: `drain ${secs(s.drain)}` });
        lane.phases.push({ kind: 'violation', start: s.killedAt!, end, label: `killed, ${secs(end - s.killedAt!)} short`, ruleId: 'native-sidecar-grace-budget' });
      }
      lane.killedAt = s.killedAt;
      events.push({ at: s.killedAt!, kind: 'sigkill', lane: s.name, label: `SIGKILL → ${s.name}`, violation: true });
    } else {
      if (s.drain > 0) lane.phases.push({ kind: s.mesh ? 'mesh-drain' : 'sidecar-drain', start: s.sigterm, end: s.exit, label: `drain ${secs(s.drain)}` });
      events.push({ at: s.exit, kind: 'exit', lane: s.name, label: `${s.name} exits` });
    }
    nativeLanes.push(lane);
  });
  // Lanes in declaration order (the stop order is reverse, and the picture shows it by time).
  lanes.push(...nativeLanes.reverse());

  return finish();

  // -------------------------------------------------------------------------------------------

  function appLane(c: ContainerView): Lane {
    const pre = podPreStopDelay(c, annotations, patterns, pod, shellLess);
    const lane: Lane = { name: c.name, role: 'main', detail: `main, ${preStopWords(pre)}`, preStop: pre, phases: [] };
    let S: number;
    if (pre.kind === 'none') S = 0;
    else if (pre.seconds !== undefined && knownDelay(pre)) S = pre.seconds;
    else {
      S = 0;
      if (pre.kind === 'tcpSocket') assumptions.push(`"${c.name}": a tcpSocket preStop is deprecated and fails at once: SIGTERM is immediate`);
      else if (pre.awaits) assumptions.push(`"${c.name}": its preStop httpGet returns when "${pre.awaits}"'s hook does, whose duration is unknown; drawn as returning at once; declare it with ${PRESTOP_SECONDS_HINT} to have it judged`);
      else assumptions.push(`"${c.name}": the ${preStopWords(pre)} hook's duration is unknown (it blocks until it returns, at most the grace period); drawn as returning at once; declare it with ${PRESTOP_SECONDS_HINT} to have it judged`);
    }
    const atLeast = pre.bound === 'at-least' ? 'at least ' : '';
    // (The oauth2-proxy chart's own suggestion, sh -c "sleep 60" in its distroless image; review round 29.)
    if (pre.cannotRun) assumptions.push(`"${c.name}": its preStop exec sleep ${secs(pre.cannotRun.seconds)} cannot run in the shell-less image "${pre.cannotRun.image}": the hook fails (FailedPreStopHook) and SIGTERM comes at once; drawn with no delay (prestop-sleep-action)`);
    if (pre.kind === 'exec-sleep-then') assumptions.push(`"${c.name}": its preStop does more after sleeping ${secs(S)}; drawn as ${secs(S)} (a lower bound)`);
    if (pre.kind === 'exec-then-sleep') assumptions.push(`"${c.name}": its preStop runs a command before sleeping ${secs(S)}; drawn as ${secs(S)} (a lower bound), serving meanwhile (unless that command stops the app)`);
    // (A hook that signals the app before it sleeps: the shutdown starts at 0 s, and the sleep is the
    // drain window; review round 33, report p39.)
    const stopFirst = pre.kind === 'exec-stop-then-sleep' && !pre.hinted ? pre : undefined;
    if (stopFirst) assumptions.push(`"${c.name}": its preStop signals the app first ("${stopFirst.stop}"): drawn as its stop signal at 0s, and the sleep ${secs(stopFirst.waitSeconds!)} after it as the drain window (the container stays up until the app exits or the hook ends)`);
    if (pre.kind === 'exec-known' && pre.seconds !== undefined && !pre.hinted) {
      if (activeCatalog().get(pre.program!)?.preStop?.awaitedBy) {
        // The program drains another container (Contour's shutdown-manager drains Envoy): it does not
        // accept traffic itself; the containers whose preStop waits for it keep serving.
        const waiters = pod.filter((o) => o.name !== c.name && podPreStopDelay(o, annotations, patterns, pod, shellLess).awaits === c.name).map((o) => `"${o.name}"`);
        const held = waiters.length ? `; ${waiters.join(', ')} ${waiters.length === 1 ? 'waits' : 'wait'} for it in ${waiters.length === 1 ? 'its' : 'their'} own preStop and ${waiters.length === 1 ? 'keeps' : 'keep'} serving until it ends` : '';
        assumptions.push(`"${c.name}": its preStop runs ${pre.program} (catalog), which lasts ${atLeast}${secs(S)}${held}; see docs/catalog.md`);
      } else assumptions.push(`"${c.name}": its preStop runs ${pre.program} (catalog), which keeps accepting for ${atLeast}${secs(S)}; see docs/catalog.md`);
    }
    if (pre.kind === 'httpGet' && pre.awaits && pre.seconds !== undefined && !pre.hinted) assumptions.push(`"${c.name}": its preStop httpGet returns when "${pre.awaits}"'s hook (${pre.program}, catalog) does: ${atLeast}${secs(S)}`);
    // A program that keeps serving after SIGTERM by itself (catalog): the schedule's time, and what it comes from.
    const A = stopOfContainer(c)?.servesAfter ?? 0;
    const after = servesAfterSigterm(c, w!, graph);
    if (after && A > 0) assumptions.push(`"${c.name}": ${after.entry.title} (catalog ${after.entry.id}): keeps accepting ${secs(A)} after SIGTERM${after.derivation ? ` (${after.derivation})` : ''}, then drains; see docs/catalog.md`);
    else if (A > 0 && after?.seconds === undefined) assumptions.push(`"${c.name}": keeps accepting ${secs(A)} after SIGTERM, then drains (the ${HINT.servesAfterSigterm} hint)`);
    else if (after?.seconds === undefined && after?.derivation) assumptions.push(`"${c.name}": ${after.entry.title} (catalog ${after.entry.id}): ${after.derivation}; drawn as accepting nothing after SIGTERM`);
    // Its drain: the schedule's (declared, else its program's own setting in the catalog, else the default).
    const Dc = stopOfContainer(c)?.appDrain ?? D;
    const drainFrom = drainDeclared ? undefined : activeCatalog().drainSeconds(c);
    if (drainFrom?.seconds !== undefined) assumptions.push(`"${c.name}": ${drainFrom.entry.title} (catalog ${drainFrom.entry.id}): drains ${secs(Dc)} after it stops accepting, from its own settings${drainFrom.derivation ? ` (${drainFrom.derivation})` : ''}; see docs/catalog.md`);
    else if (drainFrom?.derivation) assumptions.push(`"${c.name}": ${drainFrom.entry.title} (catalog ${drainFrom.entry.id}): its drain cannot be read (${drainFrom.derivation}); drawn as ${secs(Dc)}`);
    const unknownHook = pre.kind !== 'none' && pre.kind !== 'tcpSocket' && !(pre.seconds !== undefined && knownDelay(pre));
    if (unknownHook) hookOfUnknownLength = true;
    // PID 1 that never receives SIGTERM (tail, sleep, a shell without a trap): it runs until SIGKILL.
    const ignored = w ? sigtermIgnored(w, c) : undefined;
    if (ignored && G > 0) {
      const kill = Math.max(G, S + MINIMUM_GRACE_AFTER_HOOK);
      assumptions.push(`"${c.name}": runs ${ignored.how}, which never receives SIGTERM: drawn running until SIGKILL at ${secs(kill)} (grace-period-budget)`);
      return signalLane(lane, S, kill - S + 1, hookRuns(pre) && pre.kind !== 'tcpSocket', servedContainers.has(c.name), 'grace-period-budget', 'drain', 'ignores SIGTERM: runs until SIGKILL', true, 'ignores SIGTERM', 0, unknownHook, true);
    }
    return signalLane(lane, S, Dc, hookRuns(pre) && pre.kind !== 'tcpSocket', servedContainers.has(c.name), 'grace-period-budget', 'drain', undefined, false, undefined, A, unknownHook, containerDrainRead(c) || stopFirst !== undefined, stopFirst?.stop);
  }

  /** The schedule's stop of a main container of the manifest. */
  function stopOfContainer(c: ContainerView): MainStop | undefined {
    return sched.mains.find((m) => m.container === c);
  }

  /** preStop [0,S], SIGTERM, drain, deadline handling, shared by app containers and classic proxies. */
  function signalLane(lane: Lane, S: number, drain: number, hasHook: boolean, isServed: boolean, ruleId: string, drainKind: PhaseKind = 'drain', drainLabel?: string, drainOpen = false, drainShort?: string, servesAfter = 0, unknownHook = false, drainRead = false, hookStop?: string): Lane {
    // (A hook of unknown length is drawn as returning at once: the kubelet signals only when it returns,
    // so SIGTERM and what follows are lower bounds, and the events say so; review round 12.)
    if (hasHook) events.push({ at: 0, kind: 'prestop-start', lane: lane.name, label: `preStop starts → ${lane.name}${unknownHook ? ' (length unknown)' : ''}` });
    if (S >= G && hasHook) {
      // The hook outlives the grace period: the kubelet cuts it, SIGTERM, then 2s, then SIGKILL.
      // One red span: from the deadline to where the hook would have ended (at least the 2 s).
      lane.phases.push({ kind: 'prestop', start: 0, end: G, label: `preStop ${secs(S)}` });
      lane.sigterm = G;
      lane.killedAt = G + MINIMUM_GRACE_AFTER_HOOK;
      lane.exit = Math.min(G + drain, lane.killedAt);
      lane.phases.push({ kind: 'violation', start: G, end: Math.max(S, G + MINIMUM_GRACE_AFTER_HOOK), label: `hook cut: SIGTERM, ${MINIMUM_GRACE_AFTER_HOOK}s, SIGKILL`, ruleId });
      events.push({ at: G, kind: 'sigterm', lane: lane.name, label: `SIGTERM → ${lane.name} (hook cut at the deadline)`, violation: true });
      events.push({ at: lane.killedAt, kind: 'sigkill', lane: lane.name, label: `SIGKILL → ${lane.name} (${MINIMUM_GRACE_AFTER_HOOK}s after SIGTERM)`, violation: true });
      if (ruleId !== 'grace-period-budget') violations.push({ ruleId, severity: 'error', lane: lane.name, at: G, message: `"${lane.name}": preStop ${secs(S)} >= grace ${secs(G)}: SIGTERM only at the deadline, SIGKILL ${MINIMUM_GRACE_AFTER_HOOK}s later, no time to drain ${secs(drain)}` });
      return lane;
    }
    if (S > 0) {
      lane.phases.push({ kind: 'prestop', start: 0, end: S, label: `preStop ${secs(S)}` });
      events.push({ at: S, kind: 'prestop-end', lane: lane.name, label: `preStop ends → ${lane.name}` });
    }
    lane.sigterm = S;
    // Served with no time at all between deletion and the listener closing (prestop-missing); a hook
    // that signals the app first (hookStop) stops it at 0 s too.
    const closesAtOnce = S === 0 && isServed && (!hasHook || hookStop !== undefined) && servesAfter === 0;
    const label = hookStop !== undefined ? `${hookStop} → ${lane.name} (its preStop signals it first: the shutdown starts; SIGTERM follows when the hook ends)` : unknownHook ? `SIGTERM → ${lane.name} when its preStop returns (length unknown: drawn at ${secs(S)}, a lower bound)` : `SIGTERM → ${lane.name}`;
    events.push({ at: S, kind: 'sigterm', lane: lane.name, label, violation: closesAtOnce });
    if (closesAtOnce) {
      const what = hookStop !== undefined ? `its preStop signals it at 0s ("${hookStop}")` : 'gets SIGTERM at 0s';
      violations.push({ ruleId: 'prestop-missing', severity: 'warning', lane: lane.name, at: 0, message: `"${lane.name}" ${what} while clients are still routed to it${hookStop !== undefined ? '' : ' (no preStop)'}` });
    }
    const kill = Math.max(G, S + MINIMUM_GRACE_AFTER_HOOK);
    // The program keeps accepting after SIGTERM, then drains (the schedule's order).
    const A = Math.min(servesAfter, Math.max(0, kill - S));
    if (A > 0) lane.phases.push({ kind: 'serving', start: S, end: S + A, label: `serves after SIGTERM ${secs(servesAfter)}`, shortLabel: secs(servesAfter) });
    if (servesAfter > A) {
      lane.phases.push({ kind: 'violation', start: kill, end: S + servesAfter + drain, label: `killed while still serving, ${secs(S + servesAfter + drain - kill)} short`, ruleId });
      events.push({ at: kill, kind: 'sigkill', lane: lane.name, label: `SIGKILL → ${lane.name} (still serving)`, violation: true });
      lane.killedAt = kill;
      lane.exit = kill;
      return lane;
    }
    S += servesAfter;
    const end = S + drain;
    // Like grace-period-budget: without a hook, the default drain is an assumption, not judged (a
    // drain read from the program's own settings is known).
    const assumed = drainKind === 'drain' && !hasHook && !drainDeclared && servesAfter === 0 && !drainRead;
    if (end > kill) {
      lane.phases.push({ kind: drainKind, start: S, end: kill, label: drainLabel ?? `drain ${secs(drain)}${assumed ? ' (assumed)' : ''}`, shortLabel: drainShort, open: drainOpen || assumed });
      if (!drainOpen && !assumed) {
        lane.phases.push({ kind: 'violation', start: kill, end, label: `killed, ${secs(end - kill)} short`, ruleId });
        if (ruleId !== 'grace-period-budget') violations.push({ ruleId, severity: 'warning', lane: lane.name, at: kill, message: `"${lane.name}": preStop ${secs(S)} + drain ${secs(drain)} = ${secs(end)} > grace ${secs(G)}: SIGKILL at ${secs(kill)} cuts the drain` });
        events.push({ at: kill, kind: 'sigkill', lane: lane.name, label: `SIGKILL → ${lane.name} (still draining)`, violation: true });
        lane.killedAt = kill;
      } else {
        events.push({ at: kill, kind: 'sigkill', lane: lane.name, label: `SIGKILL → ${lane.name} (if still running)` });
        if (assumed) assumptions.push(`"${lane.name}": the assumed ${secs(drain)} drain does not fit before SIGKILL at ${secs(kill)}; declare kubegrace.dev/drain-seconds to have it judged`);
      }
      lane.exit = kill;
    } else {
      if (drain > 0) lane.phases.push({ kind: drainKind, start: S, end, label: drainLabel ?? `drain ${secs(drain)}`, shortLabel: drainShort, open: drainOpen });
      lane.exit = end;
      events.push({ at: end, kind: 'exit', lane: lane.name, label: `${lane.name} exits${drainOpen ? ' (at the latest)' : ''}` });
    }
    return lane;
  }

  function linkerdLane(c: ContainerView | undefined, m: LinkerdMesh): Lane {
    const n = m.waitBeforeExitSeconds;
    const lane: Lane = {
      name: LINKERD.proxyContainer,
      role: 'proxy-classic',
      detail: `linkerd proxy, classic${c ? '' : ', injected'}; wait-before-exit ${secs(n)}`,
      injected: !c,
      phases: [],
    };
    const sgp = m.shutdownGracePeriodSeconds;
    // The schedule's model: it closes its connections and exits once the app's are gone.
    const modelled = sched.mains.find((x) => x.proxy === 'linkerd');
    const drain = modelled ? modelled.exit - modelled.sigterm : sgp;
    assumptions.push(`linkerd-proxy: after SIGTERM it closes its connections and exits once the app's are gone (${secs(drain)} here), at most shutdown-grace-period ${secs(sgp)}`);
    return signalLane(lane, n, drain, n > 0, false, 'linkerd-proxy-drain', 'mesh-drain', `closes connections (≤ ${secs(sgp)})`, !modelled, `≤ ${secs(sgp)}`);
  }

  function istioLane(c: ContainerView | undefined, m: IstioMesh): Lane {
    const window = m.exitOnZeroActiveConnections ? m.minimumDrainDurationSeconds : m.terminationDrainDurationSeconds;
    const what = m.exitOnZeroActiveConnections ? `MINIMUM_DRAIN_DURATION ${secs(window)}, then until 0 connections` : `terminationDrainDuration ${secs(window)}`;
    const lane: Lane = { name: ISTIO.proxyContainer, role: 'proxy-classic', detail: `istio proxy, classic${c ? '' : ', injected'}`, injected: !c, phases: [] };
    const pre = c ? podPreStopDelay(c, annotations, patterns, pod, shellLess) : ({ kind: 'none' } as PreStopDelay);
    const S = pre.seconds !== undefined && knownDelay(pre) ? pre.seconds : 0;
    return signalLane(lane, S, window, S > 0, false, 'istio-proxy-drain', 'mesh-drain', `Envoy drains: ${what}`, m.exitOnZeroActiveConnections, `drain ${secs(window)}`);
  }

  function markProxyGone(app: Lane, from: number, label: string, ruleId: string, message: string): void {
    const to = app.exit ?? from;
    if (to <= from) return;
    app.phases.push({ kind: 'violation', start: from, end: to, label, ruleId, overlay: true });
    violations.push({ ruleId, severity: 'warning', lane: app.name, at: from, message });
  }

  /**
   * Advisory violations depend on the rule's full judgement (hints such as "serves after SIGTERM",
   * admission-time injection, suppressions): when the linter's findings are given, keep such a
   * mark only where the linter reports that rule for this object (and container), so the picture
   * and the linter agree. What SIGKILL does to a process is drawn regardless.
   */
  function agreeWithLinter(own: Finding[]): void {
    if (!opts.findings) return;
    const named = (f: Finding) => /container "([^"]+)"/.exec(f.message)?.[1];
    const reported = (ruleId: string, laneName: string) => own.some((f) => f.ruleId === ruleId && (laneName === 'endpoints' || named(f) === undefined || named(f) === laneName));
    const computed = new Map<string, Violation[]>();
    for (let i = violations.length - 1; i >= 0; i--) {
      const v = violations[i];
      if (!ADVISORY.has(v.ruleId)) continue;
      violations.splice(i, 1);
      computed.set(v.ruleId, [...(computed.get(v.ruleId) ?? []), v]);
      if (reported(v.ruleId, v.lane)) continue;
      const l = lanes.find((x) => x.name === v.lane);
      if (l) l.phases = l.phases.filter((p) => p.ruleId !== v.ruleId);
      for (const e of events) if (e.lane === v.lane && e.kind === 'sigterm' && v.ruleId === 'prestop-missing') e.violation = false;
    }
    // The linter's findings of these rules are the violations: one each, placed where the timeline
    // shows the condition when it does.
    for (const f of own) {
      if (!ADVISORY.has(f.ruleId)) continue;
      const name = named(f);
      const drawn = (computed.get(f.ruleId) ?? []).find((v) => name === undefined || v.lane === name);
      const lane = drawn?.lane ?? (name && lanes.some((l) => l.name === name) ? name : f.ruleId === 'linkerd-proxy-drain' ? LINKERD.proxyContainer : f.ruleId === 'istio-proxy-drain' ? ISTIO.proxyContainer : (lanes[0]?.name ?? ''));
      violations.push({ ruleId: f.ruleId, severity: f.severity, lane, at: drawn?.at ?? 0, message: drawn?.message ?? firstSentence(f.message) });
    }
  }

  /** A verdict of the termination schedule (grace-period-budget, native-sidecar-grace-budget) as a violation. */
  function verdictViolation(v: BudgetVerdict): Violation {
    const base = { ruleId: v.ruleId, severity: v.severity };
    switch (v.kind) {
      case 'hook-exceeds-grace':
        return { ...base, lane: v.container, at: G, message: `"${v.container}": preStop ${secs(v.preStop)} >= grace ${secs(G)}: SIGTERM only at the deadline, SIGKILL ${MINIMUM_GRACE_AFTER_HOOK}s later, no time to drain ${secs(v.drain)}` };
      case 'budget': {
        if (v.stopFirst) {
          const terms = budgetTerms(v, '', secs).filter((t) => !t.startsWith('preStop '));
          return { ...base, lane: v.container, at: G, message: `"${v.container}": its preStop signals it first ("${v.stopFirst.stop}"), then sleeps ${secs(v.stopFirst.wait)} while it drains: ${terms.join(' + ')} = ${secs(v.needed)} > grace ${secs(G)}: the deadline cuts the drain` };
        }
        const parts = budgetTerms(v, '', secs);
        return { ...base, lane: v.container, at: G, message: `"${v.container}": ${parts.join(' + ')} = ${secs(v.needed)} > grace ${secs(G)}: SIGKILL at the deadline cuts the shutdown` };
      }
      case 'sidecar-turn': {
        const s = sched.sidecars.find((x) => x.name === v.sidecar);
        return { ...base, lane: v.sidecar!, at: s?.killedAt ?? G, message: v.why! };
      }
      case 'sidecar-prestop-exit':
        return { ...base, lane: v.container, at: 0, message: `"${v.container}": its preStop makes it exit at the start of termination (${v.why}), while the main containers still need it` };
      case 'sidecar-prestop-sleep':
        return { ...base, lane: v.container, at: 0, message: `"${v.container}": its preStop sleeps ${secs(v.sleep!)} (> ${v.why}) at the start of termination; it only uses up the grace period` };
      default:
        return { ...base, lane: lanes[0]?.name ?? '', at: 0, message: v.why! };
    }
  }

  function finish(): Timeline {
    const own = findingsFor(w!, opts.findings ?? []);
    agreeWithLinter(own);
    // The schedule's verdicts are what the two budget rules report: with the policy's severities,
    // without the rules it turns off or the object suppresses.
    const all = opts.findings ? findingsFor(w!, opts.findings, true) : [];
    for (const v of sched.verdicts) {
      const setting = opts.ruleSettings?.get(v.ruleId);
      if (setting?.off || all.some((f) => f.ruleId === v.ruleId && f.suppressed)) continue;
      violations.push({ ...verdictViolation(v), severity: applySetting(v.severity, setting) });
    }
    const exits = lanes.map((l) => l.exit ?? 0);
    const podGoneAt = Math.max(0, ...exits);
    const sigkillAt = Math.max(G, ...lanes.map((l) => l.killedAt ?? 0));
    // (Below the kubelet's minimum, killContainer raises the grace period to it: no SIGKILL at 1s; review round 20.)
    events.push({
      at: G,
      kind: 'deadline',
      label:
        G === 0
          ? `grace period 0: only the kubelet's ${MINIMUM_GRACE_AFTER_HOOK}s minimum before SIGKILL`
          : G < MINIMUM_GRACE_AFTER_HOOK
            ? `grace period ${secs(G)} ends: the kubelet raises it to its ${MINIMUM_GRACE_AFTER_HOOK}s minimum before SIGKILL`
            : `grace deadline (${secs(G)}): SIGKILL to whatever still runs`,
    });
    events.push({ at: podGoneAt, kind: 'gone', label: hookOfUnknownLength ? 'pod gone (at the earliest: a preStop of unknown length runs first)' : 'pod gone' });
    const order: Record<EventKind, number> = { deletion: 0, endpoints: 1, 'prestop-start': 2, 'prestop-end': 3, sigterm: 4, exit: 5, deadline: 6, sigkill: 7, gone: 8 };
    const laneIndex = new Map(lanes.map((l, i) => [l.name, i]));
    events.sort((a, b) => a.at - b.at || order[a.kind] - order[b.kind] || (laneIndex.get(a.lane ?? '') ?? -1) - (laneIndex.get(b.lane ?? '') ?? -1));
    violations.sort((a, b) => a.at - b.at || (laneIndex.get(a.lane) ?? 0) - (laneIndex.get(b.lane) ?? 0));
    const ends = lanes.flatMap((l) => l.phases.map((p) => p.end));
    const far = Math.max(1, G, sigkillAt, podGoneAt, budget.binding?.needed ?? 0, ...ends);
    const step = tickStep(far * 1.05);
    const horizon = Math.ceil((far * 1.05) / step) * step;
    return {
      object: { apiVersion: w!.obj.apiVersion, kind: w!.obj.kind, name: w!.obj.name, namespace: w!.obj.namespace, file: w!.obj.file, line: w!.obj.line, column: w!.obj.column },
      kind: w!.kind,
      served,
      servedState,
      ...(sideOnly !== undefined ? { servedReason: sideOnly } : {}),
      ...(isHelmTestHook(w!.obj) && { helmTestHook: true }),
      grace: G,
      graceSet: w!.graceSet,
      sigkillAt,
      podGoneAt,
      ...(hookOfUnknownLength && { podGoneAtLeast: true }),
      lanes,
      events,
      violations,
      budget,
      findings: own,
      rollout: rolloutPlan(graph, w!, version, podGoneAt, { ruleSettings: opts.ruleSettings, shutdownAtLeast: hookOfUnknownLength }),
      assumptions,
      horizon,
    };
  }
}
