/** DI token of the in-process after-commit signal (one per application; the relay claims at once on it). @publicApi */
export const OUTBOX_WAKEUP = Symbol('nest-outbox:wakeup');

/** In-memory after-commit signal, one per application; a hint only. @publicApi */
export class OutboxWakeup {
  private readonly listeners = new Set<() => void>();

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
