import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeVersion } from '../engine/version';
import { HINT } from '../model/graph';
import { isObject, JsonObject } from '../model/types';
import { get } from '../model/workload';
import { DEFAULT_DRAIN_SECONDS, recommendedGrace } from '../timeline/budget';
import { ReadinessGate } from './load-balancer';
import { ManifestOverlay } from './overlay';
import { DEFAULT_PRESTOP_SECONDS, GraceBudget, GracefulPodOptions, GracefulPodTemplate } from './pod-template';
import { createService, GracefulServiceOptions } from './service';
import { NativeSidecarProps } from './sidecar';
import { requireFeature, resolveKubernetesVersion } from './version';

/** A Service for node-local traffic to a DaemonSet. */
export interface NodeLocalServiceOptions extends GracefulServiceOptions {
  /**
   * `Local` keeps in-cluster traffic on the node it came from (the agent on that node).
   * @default 'Local'
   */
  readonly internalTrafficPolicy?: 'Cluster' | 'Local';
}

export interface GracefulDaemonSetProps extends Omit<kplus.DaemonSetProps, 'spread'>, GracefulPodOptions {
  /**
   * New pods a node may run beside the old one during a rollout. Surge keeps a node-level proxy or
   * node-local endpoint serving while its pod is replaced (MESH-ISTIO-002); it cannot be combined
   * with host ports or host networking (the new pod could not bind the port).
   * @default 1
   */
  readonly maxSurge?: number | string;
  /**
   * @default 0 (1 when maxSurge is 0)
   */
  readonly maxUnavailable?: number | string;
  /**
   * A Service for node-local traffic.
   * @default - no Service
   */
  readonly service?: NodeLocalServiceOptions;
}

function isZero(v: number | string): boolean {
  return v === 0 || v === '0' || v === '0%';
}

/**
 * A cdk8s-plus `DaemonSet` for node agents and node-level proxies: surge rollouts (`maxSurge: 1,
 * maxUnavailable: 0`, Kubernetes >= 1.22), so a node never goes without its agent, and the same
 * termination handling as `GracefulDeployment`.
 */
export class GracefulDaemonSet extends kplus.DaemonSet {
  readonly kubernetesVersion: KubeVersion;
  readonly preStopSeconds: number;
  readonly drainSeconds: number;
  readonly maxSurge: number | string;
  readonly maxUnavailable: number | string;
  readonly service?: kplus.Service;
  private readonly podTemplate: GracefulPodTemplate;

  constructor(scope: Construct, id: string, props: GracefulDaemonSetProps = {}) {
    const what = `GracefulDaemonSet ${scope.node.path ? `${scope.node.path}/` : ''}${id}`;
    const version = resolveKubernetesVersion(scope, props.kubernetesVersion, what);
    const maxSurge = props.maxSurge ?? 1;
    const maxUnavailable = props.maxUnavailable ?? (isZero(maxSurge) ? 1 : 0);
    if (isZero(maxSurge) && isZero(maxUnavailable)) throw new Error(`${what}: maxSurge and maxUnavailable cannot both be 0 (the API rejects it)`);
    if (!isZero(maxSurge)) requireFeature(version, 'daemonSetMaxSurge', what, 'set maxSurge: 0 and maxUnavailable: 1, or raise kubernetesVersion');
    if (!isZero(maxSurge) && props.hostNetwork) {
      throw new Error(`${what}: maxSurge with hostNetwork: the surge pod cannot bind the ports the old pod holds on the node, so the rollout stalls; set maxSurge: 0 and maxUnavailable: 1`);
    }
    super(scope, id, { ...props, spread: false });
    this.kubernetesVersion = version;
    this.maxSurge = maxSurge;
    this.maxUnavailable = maxUnavailable;
    this.preStopSeconds = props.preStopSeconds ?? props.service?.loadBalancer?.propagationSeconds ?? DEFAULT_PRESTOP_SECONDS;
    this.drainSeconds = props.drainSeconds ?? DEFAULT_DRAIN_SECONDS;
    if (!(this.drainSeconds >= 0)) throw new Error(`${what}: drainSeconds must be >= 0`);
    this.metadata.addAnnotation(HINT.drainSeconds, String(this.drainSeconds));

    this.podTemplate = new GracefulPodTemplate(this, {
      kind: 'DaemonSet',
      version,
      preStopSeconds: this.preStopSeconds,
      preStopSecondsExplicit: props.preStopSeconds !== undefined,
      customPreStopSeconds: props.customPreStopSeconds,
      explicitGraceSeconds: props.terminationGracePeriod?.toSeconds(),
      mesh: props.mesh,
    });
    for (const s of props.sidecars ?? []) this.addSidecar(s);
    for (const g of [...(props.service?.loadBalancer?.readinessGates ?? []), ...(props.readinessGates ?? [])]) this.addReadinessGate(g);
    ManifestOverlay.of(this).addTransform((m) => {
      (m.spec as JsonObject).updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } };
    });
    this.node.addValidation({
      validate: () => {
        if (isZero(maxSurge)) return [];
        const containers = get(this.apiObjectJson(), 'spec', 'template', 'spec', 'containers');
        const withHostPort = (Array.isArray(containers) ? containers.filter(isObject) : []).filter((c) => Array.isArray(c.ports) && c.ports.some((p) => isObject(p) && p.hostPort !== undefined));
        return withHostPort.map((c) => `container "${String(c.name)}" uses a hostPort, which a surge pod cannot bind while the old pod holds it on the node: set maxSurge: 0 and maxUnavailable: 1, or drop the hostPort`);
      },
    });
    if (props.service) {
      this.service = createService(this, 'Service', this, props.service, {
        internalTrafficPolicy: props.service.internalTrafficPolicy ?? 'Local',
        deregistrationDelaySeconds: recommendedGrace(this.preStopSeconds, this.drainSeconds),
      });
    }
  }

  private apiObjectJson(): JsonObject {
    return this.apiObject.toJson() as JsonObject;
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
