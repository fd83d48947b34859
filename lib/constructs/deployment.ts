import { Duration } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { HINT } from '../model/graph';
import { KubeVersion } from '../engine/version';
import { DEFAULT_DRAIN_SECONDS, recommendedGrace } from '../timeline/budget';
import { ReconnectEstimate } from '../timeline/reconnect';
import { DisruptionBudgetOptions, GracefulDisruptionBudget } from './disruption-budget';
import { DEFAULT_PRESTOP_SECONDS, GraceBudget, GracefulPodOptions, GracefulPodTemplate, LOAD_BALANCER_MIN_READY_SECONDS } from './pod-template';
import { RolloutProfile } from './rollout';
import { createService, GracefulServiceOptions } from './service';
import { NativeSidecarProps } from './sidecar';
import { TopologySpreadOptions } from './spread';
import { ReadinessGate } from './load-balancer';
import { resolveKubernetesVersion, supports } from './version';

/** progressDeadlineSeconds = minReadySeconds + this, so a slow step is never reported as failed (ROLL-004). */
export const PROGRESS_DEADLINE_HEADROOM_SECONDS = 600;

export interface GracefulDeploymentProps extends Omit<kplus.DeploymentProps, 'strategy' | 'minReady' | 'progressDeadline' | 'spread'>, GracefulPodOptions {
  /**
   * How the Deployment rolls out: `RolloutProfile.default()` (surge first), `fanIn(...)`,
   * `longLived(...)` or `exclusiveVolume()` (Recreate, one replica).
   * @default RolloutProfile.default()
   */
  readonly rollout?: RolloutProfile;
  /**
   * @default - from the rollout profile (0; the reconnect model for fanIn), at least 10 s behind an external load balancer
   */
  readonly minReady?: Duration;
  /**
   * @default - minReady + 600 s
   */
  readonly progressDeadline?: Duration;
  /**
   * A Service for the pods (add more with `exposeViaService` or your own `Service`).
   * @default - no Service
   */
  readonly service?: GracefulServiceOptions;
  /**
   * The PodDisruptionBudget; `false` for none.
   * @default - maxUnavailable 1 and unhealthyPodEvictionPolicy AlwaysAllow (>= 1.27) when replicas >= 2; none for one replica
   */
  readonly disruptionBudget?: DisruptionBudgetOptions | false;
  /**
   * Topology spread over zones and nodes, `ScheduleAnyway`, with `matchLabelKeys: [pod-template-hash]`
   * on >= 1.27; `false` for none.
   * @default - spread when replicas >= 2
   */
  readonly topologySpread?: TopologySpreadOptions | false;
}

/**
 * A cdk8s-plus `Deployment` that rolls out and shuts down without dropping traffic:
 * - surge first (`maxSurge: 1, maxUnavailable: 0`) unless the rollout profile says otherwise;
 * - a preStop delay on every container that serves a port (`sleep` action on >= 1.30, `exec sleep` before);
 * - `terminationGracePeriodSeconds` = preStop + drain + sidecar/mesh/LB addend + margin, computed at
 *   synthesis with the `lib/timeline` functions the rules use (see `budget()`);
 * - a readiness probe required on every container behind a Service port;
 * - a PodDisruptionBudget and topology spread when replicas >= 2;
 * - optional Service, external load balancer, native sidecars, mesh annotations and readiness gates.
 *
 * Everything a cdk8s-plus Deployment offers still works (`addContainer`, `exposeViaService`, ...);
 * the L1 object is `ApiObject.of(deployment)`, and `ManifestOverlay.of(deployment)` edits the final manifest.
 */
export class GracefulDeployment extends kplus.Deployment {
  readonly kubernetesVersion: KubeVersion;
  readonly rollout: RolloutProfile;
  readonly preStopSeconds: number;
  readonly drainSeconds: number;
  readonly minReadySeconds: number;
  /** The reconnect estimate behind minReadySeconds (fanIn profile only). */
  readonly reconnectEstimate?: ReconnectEstimate;
  /** The Service from the `service` prop. */
  readonly service?: kplus.Service;
  readonly disruptionBudget?: GracefulDisruptionBudget;
  private readonly podTemplate: GracefulPodTemplate;

  constructor(scope: Construct, id: string, props: GracefulDeploymentProps = {}) {
    const what = `GracefulDeployment ${scope.node.path ? `${scope.node.path}/` : ''}${id}`;
    const version = resolveKubernetesVersion(scope, props.kubernetesVersion, what);
    const rollout = props.rollout ?? RolloutProfile.default();
    const replicas = props.replicas ?? 2;
    const lb = props.service?.loadBalancer;
    if (rollout.kind === 'exclusive-volume' && replicas > 1) {
      throw new Error(`${what}: RolloutProfile.exclusiveVolume() runs one replica (a ReadWriteOnce volume attaches to one pod); got replicas ${replicas}: use a GracefulStatefulSet with volumeClaimTemplates for several`);
    }
    if (rollout.kind === 'exclusive-volume' && lb) {
      throw new Error(`${what}: RolloutProfile.exclusiveVolume() (Recreate) cannot keep an external load balancer serving during rollouts; remove service.loadBalancer or use a surge profile`);
    }
    const minReadySeconds = props.minReady?.toSeconds() ?? Math.max(rollout.minReadySeconds(replicas), lb ? LOAD_BALANCER_MIN_READY_SECONDS : 0);
    const strategy =
      rollout.kind === 'exclusive-volume'
        ? kplus.DeploymentStrategy.recreate()
        : kplus.DeploymentStrategy.rollingUpdate({ maxSurge: kplus.PercentOrAbsolute.absolute(1), maxUnavailable: kplus.PercentOrAbsolute.absolute(0) });
    super(scope, id, {
      ...props,
      replicas,
      strategy,
      minReady: Duration.seconds(minReadySeconds),
      progressDeadline: props.progressDeadline ?? Duration.seconds(minReadySeconds + PROGRESS_DEADLINE_HEADROOM_SECONDS),
      spread: false,
    });
    this.kubernetesVersion = version;
    this.rollout = rollout;
    this.minReadySeconds = minReadySeconds;
    this.reconnectEstimate = rollout.reconnectEstimate(replicas);
    this.preStopSeconds = props.preStopSeconds ?? lb?.propagationSeconds ?? DEFAULT_PRESTOP_SECONDS;
    this.drainSeconds = props.drainSeconds ?? DEFAULT_DRAIN_SECONDS;
    if (!(this.drainSeconds >= 0)) throw new Error(`${what}: drainSeconds must be >= 0`);

    this.metadata.addAnnotation(HINT.drainSeconds, String(this.drainSeconds));
    for (const [k, v] of Object.entries(rollout.hints())) {
      // (Rules the user already ignores on the object stay ignored, with their reason.)
      const mine = (this.metadata.toJson() as { annotations?: Record<string, string> }).annotations?.[k];
      if (k === HINT.ignore && mine) this.metadata.addAnnotation(k, [...new Set([...mine.split(','), ...v.split(',')].map((x) => x.trim()).filter(Boolean))].join(','));
      else if (k === HINT.ignoreReason && mine) this.metadata.addAnnotation(k, `${mine}; ${v}`);
      else this.metadata.addAnnotation(k, v);
    }

    const spread = props.topologySpread === false || replicas < 2 ? undefined : props.topologySpread ?? {};
    this.podTemplate = new GracefulPodTemplate(this, {
      kind: 'Deployment',
      version,
      preStopSeconds: this.preStopSeconds,
      preStopSecondsExplicit: props.preStopSeconds !== undefined,
      customPreStopSeconds: props.customPreStopSeconds,
      explicitGraceSeconds: props.terminationGracePeriod?.toSeconds(),
      mesh: props.mesh,
      spread: spread && { options: spread, matchLabelKeys: supports(version, 'matchLabelKeys') ? ['pod-template-hash'] : undefined },
    });
    for (const s of props.sidecars ?? []) this.addSidecar(s);
    for (const g of [...(lb?.readinessGates ?? []), ...(props.readinessGates ?? [])]) this.addReadinessGate(g);

    if (props.service) {
      this.service = createService(this, 'Service', this, props.service, {
        deregistrationDelaySeconds: recommendedGrace(this.preStopSeconds, this.drainSeconds),
      });
    }
    if (props.disruptionBudget !== false && replicas >= 2) {
      this.disruptionBudget = new GracefulDisruptionBudget(this, 'DisruptionBudget', {
        ...(props.disruptionBudget || {}),
        workload: this,
        kubernetesVersion: version.toString(),
        defaultUnhealthyPodEvictionPolicy: 'AlwaysAllow',
      });
    }
  }

  /** Adds a native sidecar (needs Kubernetes >= 1.29); see `NativeSidecarProps`. */
  addSidecar(sidecar: NativeSidecarProps): void {
    this.podTemplate.addSidecar(sidecar);
  }

  /** Adds a pod readiness gate. */
  addReadinessGate(gate: ReadinessGate): void {
    this.podTemplate.addReadinessGate(gate);
  }

  /** The termination budget as synthesized now: preStop, drain, addends and the grace period. */
  budget(): GraceBudget {
    return this.podTemplate.budget();
  }
}
