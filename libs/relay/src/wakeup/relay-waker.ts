import { Backoff } from '@nest-outbox/core/internal';

/** Idle wait: short while busy, growing by the backoff rule up to `maxMs`, cut short by `wake()`. @internal */
export class RelayWaker {
  private readonly idleDelay: Backoff;
  private wakeCurrent: (() => void) | undefined;
  private woken = false;

  constructor(minMs: number, maxMs: number) {
    this.idleDelay = new Backoff({ baseMs: minMs, capMs: maxMs });
  }

  /** A hint that work may be waiting: ends the current wait and resets the idle delay. */
  wake(): void {
    this.idleDelay.reset();
    this.woken = true;
    this.wakeCurrent?.();
  }

  busy(): void {
    this.idleDelay.reset();
  }

  idle(): Promise<void> {
    return this.sleep(this.idleDelay.next());
  }

  /** Ends the current wait, if any, without leaving a wake-up pending (its caller moved on). */
  cancel(): void {
    this.wakeCurrent?.();
  }

  sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wakeCurrent === done) {
          this.wakeCurrent = undefined;
          this.woken = false;
        }
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeCurrent = done;
    });
  }
}
