import { errorLabel } from '@nest-outbox/core/internal';

/** Sends one wake-up notification; `close` releases what it holds. @internal */
export interface NotifySender {
  send(): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Coalesces "events were committed" hints into at most one notification per `intervalMs`
 * (leading and trailing edge). A failed send is logged, never thrown at a writer (the relay
 * polls).
 * @internal
 */
export class OutboxNotifier {
  private dirty = false;
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private closed = false;

  constructor(
    private readonly sender: NotifySender,
    private readonly intervalMs: number,
    private readonly logger: { warn(message: string): void },
    private readonly now: () => number = Date.now,
  ) {}

  /** Cheap; never throws. */
  hint(): void {
    if (this.closed) return;
    this.dirty = true;
    if (this.timer === undefined && this.inFlight === undefined) this.schedule();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
    await this.sender.close();
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
    this.inFlight = this.sender
      .send()
      .then(
        () => undefined,
        (error: unknown) =>
          this.logger.warn(`outbox notification failed (relays will poll): ${errorLabel(error)}`),
      )
      .finally(() => {
        this.inFlight = undefined;
        if (this.dirty && !this.closed) this.schedule();
      });
  }
}
