import { KAFKA_BROKERS, consumeUntil, createTopics, testKafka, uniqueTopic } from '@test/support';
import { logLevel } from 'kafkajs';
import type { KafkaRecordEncoder } from '../src/publisher/kafka.publisher';
import type { PublishAck, PublishRecord } from '../src/publisher/relay-publisher.interface';
import { rewritingPublisher } from './test-hooks';

/** Requests the relay's own encoder built, by every publisher of this file. */
let fastEncodedRequests = 0;
const counted = (request: Buffer) => (fastEncodedRequests++, request);

/** Records with what an encoder can get wrong: multi-byte text, long values, many keys. */
function records(topic: string, n: number, round: number): PublishRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    topic,
    key: i % 7 === 0 ? `ключ-${i % 13}-🙂` : `k-${i % 13}`,
    value: JSON.stringify({ i, round, text: i % 5 === 0 ? 'grüße 日本 🙂' : 'x'.repeat(i % 300) }),
    headers: {
      event_id: `e-${round}-${i}`,
      aggregate_version: String(i),
      'näme-🙂': 'wért',
      empty: '',
    },
  }));
}

async function publishRounds(encoder: KafkaRecordEncoder, topic: string) {
  const publisher = rewritingPublisher(
    { clientId: `encoder-${encoder}`, brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING },
    {},
    { recordEncoder: encoder },
    counted,
  );
  const sent: { record: PublishRecord; ack: PublishAck }[] = [];
  try {
    // Several requests in a row: the idempotent producer's sequence numbers must follow on.
    for (let round = 0; round < 4; round++) {
      const batch = records(topic, 250, round);
      const acks = await publisher.publish(batch, new AbortController().signal);
      batch.forEach((record, i) => sent.push({ record, ack: acks[i]! }));
    }
  } finally {
    await publisher.disconnect();
  }
  return { publisher, sent };
}

describe('Relay record encoder (real Kafka)', () => {
  const fastTopic = uniqueTopic('encoder-relay');
  const kafkajsTopic = uniqueTopic('encoder-kafkajs');
  const foreignTopic = uniqueTopic('encoder-foreign');

  beforeAll(async () => {
    await createTopics([
      { topic: fastTopic, numPartitions: 4 },
      { topic: kafkajsTopic, numPartitions: 4 },
      foreignTopic,
    ]);
  });

  it("Given records with multi-byte text, long values and many keys, when the relay's encoder publishes them, then the broker stores exactly what kafkajs' encoder makes it store, at the partitions and offsets the acks report", async () => {
    const before = fastEncodedRequests;
    const fast = await publishRounds('relay', fastTopic);
    expect(fast.publisher['encoder'].fast).toBe(true);
    expect(fastEncodedRequests - before).toBeGreaterThanOrEqual(4);

    const afterFast = fastEncodedRequests;
    const plain = await publishRounds('kafkajs', kafkajsTopic);
    expect(plain.publisher['encoder'].fast).toBe(false);
    expect(fastEncodedRequests).toBe(afterFast);

    const read = async (topic: string) =>
      new Map(
        (await consumeUntil([topic], (r) => r.length >= 1000)).map((r) => [r.headers.event_id, r]),
      );
    const [fastRecords, plainRecords] = await Promise.all([read(fastTopic), read(kafkajsTopic)]);
    expect(fastRecords.size).toBe(1000);
    for (const { record, ack } of fast.sent) {
      const stored = fastRecords.get(record.headers.event_id)!;
      const twin = plainRecords.get(record.headers.event_id)!;
      expect({ key: stored.key, value: stored.value, headers: stored.headers }).toEqual({
        key: record.key,
        value: record.value,
        headers: record.headers,
      });
      expect({ key: stored.key, value: stored.value, headers: stored.headers }).toEqual({
        key: twin.key,
        value: twin.value,
        headers: twin.headers,
      });
      // Same key, same partition whoever encodes; the ack says where it landed.
      expect(stored.partition).toBe(twin.partition);
      expect(`${stored.partition}/${stored.offset}`).toBe(`${ack.partition}/${ack.offset}`);
    }
  });

  it("Given another kafkajs producer in the same process, when it sends, then it keeps kafkajs' encoder", async () => {
    const producer = testKafka().producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const before = fastEncodedRequests;
    try {
      await producer.send({
        topic: foreignTopic,
        acks: -1,
        messages: [{ key: 'a', value: 'plain', headers: { h: 'v' } }],
      });
    } finally {
      await producer.disconnect();
    }
    expect(fastEncodedRequests).toBe(before);
    const [stored] = await consumeUntil([foreignTopic], (r) => r.length >= 1);
    expect(stored).toMatchObject({ key: 'a', value: 'plain', headers: { h: 'v' } });
  });
});
