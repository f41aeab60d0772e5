/** What a `PeriodicTask` runs and how often. @publicApi */
export interface PeriodicTaskOptions<T> {
  /** Pause between the end of one run and the start of the next. */
  readonly intervalMs: number;
  /**
   * The pause after a run is at least this many times its duration, and meanwhile `runNow()`
   * answers with its result: a slow run takes at most 1/(1 + factor) of the time, however
   * often asked (for samplers whose snapshot holds vacuum back). @default 0
   */
  readonly minPauseFactor?: number;
  readonly run: () => Promise<T>;
  /** Told about a scheduled run that failed; the task goes on at the next interval. */
  readonly onError: (error: unknown) => void;
}

/**
 * Runs a job every `intervalMs`, counted from the end of the previous run: runs never
 * overlap, and the timer never keeps the process alive. `runNow()` joins a run in progress;
 * `stop()` cancels the next run and waits for the one in progress.
 * @publicApi
 */
export class PeriodicTask<T = unknown> {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<T> | undefined;
  private started = false;
  private lastRunMs = 0;
  private lastResult: { readonly value: T; readonly endedAt: number } | undefined;

  constructor(private readonly options: PeriodicTaskOptions<T>) {}

  /** Schedules the first run `intervalMs` from now (idempotent). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule();
  }

  /** Runs the job now, or joins the run in progress (see `minPauseFactor`). */
  runNow(): Promise<T> {
    if (this.current) return this.current;
    const held = this.heldResult();
    if (held) return Promise.resolve(held.value);
    const startedAt = Date.now();
    this.current = this.options
      .run()
      .then((value) => {
        this.lastResult = { value, endedAt: Date.now() };
        return value;
      })
      .finally(() => {
        this.lastRunMs = Date.now() - startedAt;
        this.current = undefined;
      });
    return this.current;
  }

  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    await this.current?.catch(() => undefined);
  }

  private pauseMs(): number {
    return Math.max(this.options.intervalMs, this.lastRunMs * (this.options.minPauseFactor ?? 0));
  }

  private heldResult(): { readonly value: T } | undefined {
    const pauseMs = this.pauseMs();
    if (!this.lastResult || pauseMs <= this.options.intervalMs) return undefined;
    return Date.now() - this.lastResult.endedAt < pauseMs ? this.lastResult : undefined;
  }

  private schedule(): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      void this.runNow()
        .catch(this.options.onError)
        .finally(() => this.schedule());
    }, this.pauseMs());
    this.timer.unref();
  }
}
