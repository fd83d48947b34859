import { HINT } from '../model/graph';
import { Backoff, DEFAULT_BACKOFF, DEFAULT_RECONNECT_PROBABILITY, estimateReconnect, formatBackoff, parseBackoff, ReconnectEstimate } from '../timeline/reconnect';

export interface FanInOptions {
  /**
   * Target probability that a client has reconnected to a new replica before the next one is
   * replaced (graceful-termination.md section 11).
   * @default 0.7
   */
  readonly reconnectProbability?: number;
  /**
   * The clients' retry backoff: `linear:A-B` (retry n waits n*A..n*B seconds) or
   * `exponential:BASE-CAP`.
   * @default 'linear:2-4'
   */
  readonly backoff?: string;
}

export interface LongLivedOptions {
  /**
   * Seconds a new pod must stay Ready before the rollout replaces the next one.
   * @default 10
   */
  readonly minReadySeconds?: number;
}

export type RolloutProfileKind = 'default' | 'fan-in' | 'long-lived' | 'exclusive-volume';

/**
 * How a workload rolls out. The profile sets the strategy, `minReadySeconds` and the hint
 * annotations the rules read, so the linter judges the workload with the same model.
 */
export class RolloutProfile {
  /** Surge first: `maxSurge: 1, maxUnavailable: 0`, so capacity never drops during a rollout. */
  static default(): RolloutProfile {
    return new RolloutProfile('default');
  }

  /**
   * Clients that must hold a connection to *every* replica (Teleport-style reverse tunnels):
   * surge first, and `minReadySeconds` from the reconnect model (`estimateReconnect`) for the
   * replica count, target probability and backoff, which are also written as hints.
   */
  static fanIn(options: FanInOptions = {}): RolloutProfile {
    const p = options.reconnectProbability ?? DEFAULT_RECONNECT_PROBABILITY;
    if (!(p > 0 && p < 1)) throw new Error(`RolloutProfile.fanIn: reconnectProbability must be between 0 and 1, exclusive (got ${p})`);
    const backoff = options.backoff === undefined ? DEFAULT_BACKOFF : parseBackoff(options.backoff);
    return new RolloutProfile('fan-in', p, backoff);
  }

  /** Clients with long-lived connections (WebSockets, gRPC streams): surge first and a pause between replacements. */
  static longLived(options: LongLivedOptions = {}): RolloutProfile {
    const s = options.minReadySeconds ?? 10;
    if (!(s > 0)) throw new Error(`RolloutProfile.longLived: minReadySeconds must be > 0 (got ${s})`);
    return new RolloutProfile('long-lived', undefined, undefined, s);
  }

  /**
   * The pod mounts a ReadWriteOnce(Pod) volume: a surge pod could never attach it (ROLL-002), so the
   * old pod goes first (`Recreate`). Deployments only, with one replica.
   */
  static exclusiveVolume(): RolloutProfile {
    return new RolloutProfile('exclusive-volume');
  }

  private constructor(
    readonly kind: RolloutProfileKind,
    readonly reconnectProbability?: number,
    readonly backoff?: Backoff,
    private readonly fixedMinReady?: number,
  ) {}

  /** The reconnect estimate of a fan-in profile for `replicas`; undefined for other profiles. */
  reconnectEstimate(replicas: number): ReconnectEstimate | undefined {
    if (this.kind !== 'fan-in') return undefined;
    return estimateReconnect(replicas, this.reconnectProbability, this.backoff);
  }

  /** The `minReadySeconds` the profile needs for `replicas`. */
  minReadySeconds(replicas: number): number {
    if (this.kind === 'fan-in') return this.reconnectEstimate(replicas)!.suggestedMinReadySeconds;
    return this.fixedMinReady ?? 0;
  }

  /** Hint annotations (RULES.md) describing the clients. */
  hints(): Record<string, string> {
    if (this.kind === 'fan-in') {
      return {
        [HINT.connectionPattern]: 'fan-in',
        [HINT.reconnectProbability]: String(this.reconnectProbability),
        [HINT.reconnectBackoff]: formatBackoff(this.backoff!),
      };
    }
    if (this.kind === 'long-lived') return { [HINT.connectionPattern]: 'long-lived' };
    // Recreate on one replica is what the profile is for: said to recreate-strategy, which cannot
    // see the claim's access mode when the PersistentVolumeClaim is not in the chart.
    if (this.kind === 'exclusive-volume') {
      return {
        [HINT.ignore]: 'recreate-strategy',
        [HINT.ignoreReason]: 'RolloutProfile.exclusiveVolume(): the pod mounts a ReadWriteOnce volume, so the old pod goes first (Recreate)',
      };
    }
    return {};
  }
}
