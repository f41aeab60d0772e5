/** Bounds of an exponential backoff. @publicApi */
export interface BackoffPolicy {
  /** Delay after the first failure, before jitter. */
  readonly baseMs: number;
  /** Longest delay, before jitter. */
  readonly capMs: number;
}

/**
 * After the `attempt`-th failure: `min(capMs, baseMs * 2^(attempt - 1))` with equal jitter (a
 * draw in `[delay / 2, delay]`: a real wait, and no retries in lockstep).
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

  next(): number {
    this.failures++;
    return backoffDelayMs(this.failures, this.policy, this.random);
  }

  /** A success: the next failure starts again from `baseMs`. */
  reset(): void {
    this.failures = 0;
  }

  get attempts(): number {
    return this.failures;
  }
}
