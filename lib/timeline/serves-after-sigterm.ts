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
import { mountedConfigMapFile } from '../model/mounts';
import { ContainerView, Workload } from '../model/workload';

/**
 * What the catalog says the container's program does after SIGTERM (undefined when no entry
 * matches). `seconds` is undefined when it cannot be read: a config file the input does not hold
 * (without `graph`, none is read), or a value that is not a duration.
 */
export function servesAfterSigterm(c: ContainerView, w: Workload, graph?: ObjectGraph, catalog: Catalog = activeCatalog()): ServesAfterSigtermFact | undefined {
  return catalog.servesAfterSigterm(c, graph && ((file) => mountedConfigMapFile(graph, w, c, file)));
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
