import { IConstruct } from 'constructs';
import { KubeVersion, NEWEST_KNOWN } from '../engine/version';

/**
 * Construct context key that sets the target Kubernetes version for every kubegrace construct
 * below the scope that defines it (a `kubernetesVersion` prop still wins):
 * `new App({ context: { [KUBERNETES_VERSION_CONTEXT]: '1.31' } })` or `chart.node.setContext(...)`.
 */
export const KUBERNETES_VERSION_CONTEXT = 'kubegrace.dev/kubernetesVersion';

/** The oldest target the constructs support: they emit `policy/v1` PodDisruptionBudgets (1.21). */
export const MIN_SUPPORTED_VERSION = '1.21';

/** A version-gated feature the constructs can emit (graceful-termination.md, Appendix A). */
export interface Feature {
  /** What it is, for messages. */
  readonly name: string;
  /** The Kubernetes feature gate, for messages. */
  readonly gate: string;
  /** First minor where it works with default gates. */
  readonly since: readonly [number, number];
}

/** The gates the constructs use, with the first minor where each is on by default. */
export const FEATURES = {
  sleepAction: { name: 'the preStop sleep action', gate: 'PodLifecycleSleepAction, beta (on) in 1.30', since: [1, 30] },
  nativeSidecars: { name: 'native sidecars (init containers with restartPolicy: Always)', gate: 'SidecarContainers, beta (on) in 1.29', since: [1, 29] },
  unhealthyPodEvictionPolicy: { name: 'PodDisruptionBudget unhealthyPodEvictionPolicy', gate: 'PDBUnhealthyPodEvictionPolicy, beta (on) in 1.27', since: [1, 27] },
  matchLabelKeys: { name: 'topologySpreadConstraints matchLabelKeys', gate: 'MatchLabelKeysInPodTopologySpread, beta (on) in 1.27', since: [1, 27] },
  daemonSetMaxSurge: { name: 'DaemonSet rollingUpdate.maxSurge', gate: 'DaemonSetUpdateSurge, beta (on) in 1.22', since: [1, 22] },
  statefulSetMinReady: { name: 'StatefulSet minReadySeconds', gate: 'StatefulSetMinReadySeconds, beta (on) in 1.23', since: [1, 23] },
} as const satisfies Record<string, Feature>;

export type FeatureName = keyof typeof FEATURES;

/** The target version of a construct: its prop, else the context, else the newest minor the rules know. */
export function resolveKubernetesVersion(scope: IConstruct, prop: string | undefined, what: string): KubeVersion {
  const ctx = scope.node.tryGetContext(KUBERNETES_VERSION_CONTEXT) as unknown;
  const raw = prop ?? (typeof ctx === 'string' ? ctx : undefined) ?? NEWEST_KNOWN;
  let v: KubeVersion;
  try {
    v = KubeVersion.parse(raw);
  } catch (e) {
    throw new Error(`${what}: kubernetesVersion: ${(e as Error).message}`);
  }
  const [maj, min] = MIN_SUPPORTED_VERSION.split('.').map(Number);
  if (!v.atLeast(maj, min)) {
    throw new Error(`${what}: Kubernetes ${v.toString()} is not supported: the kubegrace constructs need >= ${MIN_SUPPORTED_VERSION} (policy/v1 PodDisruptionBudget); raise kubernetesVersion`);
  }
  return v;
}

export function supports(v: KubeVersion, f: FeatureName): boolean {
  const [maj, min] = FEATURES[f].since;
  return v.atLeast(maj, min);
}

/** Refuses, with what to do, a feature the target version cannot run. */
export function requireFeature(v: KubeVersion, f: FeatureName, what: string, alternative: string): void {
  if (supports(v, f)) return;
  const feat = FEATURES[f];
  throw new Error(`${what}: ${feat.name}: requires Kubernetes >= ${feat.since.join('.')} (${feat.gate}), but kubernetesVersion is ${v.toString()}; ${alternative}`);
}
