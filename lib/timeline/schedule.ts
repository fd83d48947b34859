/**
 * The termination schedule of one pod, and the budget verdicts drawn from it: the one function
 * that decides what `grace-period-budget` and `native-sidecar-grace-budget` report and what
 * `kubegrace explain` draws and lists, so the two cannot disagree.
 *
 * The kubelet's order (graceful-termination.md section 1; kubernetes/kubernetes
 * pkg/kubelet/kuberuntime/kuberuntime_container.go `killContainer`; KEP-753 "Termination of
 * containers"): every container's preStop starts at once, with the grace clock running; a main
 * container gets its stop signal when its hook returns (at the deadline at the latest), then
 * max(what is left, 2 s) before SIGKILL. A native sidecar runs its own preStop first too, then
 * waits for its turn: after every main container has exited (classic mesh proxies are main
 * containers), one sidecar at a time in reverse declaration order. If the grace period ends first
 * it is signalled then, with the 2 s minimum before SIGKILL.
 *
 * Two readings of the same schedule:
 * - the verdicts use only what is configured or declared: main containers whose preStop delay is
 *   known (or with no hook, when `kubegrace.dev/drain-seconds` declares the drain), classic mesh
 *   proxies the manifest renders or an annotation selects, native sidecars in the manifest or
 *   injected in explicitly native mode (shutdownAddends);
 * - the drawing (explain) also places what it must assume (a default drain, a hook of unknown
 *   duration drawn as returning at once, a mesh mode that is only a default); a cut that only the
 *   assumption causes is drawn as such and judged by no rule.
 */
import { activeCatalog } from '../catalog';
import { HINT, ObjectGraph } from '../model/graph';
import { ContainerView, get, Workload } from '../model/workload';
import { injectedNativeProxies, parseSidecarDrainHint, shutdownAddends, sidecarDrainSeconds, SIDECAR_DRAIN_HINT, DEFAULT_SIDECAR_DRAIN_SECONDS } from './addends';
import { Addend, containerDrainAssumed, containerDrainRead, containerDrainSeconds, drainSeconds, GRACE_MARGIN_SECONDS, MINIMUM_GRACE_AFTER_HOOK, recommendedGrace } from './budget';
import { ISTIO, istioMesh, LINKERD, linkerdMesh } from './mesh';
import { classifyPreStop, hookDrainWindow, hookRuns, parsePreStopHint, PreStopDelay, PRESTOP_SECONDS_HINT, podPreStopDelay, runningPreStopDelay } from './prestop';
import { DEFAULT_SHELL_LESS_IMAGE_PATTERNS } from './shell-less';
import { servesAfterSigterm, servesAfterSigtermHint } from './serves-after-sigterm';

/** Seconds for messages: "5s", "2.5s". */
function secs(n: number): string {
  return Number.isInteger(n) ? `${n}s` : `${Math.round(n * 10) / 10}s`;
}

export interface ScheduleOptions {
  /** preStop wait-command patterns (grace-period-budget param waitPatterns). */
  waitPatterns?: string[];
  /** native-sidecar-grace-budget param maxSidecarPreStopSleepSeconds (default 5). */
  maxSidecarPreStopSleepSeconds?: number;
  /** native-sidecar-grace-budget param exitPatterns. */
  exitPatterns?: string[];
  /**
   * prestop-sleep-action param shellLessImagePatterns (its defaults when not given): an exec sleep
   * hook in such an image cannot run and delays nothing (prestop.ts runningPreStopDelay).
   */
  shellLessImagePatterns?: readonly string[];
  /**
   * Mesh modes assumed when nothing says (linkerd-proxy-drain nativeDefault, istio-proxy-drain's
   * version-resolved default), for the drawing only: a proxy whose mode is only a default is placed
   * but never counted, so the verdicts do not depend on these.
   */
  linkerdNativeDefault?: boolean;
  istioNativeDefault?: boolean;
}

/** Defaults of the rule params the schedule reads. */
export const SCHEDULE_DEFAULTS = { maxSidecarPreStopSleepSeconds: 5 } as const;

/** preStop kinds whose delay is a known sleep or wait (a native sidecar's own sleep). */
const SLEEPS = new Set(['sleep', 'exec-sleep', 'exec-sleep-then', 'exec-then-sleep', 'exec-wait']);

const SHELL = /^(?:\/usr)?(?:\/bin\/)?(?:ba|da|a)?sh$/;
/** Signals that only reload, rotate or probe: they do not make a process exit. */
const HARMLESS_SIGNAL = /^-(?:0|1|HUP|SIGHUP|USR1|SIGUSR1|USR2|SIGUSR2|WINCH|SIGWINCH|CONT|SIGCONT|s\s+(?:0|HUP|SIGHUP|USR1|SIGUSR1|USR2|SIGUSR2|WINCH|CONT))$/i;

/**
 * Why an exec preStop makes the container exit (or undefined): a kill/pkill/killall with a
 * terminating signal, Envoy's or the Istio agent's `quitquitquit`, Linkerd's admin `/shutdown`
 * through curl/wget, or `nginx -s quit|stop`. Extra regular expressions come from the params.
 */
export function exitingPreStop(command: string[], extra: string[] = []): string | undefined {
  const parts = command.length === 3 && SHELL.test(command[0]) && command[1] === '-c' ? command[2].split(/\s*(?:;|&&|\|\||\n)\s*/) : [command.join(' ')];
  for (const raw of parts) {
    const p = raw.trim();
    const kill = /^(?:exec\s+)?(?:\S*\/)?(kill|pkill|killall)\s+(.*)$/.exec(p);
    if (kill) {
      const args = kill[2].trim();
      const sig = /^(-s\s+\S+|-\S+)/.exec(args)?.[1];
      if (!sig || !HARMLESS_SIGNAL.test(sig)) return `it runs "${p}"`;
    }
    if (/\bquitquitquit\b/.test(p)) return `it calls quitquitquit ("${p}")`;
    if (/\b(curl|wget)\b.*\/shutdown\b/.test(p)) return `it calls the admin /shutdown endpoint ("${p}")`;
    if (/(?:^|\/)nginx\s+-s\s+(quit|stop)\b/.test(p)) return `it runs "${p}"`;
  }
  const joined = command.join(' ');
  for (const x of extra) if (new RegExp(x).test(joined)) return `it matches the exit pattern /${x}/`;
  return undefined;
}

/** A main container: an app container, or a classic mesh proxy (rendered or injected). */
export interface MainStop {
  name: string;
  /** Undefined for a proxy the injector adds (not in the manifest). */
  container?: ContainerView;
  proxy?: 'linkerd' | 'istio';
  preStop: PreStopDelay;
  /** The hook's delay when known (0 without a hook); undefined for a hook of unknown duration. */
  preStopSeconds?: number;
  /**
   * Seconds the program keeps accepting after its stop signal by itself, before it drains (the
   * catalog's serves-after-sigterm entries: CoreDNS's lameduck, Traefik's requestAcceptGraceTimeout);
   * 0 when none or unknown.
   */
  servesAfter: number;
  /** How servesAfter was read, for messages: `lameduck 10s in /etc/coredns/Corefile (...)`. */
  servesAfterWords?: string;
  /** grace-period-budget judges this container (a known hook, a known time serving after SIGTERM, or no hook and a declared drain). */
  judged: boolean;
  /** Counts for when the native sidecars get their turn (judged app, or evident classic proxy). */
  counted: boolean;
  /** Stop signal, seconds after deletion (a hook is cut at the deadline). */
  sigterm: number;
  /** The hook outlives the grace period: SIGTERM at the deadline, SIGKILL 2 s later. */
  hookCut: boolean;
  /** Seconds it needs after its stop signal (the app's drain; a proxy's modelled shutdown), after servesAfter. */
  drain: number;
  /** The app's drain (budget.ts containerDrainSeconds: declared, its program's setting, or the default); a proxy's is its model's. */
  appDrain: number;
  /** When it is gone: exit, or SIGKILL. */
  exit: number;
  /** SIGKILL time, when it is still running then. */
  killedAt?: number;
}

/** A native sidecar (in the manifest, or a mesh proxy injected in native mode). */
export interface SidecarStop {
  name: string;
  container?: ContainerView;
  mesh?: 'linkerd' | 'istio';
  injected: boolean;
  /** Counted in the budget (shutdownAddends): in the manifest, or injected in explicitly native mode. */
  counted: boolean;
  drain: number;
  /** Its own preStop delay, when known (it runs at the start of termination). */
  preStopSeconds?: number;
  /** When its turn comes: the main containers and the sidecars after it in declaration order are gone. */
  turn: number;
  /** Stop signal: its turn (after its own hook), or the deadline. */
  sigterm: number;
  /** The grace period ended before its turn. */
  noTurn: boolean;
  exit: number;
  killedAt?: number;
  /** Killed before it finished draining. */
  cut: boolean;
}

export interface BudgetVerdict {
  ruleId: 'grace-period-budget' | 'native-sidecar-grace-budget';
  severity: 'error' | 'warning';
  /**
   * `hook-exceeds-grace`: preStop >= grace (error); `budget`: preStop + drain + Σ native sidecar
   * drain > grace (TERM-001 warning); `sidecar-turn`: a native sidecar is cut because a main
   * container grace-period-budget does not judge (a classic mesh proxy) outlasts the budget (SIDE-002).
   */
  kind: 'hook-exceeds-grace' | 'budget' | 'sidecar-turn' | 'sidecar-prestop-exit' | 'sidecar-prestop-sleep' | 'hint';
  /** The container the finding is about (a main container, or for sidecar-turn the one that delays the sidecars). */
  container: string;
  containerView?: ContainerView;
  /** For sidecar-turn: the sidecar that is cut. */
  sidecar?: string;
  preStop: number;
  /** preStop comes from the kubegrace.dev/prestop-seconds hint. */
  hinted: boolean;
  /** The hook is an exec sleep that cannot run in the image (PreStopDelay.cannotRun): preStop is 0. */
  preStopCannotRun?: { image: string; seconds: number };
  /** Seconds the program keeps accepting after SIGTERM before it drains (MainStop.servesAfter). */
  servesAfter: number;
  servesAfterWords?: string;
  drain: number;
  /** The drain is the default: neither kubegrace.dev/drain-seconds nor the program's own setting (catalog) gives it. */
  drainAssumed?: boolean;
  /** Where the drain comes from when the program's own setting (catalog) gives it. */
  drainWords?: string;
  /**
   * The hook signals the app first and then sleeps (PreStopDelay `exec-stop-then-sleep`): the command
   * and the sleep, which is the drain window when `drain` equals it. The app stops at 0 s, so no
   * time "after SIGTERM" is at stake: what the grace period cuts is the drain.
   */
  stopFirst?: { stop: string; wait: number };
  addends: Addend[];
  /** What the pod needs, seconds after deletion. */
  needed: number;
  /** The grace period the constructs would choose. */
  recommended: number;
  /**
   * What happens, in words (rules and explain both say it): for sidecar-turn the sidecar's fate,
   * for sidecar-prestop-* why the hook is wrong, for hint the problem with the annotation.
   */
  why?: string;
  /** For sidecar-prestop-sleep: the sleep. For hint: the annotation key. */
  sleep?: number;
  hintKey?: string;
}

export interface TerminationSchedule {
  grace: number;
  drain: number;
  drainDeclared: boolean;
  /** Σ native sidecar drain and the other shutdown addends (shutdownAddends). */
  addends: Addend[];
  mains: MainStop[];
  /** In stop order (reverse declaration order). */
  sidecars: SidecarStop[];
  /** When the counted main containers are gone (the verdicts' reading). */
  mainsDoneAt: number;
  /** When every drawn main container is gone, assumptions included (the drawing's reading). */
  mainsGoneAt: number;
  verdicts: BudgetVerdict[];
}

/**
 * The terms of a budget verdict, for messages: preStop (left out when there is no hook and the
 * program serves after SIGTERM by itself), that time, the drain and the addends.
 */
export function budgetTerms(v: BudgetVerdict, hinted = '', fmt: (n: number) => string = (n) => `${n}s`): string[] {
  const noHook = v.containerView !== undefined && v.servesAfter > 0 && v.preStop === 0 && (get(v.containerView.raw, 'lifecycle', 'preStop') ?? null) === null;
  // (A hook that cannot run in the image delays nothing: said, so that the 0 is not read as a bug; review round 29.)
  const failed = v.preStopCannotRun ? ` (its exec sleep ${fmt(v.preStopCannotRun.seconds)} cannot run in the shell-less image: see prestop-sleep-action)` : '';
  return [
    ...(noHook ? [] : [`preStop ${fmt(v.preStop)}${hinted}${failed}`]),
    ...(v.servesAfter > 0 ? [`serving after SIGTERM ${fmt(v.servesAfter)}${v.servesAfterWords ? ` (${v.servesAfterWords})` : ''}`] : []),
    `drain ${fmt(v.drain)}${v.drainAssumed ? ` (assumed)` : v.drainWords ? ` (${v.drainWords})` : ''}`,
    ...v.addends.map((a) => `${a.source} ${fmt(a.seconds)}`),
  ];
}

/** The schedule and verdicts for one workload. */
export function terminationSchedule(graph: ObjectGraph, w: Workload, opts: ScheduleOptions = {}): TerminationSchedule {
  const G = w.grace;
  const D = drainSeconds(w);
  const drainDeclared = w.annotations[HINT.drainSeconds] !== undefined;
  const addends = shutdownAddends(graph, w);
  const addendSum = addends.reduce((a, x) => a + x.seconds, 0);
  const namespace = graph.namespace(w.obj.namespace ?? 'default');
  const lk = linkerdMesh(w, { namespace, nativeDefault: opts.linkerdNativeDefault ?? false });
  const is = istioMesh(w, { namespace, nativeDefault: opts.istioNativeDefault ?? false });
  // Classic proxies are main containers the native sidecars wait for. Counted when the mode is
  // evident (rendered, or chosen by an annotation); a mode that is only a default is drawn, not
  // assumed (as in shutdownAddends).
  const classicLinkerd = lk && lk.mode === 'classic' ? lk : undefined;
  const classicIstio = is && is.mode === 'classic' && !is.gateway ? is : undefined;
  const evident = (m: { modeOrigin: string } | undefined) => m !== undefined && m.modeOrigin !== 'default';

  const kill = (sigterm: number) => Math.max(G, sigterm + MINIMUM_GRACE_AFTER_HOOK);
  // An exec sleep in an image without a shell or sleep binary fails at once: no delay (prestop-sleep-action reports it).
  const shellLess = opts.shellLessImagePatterns ?? DEFAULT_SHELL_LESS_IMAGE_PATTERNS;
  const mains: MainStop[] = [];
  for (const c of w.containers) {
    const pre = podPreStopDelay(c, w.annotations, opts.waitPatterns, w.containers, shellLess);
    const s = pre.kind === 'none' ? 0 : pre.seconds;
    // A program that keeps serving after SIGTERM (CoreDNS's lameduck from its ConfigMap) exits only
    // after that and its drain: a known delay, judged as a known hook is.
    const after = servesAfterSigterm(c, w, graph);
    // (Else the user's kubegrace.dev/serves-after-sigterm-seconds hint, for a main container.)
    const hinted = after?.seconds === undefined ? servesAfterSigtermHint(w) : undefined;
    const A = after?.seconds ?? hinted ?? 0;
    // (A drain the catalog reads from the program's own settings is known, as a declared one is:
    // the AWS Node Termination Handler waits for its node drains, NODE_TERMINATION_GRACE_PERIOD.)
    // (A hook that cannot run in the image counts as none: SIGTERM at once; review round 29.)
    const judged = s !== undefined && (hookRuns(pre) || drainDeclared || A > 0 || containerDrainRead(c));
    const proxy = classicLinkerd && c.name === LINKERD.proxyContainer ? 'linkerd' : classicIstio && c.name === ISTIO.proxyContainer ? 'istio' : undefined;
    // A hook that signals the app and then sleeps (`killall -INT pgbouncer && sleep 120`): the app's
    // shutdown starts at the signal, at 0 s (s is 0), and the sleep is the window the hook gives its
    // drain: the drain is at least that (review round 33, report p39).
    const m = stopOf(c.name, c, pre, s, judged, proxy, A, Math.max(containerDrainSeconds(w, c), hookDrainWindow(pre) ?? 0));
    if (A > 0 && after?.derivation) m.servesAfterWords = after.derivation;
    else if (hinted !== undefined) m.servesAfterWords = `${HINT.servesAfterSigterm} hint`;
    mains.push(m);
  }
  if (classicLinkerd && !classicLinkerd.proxy) mains.push(stopOf(LINKERD.proxyContainer, undefined, { kind: 'none' }, 0, false, 'linkerd'));
  if (classicIstio && !classicIstio.proxy) mains.push(stopOf(ISTIO.proxyContainer, undefined, { kind: 'none' }, 0, false, 'istio'));

  // Classic proxies after the apps: Linkerd's proxy, signalled after its wait-before-exit, closes
  // its connections and exits once the app's are gone (shutdown-grace-period is only its bound);
  // Istio's agent drains for terminationDrainDuration from its signal (with
  // EXIT_ON_ZERO_ACTIVE_CONNECTIONS: at least MINIMUM_DRAIN_DURATION, then until the app is gone).
  const appsDone = Math.max(0, ...mains.filter((m) => !m.proxy && m.counted).map((m) => m.exit));
  for (const m of mains) {
    if (m.proxy === 'linkerd') {
      const until = Math.min(Math.max(m.sigterm, appsDone), m.sigterm + classicLinkerd!.shutdownGracePeriodSeconds);
      finish(m, until - m.sigterm);
    } else if (m.proxy === 'istio') {
      const min = classicIstio!.exitOnZeroActiveConnections ? classicIstio!.minimumDrainDurationSeconds : classicIstio!.terminationDrainDurationSeconds;
      const until = classicIstio!.exitOnZeroActiveConnections ? Math.max(m.sigterm + min, appsDone) : m.sigterm + min;
      finish(m, until - m.sigterm);
    }
  }
  const mainsDoneAt = Math.max(0, ...mains.filter((m) => m.counted).map((m) => m.exit));
  const mainsGoneAt = Math.max(0, ...mains.map((m) => m.exit));

  // Native sidecars, in declaration order; injected native proxies go first (the injectors put
  // them before the other init containers), so they are stopped last.
  const hint = parseSidecarDrainHint(w.annotations[SIDECAR_DRAIN_HINT]);
  const declared: Omit<SidecarStop, 'turn' | 'sigterm' | 'noTurn' | 'exit' | 'cut'>[] = w.sidecars.map((c) => {
    const pre = podPreStopDelay(c, w.annotations, opts.waitPatterns, w.containers, shellLess);
    return {
      name: c.name,
      container: c,
      mesh: c.name === LINKERD.proxyContainer ? 'linkerd' : c.name === ISTIO.proxyContainer ? 'istio' : undefined,
      injected: false,
      counted: true,
      drain: sidecarDrainSeconds(hint, c),
      preStopSeconds: pre.kind === 'none' ? undefined : pre.seconds,
    };
  });
  const countedInjected = new Set(injectedNativeProxies(graph, w));
  for (const m of [lk, is]) {
    if (!m || m.proxy || m.mode !== 'native' || (m.mesh === 'istio' && is?.gateway)) continue;
    const name = m.mesh === 'linkerd' ? LINKERD.proxyContainer : ISTIO.proxyContainer;
    const counted = countedInjected.has(name);
    // A native proxy by default only: drawn, quitting at once after its signal; not in the budget.
    declared.unshift({ name, mesh: m.mesh, injected: true, counted, drain: counted ? (hint.byName[name] ?? hint.all ?? DEFAULT_SIDECAR_DRAIN_SECONDS) : 0 });
  }
  const sidecars = chain(declared, mainsGoneAt);
  // The verdicts' reading: only counted main containers and counted sidecars.
  const judgedChain = chain(
    declared.filter((s) => s.counted),
    mainsDoneAt,
  );

  // ---- verdicts
  const verdicts: BudgetVerdict[] = [];
  const none = { preStop: 0, hinted: false, servesAfter: 0, drain: D, addends, needed: 0, recommended: 0 };
  const preStopHint = parsePreStopHint(w.annotations[PRESTOP_SECONDS_HINT]);
  if (preStopHint.problem) verdicts.push({ ruleId: 'grace-period-budget', severity: 'warning', kind: 'hint', container: '', hintKey: PRESTOP_SECONDS_HINT, why: `${preStopHint.problem}; the hook is not judged`, ...none });
  // SIDE-002 applies to workloads that run native sidecars (in the manifest or injected as such).
  const sidecarRules = !w.isBatch && (w.sidecars.length > 0 || addends.length > 0);
  if (sidecarRules) {
    if (hint.problem) verdicts.push({ ruleId: 'native-sidecar-grace-budget', severity: 'warning', kind: 'hint', container: '', hintKey: SIDECAR_DRAIN_HINT, why: `${SIDECAR_DRAIN_HINT} ${hint.problem}`, ...none });
    const maxSleep = opts.maxSidecarPreStopSleepSeconds ?? SCHEDULE_DEFAULTS.maxSidecarPreStopSleepSeconds;
    for (const c of w.sidecars) {
      // (A sleep that cannot run in the image delays nothing: prestop-sleep-action reports it.)
      const pre = runningPreStopDelay(classifyPreStop(get(c.raw, 'lifecycle', 'preStop')), c.image, shellLess);
      const exits = pre.command ? exitingPreStop(pre.command, opts.exitPatterns ?? []) : undefined;
      if (exits) verdicts.push({ ruleId: 'native-sidecar-grace-budget', severity: 'warning', kind: 'sidecar-prestop-exit', container: c.name, containerView: c, sidecar: c.name, why: exits, ...none });
      else if (SLEEPS.has(pre.kind) && pre.seconds !== undefined && pre.seconds > maxSleep) {
        verdicts.push({ ruleId: 'native-sidecar-grace-budget', severity: 'warning', kind: 'sidecar-prestop-sleep', container: c.name, containerView: c, sidecar: c.name, sleep: pre.seconds, why: `${secs(maxSleep)}`, ...none });
      }
    }
  }
  if (G > 0) {
    for (const m of mains) {
      if (!m.container || !m.judged) continue;
      const s = m.preStopSeconds!;
      const A = m.servesAfter;
      // The container's own drain: the declared one, else its program's setting (catalog), else the default.
      const Dc = m.appDrain;
      const drainAssumed = containerDrainAssumed(w, m.container);
      // Where a drain read from the program's own settings comes from (NODE_TERMINATION_GRACE_PERIOD=120).
      const read = drainDeclared ? undefined : activeCatalog().drainSeconds(m.container);
      const wait = hookDrainWindow(m.preStop);
      const stopFirst = wait !== undefined && m.preStop.stop ? { stop: m.preStop.stop, wait } : undefined;
      // (The drain a signal-first hook's sleep gives is read from the hook, not assumed.)
      const byHook = wait !== undefined && wait === Dc;
      const drainWords = byHook ? `the hook's sleep after its signal` : read?.seconds !== undefined && read.seconds === Dc ? read.derivation : undefined;
      const base = { container: m.name, containerView: m.container, preStop: s, hinted: m.preStop.hinted === true, ...(m.preStop.cannotRun ? { preStopCannotRun: m.preStop.cannotRun } : {}), servesAfter: A, servesAfterWords: m.servesAfterWords, drain: Dc, drainAssumed: drainAssumed && !byHook, drainWords, ...(stopFirst ? { stopFirst } : {}), addends, needed: s + A + Dc + addendSum, recommended: recommendedGrace(s + A, Dc, addendSum) };
      if (hookRuns(m.preStop) && s >= G) verdicts.push({ ruleId: 'grace-period-budget', severity: 'error', kind: 'hook-exceeds-grace', ...base });
      else if (s + A + Dc + addendSum > G) verdicts.push({ ruleId: 'grace-period-budget', severity: 'warning', kind: 'budget', ...base });
    }
    // SIDE-002: the sidecars' turn comes too late because of what grace-period-budget does not judge
    // (a classic mesh proxy that outlasts the apps): one finding per workload, where TERM-001 is silent.
    // A sidecar whose own hook is already reported is not reported again for the cut it causes.
    const ownHook = new Set(verdicts.filter((v) => v.kind === 'sidecar-prestop-exit' || v.kind === 'sidecar-prestop-sleep').map((v) => v.sidecar));
    const cut = judgedChain.find((s) => s.cut);
    if (cut && sidecarRules && !ownHook.has(cut.name) && !verdicts.some((v) => v.ruleId === 'grace-period-budget' && v.kind !== 'hint')) {
      const late = mains.filter((m) => m.counted).reduce<MainStop | undefined>((a, m) => (!a || m.exit > a.exit ? m : a), undefined);
      // What the chain needs without a deadline: each sidecar after its turn and its own hook.
      const lastEnd = declared.filter((x) => x.counted).reduceRight((t, x) => Math.max(t, x.preStopSeconds ?? 0) + x.drain, mainsDoneAt);
      const heldByHook = cut.preStopSeconds !== undefined && Math.min(cut.preStopSeconds, G) > cut.turn;
      const after = heldByHook
        ? `its own preStop (${secs(cut.preStopSeconds!)}) holds its SIGTERM until ${secs(cut.sigterm)}`
        : cut.turn > mainsDoneAt
          ? `the native sidecars after it in declaration order are gone only at ${secs(cut.turn)}`
          : `its turn comes only when ${late ? `"${late.name}"${late.proxy ? ` (classic ${late.proxy} proxy)` : ''}` : 'the main containers'} ${late?.killedAt !== undefined ? 'is killed' : 'exits'} at ${secs(cut.turn)}`;
      const fate = cut.noTurn
        ? `the grace period ends first: SIGTERM at ${secs(G)}, SIGKILL ${MINIMUM_GRACE_AFTER_HOOK}s later, ${secs(cut.drain)} drain needed`
        : `it needs ${secs(cut.drain)} to drain, so SIGKILL at ${secs(cut.killedAt!)} cuts it`;
      verdicts.push({
        ruleId: 'native-sidecar-grace-budget',
        severity: 'warning',
        kind: 'sidecar-turn',
        container: late?.name ?? cut.name,
        containerView: late?.container,
        sidecar: cut.name,
        preStop: late?.preStopSeconds ?? 0,
        hinted: late?.preStop.hinted === true,
        servesAfter: 0,
        drain: late ? late.exit - late.sigterm : 0,
        addends,
        needed: lastEnd,
        recommended: Math.ceil(lastEnd + GRACE_MARGIN_SECONDS),
        why: `native sidecar "${cut.name}": ${after}; ${fate}`,
      });
    }
  }
  return { grace: G, drain: D, drainDeclared, addends, mains, sidecars, mainsDoneAt, mainsGoneAt, verdicts };

  function stopOf(name: string, c: ContainerView | undefined, pre: PreStopDelay, s: number | undefined, judged: boolean, proxy?: 'linkerd' | 'istio', servesAfter = 0, appDrain = D): MainStop {
    // A hook of unknown duration is placed as returning at once (a lower bound).
    let S = s ?? 0;
    if (proxy === 'linkerd' && !c?.raw.lifecycle) S = classicLinkerd!.waitBeforeExitSeconds;
    const hookCut = (pre.kind !== 'none' || S > 0) && S >= G && G > 0;
    const sigterm = Math.min(S, G);
    const counted = judged || (proxy === 'linkerd' && evident(classicLinkerd)) || (proxy === 'istio' && evident(classicIstio));
    const m: MainStop = { name, container: c, proxy, preStop: pre, servesAfter, judged, counted, sigterm, hookCut, drain: appDrain, appDrain, exit: 0 };
    if (s !== undefined) m.preStopSeconds = s;
    finish(m, proxy ? 0 : appDrain);
    return m;
  }

  function finish(m: MainStop, drain: number): void {
    m.drain = drain;
    const k = m.hookCut ? G + MINIMUM_GRACE_AFTER_HOOK : kill(m.sigterm);
    const end = m.sigterm + m.servesAfter + drain;
    if (end > k) {
      m.exit = k;
      m.killedAt = k;
    } else {
      m.exit = end;
      delete m.killedAt;
    }
  }

  function chain(list: Omit<SidecarStop, 'turn' | 'sigterm' | 'noTurn' | 'exit' | 'cut'>[], from: number): SidecarStop[] {
    const out: SidecarStop[] = [];
    let t = from;
    for (let i = list.length - 1; i >= 0; i--) {
      const s = list[i];
      // Its own hook runs first (from deletion); its stop waits for the hook and for its turn.
      const own = s.preStopSeconds ?? 0;
      const ready = Math.max(t, Math.min(own, G));
      const noTurn = G > 0 && ready >= G;
      const sigterm = noTurn ? G : ready;
      const k = noTurn ? G + MINIMUM_GRACE_AFTER_HOOK : kill(sigterm);
      const end = sigterm + s.drain;
      const cut = end > k;
      const st: SidecarStop = { ...s, turn: t, sigterm, noTurn, exit: cut ? k : end, cut };
      if (cut) st.killedAt = k;
      out.push(st);
      t = st.exit;
    }
    return out;
  }
}
