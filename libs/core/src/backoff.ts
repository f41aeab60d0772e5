/** Bounds of an exponential backoff. @publicApi */
export interface BackoffPolicy {
  /** Delay after the first failure, before jitter. */
  readonly baseMs: number;
  /** Longest delay, before jitter. */
  readonly capMs: number;
}

/**
 * The one backoff rule of nest-outbox: after the `attempt`-th consecutive failure (1-based)
 * the delay is `min(capMs, baseMs * 2^(attempt - 1))` with "equal jitter", a uniform draw in
 * `[delay / 2, delay]`. The fixed half guarantees a real wait (no hot loop); the random half
 * keeps relays or consumers that failed together from retrying in lockstep.
 * @example backoffDelayMs(3, { baseMs: 100, capMs: 1000 }) // between 200 and 400
 * @publicApi
 */
export function backoffDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const doublings = Math.min(Math.max(0, attempt - 1), 30);
  const delay = Math.min(policy.capMs, policy.baseMs * 2 ** doublings);
  return Math.round(delay / 2 + (random() * delay) / 2);
}

/** Consecutive failures of one thing (a claim, a connection) and the delay before its next try. @publicApi */
export class Backoff {
  private failures = 0;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** Counts one more failure and returns the delay to wait before the next try. */
  next(): number {
    this.failures++;
    return backoffDelayMs(this.failures, this.policy, this.random);
  }

  /** A success: the next failure starts again from `baseMs`. */
  reset(): void {
    this.failures = 0;
  }

  /** Consecutive failures so far. */
  get attempts(): number {
    return this.failures;
  }
}
