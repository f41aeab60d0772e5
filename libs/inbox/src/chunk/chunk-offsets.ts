import type { InboxBatch } from './inbox-batch.context';
import type { ConsumerSession } from '../consumer/consumer.session';
import type { PartitionOffsetTracker } from '../consumer/partition-offset.tracker';

/**
 * The offsets of accepted records begun inside one `InboxKafkaServer` chunk: they become
 * committable together when the chunk's transaction commits (one tracker update per
 * partition, one commit scheduled), and are released for redelivery when it rolls back. @internal
 */
export class ChunkOffsets {
  /** By tracker: one, unless the assignment changed in the middle of the chunk. */
  private readonly begun = new Map<PartitionOffsetTracker, bigint[]>();

  private constructor(private readonly session: ConsumerSession) {}

  /** The chunk's offsets of `session`, finished at its commit and released at its rollback. */
  static of(batch: InboxBatch, session: ConsumerSession): ChunkOffsets {
    return batch.keep(session, () => {
      const offsets = new ChunkOffsets(session);
      batch.onCommit(() => offsets.finish());
      batch.onRollback(() => offsets.abandon());
      return offsets;
    });
  }

  /** Begins the record at `offset` on its partition's tracker; returns the tracker. */
  begin(topic: string, partition: number, offset: bigint): PartitionOffsetTracker {
    const tracker = this.session.begin(topic, partition, offset);
    const offsets = this.begun.get(tracker);
    if (offsets) offsets.push(offset);
    else this.begun.set(tracker, [offset]);
    return tracker;
  }

  private finish(): void {
    for (const [tracker, offsets] of this.begun) this.session.finishAll(tracker, offsets);
  }

  private abandon(): void {
    for (const [tracker, offsets] of this.begun)
      for (const offset of offsets) tracker.abandon(offset);
  }
}
