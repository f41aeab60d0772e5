/**
 * At most one log line per key per window: `take(key)` answers whether to log now and how
 * many lines of that key were held back since the last one. An outage answered per request
 * (thousands of 503s a minute) then logs a line every window, with its count.
 */
export class LogRateLimit {
  private readonly keys = new Map<string, { loggedAt: number; suppressed: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** `suppressed` lines since the last one when `key` may log now; else `undefined`. */
  take(key: string): { suppressed: number } | undefined {
    const now = this.now();
    const state = this.keys.get(key);
    if (state && now - state.loggedAt < this.windowMs) {
      state.suppressed++;
      return undefined;
    }
    this.keys.set(key, { loggedAt: now, suppressed: 0 });
    return { suppressed: state?.suppressed ?? 0 };
  }
}
