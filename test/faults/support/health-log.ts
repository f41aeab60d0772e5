/**
 * Polls a health probe every `intervalMs` in the background and keeps what it answered, so
 * that a test can say the status went down (or degraded) during a fault and came back.
 */
export class HealthLog {
  readonly statuses: { at: number; status: string }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly probe: () => Promise<string>,
    private readonly intervalMs = 250,
  ) {}

  start(): this {
    const tick = async () => {
      const status = await this.probe().catch(() => 'error');
      this.statuses.push({ at: Date.now(), status });
      if (!this.stopped) this.timer = setTimeout(() => void tick(), this.intervalMs);
    };
    void tick();
    return this;
  }

  /** True when some answer since `since` was not 'up'. */
  wentDown(since = 0): boolean {
    return this.statuses.some((s) => s.at >= since && s.status !== 'up');
  }

  /** The last answer. */
  get last(): string | undefined {
    return this.statuses[this.statuses.length - 1]?.status;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
