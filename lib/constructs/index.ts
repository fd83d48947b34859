/** The kubegrace cdk8s constructs (on cdk8s-plus-27). */
export * from './daemonset';
export * from './deployment';
export * from './disruption-budget';
export * from './load-balancer';
export * from './mesh';
export * from './overlay';
export { DEFAULT_PRESTOP_SECONDS, LOAD_BALANCER_MIN_READY_SECONDS, preStopHandler } from './pod-template';
export type { GraceBudget, GracefulPodOptions } from './pod-template';
export * from './rollout';
export type { GracefulServiceOptions } from './service';
export * from './sidecar';
export * from './spread';
export * from './statefulset';
export { FEATURES, KUBERNETES_VERSION_CONTEXT, MIN_SUPPORTED_VERSION, supports } from './version';
export type { Feature, FeatureName } from './version';
