import type { KafkaMessage } from 'kafkajs';
import { KAFKA_BROKERS } from './env';
import { createTopics, testKafka, uniqueTopic } from './kafka';
import { KafkaFetchRewriter, replaceBatch, sealBatch } from './kafka-fetch-rewriter';
import { waitFor } from './poll';

jest.setTimeout(60_000);

describe('KafkaFetchRewriter (real Kafka)', () => {
  it('Given a rewrite of one batch, then a consumer bootstrapped at the proxy reads that batch as rewritten and every other batch as the broker sent it', async () => {
    const topic = uniqueTopic('fetch-rewriter');
    await createTopics([{ topic, numPartitions: 1 }]);
    const producer = testKafka().producer();
    await producer.connect();
    for (const value of ['first', 'aaaaa', 'third'])
      await producer.send({ topic, messages: [{ value }] });
    await producer.disconnect();

    const proxy = await KafkaFetchRewriter.start(Number(KAFKA_BROKERS[0]!.split(':')[1]));
    const seen: string[] = [];
    proxy.rewrite = (records, at) => {
      seen.push(`${at.topic}/${at.partition}`);
      return replaceBatch(records, 1n, (batch) =>
        sealBatch(Buffer.from(batch.toString('latin1').replace('aaaaa', 'bbbbb'), 'latin1')),
      );
    };
    const consumer = testKafka(proxy.brokers).consumer({
      groupId: uniqueTopic('g'),
      maxWaitTimeInMs: 100,
    });
    const got: KafkaMessage[] = [];
    try {
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({ eachMessage: ({ message }) => Promise.resolve(void got.push(message)) });
      await waitFor('three records through the proxy', () => Promise.resolve(got.length >= 3));
    } finally {
      await consumer.disconnect();
      await proxy.close();
    }
    expect(got.map((m) => m.value?.toString())).toEqual(['first', 'bbbbb', 'third']);
    expect(seen).toContain(`${topic}/0`);
  });
});
