/** At most one log line per key per window, with the count of the lines held back. */
export class LogRateLimit {
  private readonly keys = new Map<string, { loggedAt: number; suppressed: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** `undefined` when `key` may not log now. */
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
