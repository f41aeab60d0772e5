import type { ConsumerCommitOffsetsEvent, ConsumerEndBatchProcessEvent } from 'kafkajs';
import type { InboxMetrics } from '../metrics/inbox.metrics';
import { partitionKey } from './consumer-snapshot';
import type { PartitionOffsetTracker } from './partition-offset.tracker';

/**
 * The group's lag per partition as the broker's group tool counts it: the partition's end
 * (high watermark of its last fetch) minus the group's committed offset (the last commit
 * kafkajs sent; before one, the first offset fetched). Kept through a crash and its restarts
 * (not reset to 0), labelled with the group even when it crashed before it ever joined.
 * Also the distance between what this consumer finished and what it committed.
 * @internal
 */
export class GroupLag {
  private readonly ends = new Map<string, { topic: string; partition: number; end: bigint }>();
  private readonly committed = new Map<string, bigint>();

  constructor(
    private readonly metrics: Pick<InboxMetrics, 'lag' | 'appliedUncommitted'>,
    private readonly group: () => string,
  ) {}

  fetched(batch: ConsumerEndBatchProcessEvent['payload']): void {
    const key = partitionKey(batch.topic, batch.partition);
    const { topic, partition } = batch;
    this.ends.set(key, { topic, partition, end: BigInt(batch.highWatermark) });
    if (!this.committed.has(key) && batch.firstOffset)
      this.committed.set(key, BigInt(batch.firstOffset));
    this.publish(key);
  }

  commitSent(topics: ConsumerCommitOffsetsEvent['payload']['topics']): void {
    for (const { topic, partitions } of topics) {
      for (const { partition, offset } of partitions) {
        const key = partitionKey(topic, partition);
        this.committed.set(key, BigInt(offset));
        this.publish(key);
      }
    }
  }

  /** Records finished whose offset is not committed yet, on `tracker`'s partition. */
  uncommitted(tracker: PartitionOffsetTracker): void {
    const labels = {
      group: this.group(),
      topic: tracker.topic,
      partition: String(tracker.partition),
    };
    this.metrics.appliedUncommitted.set(labels, tracker.uncommitted);
  }

  private publish(key: string): void {
    const at = this.ends.get(key);
    const committed = this.committed.get(key);
    if (at === undefined || committed === undefined) return;
    const lag = at.end > committed ? Number(at.end - committed) : 0;
    const labels = { group: this.group(), topic: at.topic, partition: String(at.partition) };
    this.metrics.lag.set(labels, lag);
  }
}
