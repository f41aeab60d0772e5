/** One reading of an outbox's backlog. @publicApi */
export interface BacklogSample {
  /** When it was read (ms since the epoch, or any monotonic clock). */
  readonly atMs: number;
  /** Unpublished, unparked events. */
  readonly backlog: number;
  /** Age of the oldest of them, 0 when there is none. */
  readonly oldestAgeMs: number;
  /** Events published by every relay of the table during the `drainWindowMs` before `atMs`. */
  readonly drained: number;
  /** The window `drained` was counted over. */
  readonly drainWindowMs: number;
}

/** Rates drawn from the samples of the trend window. @publicApi */
export interface BacklogRates {
  /** Change of the backlog per second (least squares over the window; 0 with one sample). */
  readonly backlogPerSecond: number;
  /** Change of the oldest age, seconds per second (1 while the head waits; negative while it moves). */
  readonly agePerSecond: number;
  /** Events published per second. */
  readonly drainPerSecond: number;
  /** Events recorded per second: drain + backlog change (never below 0). */
  readonly fillPerSecond: number;
}

/** Least-squares slope of `y` over `x` (seconds); 0 when the points do not spread in time. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** The last `windowMs` of backlog samples and the rates they show. @publicApi */
export class BacklogTrend {
  private readonly samples: BacklogSample[] = [];

  constructor(private readonly windowMs: number) {}

  /** Adds a sample and forgets those older than the window (the newest is always kept). */
  add(sample: BacklogSample): void {
    this.samples.push(sample);
    const horizon = sample.atMs - this.windowMs;
    while (this.samples.length > 1 && this.samples[0]!.atMs < horizon) this.samples.shift();
  }

  rates(): BacklogRates {
    const origin = this.samples[0]?.atMs ?? 0;
    const at = (s: BacklogSample) => (s.atMs - origin) / 1000;
    const backlogPerSecond = slope(this.samples.map((s) => ({ x: at(s), y: s.backlog })));
    const agePerSecond = slope(this.samples.map((s) => ({ x: at(s), y: s.oldestAgeMs / 1000 })));
    const last = this.samples.at(-1);
    const drainPerSecond =
      last && last.drainWindowMs > 0 ? last.drained / (last.drainWindowMs / 1000) : 0;
    const fillPerSecond = Math.max(0, drainPerSecond + backlogPerSecond);
    return { backlogPerSecond, agePerSecond, drainPerSecond, fillPerSecond };
  }
}
