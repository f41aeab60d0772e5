import { KAFKA_BROKERS, createTopics, uniqueTopic } from '@test/support';
import { logLevel } from 'kafkajs';
import { KafkaPublisher } from '../src/publisher/kafka.publisher';
import { keyPartition } from '../src/publisher/key-partitioner';
import type { PublishRecord } from '../src/publisher/relay-publisher.interface';

/**
 * The Kafka publisher reports the partition each record's latest send chose, also when the
 * broker refused it: the relay's ack evidence is per partition (BrokerAckWatch), so that the
 * events of a partition still down while others recover back off instead of parking.
 */
describe('KafkaPublisher partition reports (real Kafka)', () => {
  const topic = uniqueTopic('partition-report');
  const small = uniqueTopic('partition-report-small');
  let publisher: KafkaPublisher;

  beforeAll(async () => {
    await createTopics([
      { topic, numPartitions: 4 },
      {
        topic: small,
        numPartitions: 4,
        configEntries: [{ name: 'max.message.bytes', value: '1024' }],
      },
    ]);
    publisher = new KafkaPublisher(
      { clientId: 'partition-report', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING },
      { retry: { retries: 1, initialRetryTime: 50, maxRetryTime: 100 } },
    );
  });

  afterAll(() => publisher.disconnect());

  const record = (to: string, key: string, value = '{}'): PublishRecord => ({
    topic: to,
    key,
    value,
    headers: { event_id: `e-${key}` },
  });

  it('Given acknowledged records, then each reports the partition its ack names', async () => {
    const records = Array.from({ length: 40 }, (_, i) => record(topic, `agg-${i}`));
    const acks = await publisher.publish(records, new AbortController().signal);
    expect(new Set(acks.map((a) => a.partition)).size).toBeGreaterThan(1);
    records.forEach((r, i) => expect(publisher.partitionOf(r)).toBe(acks[i]!.partition));
  });

  it('Given a record the broker refuses (too large for its topic), then it still reports the partition its key maps to', async () => {
    const refused = record(small, 'agg-big', JSON.stringify({ text: 'x'.repeat(4000) }));
    await expect(publisher.publish([refused], new AbortController().signal)).rejects.toThrow();
    expect(publisher.partitionOf(refused)).toBe(keyPartition('agg-big', 4));
  });

  it('Given a topic that does not exist (no metadata, no partition chosen), then the record reports none', async () => {
    const lost = record(uniqueTopic('partition-report-missing'), 'agg-1');
    await expect(publisher.publish([lost], new AbortController().signal)).rejects.toThrow();
    expect(publisher.partitionOf(lost)).toBeUndefined();
  });
});
