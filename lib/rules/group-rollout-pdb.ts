import { Rule } from '../engine/types';

/** selector, ROLL-* and PDB-* rules (one file each, listed here). */
export const ROLLOUT_PDB_RULES: Rule[] = [];
