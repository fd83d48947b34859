import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { isObject } from '../model/types';
import { LB_PROPAGATION_DEFAULTS } from '../rules/lb-deregistration-delay';
import { ManifestOverlay } from './overlay';

/** AWS Load Balancer Controller and GKE names (graceful-termination.md LB-001..003). */
export const AWS_LBC = {
  readinessGateInjectLabel: 'elbv2.k8s.aws/pod-readiness-gate-inject',
  readinessGatePrefix: 'target-health.elbv2.k8s.aws/',
  lbType: 'service.beta.kubernetes.io/aws-load-balancer-type',
  nlbTargetType: 'service.beta.kubernetes.io/aws-load-balancer-nlb-target-type',
  scheme: 'service.beta.kubernetes.io/aws-load-balancer-scheme',
  serviceTgAttributes: 'service.beta.kubernetes.io/aws-load-balancer-target-group-attributes',
  albTargetType: 'alb.ingress.kubernetes.io/target-type',
  albTgAttributes: 'alb.ingress.kubernetes.io/target-group-attributes',
} as const;

export const GKE_NEG = {
  annotation: 'cloud.google.com/neg',
  readinessGate: 'cloud.google.com/load-balancer-neg-ready',
} as const;

/** A pod readiness gate: the pod is Ready only when this condition is True as well. */
export class ReadinessGate {
  /**
   * The AWS Load Balancer Controller gate of one TargetGroupBinding: the pod turns Ready only when
   * its target is healthy in the target group. The webhook injects the same gate by itself in
   * namespaces labelled `elbv2.k8s.aws/pod-readiness-gate-inject: enabled`
   * (`AwsPodReadinessGateNamespace`); write it here when the binding's name is known.
   */
  static awsLoadBalancer(targetGroupBinding: string): ReadinessGate {
    if (!targetGroupBinding) throw new Error('ReadinessGate.awsLoadBalancer: the TargetGroupBinding name is required');
    return new ReadinessGate(`${AWS_LBC.readinessGatePrefix}${targetGroupBinding}`);
  }

  /** GKE container-native load balancing: the endpoint is healthy in the backend service's NEG. */
  static gkeNeg(): ReadinessGate {
    return new ReadinessGate(GKE_NEG.readinessGate);
  }

  /** Any other condition type. */
  static custom(conditionType: string): ReadinessGate {
    return new ReadinessGate(conditionType);
  }

  private constructor(readonly conditionType: string) {}
}

/** Options of an external load balancer that targets the pods. */
export interface LoadBalancerOptions {
  /**
   * Seconds the load balancer keeps sending new requests to a target after its endpoint is
   * removed: the default preStop delay of the containers it reaches (LB-002).
   * @default 30 for ALB and GKE NEG, 60 for NLB in IP mode (the `lb-deregistration-delay` rule's defaults; the spec's NLB range is 60-120)
   */
  readonly propagationSeconds?: number;
  /**
   * AWS: the TargetGroupBinding whose readiness gate is written into the pod template.
   * @default - none: the gate is injected by the controller's webhook; put the workload in an `AwsPodReadinessGateNamespace`
   */
  readonly targetGroupBinding?: string;
  /**
   * AWS: target-group `deregistration_delay.timeout_seconds`, written on the Service.
   * @default - preStop + drain + margin (recommendedGrace), which never exceeds the grace period
   */
  readonly deregistrationDelaySeconds?: number;
  /**
   * AWS NLB: `service.beta.kubernetes.io/aws-load-balancer-scheme`.
   * @default 'internet-facing'
   */
  readonly scheme?: 'internet-facing' | 'internal';
}

export type LoadBalancerKind = 'aws-alb-ip' | 'aws-nlb-ip' | 'gke-neg';

/**
 * An external load balancer that sends traffic straight to pod IPs. It decides the Service's type
 * and annotations, the readiness gate, and the default preStop delay (the LB's propagation window).
 */
export class LoadBalancer {
  /**
   * An ALB (AWS Load Balancer Controller Ingress) with IP targets: the Service carries
   * `alb.ingress.kubernetes.io/target-type: ip` and the target-group attributes; the Ingress
   * (class `alb`) is yours to create.
   */
  static awsAlbIp(options: LoadBalancerOptions = {}): LoadBalancer {
    return new LoadBalancer('aws-alb-ip', options, LB_PROPAGATION_DEFAULTS.albPropagationSeconds);
  }

  /** An NLB in IP mode provisioned by the AWS Load Balancer Controller for a `LoadBalancer` Service. */
  static awsNlbIp(options: LoadBalancerOptions = {}): LoadBalancer {
    return new LoadBalancer('aws-nlb-ip', options, LB_PROPAGATION_DEFAULTS.nlbPropagationSeconds);
  }

  /** GKE container-native load balancing (network endpoint groups) through an Ingress. */
  static gkeNeg(options: LoadBalancerOptions = {}): LoadBalancer {
    return new LoadBalancer('gke-neg', options, LB_PROPAGATION_DEFAULTS.negPropagationSeconds);
  }

  readonly propagationSeconds: number;

  private constructor(
    readonly kind: LoadBalancerKind,
    readonly options: LoadBalancerOptions,
    defaultPropagation: number,
  ) {
    this.propagationSeconds = options.propagationSeconds ?? defaultPropagation;
    if (!(this.propagationSeconds >= 0)) throw new Error(`LoadBalancer ${kind}: propagationSeconds must be >= 0`);
    if (kind === 'gke-neg' && options.targetGroupBinding) throw new Error('LoadBalancer.gkeNeg: targetGroupBinding is an AWS option');
  }

  /** The Service type it needs. */
  get serviceType(): kplus.ServiceType {
    return this.kind === 'aws-nlb-ip' ? kplus.ServiceType.LOAD_BALANCER : kplus.ServiceType.CLUSTER_IP;
  }

  /** The Service annotations, given the deregistration delay the workload's budget suggests. */
  serviceAnnotations(suggestedDeregistrationDelay: number): Record<string, string> {
    const dd = `deregistration_delay.timeout_seconds=${this.options.deregistrationDelaySeconds ?? suggestedDeregistrationDelay}`;
    switch (this.kind) {
      case 'aws-alb-ip':
        return { [AWS_LBC.albTargetType]: 'ip', [AWS_LBC.albTgAttributes]: dd };
      case 'aws-nlb-ip':
        return {
          [AWS_LBC.lbType]: 'external',
          [AWS_LBC.nlbTargetType]: 'ip',
          [AWS_LBC.scheme]: this.options.scheme ?? 'internet-facing',
          [AWS_LBC.serviceTgAttributes]: dd,
        };
      case 'gke-neg':
        return { [GKE_NEG.annotation]: '{"ingress": true}' };
    }
  }

  /** The readiness gates to write into the pod template. */
  get readinessGates(): ReadinessGate[] {
    if (this.kind === 'gke-neg') return [ReadinessGate.gkeNeg()];
    return this.options.targetGroupBinding ? [ReadinessGate.awsLoadBalancer(this.options.targetGroupBinding)] : [];
  }
}

/**
 * A Namespace where the AWS Load Balancer Controller injects the pod readiness gate into every pod
 * behind an IP-mode target group (label `elbv2.k8s.aws/pod-readiness-gate-inject: enabled`). The
 * gate is injected at pod creation only, and only once the Service exists: create the namespace and
 * the Service first (LB-001).
 */
export class AwsPodReadinessGateNamespace extends kplus.Namespace {
  constructor(scope: Construct, id: string, props: kplus.NamespaceProps = {}) {
    super(scope, id, props);
    this.metadata.addLabel(AWS_LBC.readinessGateInjectLabel, 'enabled');
    // A Namespace is cluster-scoped: drop the chart's default namespace cdk8s copies onto it.
    ManifestOverlay.of(this).addTransform((m) => {
      if (isObject(m.metadata)) delete m.metadata.namespace;
    });
  }
}
