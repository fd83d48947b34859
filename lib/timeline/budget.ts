import { activeCatalog, Catalog } from '../catalog';
import { HINT, ObjectGraph } from '../model/graph';
import { ContainerView, Workload } from '../model/workload';
import { parseSeconds } from './duration';
import { hookDrainWindow, PreStopDelay, podPreStopDelay } from './prestop';
import { servesAfterSigtermSeconds } from './serves-after-sigterm';
import { DEFAULT_SHELL_LESS_IMAGE_PATTERNS } from './shell-less';

/** Default application drain time after SIGTERM (RULES.md hint `kubegrace.dev/drain-seconds`). */
export const DEFAULT_DRAIN_SECONDS = 10;
/** Seconds the kubelet always leaves between SIGTERM and SIGKILL after an over-long hook. */
export const MINIMUM_GRACE_AFTER_HOOK = 2;
/** Safety margin the constructs add on top of preStop + drain + addend. */
export const GRACE_MARGIN_SECONDS = 5;

/** `kubegrace.dev/drain-seconds` (seconds or a Go duration), else the default 10. */
export function drainSeconds(w: Pick<Workload, 'annotations'>): number {
  return parseSeconds(w.annotations[HINT.drainSeconds]) ?? DEFAULT_DRAIN_SECONDS;
}

/**
 * The drain of one main container after SIGTERM (once it stops accepting): the workload's
 * `kubegrace.dev/drain-seconds` when declared; else what the catalog reads from the program's own
 * setting (Traefik's graceTimeOut, the longest over the entry points that carry traffic: the
 * process exits when the last one is done), when it can be read; else the default.
 */
export function containerDrainSeconds(w: Pick<Workload, 'annotations'>, c: ContainerView, catalog: Catalog = activeCatalog()): number {
  const declared = parseSeconds(w.annotations[HINT.drainSeconds]);
  if (declared !== undefined) return declared;
  return catalog.drainSeconds(c)?.seconds ?? DEFAULT_DRAIN_SECONDS;
}

/** Whether the catalog reads the container's drain from its program's own settings (NTH's NODE_TERMINATION_GRACE_PERIOD): a fact to judge, like a declared drain. */
export function containerDrainRead(c: ContainerView, catalog: Catalog = activeCatalog()): boolean {
  return catalog.drainSeconds(c)?.seconds !== undefined;
}

/** Whether containerDrainSeconds is the default: neither the declared drain nor the program's own setting gives it. */
export function containerDrainAssumed(w: Pick<Workload, 'annotations'>, c: ContainerView, catalog: Catalog = activeCatalog()): boolean {
  return parseSeconds(w.annotations[HINT.drainSeconds]) === undefined && catalog.drainSeconds(c) === undefined;
}

/** An extra shutdown cost from outside the app: a mesh proxy, a load balancer. */
export interface Addend {
  seconds: number;
  source: string;
}

export interface ContainerBudget {
  container: ContainerView;
  grace: number;
  preStop: PreStopDelay;
  /** Seconds the program keeps accepting after SIGTERM by itself, before it drains (catalog; 0 when none or unknown). */
  servesAfter: number;
  drain: number;
  addend: number;
  /** preStop + servesAfter + drain + addend, when the preStop delay is known (0 without a hook). */
  needed?: number;
  /** Seconds the app gets after SIGTERM: max(grace - preStop, 2), when known. */
  afterSigterm?: number;
}

/**
 * The termination budget of one container: what it needs against what the grace period gives. A
 * custom preStop program counts with its `kubegrace.dev/prestop-seconds` duration; a program that
 * keeps accepting after SIGTERM by itself (lib/timeline/serves-after-sigterm.ts: CoreDNS's lameduck,
 * read from its ConfigMap in `graph`) drains only after that time. An exec sleep that cannot run in
 * the image (`shellLess`: prestop-sleep-action's shellLessImagePatterns, its defaults when not
 * given) counts as 0 s, as in the termination schedule.
 */
export function containerBudget(w: Workload, c: ContainerView, addends: Addend[] = [], waitPatterns?: string[], graph?: ObjectGraph, shellLess: readonly string[] = DEFAULT_SHELL_LESS_IMAGE_PATTERNS): ContainerBudget {
  const preStop = podPreStopDelay(c, w.annotations, waitPatterns, w.containers, shellLess);
  const servesAfter = servesAfterSigtermSeconds(c, w, graph);
  // (A hook that signals the app and then sleeps gives it that sleep to drain: at least that long.)
  const drain = Math.max(containerDrainSeconds(w, c), hookDrainWindow(preStop) ?? 0);
  const addend = addends.reduce((a, x) => a + x.seconds, 0);
  const s = preStop.kind === 'none' ? 0 : preStop.seconds;
  return {
    container: c,
    grace: w.grace,
    preStop,
    servesAfter,
    drain,
    addend,
    needed: s === undefined ? undefined : s + servesAfter + drain + addend,
    afterSigterm: s === undefined ? undefined : Math.max(w.grace - s, MINIMUM_GRACE_AFTER_HOOK),
  };
}

/** The grace period the constructs choose: preStop + drain + addend + margin. */
export function recommendedGrace(preStopSeconds: number, drain: number, addend = 0, margin = GRACE_MARGIN_SECONDS): number {
  return Math.ceil(preStopSeconds + drain + addend + margin);
}
