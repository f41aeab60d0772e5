import { partitionKey } from './consumer-snapshot';
import type { HandedBatchEnd } from './inbox-consumer.port';

/**
 * Offsets finished while the client handed each partition's batch over, to settle the aborted
 * records and transaction markers it filters out (else the committed offset lags). @internal
 */
export class BatchWindows {
  private readonly open = new Map<string, Set<bigint>>();

  start(batch: { topic: string; partition: number }): void {
    this.open.set(partitionKey(batch.topic, batch.partition), new Set());
  }

  finished(at: { topic: string; partition: number }, offsets: readonly bigint[]): void {
    const done = this.open.get(partitionKey(at.topic, at.partition));
    for (const offset of offsets) done?.add(offset);
  }

  /**
   * The batch's last offset once every record it handed over has its final result (none left
   * in flight, paused or skipped by a stop or a seek); undefined otherwise.
   */
  end(batch: HandedBatchEnd): bigint | undefined {
    const key = partitionKey(batch.topic, batch.partition);
    const done = this.open.get(key);
    this.open.delete(key);
    if (!batch.lastOffset || done === undefined || done.size < batch.batchSize) return undefined;
    return BigInt(batch.lastOffset);
  }
}
