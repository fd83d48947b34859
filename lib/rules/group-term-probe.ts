import { Rule } from '../engine/types';

/** TERM-002..005 and PROBE-* rules (one file each, listed here). */
export const TERM_PROBE_RULES: Rule[] = [];
