import { ObjectGraph } from '../model/graph';
import { ContainerView, Workload } from '../model/workload';
import { Addend } from './budget';
import { parsePerContainerSeconds } from './duration';
import { ISTIO, istioMesh, LINKERD, linkerdMesh } from './mesh';

/**
 * Shutdown costs outside the app that the grace period must also cover: the "M" of TERM-001
 * (graceful-termination.md section 2), added to every main container's preStop + drain.
 *
 * What is additive, and what is not (section 1 and section 9):
 *
 * - **Native sidecars** (init containers with `restartPolicy: Always`, mesh proxies included) get
 *   SIGTERM only after every main container has exited, one by one in reverse order (KEP-753). Their
 *   shutdown therefore comes *after* the app's preStop + drain, in series: each adds its drain time
 *   (hint `kubegrace.dev/sidecar-drain-seconds`, default 5 s each, SIDE-002). A mesh proxy that is not
 *   in the manifest yet counts too when injection is evident and an annotation explicitly selects
 *   native mode (`config.linkerd.io/proxy-enable-native-sidecar: "true"`, `sidecar.istio.io/nativeSidecar`).
 * - **Classic mesh proxies** are ordinary containers: they receive their stop at the same moment as
 *   the app (Linkerd's `proxy-wait-before-exit-seconds` only delays the proxy's own SIGTERM; Istio's
 *   agent drains for `terminationDrainDuration` from the pod's SIGTERM). They run *in parallel* with
 *   the app and add nothing to its budget; what they impose is an ordering (the proxy must outlive the
 *   app) and their own deadline against the grace period. Those are max-type constraints, judged by
 *   `linkerd-proxy-drain` and `istio-proxy-drain`, which know which container waits for which; adding
 *   them here would count a parallel timeline as serial and report the same fault twice.
 * - **Classic non-mesh helpers** likewise stop in parallel: zero.
 *
 * Load-balancer deregistration (LB-*) belongs here too once those rules land; with no native sidecar
 * and no LB the addend is empty.
 */
export function shutdownAddends(graph: ObjectGraph, w: Workload): Addend[] {
  return graph.memo(shutdownAddends, w, (x) => computeShutdownAddends(graph, x)).slice();
}

function computeShutdownAddends(graph: ObjectGraph, w: Workload): Addend[] {
  const hint = parseSidecarDrainHint(w.annotations[SIDECAR_DRAIN_HINT]);
  const out: Addend[] = [];
  for (const s of w.sidecars) {
    const seconds = sidecarDrainSeconds(hint, s);
    if (seconds > 0) out.push({ seconds, source: `native sidecar "${s.name}" drain` });
  }
  for (const name of injectedNativeProxies(graph, w)) {
    const seconds = hint.byName[name] ?? hint.all ?? DEFAULT_SIDECAR_DRAIN_SECONDS;
    if (seconds > 0) out.push({ seconds, source: `native sidecar "${name}" drain (injected)` });
  }
  return out;
}

/**
 * Mesh proxies the injector will add as native sidecars although the manifest does not carry them
 * yet: injection is evident and an annotation explicitly asks for native mode. When the mode is
 * only a default (Istio's depends on istiod and the kubelets, Linkerd's on its release), nothing is
 * assumed here; the mesh rules state their assumption in their own findings.
 */
export function injectedNativeProxies(graph: ObjectGraph, w: Workload): string[] {
  const namespace = graph.namespace(w.obj.namespace ?? 'default');
  const out: string[] = [];
  const lk = linkerdMesh(w, { namespace });
  if (lk && !lk.proxy && lk.mode === 'native' && lk.modeOrigin !== 'default') out.push(LINKERD.proxyContainer);
  const is = istioMesh(w, { namespace });
  if (is && !is.proxy && !is.gateway && is.mode === 'native' && is.modeOrigin !== 'default') out.push(ISTIO.proxyContainer);
  return out;
}

/** Hint: seconds each native sidecar needs after its SIGTERM ("5"), or per name ("istio-proxy=2,fluent-bit=10"). */
export const SIDECAR_DRAIN_HINT = 'kubegrace.dev/sidecar-drain-seconds';
/** SIDE-002's default drain per native sidecar. */
export const DEFAULT_SIDECAR_DRAIN_SECONDS = 5;

export interface SidecarDrainHint {
  /** A bare value: applies to every native sidecar without its own entry. */
  all?: number;
  byName: Record<string, number>;
  /** Set when the hint is malformed; the default is used for what could not be read. */
  problem?: string;
}

/**
 * Parses `kubegrace.dev/sidecar-drain-seconds`: comma-separated entries, each either a value (seconds
 * or a Go duration) for all sidecars or `name=value` for one.
 */
export function parseSidecarDrainHint(v: string | undefined): SidecarDrainHint {
  const { all, byName, bad } = parsePerContainerSeconds(v);
  const out: SidecarDrainHint = { all, byName };
  if (bad.length) out.problem = `cannot read ${bad.map((b) => `"${b}"`).join(', ')}: write seconds ("5"), a duration ("5s") or name=seconds entries ("istio-proxy=2,fluent-bit=10"); ${DEFAULT_SIDECAR_DRAIN_SECONDS}s is assumed`;
  return out;
}

/** The drain time of one native sidecar after its SIGTERM. */
export function sidecarDrainSeconds(hint: SidecarDrainHint, c: ContainerView): number {
  return hint.byName[c.name] ?? hint.all ?? DEFAULT_SIDECAR_DRAIN_SECONDS;
}

/** Σ drain of the native sidecars, which stop one after the other once the main containers are gone. */
export function totalSidecarDrain(w: Workload): number {
  const hint = parseSidecarDrainHint(w.annotations[SIDECAR_DRAIN_HINT]);
  return w.sidecars.reduce((a, s) => a + sidecarDrainSeconds(hint, s), 0);
}
