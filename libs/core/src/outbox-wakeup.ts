/**
 * DI token of the in-process after-commit signal. The OutboxModule provides one
 * `OutboxWakeup` per application; a RelayModule in the same application injects it
 * (optionally) and claims at once instead of waiting for its next poll.
 * @publicApi
 */
export const OUTBOX_WAKEUP = Symbol('nest-outbox:wakeup');

/**
 * In-memory after-commit signal, one per application (never static, so two apps in one
 * process do not see each other). A hint only: correctness never depends on it.
 * @publicApi
 */
export class OutboxWakeup {
  private readonly listeners = new Set<() => void>();

  /** Subscribes; returns the function that unsubscribes. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener that new events are committed. Listener errors are swallowed. */
  signal(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A hint must never break the writer that committed.
      }
    }
  }
}

/** Default NOTIFY channel of the producers' coalesced wake-up; the payload is the outbox's `schema.table`. @publicApi */
export const DEFAULT_NOTIFY_CHANNEL = 'nest_outbox';
