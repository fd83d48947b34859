import { Json } from './types';

/** An IntOrString as written: a number, a percentage, or something the API would reject. */
export type IntOrPercent = { kind: 'int'; value: number } | { kind: 'percent'; value: number } | { kind: 'invalid'; raw: Json };

export function parseIntOrPercent(v: Json | undefined): IntOrPercent | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isInteger(v)) return { kind: 'int', value: v };
  if (typeof v === 'string') {
    const m = /^(\d+)%$/.exec(v.trim());
    if (m) return { kind: 'percent', value: Number(m[1]) };
    if (/^\d+$/.test(v.trim())) return { kind: 'invalid', raw: v }; // "1" is not an int to the API
  }
  return { kind: 'invalid', raw: v };
}

/** intstr.GetScaledValueFromIntOrPercent: percentages of `total`, rounded up or down. */
export function scaled(v: IntOrPercent, total: number, roundUp: boolean): number | undefined {
  if (v.kind === 'int') return v.value;
  if (v.kind === 'percent') {
    const x = (v.value * total) / 100;
    return roundUp ? Math.ceil(x) : Math.floor(x);
  }
  return undefined;
}

/** True when the value is literally zero (`0` or `"0%"`), as the API's validation sees it. */
export function isLiteralZero(v: IntOrPercent | undefined): boolean {
  return v !== undefined && v.kind !== 'invalid' && v.value === 0;
}
