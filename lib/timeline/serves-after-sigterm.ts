/**
 * How long a container keeps accepting new requests after SIGTERM by itself, with no preStop hook
 * needed for it: the catalog's serves-after-sigterm entries, read from the program's args (Traefik's
 * requestAcceptGraceTimeout) or from its config file in a ConfigMap of the input (CoreDNS's
 * lameduck in the Corefile). The one place rules and explain ask: prestop-missing skips such a
 * container, and the termination schedule counts the time before the drain (graceful-termination.md
 * section 1: the process still runs, and serves, until it has finished both).
 */
import { activeCatalog, Catalog, ServesAfterSigtermFact } from '../catalog';
import { HINT, ObjectGraph } from '../model/graph';
import { parseSeconds } from './duration';
import { DEFAULT_PRESTOP_SECONDS } from './prestop';
import { mountedConfigMapFile } from '../model/mounts';
import { ContainerView, Workload } from '../model/workload';

/**
 * What the catalog says the container's program does after SIGTERM (undefined when no entry
 * matches). `seconds` is undefined when it cannot be read: a config file the input does not hold
 * (without `graph`, none is read), or a value that is not a duration.
 *
 * A quiet period that each request restarts (knative.dev/pkg's webhook Drainer: Drain returns once
 * QuietPeriod, 45s by default, has passed with no request, and every request served meanwhile
 * restarts it) is no time the program needs: it serves as long as requests come, so what the pod
 * needs from the grace period is the time until its clients stop sending, the endpoint
 * propagation that a preStop delay covers, then its requests in flight; SIGKILL may end the period
 * after that at no loss. Its `seconds` are that propagation time (DEFAULT_PRESTOP_SECONDS, the
 * delay kubegrace proposes for it), at most the period; the schedule and the budget count them as
 * any other program's (review round 35, report p54 item 5: "serving after SIGTERM 45s + drain 10s
 * = 55s exceeds the default grace period (30s)" on Tekton's webhook was no failure).
 */
export function servesAfterSigterm(c: ContainerView, w: Workload, graph?: ObjectGraph, catalog: Catalog = activeCatalog()): ServesAfterSigtermFact | undefined {
  const f = catalog.servesAfterSigterm(c, graph && ((file) => mountedConfigMapFile(graph, w, c, file)));
  if (!f?.quietPeriod || f.seconds === undefined) return f;
  const s = Math.min(f.seconds, DEFAULT_PRESTOP_SECONDS);
  return { ...f, seconds: s, derivation: `until its clients stop sending: the endpoint-propagation time, ${s}s; its quiet period of ${f.seconds}s, fixed in the program and restarted by each request, may then end at SIGKILL at no loss` };
}

/**
 * The seconds of servesAfterSigterm, 0 when none or unknown: what the schedule places after SIGTERM.
 * Without a catalog answer, the user's `kubegrace.dev/serves-after-sigterm-seconds` hint on the
 * workload stands for its main containers: prestop-missing takes it in place of a preStop delay, so
 * the budget must count it as it counts a program's own (review round 12: a hint of 45 s against a
 * grace of 30 s was never compared).
 */
export function servesAfterSigtermSeconds(c: ContainerView, w: Workload, graph?: ObjectGraph, catalog?: Catalog): number {
  const known = servesAfterSigterm(c, w, graph, catalog)?.seconds;
  if (known !== undefined) return known;
  return c.role === 'main' ? servesAfterSigtermHint(w) ?? 0 : 0;
}

/** The workload's `kubegrace.dev/serves-after-sigterm-seconds` hint, when it is a duration above 0. */
export function servesAfterSigtermHint(w: Workload): number | undefined {
  const s = parseSeconds(w.annotations[HINT.servesAfterSigterm]);
  return s !== undefined && s > 0 ? s : undefined;
}

/** What to write so the program itself keeps accepting for `seconds` (its own setting, where it is short), for advice. */
export function servesAfterSigtermSetting(c: ContainerView, w: Workload, seconds: number, graph?: ObjectGraph, catalog: Catalog = activeCatalog()): ReturnType<Catalog['servesAfterSigtermSetting']> {
  return catalog.servesAfterSigtermSetting(c, seconds, graph && ((file) => mountedConfigMapFile(graph, w, c, file)));
}
