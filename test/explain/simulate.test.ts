/**
 * `simulate rollout`: the section 11 table over a rollout, the JSON contract, and input checks.
 */
import Ajv from 'ajv';
import { checkSimulateInput, SimulateInput, simulateRollout, simulationText } from '../../lib/explain/simulate';
import { DEFAULT_BACKOFF, parseBackoff, reconnectProbabilityWithin } from '../../lib/timeline/reconnect';

const base = (over: Partial<SimulateInput> = {}): SimulateInput => ({ replicas: 3, probability: 0.7, backoff: DEFAULT_BACKOFF, surge: 1, startupSeconds: 0, ...over });

describe('per-step wait against the section 11 table', () => {
  test.each([
    // [N, P, Y, T_max, required minReadySeconds]
    [3, 0.7, 1.97, 19.5, 20],
    [5, 0.9, 9.32, 366.0, 367],
    [2, 0.5, 0, 0, 0],
    [3, 0.5, 0.71, 3.4, 4],
    [9, 0.7, 9.22, 358.6, 359],
  ])('N=%i P=%f: Y=%f, T_max=%f s, minReadySeconds %i', (n, p, y, tmax, req) => {
    const s = simulateRollout(base({ replicas: n, probability: p }));
    expect(s.perStep.retries).toBeCloseTo(y, 2);
    expect(s.perStep.waitSecondsMax).toBe(tmax);
    expect(s.perStep.waitSecondsMin).toBeCloseTo(tmax / 2, 0);
    expect(s.perStep.requiredMinReadySeconds).toBe(req);
    expect(s.perStep.method).toBe('closed-form');
  });

  test('the text report says about 19.5 s for N=3, P=0.7', () => {
    const text = simulationText(simulateRollout(base()));
    expect(text).toContain('wait for P = 0.7:        9.7s (T_min) to 19.5s (T_max)');
    expect(text).toContain('minReadySeconds needed:  20');
    expect(text).toContain('Set minReadySeconds: 20 (T_max 19.5s for P = 0.7); the rollout then takes about 60s.');
  });
});

describe('the rollout', () => {
  test('steps, duration = steps x (startup + minReady), per-step probability from reconnectProbabilityWithin', () => {
    const s = simulateRollout(base({ replicas: 5, minReadySeconds: 10, startupSeconds: 20 }));
    expect(s.rollout).toMatchObject({ steps: 5, minReadySeconds: 10, minReadySource: 'given', stepSeconds: 30, durationSeconds: 150 });
    const p = reconnectProbabilityWithin(5, 10);
    expect(s.rollout.stepProbability).toBeCloseTo(p, 4);
    expect(s.rollout.allStepsInTime).toBeCloseTo(Math.pow(p, 5), 4);
    expect(s.rollout.timeline.map((x) => [x.step, x.createdAt, x.readyAt, x.nextGoesAt])).toEqual([
      [1, 0, 20, 30],
      [2, 30, 50, 60],
      [3, 60, 80, 90],
      [4, 90, 110, 120],
      [5, 120, 140, 150],
    ]);
    // The last replica has only its own window by the end; earlier ones have had longer.
    const byEnd = s.rollout.timeline.map((x) => x.probabilityByEnd);
    expect(byEnd[4]).toBeCloseTo(p, 4);
    expect(byEnd[0]).toBeCloseTo(reconnectProbabilityWithin(5, 10 + 4 * 30), 4);
    expect([...byEnd].sort((a, b) => b - a)).toEqual(byEnd);
    const none = s.rollout.timeline.reduce((a, x) => a * (1 - x.probabilityByEnd), 1);
    expect(s.rollout.atLeastOneAtEnd).toBeCloseTo(1 - none, 3);
    expect(s.recommendation.minReadySeconds).toBe(simulateRollout(base({ replicas: 5 })).perStep.requiredMinReadySeconds);
    expect(s.recommendation.message).toMatch(/minReadySeconds 10s gives P = 0\.\d\d per step, below the target 0\.7\. Set minReadySeconds: 87 \(T_max 86\.1s/);
  });

  test('without --min-ready the required value is used, and meets the target', () => {
    const s = simulateRollout(base());
    expect(s.rollout).toMatchObject({ minReadySeconds: 20, minReadySource: 'required', durationSeconds: 60 });
    expect(s.rollout.stepProbability).toBeGreaterThanOrEqual(0.7);
  });

  test('a large enough --min-ready meets the target', () => {
    const s = simulateRollout(base({ minReadySeconds: 30 }));
    expect(s.rollout.stepProbability).toBeGreaterThan(0.7);
    expect(s.recommendation.message).toMatch(/^minReadySeconds 30s meets the target/);
  });

  test('surge K: ceil(N/K) steps, the per-replica target is P^(1/K), the last step may be smaller', () => {
    const s = simulateRollout(base({ replicas: 7, surge: 3, minReadySeconds: 15 }));
    expect(s.rollout.steps).toBe(3);
    expect(s.rollout.timeline.map((x) => x.newReplicas)).toEqual([3, 3, 1]);
    expect(s.perStep.perReplicaProbability).toBeCloseTo(Math.pow(0.7, 1 / 3), 4);
    const p = reconnectProbabilityWithin(7, 15);
    expect(s.rollout.timeline[0].probabilityInTime).toBeCloseTo(Math.pow(p, 3), 4);
    expect(s.rollout.timeline[2].probabilityInTime).toBeCloseTo(p, 4);
    // More new replicas per step need a longer wait for the same step target.
    expect(s.perStep.requiredMinReadySeconds).toBeGreaterThan(simulateRollout(base({ replicas: 7 })).perStep.requiredMinReadySeconds);
  });

  test('exponential backoff: the linear rule, ceil(T_max), so the step meets the target', () => {
    const a = simulateRollout(base({ replicas: 5, backoff: parseBackoff('exponential:1-30') }));
    expect(a.perStep.method).toBe('sum-of-delays');
    expect(a.perStep.requiredMinReadySeconds).toBe(Math.ceil(a.perStep.waitSecondsMax - 1e-9));
    expect(a.rollout.stepProbability).toBeGreaterThanOrEqual(a.input.probability);
    expect(simulateRollout(base({ replicas: 5, backoff: parseBackoff('exponential:1-30') }))).toEqual(a);
  });

  test('a wait beyond the default progress deadline is called out', () => {
    expect(simulateRollout(base({ replicas: 9, probability: 0.9 })).recommendation.message).toMatch(/progressDeadlineSeconds/);
  });
});

describe('JSON contract (version 1)', () => {
  const schema = {
    type: 'object',
    required: ['version', 'model', 'input', 'perStep', 'rollout', 'recommendation', 'assumptions'],
    additionalProperties: false,
    properties: {
      version: { const: 1 },
      model: { type: 'string' },
      input: {
        type: 'object',
        additionalProperties: false,
        required: ['replicas', 'probability', 'backoff', 'surge', 'minReadySeconds', 'startupSeconds'],
        properties: {
          replicas: { type: 'integer', minimum: 1 },
          probability: { type: 'number' },
          backoff: { type: 'string' },
          surge: { type: 'integer' },
          minReadySeconds: { type: ['number', 'null'] },
          startupSeconds: { type: 'number' },
        },
      },
      perStep: {
        type: 'object',
        additionalProperties: false,
        required: ['newReplicas', 'perReplicaProbability', 'retries', 'waitSecondsMin', 'waitSecondsMax', 'method', 'requiredMinReadySeconds'],
        properties: {
          newReplicas: { type: 'integer', minimum: 1 },
          perReplicaProbability: { type: 'number' },
          retries: { type: 'number', minimum: 0 },
          waitSecondsMin: { type: 'number', minimum: 0 },
          waitSecondsMax: { type: 'number', minimum: 0 },
          method: { enum: ['closed-form', 'sum-of-delays'] },
          requiredMinReadySeconds: { type: 'integer', minimum: 0 },
        },
      },
      rollout: {
        type: 'object',
        additionalProperties: false,
        required: ['steps', 'minReadySeconds', 'minReadySource', 'stepSeconds', 'durationSeconds', 'stepProbability', 'allStepsInTime', 'atLeastOneAtEnd', 'allAtEnd', 'timeline'],
        properties: {
          steps: { type: 'integer', minimum: 1 },
          minReadySeconds: { type: 'number', minimum: 0 },
          minReadySource: { enum: ['given', 'required'] },
          stepSeconds: { type: 'number' },
          durationSeconds: { type: 'number' },
          stepProbability: { type: 'number', minimum: 0, maximum: 1 },
          allStepsInTime: { type: 'number', minimum: 0, maximum: 1 },
          atLeastOneAtEnd: { type: 'number', minimum: 0, maximum: 1 },
          allAtEnd: { type: 'number', minimum: 0, maximum: 1 },
          timeline: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['step', 'newReplicas', 'createdAt', 'readyAt', 'nextGoesAt', 'probabilityInTime', 'probabilityByEnd'],
              properties: {
                step: { type: 'integer', minimum: 1 },
                newReplicas: { type: 'integer', minimum: 1 },
                createdAt: { type: 'number' },
                readyAt: { type: 'number' },
                nextGoesAt: { type: 'number' },
                probabilityInTime: { type: 'number', minimum: 0, maximum: 1 },
                probabilityByEnd: { type: 'number', minimum: 0, maximum: 1 },
              },
            },
          },
        },
      },
      recommendation: {
        type: 'object',
        additionalProperties: false,
        required: ['minReadySeconds', 'durationSeconds', 'message'],
        properties: { minReadySeconds: { type: 'integer', minimum: 0 }, durationSeconds: { type: 'number' }, message: { type: 'string' } },
      },
      assumptions: { type: 'array', items: { type: 'string' } },
    },
  };
  test('matches the documented shape, round-trips through JSON', () => {
    const validate = new Ajv({ strict: false }).compile(schema);
    for (const s of [simulateRollout(base()), simulateRollout(base({ replicas: 7, surge: 2, minReadySeconds: 12, startupSeconds: 3, backoff: parseBackoff('exponential:1-30') }))]) {
      const j = JSON.parse(JSON.stringify(s));
      expect(validate(j) ? [] : validate.errors).toEqual([]);
      expect(j).toEqual(s);
    }
    expect(simulateRollout(base()).input.minReadySeconds).toBeNull();
  });
});

describe('input checks', () => {
  test.each([
    [{ replicas: 0 }, /--replicas/],
    [{ replicas: 2.5 }, /--replicas/],
    [{ probability: 1 }, /--probability/],
    [{ probability: 0 }, /--probability/],
    [{ surge: 0 }, /--surge/],
    [{ minReadySeconds: -1 }, /--min-ready/],
    [{ startupSeconds: Number.NaN }, /--startup/],
  ])('%o is refused', (over, re) => {
    expect(() => checkSimulateInput(base(over as Partial<SimulateInput>))).toThrow(re);
    expect(() => simulateRollout(base(over as Partial<SimulateInput>))).toThrow(re);
  });
});
