import { JsonObject } from '../model/types';

/** Where replicas are spread (SPREAD-001): across zones and across nodes. */
export const SPREAD_TOPOLOGY_KEYS = ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'] as const;

export interface TopologySpreadOptions {
  /**
   * Topology keys to spread over, one constraint each.
   * @default ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']
   */
  readonly topologyKeys?: string[];
  /** @default 1 */
  readonly maxSkew?: number;
  /**
   * `ScheduleAnyway` never blocks a surge pod; `DoNotSchedule` can stall a rollout on a small cluster (SPREAD-002).
   * @default 'ScheduleAnyway'
   */
  readonly whenUnsatisfiable?: 'ScheduleAnyway' | 'DoNotSchedule';
}

/**
 * Topology spread constraints over the pods selected by `matchLabels`. With `matchLabelKeys`
 * (Deployments on >= 1.27) old and new ReplicaSets are counted apart, so a rollout is not judged
 * against the pods it is replacing.
 */
export function topologySpreadConstraints(matchLabels: Record<string, string>, matchLabelKeys: string[] | undefined, options: TopologySpreadOptions = {}): JsonObject[] {
  const keys = options.topologyKeys ?? [...SPREAD_TOPOLOGY_KEYS];
  return keys.map((topologyKey) => {
    const c: JsonObject = {
      maxSkew: options.maxSkew ?? 1,
      topologyKey,
      whenUnsatisfiable: options.whenUnsatisfiable ?? 'ScheduleAnyway',
      labelSelector: { matchLabels: { ...matchLabels } },
    };
    if (matchLabelKeys?.length) c.matchLabelKeys = [...matchLabelKeys];
    return c;
  });
}
