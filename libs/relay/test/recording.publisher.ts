import type {
  PublishAck,
  PublishRecord,
  RelayPublisher,
} from '../src/publisher/relay-publisher.interface';

/** One publish call as the relay made it. */
export interface PublishAttempt {
  readonly start: number;
  readonly eventIds: string[];
  end?: number;
  error?: unknown;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      },
      { once: true },
    );
  });
}

/**
 * Wraps the real publisher and records every publish the relay starts (start/end time,
 * event ids, error); optionally slows each publish down by `delayMs` (abortable), like a
 * slow broker, before handing it to the real one.
 */
export class RecordingPublisher implements RelayPublisher {
  readonly attempts: PublishAttempt[] = [];
  delayMs = 0;

  /** The inner publisher's, when it has one (then the relay's ack evidence is per partition). */
  readonly failedPartition?: (record: PublishRecord) => number | undefined;

  constructor(readonly inner: RelayPublisher) {
    if (inner.failedPartition) this.failedPartition = (record) => inner.failedPartition!(record);
  }

  connect(): Promise<void> {
    return this.inner.connect();
  }

  async publish(records: readonly PublishRecord[], signal: AbortSignal): Promise<PublishAck[]> {
    const attempt: PublishAttempt = {
      start: Date.now(),
      eventIds: records.map((r) => r.headers.event_id!),
    };
    this.attempts.push(attempt);
    try {
      if (this.delayMs > 0) await abortableSleep(this.delayMs, signal);
      return await this.inner.publish(records, signal);
    } catch (error) {
      attempt.error = error;
      throw error;
    } finally {
      attempt.end = Date.now();
    }
  }

  ping(timeoutMs: number): Promise<boolean> {
    return this.inner.ping(timeoutMs);
  }

  disconnect(graceMs?: number): Promise<void> {
    return this.inner.disconnect(graceMs);
  }
}
