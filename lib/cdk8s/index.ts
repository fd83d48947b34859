/** The cdk8s validation plugin: `class: KubegraceValidation` in cdk8s.yaml. */
export { KubegraceValidation } from './plugin';
export type { KubegraceValidationProps, ValidationContext, ValidationViolation, ValidationViolatingResource } from './plugin';
