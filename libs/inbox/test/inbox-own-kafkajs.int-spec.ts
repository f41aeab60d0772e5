import { createTopics, testKafka, uniqueTopic, waitFor } from '@test/support';
import { CompressionCodecs, CompressionTypes, type IHeaders, type KafkaMessage } from 'kafkajs';
import { committedOffsets, send } from './inbox-test.kafka';
import { useInboxFixture } from './inbox-test.fixture';
import { startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(90_000);

/** Past the inbox's cap of 1,000 headers, small enough for stock kafkajs to decode quickly. */
const MANY_HEADERS = 1500;

describe("InboxKafkaServer's guarded kafkajs client: another kafkajs consumer in the process decodes as stock kafkajs (real PostgreSQL + Kafka)", () => {
  const fx = useInboxFixture('inbox_own_kafkajs');

  it('Given a record past the header cap, then the inbox rejects it as too_many_headers while a plain kafkajs consumer of the same process gets every header, and kafkajs codec table is untouched', async () => {
    const topic = uniqueTopic('inbox-own-kafkajs');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 1 }]);
    const many = eventRecord();
    const headers: IHeaders = { ...many.headers };
    for (let i = 0; i < MANY_HEADERS; i += 1) headers[`h${i}`] = 'v';
    const canary = eventRecord();
    await send(fx.tools.producer, topic, [{ ...many, headers }, canary]);

    fx.apps.push(await startInboxApp({ schema: fx.db.name, topics: [topic], groupId }));
    const seen: KafkaMessage[] = [];
    const plain = testKafka().consumer({ groupId: uniqueTopic('plain'), maxWaitTimeInMs: 100 });
    await plain.connect();
    try {
      await plain.subscribe({ topic, fromBeginning: true });
      await plain.run({ eachMessage: ({ message }) => Promise.resolve(void seen.push(message)) });
      await waitFor('both consumers past both records', async () => {
        const inboxDone = (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === 2n;
        return inboxDone && seen.length === 2;
      });
    } finally {
      await plain.disconnect();
    }

    expect(Object.keys(seen[0]!.headers ?? {})).toHaveLength(Object.keys(headers).length);
    const rejected = await fx.db.pool.query<{ kafka_offset: string; reason_code: string }>(
      `SELECT kafka_offset, reason_code FROM "${fx.db.name}".inbox_rejected`,
    );
    expect(rejected.rows).toEqual([{ kafka_offset: '0', reason_code: 'too_many_headers' }]);
    const effects = await fx.db.pool.query<{ event_id: string }>(
      `SELECT event_id FROM "${fx.db.name}".effects`,
    );
    expect(effects.rows.map((r) => r.event_id)).toEqual([canary.eventId]);
    const zstd = (CompressionCodecs as Record<number, () => unknown>)[CompressionTypes.ZSTD]!;
    expect(() => zstd()).toThrow(/not implemented/); // the inbox registered nothing there
  });
});
