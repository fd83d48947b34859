import { Rule } from '../engine/types';
import { livenessEqualsReadiness } from './liveness-equals-readiness';
import { prestopHandler } from './prestop-handler';
import { prestopMissing } from './prestop-missing';
import { prestopSleepAction } from './prestop-sleep-action';
import { probePort } from './probe-port';
import { readinessProbeMissing } from './readiness-probe-missing';
import { startupProbe } from './startup-probe';
import { zeroGracePeriod } from './zero-grace-period';

/** TERM-002..005 and PROBE-* rules (one file each, listed here). */
export const TERM_PROBE_RULES: Rule[] = [
  prestopMissing,
  prestopSleepAction,
  prestopHandler,
  zeroGracePeriod,
  readinessProbeMissing,
  livenessEqualsReadiness,
  startupProbe,
  probePort,
];
