import { ApiObject, ApiObjectMetadata, Lazy } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { definedOnly } from './service';
import { requireFeature, resolveKubernetesVersion, supports } from './version';

export type UnhealthyPodEvictionPolicy = 'AlwaysAllow' | 'IfHealthyBudget';

/** The budget of a workload's PodDisruptionBudget. */
export interface DisruptionBudgetOptions {
  /**
   * Pods that may be down at once for voluntary disruptions (drains, autoscaler consolidation).
   * `maxUnavailable` follows scale changes, unlike `minAvailable` (PDB-001).
   * @default 1
   */
  readonly maxUnavailable?: number | string;
  /**
   * Whether Running-but-not-Ready pods may be evicted while the budget is not met. Written only on
   * Kubernetes >= 1.27; setting it explicitly on an older target is refused.
   * @default 'AlwaysAllow' for Deployments, 'IfHealthyBudget' for StatefulSets (data stores)
   */
  readonly unhealthyPodEvictionPolicy?: UnhealthyPodEvictionPolicy;
  /** @default - a generated name */
  readonly metadata?: ApiObjectMetadata;
}

export interface GracefulDisruptionBudgetProps extends DisruptionBudgetOptions {
  /** The workload whose pods the budget protects (its selector's matchLabels). */
  readonly workload: kplus.Workload;
  /**
   * Target Kubernetes version (X.Y).
   * @default - the `kubegrace.dev/kubernetesVersion` context value, else the newest minor the rules know
   */
  readonly kubernetesVersion?: string;
  /**
   * The policy when `unhealthyPodEvictionPolicy` is not given.
   * @default 'AlwaysAllow'
   */
  readonly defaultUnhealthyPodEvictionPolicy?: UnhealthyPodEvictionPolicy;
}

/**
 * A `policy/v1` PodDisruptionBudget with `maxUnavailable` (default 1) selecting exactly one
 * workload's pods, and `unhealthyPodEvictionPolicy` where the version has it (PDB-001..004).
 */
export class GracefulDisruptionBudget extends Construct {
  /** The L1 object, for escape hatches. */
  readonly apiObject: ApiObject;
  readonly maxUnavailable: number | string;
  /** Undefined when the target version has no such field. */
  readonly unhealthyPodEvictionPolicy?: UnhealthyPodEvictionPolicy;

  constructor(scope: Construct, id: string, props: GracefulDisruptionBudgetProps) {
    super(scope, id);
    const version = resolveKubernetesVersion(this, props.kubernetesVersion, `GracefulDisruptionBudget ${this.node.path}`);
    this.maxUnavailable = props.maxUnavailable ?? 1;
    if (this.maxUnavailable === 0 || this.maxUnavailable === '0' || this.maxUnavailable === '0%') {
      throw new Error(`GracefulDisruptionBudget ${this.node.path}: maxUnavailable 0 allows no voluntary disruption, so node drains never finish (PDB-002); use 1 or more`);
    }
    if (props.unhealthyPodEvictionPolicy !== undefined) {
      requireFeature(version, 'unhealthyPodEvictionPolicy', `GracefulDisruptionBudget ${this.node.path}`, 'leave unhealthyPodEvictionPolicy unset (it behaves as IfHealthyBudget) or raise kubernetesVersion');
    }
    this.unhealthyPodEvictionPolicy = supports(version, 'unhealthyPodEvictionPolicy')
      ? (props.unhealthyPodEvictionPolicy ?? props.defaultUnhealthyPodEvictionPolicy ?? 'AlwaysAllow')
      : undefined;
    const workload = props.workload;
    this.apiObject = new kplus.k8s.KubePodDisruptionBudget(this, 'Resource', {
      // Same namespace as the workload when it names one (a PDB selects pods of its own namespace only).
      metadata: definedOnly({ namespace: workload.metadata.namespace, ...props.metadata }),
      spec: {
        maxUnavailable: typeof this.maxUnavailable === 'number' ? kplus.k8s.IntOrString.fromNumber(this.maxUnavailable) : kplus.k8s.IntOrString.fromString(this.maxUnavailable),
        selector: { matchLabels: Lazy.any({ produce: () => workload.matchLabels }) },
        unhealthyPodEvictionPolicy: this.unhealthyPodEvictionPolicy,
      },
    });
  }
}
