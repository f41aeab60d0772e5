/**
 * Events this relay published, by time, for the drain rate: counts per second over the
 * trend window, no query.
 * @internal
 */
export class PublishedRate {
  private readonly counts: { atMs: number; count: number }[] = [];
  private readonly startedAtMs = Date.now();

  constructor(private readonly windowMs: number) {}

  add(count: number, atMs = Date.now()): void {
    if (count > 0) this.counts.push({ atMs, count });
  }

  /** Events published in the window before `nowMs`, and the window (shorter at start-up). */
  drainedSince(nowMs: number): { drained: number; drainWindowMs: number } {
    const horizon = nowMs - this.windowMs;
    while (this.counts.length > 0 && this.counts[0]!.atMs < horizon) this.counts.shift();
    const drained = this.counts.reduce((sum, c) => sum + c.count, 0);
    return {
      drained,
      drainWindowMs: Math.min(this.windowMs, Math.max(1, nowMs - this.startedAtMs)),
    };
  }
}
