import { Duration, Size, SizeRoundingBehavior } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeVersion } from '../engine/version';
import { HINT } from '../model/graph';
import { isObject, JsonObject } from '../model/types';
import { get } from '../model/workload';
import { DEFAULT_DRAIN_SECONDS, recommendedGrace } from '../timeline/budget';
import { ReconnectEstimate } from '../timeline/reconnect';
import { DisruptionBudgetOptions, GracefulDisruptionBudget } from './disruption-budget';
import { ReadinessGate } from './load-balancer';
import { ManifestOverlay } from './overlay';
import { DEFAULT_PRESTOP_SECONDS, GraceBudget, GracefulPodOptions, GracefulPodTemplate, LOAD_BALANCER_MIN_READY_SECONDS } from './pod-template';
import { RolloutProfile } from './rollout';
import { containerServicePorts, createService, definedOnly, GracefulServiceOptions } from './service';
import { NativeSidecarProps } from './sidecar';
import { TopologySpreadOptions } from './spread';
import { requireFeature, resolveKubernetesVersion } from './version';

/** A PersistentVolumeClaim template: each pod gets its own claim, kept across restarts and rollouts. */
export interface VolumeClaimTemplateProps {
  /** Claim (and volume) name. */
  readonly name: string;
  /** Requested size, e.g. `Size.gibibytes(10)`. */
  readonly storage: Size;
  /** @default ['ReadWriteOnce'] */
  readonly accessModes?: string[];
  /** @default - the cluster's default StorageClass */
  readonly storageClassName?: string;
  /**
   * Where the volume is mounted.
   * @default - not mounted (mount it yourself through the overlay)
   */
  readonly mountPath?: string;
  /**
   * Names of the containers that mount it.
   * @default - every main container
   */
  readonly containers?: string[];
}

/** The headless Service that gives each pod a stable DNS name (`<pod>.<service>`) for peer discovery. */
export interface PeerServiceOptions {
  /** @default - a generated name */
  readonly name?: string;
  /**
   * Publish pods before they are Ready, so members can find each other while they form or rejoin
   * the cluster (SVC-002). Only peers use this Service; clients use the client Service.
   * @default true
   */
  readonly publishNotReadyAddresses?: boolean;
}

export interface GracefulStatefulSetProps extends Omit<kplus.StatefulSetProps, 'service' | 'podManagementPolicy' | 'strategy' | 'minReady' | 'spread'>, GracefulPodOptions {
  /**
   * `Parallel` creates and deletes pods without waiting for their predecessors, so a member that
   * never turns Ready (peers still forming a quorum) does not block the others; `OrderedReady`
   * goes one ordinal at a time, and a bad revision then stalls until its pods are deleted by hand
   * (STS-001, reported as advice by `statefulset-ordered-ready`).
   * @default PodManagementPolicy.PARALLEL
   */
  readonly podManagementPolicy?: kplus.PodManagementPolicy;
  /**
   * Rolling-update partition: only ordinals >= partition get a new revision (staged rollouts). A
   * partition left in a committed manifest is reported by `statefulset-partition`.
   * @default 0
   */
  readonly partition?: number;
  /**
   * `RolloutProfile.default()`, `fanIn(...)` or `longLived(...)` (minReadySeconds and hints);
   * `exclusiveVolume()` is for Deployments and is refused.
   * @default RolloutProfile.default()
   */
  readonly rollout?: RolloutProfile;
  /**
   * Needs Kubernetes >= 1.23 when > 0.
   * @default - from the rollout profile (0), at least 10 s behind an external load balancer
   */
  readonly minReady?: Duration;
  /** @default - headless, publishNotReadyAddresses: true, every container port */
  readonly peerService?: PeerServiceOptions;
  /**
   * The Service clients use (never publishes unready pods); `false` for none.
   * @default - a ClusterIP Service on every main-container port
   */
  readonly clientService?: GracefulServiceOptions | false;
  /** @default [] */
  readonly volumeClaimTemplates?: VolumeClaimTemplateProps[];
  /**
   * The PodDisruptionBudget; `false` for none.
   * @default - maxUnavailable 1 and unhealthyPodEvictionPolicy IfHealthyBudget (>= 1.27; data stores keep a recovering member) when replicas >= 2
   */
  readonly disruptionBudget?: DisruptionBudgetOptions | false;
  /**
   * Topology spread over zones and nodes (`ScheduleAnyway`); `false` for none.
   * @default - spread when replicas >= 2
   */
  readonly topologySpread?: TopologySpreadOptions | false;
}

/**
 * A cdk8s-plus `StatefulSet` for clustered data stores: a headless peer Service with
 * `publishNotReadyAddresses` plus a separate client Service, `Parallel` pod management, partition
 * support, a PodDisruptionBudget and spreading, and the same termination handling as
 * `GracefulDeployment` (preStop delay, computed grace period, native sidecars, mesh annotations).
 */
export class GracefulStatefulSet extends kplus.StatefulSet {
  readonly kubernetesVersion: KubeVersion;
  readonly rollout: RolloutProfile;
  readonly preStopSeconds: number;
  readonly drainSeconds: number;
  readonly minReadySeconds: number;
  readonly partition: number;
  readonly reconnectEstimate?: ReconnectEstimate;
  /** The headless peer Service (also `service`, the StatefulSet's `serviceName`). */
  readonly peerService: kplus.Service;
  readonly clientService?: kplus.Service;
  readonly disruptionBudget?: GracefulDisruptionBudget;
  private readonly podTemplate: GracefulPodTemplate;

  constructor(scope: Construct, id: string, props: GracefulStatefulSetProps = {}) {
    const what = `GracefulStatefulSet ${scope.node.path ? `${scope.node.path}/` : ''}${id}`;
    const version = resolveKubernetesVersion(scope, props.kubernetesVersion, what);
    const rollout = props.rollout ?? RolloutProfile.default();
    if (rollout.kind === 'exclusive-volume') {
      throw new Error(`${what}: RolloutProfile.exclusiveVolume() is for Deployments; a StatefulSet gives each pod its own claim through volumeClaimTemplates and never surges`);
    }
    const replicas = props.replicas ?? 1;
    const partition = props.partition ?? 0;
    if (!Number.isInteger(partition) || partition < 0) throw new Error(`${what}: partition must be a whole number >= 0`);
    const lb = props.clientService ? props.clientService.loadBalancer : undefined;
    const minReadySeconds = props.minReady?.toSeconds() ?? Math.max(rollout.minReadySeconds(replicas), lb ? LOAD_BALANCER_MIN_READY_SECONDS : 0);
    if (minReadySeconds > 0) requireFeature(version, 'statefulSetMinReady', what, 'leave minReady at 0 or raise kubernetesVersion');
    // The peer Service must exist before the StatefulSet (its serviceName); cdk8s-plus would create
    // one without a name of our choosing, so it is a sibling construct.
    const peers = new kplus.Service(scope, `${id}Peers`, {
      clusterIP: 'None',
      metadata: definedOnly({ name: props.peerService?.name, namespace: props.metadata?.namespace }),
    });
    super(scope, id, {
      ...props,
      service: peers,
      replicas,
      podManagementPolicy: props.podManagementPolicy ?? kplus.PodManagementPolicy.PARALLEL,
      strategy: kplus.StatefulSetUpdateStrategy.rollingUpdate({ partition }),
      minReady: Duration.seconds(minReadySeconds),
      spread: false,
    });
    this.kubernetesVersion = version;
    this.rollout = rollout;
    this.partition = partition;
    this.minReadySeconds = minReadySeconds;
    this.reconnectEstimate = rollout.reconnectEstimate(replicas);
    this.preStopSeconds = props.preStopSeconds ?? lb?.propagationSeconds ?? DEFAULT_PRESTOP_SECONDS;
    this.drainSeconds = props.drainSeconds ?? DEFAULT_DRAIN_SECONDS;
    if (!(this.drainSeconds >= 0)) throw new Error(`${what}: drainSeconds must be >= 0`);
    this.metadata.addAnnotation(HINT.drainSeconds, String(this.drainSeconds));
    for (const [k, v] of Object.entries(rollout.hints())) this.metadata.addAnnotation(k, v);

    this.peerService = peers;
    for (const p of containerServicePorts(this.containers, `${what}: peer Service`)) peers.bind(p.port, { name: p.name, targetPort: p.targetPort, protocol: p.protocol });
    const publish = props.peerService?.publishNotReadyAddresses ?? true;
    ManifestOverlay.of(peers).addTransform((m) => {
      (m.spec as JsonObject).publishNotReadyAddresses = publish;
    });

    const spread = props.topologySpread === false || replicas < 2 ? undefined : props.topologySpread ?? {};
    this.podTemplate = new GracefulPodTemplate(this, {
      kind: 'StatefulSet',
      version,
      preStopSeconds: this.preStopSeconds,
      preStopSecondsExplicit: props.preStopSeconds !== undefined,
      customPreStopSeconds: props.customPreStopSeconds,
      explicitGraceSeconds: props.terminationGracePeriod?.toSeconds(),
      mesh: props.mesh,
      // StatefulSet pods carry no pod-template-hash: old and new revisions are counted together.
      spread: spread && { options: spread },
    });
    for (const s of props.sidecars ?? []) this.addSidecar(s);
    for (const g of [...(lb?.readinessGates ?? []), ...(props.readinessGates ?? [])]) this.addReadinessGate(g);
    const claims = props.volumeClaimTemplates ?? [];
    if (claims.length) ManifestOverlay.of(this).addTransform((m) => addClaimTemplates(m, claims, what));

    if (props.clientService !== false) {
      this.clientService = createService(this, 'ClientService', this, props.clientService ?? {}, {
        deregistrationDelaySeconds: recommendedGrace(this.preStopSeconds, this.drainSeconds),
      });
    }
    if (props.disruptionBudget !== false && replicas >= 2) {
      this.disruptionBudget = new GracefulDisruptionBudget(this, 'DisruptionBudget', {
        ...(props.disruptionBudget || {}),
        workload: this,
        kubernetesVersion: version.toString(),
        defaultUnhealthyPodEvictionPolicy: 'IfHealthyBudget',
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

  /** The termination budget as synthesized now. */
  budget(): GraceBudget {
    return this.podTemplate.budget();
  }
}

function addClaimTemplates(m: JsonObject, claims: VolumeClaimTemplateProps[], what: string): void {
  const spec = m.spec as JsonObject;
  const containers = get(m, 'spec', 'template', 'spec', 'containers');
  const list = Array.isArray(containers) ? containers.filter(isObject) : [];
  spec.volumeClaimTemplates = claims.map((c) => {
    const t: JsonObject = {
      metadata: { name: c.name },
      spec: { accessModes: [...(c.accessModes ?? ['ReadWriteOnce'])], resources: { requests: { storage: quantity(c.storage) } } },
    };
    if (c.storageClassName) (t.spec as JsonObject).storageClassName = c.storageClassName;
    return t;
  });
  for (const c of claims) {
    if (!c.mountPath) continue;
    const targets = c.containers ?? list.map((x) => String(x.name));
    for (const name of targets) {
      const container = list.find((x) => x.name === name);
      if (!container) throw new Error(`${what}: volume claim "${c.name}" is mounted in container "${name}", which does not exist`);
      const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts : [];
      mounts.push({ name: c.name, mountPath: c.mountPath });
      container.volumeMounts = mounts;
    }
  }
}

/** `10Gi`, or `512Mi` when not a whole number of gibibytes. */
function quantity(size: Size): string {
  const mi = size.toMebibytes({ rounding: SizeRoundingBehavior.NONE });
  return mi % 1024 === 0 ? `${mi / 1024}Gi` : `${Math.ceil(mi)}Mi`;
}
