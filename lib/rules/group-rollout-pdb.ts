import { Rule } from '../engine/types';
import { pdbBlocksEviction } from './pdb-blocks-eviction';
import { pdbMissing } from './pdb-missing';
import { pdbSelector } from './pdb-selector';
import { pdbUnhealthyEvictionPolicy } from './pdb-unhealthy-eviction-policy';
import { progressDeadline } from './progress-deadline';
import { recreateStrategy } from './recreate-strategy';
import { rolloutFullOutage } from './rollout-full-outage';
import { selectorMismatch } from './selector-mismatch';
import { surgeVolumeDeadlock } from './surge-volume-deadlock';

/** selector, ROLL-* and PDB-* rules (one file each, listed here). */
export const ROLLOUT_PDB_RULES: Rule[] = [
  selectorMismatch,
  rolloutFullOutage,
  surgeVolumeDeadlock,
  progressDeadline,
  recreateStrategy,
  pdbMissing,
  pdbBlocksEviction,
  pdbSelector,
  pdbUnhealthyEvictionPolicy,
];
