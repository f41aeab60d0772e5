import { inboxKafkaFile } from './inbox-kafkajs';
import { keepOffsetsOnRangeError, type ConsumerGroupParts } from './offset-out-of-range';

/** kafkajs' ConsumerGroup as far as the recovery reads it: offsets, the log end, stock reset. */
class FakeGroup implements ConsumerGroupParts {
  stockResets = 0;
  resolvedOffsets: Record<string, Record<number, string | undefined>> = { t: {} };
  committed: Record<string, Record<number, string | undefined>> = { t: {} };
  logEnd = '9';
  logger = { warn: jest.fn() };
  offsetManager = {
    resolvedOffsets: this.resolvedOffsets,
    committedOffsets: () => this.committed,
    resolveOffset: ({
      topic,
      partition,
      offset,
    }: {
      topic: string;
      partition: number;
      offset: string;
    }) => {
      this.resolvedOffsets[topic]![partition] = (BigInt(offset) + 1n).toString();
    },
  };
  cluster = {
    fetchTopicsOffset: () =>
      Promise.resolve([{ topic: 't', partitions: [{ partition: 0, offset: this.logEnd }] }]),
  };
  recoverFromOffsetOutOfRange(_error: { topic: string; partition: number }): Promise<void> {
    this.stockResets += 1; // stock kafkajs commits the default offset here
    return Promise.resolve();
  }
}

const Group = keepOffsetsOnRangeError(FakeGroup);
const group = (fetched: string, committed: string | undefined) => {
  const g = new Group() as FakeGroup;
  g.resolvedOffsets.t![0] = fetched;
  g.committed.t![0] = committed;
  return g;
};

describe('OffsetOutOfRange recovery of the inbox kafkajs', () => {
  it('reads again from the committed offset when kafkajs fetched past the log end, committing nothing', async () => {
    const g = group('1006', '3');
    await g.recoverFromOffsetOutOfRange({ topic: 't', partition: 0 });
    expect(g.resolvedOffsets.t![0]).toBe('3');
    expect(g.stockResets).toBe(0);
  });

  it('reads from the log end when the committed offset is past it too, never from the start', async () => {
    const g = group('1006', '1006');
    await g.recoverFromOffsetOutOfRange({ topic: 't', partition: 0 });
    expect(g.resolvedOffsets.t![0]).toBe('9');
    expect(g.stockResets).toBe(0);
  });

  it("leaves an offset before the log's start (deleted by retention) to kafkajs' reset", async () => {
    const g = group('2', '2');
    await g.recoverFromOffsetOutOfRange({ topic: 't', partition: 0 });
    expect(g.stockResets).toBe(1);
    expect(g.resolvedOffsets.t![0]).toBe('2');
  });

  it("is the consumer group of the inbox's own kafkajs, and of no other client", () => {
    const own = inboxKafkaFile('src/consumer/consumerGroup') as { name: string };
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs' file has no types
    const stock = require('kafkajs/src/consumer/consumerGroup') as { name: string };
    expect([own.name, stock.name]).toEqual(['InboxConsumerGroup', 'ConsumerGroup']);
  });
});
