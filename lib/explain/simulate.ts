/**
 * `kubegrace simulate rollout`: the reconnect model of graceful-termination.md section 11 applied to
 * a whole rollout. All per-replica numbers come from lib/timeline/reconnect.ts (estimateReconnect,
 * reconnectProbabilityWithin); this module only composes them over the steps of a rollout.
 *
 * Model, stated once (and printed with the results):
 * - N replicas; a rollout replaces them K at a time (maxSurge K, maxUnavailable 0): ceil(N/K) steps.
 * - In each step the new replicas become Ready after `startup` seconds, and are counted available
 *   `minReadySeconds` later, when the next old replicas go. A fan-in client (one that must hold a
 *   connection to every replica) reaches a random replica on each attempt, 1/N for a given one,
 *   retrying with the backoff; the window it has before the next replacement is minReadySeconds.
 * - With K > 1 new replicas per step the client runs one reconnect loop per missing replica,
 *   independently: it reaches all K in time with probability p^K, so the per-replica target for a
 *   step target P is P^(1/K). K = 1 is exactly the section 11 model.
 */
import { Backoff, DEFAULT_BACKOFF, DEFAULT_RECONNECT_PROBABILITY, estimateReconnect, formatBackoff, MIN_READY_RULE, reconnectProbabilityWithin } from '../timeline/reconnect';

export interface SimulateInput {
  replicas: number;
  probability: number;
  backoff: Backoff;
  /** New replicas per step (maxSurge). */
  surge: number;
  /** minReadySeconds to evaluate; undefined: use the required value. */
  minReadySeconds?: number;
  /** Seconds from pod creation to Ready. */
  startupSeconds: number;
}

export interface SimulationStep {
  step: number;
  newReplicas: number;
  /** Seconds from the start of the rollout. */
  createdAt: number;
  readyAt: number;
  /** When the new replicas are available and the next old ones go. */
  nextGoesAt: number;
  /** Probability that the client has reached this step's new replicas before the next old ones go. */
  probabilityInTime: number;
  /** Probability that it has reached them by the end of the rollout (when the last old replica goes). */
  probabilityByEnd: number;
}

/** The JSON contract of `simulate rollout --format json` (version 1). */
export interface Simulation {
  version: 1;
  model: string;
  input: { replicas: number; probability: number; backoff: string; surge: number; minReadySeconds: number | null; startupSeconds: number };
  perStep: {
    /** Most new replicas in one step (min(surge, replicas)). */
    newReplicas: number;
    /** Target per new replica: probability^(1/newReplicas). */
    perReplicaProbability: number;
    retries: number;
    waitSecondsMin: number;
    waitSecondsMax: number;
    method: 'closed-form' | 'sum-of-delays';
    /** minReadySeconds that meets the target: ceil(waitSecondsMax), for every backoff (MIN_READY_RULE). */
    requiredMinReadySeconds: number;
  };
  rollout: {
    steps: number;
    minReadySeconds: number;
    minReadySource: 'given' | 'required';
    stepSeconds: number;
    durationSeconds: number;
    /** Probability that the client reaches the new replicas of a full step in time. */
    stepProbability: number;
    /** ... in every step of the rollout. */
    allStepsInTime: number;
    /** Probability that the client still holds at least one connection when the last old replica goes. */
    atLeastOneAtEnd: number;
    /** Probability that it holds connections to every new replica by then. */
    allAtEnd: number;
    timeline: SimulationStep[];
  };
  recommendation: { minReadySeconds: number; durationSeconds: number; message: string };
  assumptions: string[];
}

export class SimulateInputError extends Error {}

/** Checks the inputs; throws SimulateInputError with a message that says what to pass. */
/** Bounds of the simulation's numbers: replicas, the reconnect probability, seconds (a day). */
export const SIMULATE_LIMITS = { replicas: 10000, probability: 0.999, seconds: 86400 };

export function checkSimulateInput(i: SimulateInput): void {
  // Every number is bounded, so no input can make the simulation run out of time or memory.
  if (!Number.isInteger(i.replicas) || i.replicas < 1 || i.replicas > SIMULATE_LIMITS.replicas) throw new SimulateInputError(`--replicas must be a whole number from 1 to ${SIMULATE_LIMITS.replicas} (got ${i.replicas})`);
  if (!(i.probability > 0 && i.probability <= SIMULATE_LIMITS.probability)) throw new SimulateInputError(`--probability must be above 0 and at most ${SIMULATE_LIMITS.probability}, e.g. 0.7 (got ${i.probability})`);
  if (!Number.isInteger(i.surge) || i.surge < 1 || i.surge > SIMULATE_LIMITS.replicas) throw new SimulateInputError(`--surge must be a whole number from 1 to ${SIMULATE_LIMITS.replicas} (got ${i.surge})`);
  if (i.minReadySeconds !== undefined && !(i.minReadySeconds >= 0 && i.minReadySeconds <= SIMULATE_LIMITS.seconds)) throw new SimulateInputError(`--min-ready must be a number of seconds from 0 to ${SIMULATE_LIMITS.seconds} (got ${i.minReadySeconds})`);
  if (!(i.startupSeconds >= 0 && i.startupSeconds <= SIMULATE_LIMITS.seconds)) throw new SimulateInputError(`--startup must be a number of seconds from 0 to ${SIMULATE_LIMITS.seconds} (got ${i.startupSeconds})`);
}

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
const r2 = (x: number) => Math.round(x * 100) / 100;
/** Seconds of the wait bounds: one decimal, as the section 11 table prints them. */
const r1 = (x: number) => Math.round(x * 10) / 10;

export function simulateRollout(input: SimulateInput): Simulation {
  checkSimulateInput(input);
  const { replicas: N, probability: P, backoff, startupSeconds: startup } = input;
  const K = Math.min(input.surge, N);
  const perReplica = K === 1 ? P : Math.pow(P, 1 / K);
  const est = estimateReconnect(N, perReplica, backoff);
  // `|| 0`: ceil(0 - epsilon) is -0, which must not leak into the JSON contract as a distinct value.
  const required = est.suggestedMinReadySeconds || 0;
  const minReady = input.minReadySeconds ?? required;
  const steps = Math.ceil(N / K);
  const stepSeconds = startup + minReady;
  const pWindow = reconnectProbabilityWithin(N, minReady, backoff);
  const timeline: SimulationStep[] = [];
  let allInTime = 1;
  let noneAtEnd = 1;
  let allAtEnd = 1;
  for (let s = 1; s <= steps; s++) {
    const k = Math.min(K, N - (s - 1) * K);
    const createdAt = (s - 1) * stepSeconds;
    // Time from this step's Ready to the moment the last old replica goes (the end of the last step).
    const untilEnd = minReady + (steps - s) * stepSeconds;
    const qEnd = reconnectProbabilityWithin(N, untilEnd, backoff);
    const inTime = Math.pow(pWindow, k);
    allInTime *= inTime;
    noneAtEnd *= Math.pow(1 - qEnd, k);
    allAtEnd *= Math.pow(qEnd, k);
    timeline.push({ step: s, newReplicas: k, createdAt: r2(createdAt), readyAt: r2(createdAt + startup), nextGoesAt: r2(createdAt + stepSeconds), probabilityInTime: r4(inTime), probabilityByEnd: r4(Math.pow(qEnd, k)) });
  }
  const stepProbability = Math.pow(pWindow, K);
  const duration = steps * stepSeconds;
  const requiredDuration = steps * (startup + required);
  const msg: string[] = [];
  if (input.minReadySeconds === undefined || input.minReadySeconds < required) {
    if (input.minReadySeconds !== undefined) msg.push(`minReadySeconds ${fmt(input.minReadySeconds)} gives P = ${stepProbability.toFixed(2)} per step, below the target ${P}.`);
    msg.push(`Set minReadySeconds: ${required} (T_max ${est.tMax.toFixed(1)}s for P = ${P}${K > 1 ? `, ${K} new replicas per step` : ''}); the rollout then takes about ${fmt(requiredDuration)}.`);
  } else {
    msg.push(`minReadySeconds ${fmt(input.minReadySeconds)} meets the target: P = ${stepProbability.toFixed(2)} per step (>= ${P}); the rollout takes about ${fmt(duration)}.`);
  }
  if (required >= 600) msg.push(`That is not below the default progressDeadlineSeconds (600): raise progressDeadlineSeconds above ${required}, or lower the target probability or the replicas.`);
  if (P > 0.7 || N > 5) msg.push('Section 11: P of about 0.5-0.7 with N <= 5 is the practical range; reaching every replica does not scale (proxy peering removes the need).');
  return {
    version: 1,
    model: 'graceful-termination.md section 11 (gravitational/teleport#13129): attempts reach a random replica (1/N), T_min = A*Y^2 + (A/2)*Y, T_max = B*Y^2 + (B/2)*Y for linear:A-B',
    input: { replicas: N, probability: P, backoff: formatBackoff(backoff), surge: input.surge, minReadySeconds: input.minReadySeconds ?? null, startupSeconds: startup },
    perStep: {
      newReplicas: K,
      perReplicaProbability: r4(perReplica),
      retries: r2(est.retries),
      waitSecondsMin: r1(est.tMin),
      waitSecondsMax: r1(est.tMax),
      method: est.method,
      requiredMinReadySeconds: required,
    },
    rollout: {
      steps,
      minReadySeconds: minReady,
      minReadySource: input.minReadySeconds === undefined ? 'required' : 'given',
      stepSeconds: r2(stepSeconds),
      durationSeconds: r2(duration),
      stepProbability: r4(stepProbability),
      allStepsInTime: r4(allInTime),
      atLeastOneAtEnd: r4(1 - noneAtEnd),
      allAtEnd: r4(allAtEnd),
      timeline,
    },
    recommendation: { minReadySeconds: required, durationSeconds: r2(requiredDuration), message: msg.join(' ') },
    assumptions: [
      `each connection attempt reaches a random replica through the load balancer: a given new one with probability 1/${N}`,
      `the client retries with ${formatBackoff(backoff)} backoff${backoff.kind === 'exponential' ? ' (the bounds sum the per-retry delays)' : ''}`,
      'the window to reconnect is minReadySeconds: the next old replica can go as soon as the new one is available (maxSurge K, maxUnavailable 0); startup only adds to the duration',
      K > 1 ? `${K} new replicas per step: one independent reconnect loop per new replica, so all ${K} in time has probability p^${K}` : 'one new replica per step: exactly the section 11 model',
      'steps are independent; "at the end" is the moment the last old replica goes',
    ],
  };
}

function fmt(s: number): string {
  return Number.isInteger(s) ? `${s}s` : `${s.toFixed(1)}s`;
}

/** Human-readable report of a simulation. */
export function simulationText(sim: Simulation): string {
  const i = sim.input;
  const ps = sim.perStep;
  const ro = sim.rollout;
  const lines: string[] = [];
  lines.push(`Rollout of ${i.replicas} replica${i.replicas === 1 ? '' : 's'}, ${ps.newReplicas} new per step (${ro.steps} step${ro.steps === 1 ? '' : 's'}), fan-in clients, target P = ${i.probability} per step, backoff ${i.backoff}`);
  lines.push('');
  lines.push('Per step (graceful-termination.md section 11)');
  lines.push(`  retries needed:          Y = ${ps.retries.toFixed(2)}${ps.newReplicas > 1 ? ` (per new replica, target ${ps.perReplicaProbability})` : ''}`);
  lines.push(`  wait for P = ${i.probability}:        ${ps.waitSecondsMin.toFixed(1)}s (T_min) to ${ps.waitSecondsMax.toFixed(1)}s (T_max)${ps.method === 'sum-of-delays' ? ', summed delays' : ''}`);
  lines.push(`  minReadySeconds needed:  ${ps.requiredMinReadySeconds} (${MIN_READY_RULE})`);
  lines.push('');
  lines.push(`With minReadySeconds ${ro.minReadySeconds} (${ro.minReadySource}) and startup ${fmt(i.startupSeconds)}`);
  const head = ['step', 'new', 'created', 'ready', 'next goes', 'P in time', 'P by end'];
  const rows = ro.timeline.map((s) => [String(s.step), String(s.newReplicas), fmt(s.createdAt), fmt(s.readyAt), fmt(s.nextGoesAt), s.probabilityInTime.toFixed(2), s.probabilityByEnd.toFixed(2)]);
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const row = (r: string[]) => '  ' + r.map((x, c) => (c < 2 ? x.padStart(widths[c]) : x.padStart(widths[c]))).join('  ');
  lines.push(row(head));
  const shown = rows.length > 12 ? [...rows.slice(0, 6), null, ...rows.slice(-5)] : rows;
  for (const r of shown) lines.push(r ? row(r) : `  ... (${rows.length - 11} more steps)`);
  lines.push(`  rollout takes about ${fmt(ro.durationSeconds)} (${ro.steps} x (startup ${fmt(i.startupSeconds)} + minReadySeconds ${ro.minReadySeconds}s))`);
  const probs: [string, number][] = [
    ['P(reached the new replicas in time, per full step)', ro.stepProbability],
    ['P(in time in every step)', ro.allStepsInTime],
    ['P(holds >= 1 connection when the last old replica goes)', ro.atLeastOneAtEnd],
    ['P(holds connections to all new replicas by then)', ro.allAtEnd],
  ];
  const pw = Math.max(...probs.map(([l]) => l.length));
  for (const [l, v] of probs) lines.push(`  ${l.padEnd(pw)}  ${v.toFixed(2)}`);
  lines.push('');
  lines.push('Recommendation');
  lines.push(`  ${sim.recommendation.message}`);
  lines.push('');
  lines.push('Assumptions');
  for (const a of sim.assumptions) lines.push(`  - ${a}`);
  return lines.join('\n') + '\n';
}

export { DEFAULT_BACKOFF, DEFAULT_RECONNECT_PROBABILITY };
