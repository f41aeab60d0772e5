/** Where the notifier reports a failed notification (Nest's Logger fits). */
export interface NotifierLogger {
  warn(message: string): void;
}

/**
 * Coalesces "events were committed" hints into at most one notification per `intervalMs`
 * (leading and trailing edge): the first hint after a quiet period is sent at once, hints
 * during the interval or while a send is in flight collapse into one more send after it.
 * Fire-and-forget: a failed send is logged, never thrown at a writer (the relay's polling
 * covers a lost notification).
 * @internal
 */
export class OutboxNotifier {
  private dirty = false;
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private closed = false;

  constructor(
    private readonly send: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly logger: NotifierLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Asks for a notification soon. Cheap; never throws. */
  hint(): void {
    if (this.closed) return;
    this.dirty = true;
    if (this.timer === undefined && this.inFlight === undefined) this.schedule();
  }

  /** Stops sending; waits for a send in flight. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  private schedule(): void {
    const wait = this.lastSentAt + this.intervalMs - this.now();
    if (wait <= 0) {
      this.fire();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fire();
    }, wait);
    this.timer.unref();
  }

  private fire(): void {
    if (this.closed || !this.dirty) return;
    this.dirty = false;
    this.lastSentAt = this.now();
    this.inFlight = this.send()
      .then(
        () => undefined,
        (error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          this.logger.warn(`outbox notification failed (relays will poll): ${reason}`);
        },
      )
      .finally(() => {
        this.inFlight = undefined;
        if (this.dirty && !this.closed) this.schedule();
      });
  }
}
