/** What of kafkajs 2.2.4's `OffsetManager` the recovery reads and moves. @internal */
interface OffsetManagerParts {
  resolvedOffsets: Record<string, Record<number, string | undefined>>;
  committedOffsets(): Record<string, Record<number, string | undefined>>;
  resolveOffset(at: { topic: string; partition: number; offset: string }): void;
}

/** What of kafkajs 2.2.4's `ConsumerGroup` the recovery uses. @internal */
export interface ConsumerGroupParts {
  offsetManager: OffsetManagerParts;
  logger: { warn(message: string, extra: object): void };
  cluster: {
    fetchTopicsOffset(
      topics: { topic: string; partitions: { partition: number }[]; fromBeginning: boolean }[],
    ): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
  };
  recoverFromOffsetOutOfRange(error: { topic: string; partition: number }): Promise<void>;
}

/** @internal */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a mixin's base constructor
export type ConsumerGroupClass = new (...args: any[]) => ConsumerGroupParts;

/**
 * kafkajs' `ConsumerGroup` whose recovery from OffsetOutOfRange never commits: stock kafkajs
 * commits the default offset (`fromBeginning`: the partition's start), losing the group's place.
 * Here a fetch past the log's end reads again from the offset the group committed, or from the
 * log end when that one is past it too (a commit of an older version); only an offset before the
 * log's start (records deleted by retention) gets kafkajs' own reset. @internal
 */
export function keepOffsetsOnRangeError(Stock: ConsumerGroupClass): ConsumerGroupClass {
  return class InboxConsumerGroup extends Stock {
    override async recoverFromOffsetOutOfRange(error: { topic: string; partition: number }) {
      const { topic, partition } = error;
      const offsets = this.offsetManager;
      const fetched = offsets.resolvedOffsets[topic]?.[partition];
      const committed = offsets.committedOffsets()[topic]?.[partition];
      const [latest] = await this.cluster.fetchTopicsOffset([
        { topic, partitions: [{ partition }], fromBeginning: false },
      ]);
      const end = latest?.partitions.find((p) => p.partition === partition)?.offset;
      if (fetched === undefined || end === undefined || BigInt(fetched) <= BigInt(end))
        return super.recoverFromOffsetOutOfRange(error);
      const from =
        committed !== undefined && BigInt(committed) >= 0n && BigInt(committed) <= BigInt(end)
          ? committed
          : end;
      this.logger.warn('Offset past the log end: fetching again from the committed offset', {
        topic,
        partition,
        fetchOffset: fetched,
        logEnd: end,
        from,
      });
      offsets.resolveOffset({ topic, partition, offset: (BigInt(from) - 1n).toString() });
    }
  };
}
