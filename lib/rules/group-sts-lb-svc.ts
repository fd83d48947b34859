import { Rule } from '../engine/types';
import { externalTrafficLocal } from './external-traffic-local';
import { gkeNegReadiness } from './gke-neg-readiness';
import { graceExceedsExternalDeadline } from './grace-exceeds-external-deadline';
import { headlessPublishNotReady } from './headless-publish-not-ready';
import { hpaReplicas } from './hpa-replicas';
import { lbDeregistrationDelay } from './lb-deregistration-delay';
import { lbReadinessGate } from './lb-readiness-gate';
import { serviceSelectorPorts } from './service-selector-ports';
import { statefulsetMaxUnavailable } from './statefulset-max-unavailable';
import { statefulsetOrderedReady } from './statefulset-ordered-ready';
import { statefulsetPartition } from './statefulset-partition';

/** TERM-006, STS-*, PDB-005 extras, LB-* and SVC-* rules (one file each, listed here). */
export const STS_LB_SVC_RULES: Rule[] = [
  graceExceedsExternalDeadline,
  statefulsetOrderedReady,
  statefulsetPartition,
  statefulsetMaxUnavailable,
  hpaReplicas,
  lbReadinessGate,
  lbDeregistrationDelay,
  gkeNegReadiness,
  serviceSelectorPorts,
  headlessPublishNotReady,
  externalTrafficLocal,
];
