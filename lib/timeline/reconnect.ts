/**
 * The reconnect model of graceful-termination.md section 11 (gravitational/teleport#13129):
 * N replicas, one of them new; a fan-in client already holds connections to the N-1 others and
 * reaches a random replica through a load balancer on each attempt, so an attempt lands on the
 * new one with probability 1/N. How long must a rollout wait (minReadySeconds) before replacing
 * the next replica, so that the client has reconnected with probability P?
 */

/** Client backoff: `linear:A-B` (the section 11 fit generalised) or `exponential:BASE-CAP`. */
export type Backoff = { kind: 'linear'; min: number; max: number } | { kind: 'exponential'; base: number; cap: number };

export const DEFAULT_BACKOFF: Backoff = { kind: 'linear', min: 2, max: 4 };
export const DEFAULT_RECONNECT_PROBABILITY = 0.7;

/** Longest retry wait a backoff may give (one hour). */
export const MAX_BACKOFF_SECONDS = 3600;

export function parseBackoff(s: string): Backoff {
  const m = /^\s*(linear|exponential):(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)\s*$/.exec(s);
  if (!m) throw new Error(`invalid backoff "${s}": use linear:A-B (e.g. linear:2-4) or exponential:BASE-CAP (e.g. exponential:1-30)`);
  const a = Number(m[2]);
  const b = Number(m[3]);
  // Bounded so that a value from a manifest annotation cannot make the estimate run for minutes.
  if (b > MAX_BACKOFF_SECONDS) throw new Error(`invalid backoff "${s}": waits above ${MAX_BACKOFF_SECONDS} s are not modelled`);
  if (m[1] === 'linear') {
    if (a <= 0 || b < a) throw new Error(`invalid backoff "${s}": linear:A-B needs 0 < A <= B`);
    return { kind: 'linear', min: a, max: b };
  }
  if (a <= 0 || b < a) throw new Error(`invalid backoff "${s}": exponential:BASE-CAP needs 0 < BASE <= CAP`);
  return { kind: 'exponential', base: a, cap: b };
}

export function formatBackoff(b: Backoff): string {
  return b.kind === 'linear' ? `linear:${b.min}-${b.max}` : `exponential:${b.base}-${b.cap}`;
}

function checkInputs(replicas: number, probability: number): void {
  if (!Number.isInteger(replicas) || replicas < 1) throw new Error(`replicas must be a whole number >= 1 (got ${replicas})`);
  if (!(probability > 0 && probability < 1)) throw new Error(`probability must be between 0 and 1, exclusive (got ${probability})`);
}

/**
 * Retries needed for success probability P: Y = ln(1-P) / ln((N-1)/N) - 1, floored at 0
 * (k attempts solve 1 - ((N-1)/N)^k >= P; retries are attempts after the first).
 */
export function retriesNeeded(replicas: number, probability: number): number {
  checkInputs(replicas, probability);
  if (replicas === 1) return 0;
  return Math.max(0, Math.log(1 - probability) / Math.log((replicas - 1) / replicas) - 1);
}

/** Probability that a client has reconnected after `retries` retries (retries + 1 attempts). */
export function probabilityAfterRetries(replicas: number, retries: number): number {
  if (replicas === 1) return 1;
  return 1 - Math.pow((replicas - 1) / replicas, retries + 1);
}

export interface ReconnectEstimate {
  replicas: number;
  probability: number;
  backoff: string;
  /** Retries needed (continuous, as in the section 11 table). */
  retries: number;
  /** Wait-time bounds in seconds. */
  tMin: number;
  tMax: number;
  /** Seconds to wait before the next replacement: ceil(tMax), for every backoff (MIN_READY_RULE). */
  suggestedMinReadySeconds: number;
  /** How the bounds were computed: the fitted closed form (linear) or summed per-retry delays (exponential). */
  method: 'closed-form' | 'sum-of-delays';
}

/** Delay before retry n (1-based) of an exponential backoff, before jitter. */
function expDelay(b: { base: number; cap: number }, n: number): number {
  return Math.min(b.base * Math.pow(2, n - 1), b.cap);
}

/** Deterministic PRNG (mulberry32): the Monte Carlo estimate is the same on every run. */
export function seededRandom(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random draws the Monte Carlo estimate may make (see monteCarloReconnectSeconds). */
export const MONTE_CARLO_BUDGET = 4_000_000;

/**
 * Seeded Monte Carlo for exponential backoff: each trial draws the number of failed attempts
 * (geometric, success 1/N) and, for retry n, a wait uniform in [d_n, 2 d_n] with
 * d_n = min(BASE * 2^(n-1), CAP). Returns the P-quantile of the time to reconnect.
 */
export function monteCarloReconnectSeconds(replicas: number, probability: number, b: { base: number; cap: number }, trials = 20000, seed = 13129): number {
  checkInputs(replicas, probability);
  if (replicas === 1) return 0;
  const rand = seededRandom(seed);
  // A trial takes about N draws: past MONTE_CARLO_BUDGET draws in all, fewer trials (at least
  // 500) keep the estimate within about a second for any replica count (a manifest may say 10^9).
  trials = Math.min(trials, Math.max(500, Math.floor(MONTE_CARLO_BUDGET / replicas)));
  const times = new Float64Array(trials);
  for (let i = 0; i < trials; i++) {
    let t = 0;
    for (let n = 1; rand() >= 1 / replicas; n++) {
      const d = expDelay(b, n);
      t += d + rand() * d;
      if (n > 10000) break; // unreachable for N <= 10^3 in practice; bounds the loop
    }
    times[i] = t;
  }
  times.sort();
  return times[Math.min(trials - 1, Math.ceil(probability * trials) - 1)];
}

/** The one rule for the suggested minReadySeconds, stated in simulate's output. */
export const MIN_READY_RULE = 'minReadySeconds = ceil(T_max): the worst-case wait for the retries that reach P (section 11), for linear and exponential backoff alike';

/**
 * The section 11 estimate. Linear backoff uses the closed form fitted to the published table:
 * T_min = A*Y^2 + (A/2)*Y and T_max = B*Y^2 + (B/2)*Y, which for the default linear:2-4 is
 * exactly T_min = 2Y^2 + Y and T_max = 4Y^2 + 2Y (all 15 published cells match). Exponential
 * backoff has no such form: its bounds sum the per-retry delays over ceil(Y) retries. Either
 * way the suggestion is ceil(T_max) (section 11: minReadySeconds >= T_max), the same worst case
 * reconnectProbabilityWithin inverts, so a rollout with the suggested value meets P per step.
 * (It used to be a Monte Carlo quantile for exponential backoff: below T_max, e.g. 268 for
 * T_max 362.0, and then the simulated step probability fell short of the target it was sized for.)
 */
export function estimateReconnect(replicas: number, probability = DEFAULT_RECONNECT_PROBABILITY, backoff: Backoff = DEFAULT_BACKOFF): ReconnectEstimate {
  const y = retriesNeeded(replicas, probability);
  const base = { replicas, probability, backoff: formatBackoff(backoff), retries: y };
  if (backoff.kind === 'linear') {
    const tMin = backoff.min * y * y + (backoff.min / 2) * y;
    const tMax = backoff.max * y * y + (backoff.max / 2) * y;
    return { ...base, tMin, tMax, suggestedMinReadySeconds: Math.ceil(tMax - 1e-9), method: 'closed-form' };
  }
  const r = Math.ceil(y - 1e-9);
  let tMin = 0;
  for (let n = 1; n <= r; n++) tMin += expDelay(backoff, n);
  const tMax = 2 * tMin;
  return { ...base, tMin, tMax, suggestedMinReadySeconds: Math.ceil(tMax - 1e-9), method: 'sum-of-delays' };
}

/**
 * Probability that a fan-in client has reconnected to the new replica within `seconds`
 * (the inverse of the estimate): linear backoff inverts T_max = B*Y^2 + (B/2)*Y for Y; exponential
 * counts the retries whose worst-case cumulative wait fits.
 */
export function reconnectProbabilityWithin(replicas: number, seconds: number, backoff: Backoff = DEFAULT_BACKOFF): number {
  if (!Number.isInteger(replicas) || replicas < 1) throw new Error(`replicas must be a whole number >= 1 (got ${replicas})`);
  if (replicas === 1) return 1;
  if (seconds <= 0) return probabilityAfterRetries(replicas, 0);
  if (backoff.kind === 'linear') {
    const b = backoff.max;
    const y = (-(b / 2) + Math.sqrt((b * b) / 4 + 4 * b * seconds)) / (2 * b);
    return probabilityAfterRetries(replicas, y);
  }
  let t = 0;
  let n = 0;
  while (n < 10000) {
    const d = expDelay(backoff, n + 1);
    if (d >= backoff.cap) {
      // From here every retry waits the cap: count them at once (the same n as one by one).
      n = Math.min(10000, n + Math.max(0, Math.floor((seconds - t) / (2 * backoff.cap) + 1e-12)));
      break;
    }
    const next = t + 2 * d;
    if (next > seconds) break;
    t = next;
    n++;
  }
  return probabilityAfterRetries(replicas, n);
}
