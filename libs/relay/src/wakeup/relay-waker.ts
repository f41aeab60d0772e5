/**
 * Adaptive idle wait: short while busy, doubling with jitter up to `maxMs` while idle, cut
 * short by `wake()` (in-process after-commit signal, LISTEN notification, shutdown).
 * @internal
 */
export class RelayWaker {
  private idleMs: number;
  private wakeCurrent: (() => void) | undefined;
  private woken = false;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {
    this.idleMs = minMs;
  }

  /** A hint that work may be waiting: ends the current wait and resets the idle delay. */
  wake(): void {
    this.idleMs = this.minMs;
    this.woken = true;
    this.wakeCurrent?.();
  }

  /** Work was found: the next idle wait starts short again. */
  busy(): void {
    this.idleMs = this.minMs;
  }

  /** Waits the current idle delay (with jitter), then doubles it up to the maximum. */
  idle(): Promise<void> {
    const delay = this.idleMs / 2 + (Math.random() * this.idleMs) / 2;
    this.idleMs = Math.min(this.maxMs, this.idleMs * 2);
    return this.sleep(delay);
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
