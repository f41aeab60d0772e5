import { Backoff } from '@nest-outbox/core/internal';

/**
 * Adaptive idle wait: short while busy, growing by the core backoff rule (doubling, equal
 * jitter) up to `maxMs` while idle, cut short by `wake()` (in-process after-commit signal,
 * LISTEN notification, shutdown).
 * @internal
 */
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

  /** Work was found: the next idle wait starts short again. */
  busy(): void {
    this.idleDelay.reset();
  }

  /** Waits the next idle delay (one more idle round than the last). */
  idle(): Promise<void> {
    return this.sleep(this.idleDelay.next());
  }

  /** Ends the current wait, if any, without leaving a wake-up pending (its caller moved on). */
  cancel(): void {
    this.wakeCurrent?.();
  }

  /** Waits `ms` unless woken first. */
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
