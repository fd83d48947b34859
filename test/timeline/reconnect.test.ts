import { estimateReconnect, monteCarloReconnectSeconds, parseBackoff, reconnectProbabilityWithin, retriesNeeded } from '../../lib/timeline/reconnect';

/** graceful-termination.md section 11, as published: [P, N, Y, T_max]. */
const TABLE: Array<[number, number, number, number]> = [
  [0.5, 2, 0.0, 0], [0.5, 3, 0.71, 3.4], [0.5, 5, 2.11, 22.0], [0.5, 7, 3.5, 55.9], [0.5, 9, 4.88, 105.2],
  [0.7, 2, 0.74, 3.6], [0.7, 3, 1.97, 19.5], [0.7, 5, 4.4, 86.1], [0.7, 7, 6.81, 199.1], [0.7, 9, 9.22, 358.6],
  [0.9, 2, 2.32, 26.2], [0.9, 3, 4.68, 96.9], [0.9, 5, 9.32, 366.0], [0.9, 7, 13.94, 804.9], [0.9, 9, 18.55, 1413.4],
  [0.99, 2, 5.64, 138.7], [0.99, 3, 10.36, 449.8], [0.99, 5, 19.64, 1581.8], [0.99, 7, 28.87, 3392.7], [0.99, 9, 38.1, 5882.3],
];

describe('reconnect model (section 11)', () => {
  test.each(TABLE)('P=%f N=%i: Y=%f, T_max=%f s', (p, n, y, tmax) => {
    const e = estimateReconnect(n, p);
    expect(e.retries.toFixed(2)).toBe(y.toFixed(2));
    expect(e.tMax.toFixed(1)).toBe(tmax.toFixed(1));
    expect(e.tMin * 2).toBeCloseTo(e.tMax, 9);
    expect(e.method).toBe('closed-form');
    expect(e.suggestedMinReadySeconds).toBe(Math.ceil(e.tMax - 1e-9));
  });
  test('one replica needs no wait; bad inputs are refused', () => {
    expect(retriesNeeded(1, 0.9)).toBe(0);
    expect(() => retriesNeeded(0, 0.5)).toThrow(/replicas/);
    expect(() => retriesNeeded(3, 1)).toThrow(/probability/);
  });
  test('backoff parsing', () => {
    expect(parseBackoff('linear:2-4')).toEqual({ kind: 'linear', min: 2, max: 4 });
    expect(parseBackoff('exponential:1-30')).toEqual({ kind: 'exponential', base: 1, cap: 30 });
    expect(() => parseBackoff('linear:4-2')).toThrow(/A <= B/);
    expect(() => parseBackoff('fibonacci:1-2')).toThrow(/linear:A-B/);
  });
  test('a different linear backoff scales the fitted form', () => {
    const e = estimateReconnect(3, 0.7, parseBackoff('linear:1-2'));
    expect(e.tMax).toBeCloseTo(19.45 / 2, 1);
  });
  test('exponential backoff: the same rule as linear, ceil(T_max), and the step probability then meets P', () => {
    const b = parseBackoff('exponential:1-30');
    const a = estimateReconnect(5, 0.7, b);
    expect(a.method).toBe('sum-of-delays');
    // ceil(Y) = 5 retries: delays 1, 2, 4, 8, 16 -> T_min 31, T_max 62.
    expect([a.tMin, a.tMax]).toEqual([31, 62]);
    expect(a.suggestedMinReadySeconds).toBe(62);
    expect(reconnectProbabilityWithin(5, a.suggestedMinReadySeconds, b)).toBeGreaterThanOrEqual(0.7);
    expect(reconnectProbabilityWithin(5, a.suggestedMinReadySeconds - 1, b)).toBeLessThan(0.7);
    const lin = estimateReconnect(5, 0.7);
    expect(lin.suggestedMinReadySeconds).toBe(Math.ceil(lin.tMax - 1e-9));
    // The Monte Carlo quantile agrees with the exact distribution of retries: P(R <= 4) = 1 - 0.8^5 = 0.672 < 0.7,
    // so the 0.7-quantile needs the 5th retry: between 31 and 62 s.
    const q = monteCarloReconnectSeconds(5, 0.7, { base: 1, cap: 30 });
    expect(q).toBeGreaterThan(31);
    expect(q).toBeLessThan(62);
  });
  test('probability within a wait inverts the estimate', () => {
    const e = estimateReconnect(3, 0.7);
    expect(reconnectProbabilityWithin(3, e.tMax)).toBeCloseTo(0.7, 6);
    expect(reconnectProbabilityWithin(3, 0)).toBeCloseTo(1 / 3, 6);
    expect(reconnectProbabilityWithin(1, 0)).toBe(1);
    expect(reconnectProbabilityWithin(5, 1e6, parseBackoff('exponential:1-30'))).toBeGreaterThan(0.999);
  });
});
