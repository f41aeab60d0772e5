import { consumeUntil, uniqueTopic, waitFor } from '@test/support';
import { kafkaCompression } from '../src/publisher/compression';
import { checkDelivery, useRelayFixture } from './relay-test.fixture';

interface Row {
  published_at: Date | null;
  parked_at: Date | null;
  parked_reason: string | null;
}

describe("RelayModule with client 'platformatic' (@platformatic/kafka, real PostgreSQL + Kafka)", () => {
  const topic = uniqueTopic('relay-platformatic');
  const small = uniqueTopic('relay-platformatic-small');
  const fixture = useRelayFixture('relay_platformatic', {
    topics: [
      topic,
      {
        topic: small,
        numPartitions: 2,
        configEntries: [{ name: 'max.message.bytes', value: '3000' }],
      },
    ],
  });

  beforeAll(() => kafkaCompression('snappy')); // the reading kafkajs consumer decodes snappy

  it('Given events of many aggregates, when a relay on the platformatic client drains them with snappy, then Kafka has each once in aggregate_version order per key', async () => {
    const { scene } = fixture;
    await scene.producer.writeMany(1500, 30, 250);
    await scene.start({
      client: 'platformatic',
      routing: { defaultTopic: topic },
      tuning: { batchSize: 200, compression: 'snappy' },
    });
    await waitFor('outbox drained', async () => (await scene.pending()) === 0, {
      timeoutMs: 60_000,
    });
    const records = await consumeUntil([topic], (r) => r.length >= 1500, { timeoutMs: 60_000 });
    const report = checkDelivery(records, scene.producer.written);
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    expect(records).toHaveLength(1500);
  });

  it('Given an oversize and an unknown-topic event, when the platformatic relay publishes, then both park with their permanent reasons while other aggregates flow', async () => {
    const scene = await fixture.newScene('relay_platformatic_poison');
    const { producer, schema } = scene;
    const row = async (eventId: string): Promise<Row> =>
      (
        await schema.pool.query<Row>(
          `SELECT published_at, parked_at, parked_reason FROM "${schema.name}".outbox WHERE event_id = $1`,
          [eventId],
        )
      ).rows[0]!;
    const [big] = await producer.write([
      { aggregateId: 'big', payload: { blob: 'x'.repeat(6000) } },
    ]);
    const [lost] = await producer.write([
      { aggregateId: 'lost', topic: uniqueTopic('relay-platformatic-missing') },
    ]);
    const [ok] = await producer.write([{ aggregateId: 'fine' }]);
    await scene.start({
      client: 'platformatic',
      routing: { defaultTopic: small },
      tuning: { batchSize: 100, maxRequestBytes: 2500 },
    });
    await waitFor(
      'both poison events parked',
      async () => (await row(big!)).parked_at !== null && (await row(lost!)).parked_at !== null,
      { timeoutMs: 30_000 },
    );
    expect((await row(big!)).parked_reason).toMatch(/^permanent: .*MESSAGE_TOO_LARGE/);
    expect((await row(lost!)).parked_reason).toMatch(/^permanent: .*UNKNOWN_TOPIC_OR_PARTITION/);
    await waitFor('the other aggregate published', async () => (await row(ok!)).published_at);
  });
});
