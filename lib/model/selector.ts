import { isObject, Json } from './types';

export type Labels = Record<string, string>;

export interface Requirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values: string[];
}

/**
 * A parsed label selector. `kind` tells apart the cases the API treats differently:
 * `null` (absent or null: matches nothing for PDBs), `empty` ({}: matches everything),
 * `invalid` (malformed), and `selector` (has requirements).
 */
export type Selector =
  | { kind: 'null' }
  | { kind: 'empty' }
  | { kind: 'invalid'; reason: string }
  | { kind: 'selector'; requirements: Requirement[] };

export function stringMap(v: Json | undefined): Labels {
  const out: Labels = {};
  if (!isObject(v)) return out;
  for (const k of Object.keys(v)) {
    const x = v[k];
    if (typeof x === 'string') out[k] = x;
    else if (typeof x === 'number' || typeof x === 'boolean') out[k] = String(x);
  }
  return out;
}

/** Parses a metav1.LabelSelector (matchLabels + matchExpressions). */
export function parseLabelSelector(v: Json | undefined): Selector {
  if (v === undefined || v === null) return { kind: 'null' };
  if (!isObject(v)) return { kind: 'invalid', reason: 'selector is not an object' };
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(stringMap(v.matchLabels))) requirements.push({ key, operator: 'In', values: [value] });
  if (v.matchExpressions !== undefined && v.matchExpressions !== null) {
    if (!Array.isArray(v.matchExpressions)) return { kind: 'invalid', reason: 'matchExpressions is not a list' };
    for (const e of v.matchExpressions) {
      if (!isObject(e) || typeof e.key !== 'string' || typeof e.operator !== 'string') return { kind: 'invalid', reason: 'a matchExpression lacks key or operator' };
      const op = e.operator;
      if (op !== 'In' && op !== 'NotIn' && op !== 'Exists' && op !== 'DoesNotExist') return { kind: 'invalid', reason: `unknown operator ${op}` };
      const values = Array.isArray(e.values) ? e.values.map(String) : [];
      requirements.push({ key: e.key, operator: op, values });
    }
  }
  return requirements.length ? { kind: 'selector', requirements } : { kind: 'empty' };
}

/** A Service-style selector: a plain map; empty or absent means "selects nothing" (no endpoints managed). */
export function parseMapSelector(v: Json | undefined): Selector {
  const m = stringMap(v);
  const keys = Object.keys(m);
  if (!keys.length) return { kind: 'null' };
  return { kind: 'selector', requirements: keys.map((key) => ({ key, operator: 'In', values: [m[key]] })) };
}

export function matches(sel: Selector, labels: Labels): boolean {
  switch (sel.kind) {
    case 'null':
    case 'invalid':
      return false;
    case 'empty':
      return true;
    case 'selector':
      for (const r of sel.requirements) if (!requirementHolds(r, labels)) return false;
      return true;
  }
}

function requirementHolds(r: Requirement, labels: Labels): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.operator) {
    case 'In':
      return has && r.values.includes(labels[r.key]);
    case 'NotIn':
      return !has || !r.values.includes(labels[r.key]);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
  return false;
}

/** A key=value pair every match must carry, for indexing candidates (undefined if none). */
export function indexKey(sel: Selector): string | undefined {
  if (sel.kind !== 'selector') return undefined;
  const r = sel.requirements.find((x) => x.operator === 'In' && x.values.length === 1);
  return r ? `${r.key}=${r.values[0]}` : undefined;
}
