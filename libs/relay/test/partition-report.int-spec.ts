import { KAFKA_BROKERS, createTopics, uniqueTopic } from '@test/support';
import { logLevel } from 'kafkajs';
import { KafkaPublisher } from '../src/publisher/kafka.publisher';
import { keyPartition } from '../src/publisher/key-partitioner';
import type { PublishRecord } from '../src/publisher/relay-publisher.interface';

/**
 * The Kafka publisher pins a failed send on a partition only when its request held that
 * partition alone: the relay's evidence for parking an exhausted event is per partition
 * (BrokerAckWatch), and kafkajs fails a request over several brokers as a whole.
 */
describe('KafkaPublisher pins failures on partitions (real Kafka)', () => {
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

  /** A key of the same (or of another) partition as `key`'s, of a 4-partition topic. */
  const sameAs = (key: string, prefix: string) => keyOn(prefix, (p) => p === keyPartition(key, 4));
  const otherThan = (key: string, prefix: string) =>
    keyOn(prefix, (p) => p !== keyPartition(key, 4));
  const keyOn = (prefix: string, wanted: (partition: number) => boolean) => {
    for (let i = 0; ; i++) if (wanted(keyPartition(`${prefix}-${i}`, 4))) return `${prefix}-${i}`;
  };

  const record = (to: string, key: string, value = '{}'): PublishRecord => ({
    topic: to,
    key,
    value,
    headers: { event_id: `e-${key}` },
  });

  it('Given a record the broker refuses in a request of its partition alone, then the failure is pinned on the partition its key maps to', async () => {
    const refused = record(small, 'agg-big', JSON.stringify({ text: 'x'.repeat(4000) }));
    const neighbour = record(small, sameAs('agg-big', 'n'), '{}');
    await expect(
      publisher.publish([refused, neighbour], new AbortController().signal),
    ).rejects.toThrow();
    expect(publisher.failedPartition(refused)).toBe(keyPartition('agg-big', 4));
    expect(publisher.failedPartition(neighbour)).toBe(keyPartition('agg-big', 4));
  });

  it('Given a failed request over several partitions (it fails as a whole), then no record of it is pinned on a partition', async () => {
    const refused = record(small, 'agg-big', JSON.stringify({ text: 'x'.repeat(4000) }));
    const other = record(small, otherThan('agg-big', 'o'), '{}');
    await expect(
      publisher.publish([refused, other], new AbortController().signal),
    ).rejects.toThrow();
    expect(publisher.failedPartition(refused)).toBeUndefined();
    expect(publisher.failedPartition(other)).toBeUndefined();
  });

  it('Given acknowledged records, then none is reported as failed', async () => {
    const records = Array.from({ length: 10 }, (_, i) => record(topic, `agg-${i}`));
    await publisher.publish(records, new AbortController().signal);
    for (const r of records) expect(publisher.failedPartition(r)).toBeUndefined();
  });

  it('Given a topic that does not exist (no metadata, no partition chosen), then the record reports none', async () => {
    const lost = record(uniqueTopic('partition-report-missing'), 'agg-1');
    await expect(publisher.publish([lost], new AbortController().signal)).rejects.toThrow();
    expect(publisher.failedPartition(lost)).toBeUndefined();
  });
});
