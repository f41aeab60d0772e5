/** What a `PeriodicTask` runs and how often. @publicApi */
export interface PeriodicTaskOptions<T> {
  /** Pause between the end of one run and the start of the next. */
  readonly intervalMs: number;
  /**
   * The pause after a run is at least this many times the run's own duration (and never
   * less than `intervalMs`), and while that longer pause lasts `runNow()` answers with the
   * slow run's result instead of running again: a run that gets slow takes at most
   * 1/(1 + factor) of the time, however often it is asked for (health probes). For samplers
   * whose one statement grows with a table: while it runs it holds a snapshot, and PostgreSQL
   * can neither vacuum nor mark dead index entries behind it.
   * @default 0 (the pause is `intervalMs`, `runNow()` always runs)
   */
  readonly minPauseFactor?: number;
  readonly run: () => Promise<T>;
  /** Told about a scheduled run that failed; the task goes on at the next interval. */
  readonly onError: (error: unknown) => void;
}

/**
 * Runs a job every `intervalMs`, counted from the end of the previous run: runs never
 * overlap, a slow run delays the next instead of piling up (by more than its own length with
 * `minPauseFactor`). Its timer never keeps the process alive. `runNow()` joins a run in
 * progress instead of starting a second one; `stop()` cancels the next run and waits for the
 * one in progress.
 * @example
 * ```ts
 * const task = new PeriodicTask({ intervalMs: 60_000, run: () => prune(), onError: warn });
 * task.start(); // in onApplicationBootstrap
 * await task.stop(); // in beforeApplicationShutdown
 * ```
 * @publicApi
 */
export class PeriodicTask<T = unknown> {
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<T> | undefined;
  private started = false;
  /** How long the last run took (failed or not). */
  private lastRunMs = 0;
  /** The last successful run's result and when it ended. */
  private lastResult: { readonly value: T; readonly endedAt: number } | undefined;
  /** Until when an adopted result stands in for runs (see `adopt`); 0 after a run of ours. */
  private adoptedUntil = 0;

  constructor(private readonly options: PeriodicTaskOptions<T>) {}

  /** Schedules the first run `intervalMs` from now (idempotent). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule();
  }

  /**
   * Runs the job now, or joins the run in progress; within the longer pause after a slow run
   * (`minPauseFactor`) or the hold of an adopted result, answers with that result.
   */
  runNow(): Promise<T> {
    if (this.current) return this.current;
    const held = this.heldResult();
    if (held) return Promise.resolve(held.value);
    const startedAt = Date.now();
    this.current = this.options
      .run()
      .then((value) => {
        this.lastResult = { value, endedAt: Date.now() };
        this.adoptedUntil = 0;
        return value;
      })
      .finally(() => {
        this.lastRunMs = Date.now() - startedAt;
        this.current = undefined;
      });
    return this.current;
  }

  /**
   * Takes a result produced elsewhere (another process ran the same job and shared it) as if
   * a run had just ended with it: for `holdMs` (at least `intervalMs`) `runNow()` answers with
   * it and no scheduled run starts; the next one is due when the hold ends. Ignored while a
   * run is in progress (its own result is newer).
   */
  adopt(value: T, holdMs: number): void {
    if (this.current) return;
    const hold = Math.max(this.options.intervalMs, holdMs);
    this.lastResult = { value, endedAt: Date.now() };
    this.adoptedUntil = Date.now() + hold;
    if (!this.started) return;
    clearTimeout(this.timer);
    this.schedule(hold);
  }

  /** No further run; resolves once the run in progress (if any) is over. */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    await this.current?.catch(() => undefined);
  }

  private pauseMs(): number {
    return Math.max(this.options.intervalMs, this.lastRunMs * (this.options.minPauseFactor ?? 0));
  }

  /**
   * The last result, while an adopted result's hold or the pause a slow run earned lasts
   * (never after a fast run of ours).
   */
  private heldResult(): { readonly value: T } | undefined {
    if (this.lastResult && Date.now() < this.adoptedUntil) return this.lastResult;
    const pauseMs = this.pauseMs();
    if (!this.lastResult || pauseMs <= this.options.intervalMs) return undefined;
    return Date.now() - this.lastResult.endedAt < pauseMs ? this.lastResult : undefined;
  }

  private schedule(delayMs = this.pauseMs()): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      // A result adopted meanwhile holds the next run off until its hold is over.
      const heldFor = this.adoptedUntil - Date.now();
      if (heldFor > 0) {
        this.schedule(heldFor);
        return;
      }
      void this.runNow()
        .catch(this.options.onError)
        .finally(() => this.schedule());
    }, delayMs);
    this.timer.unref();
  }
}
