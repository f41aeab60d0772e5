import type {
  PublishAck,
  PublishRecord,
  RelayPublisher,
} from '../src/publisher/relay-publisher.interface';

/**
 * A publisher that acknowledges everything at once and sends nothing: measures the relay's
 * own cost (claim, mark, bookkeeping) without a broker. Benchmarks and tests only.
 */
export class NullPublisher implements RelayPublisher {
  private offset = 0;
  published = 0;

  connect(): Promise<void> {
    return Promise.resolve();
  }

  publish(records: readonly PublishRecord[], signal: AbortSignal): Promise<PublishAck[]> {
    if (signal.aborted) return Promise.reject(new Error('aborted'));
    this.published += records.length;
    return Promise.resolve(records.map(() => ({ partition: 0, offset: String(this.offset++) })));
  }

  ping(): Promise<boolean> {
    return Promise.resolve(true);
  }

  disconnect(): Promise<void> {
    return Promise.resolve();
  }
}
