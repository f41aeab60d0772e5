/** Failing events remembered at most (the oldest are forgotten first). */
const MAX_TRACKED = 10_000;

/**
 * Whether the broker acknowledges other sends while one event keeps failing. An event whose
 * transient failures are its own (the broker takes everything else) is parked once its
 * attempts are exhausted; during an outage (broker gone, too few in-sync replicas, every
 * send failing) nothing is acknowledged and nothing is parked: events back off at the cap.
 * Per relay process, in memory: a restarted relay needs one acknowledgement after an event's
 * next failure before it parks it (it errs on the side of retrying).
 * @internal
 */
export class BrokerAckWatch {
  private tick = 0;
  private lastAck = 0;
  /** Event id -> tick of its latest failed send. */
  private readonly failures = new Map<string, number>();

  /** A send was acknowledged; its events are forgotten. */
  acked(eventIds: readonly string[]): void {
    this.lastAck = ++this.tick;
    for (const id of eventIds) this.failures.delete(id);
  }

  /**
   * A send of `eventId` failed. True when the broker acknowledged another send since this
   * event's previous failure (a first failure seen by this process answers false).
   */
  failed(eventId: string): boolean {
    const previous = this.failures.get(eventId);
    this.failures.delete(eventId);
    this.failures.set(eventId, ++this.tick);
    if (this.failures.size > MAX_TRACKED) {
      const oldest = this.failures.keys().next().value;
      if (oldest !== undefined) this.failures.delete(oldest);
    }
    return previous !== undefined && this.lastAck > previous;
  }
}
