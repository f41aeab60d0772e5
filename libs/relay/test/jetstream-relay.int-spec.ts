import { NATS_SERVERS, createTestStream, waitFor, type TestStream } from '@test/support';
import { checkDelivery, useRelayFixture } from './relay-test.fixture';

interface Row {
  published_at: Date | null;
  parked_at: Date | null;
  parked_reason: string | null;
}

const nats = {
  broker: 'nats-jetstream',
  nats: { servers: NATS_SERVERS },
  kafka: undefined,
} as const;

describe("RelayModule with broker 'nats-jetstream' (real PostgreSQL + NATS JetStream)", () => {
  const fixture = useRelayFixture('relay_jetstream');
  const streams: TestStream[] = [];
  afterAll(async () => {
    for (const s of streams) await s.close();
  });
  const stream = async (prefix: string, config = {}) => {
    const made = await createTestStream(prefix, config);
    streams.push(made);
    return made;
  };

  it('Given events of many aggregates, when a relay drains them to JetStream, then the stream has each once, in aggregate_version order per aggregate subject', async () => {
    const { scene } = fixture;
    const { topic, readUntil } = await stream('relay-js');
    await scene.producer.writeMany(600, 30, 200);
    await scene.start({ ...nats, routing: { defaultTopic: topic }, tuning: { batchSize: 200 } });
    await waitFor('outbox drained', async () => (await scene.pending()) === 0, {
      timeoutMs: 60_000,
    });
    const records = await readUntil(600);
    const report = checkDelivery(records, scene.producer.written);
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    expect(report.duplicates).toEqual([]);
  });

  it('Given events published and unmarked again (a relay that crashed after the PubAcks, before its marks), when a relay publishes them again within the duplicate_window, then it marks them and the stream still holds each once', async () => {
    const scene = await fixture.newScene('relay_jetstream_dedup');
    const { topic, messages } = await stream('relay-js-dedup');
    await scene.producer.writeMany(60, 5, 60);
    const relay = await scene.start({ ...nats, routing: { defaultTopic: topic } });
    await waitFor('outbox drained', async () => (await scene.pending()) === 0);
    await scene.stop(relay);
    // A relay that crashed after the PubAcks and before its marks publishes them again.
    await scene.schema.pool.query(`UPDATE "${scene.schema.name}".outbox SET published_at = NULL`);
    await scene.start({ ...nats, routing: { defaultTopic: topic } });
    await waitFor('republished', async () => (await scene.pending()) === 0);
    expect(await messages()).toBe(60);
  });

  it('Given an event routed to a subject no stream captures and an oversize one, when the relay publishes, then both park with their permanent reasons, hold only their aggregates, and the others flow', async () => {
    const scene = await fixture.newScene('relay_jetstream_park');
    const { topic } = await stream('relay-js-park', { max_msg_size: 3000 });
    const { producer, schema } = scene;
    const row = async (eventId: string): Promise<Row> =>
      (
        await schema.pool.query<Row>(
          `SELECT published_at, parked_at, parked_reason FROM "${schema.name}".outbox WHERE event_id = $1`,
          [eventId],
        )
      ).rows[0]!;
    const [big, afterBig] = await producer.write([
      { aggregateId: 'big', payload: { blob: 'x'.repeat(6000) } },
      { aggregateId: 'big' },
    ]);
    const [lost] = await producer.write([{ aggregateId: 'lost', topic: 'relay-js-nostream' }]);
    const [ok] = await producer.write([{ aggregateId: 'fine' }]);
    await scene.start({ ...nats, routing: { defaultTopic: topic } });
    await waitFor(
      'both poison events parked',
      async () => (await row(big!)).parked_at !== null && (await row(lost!)).parked_at !== null,
      { timeoutMs: 30_000 },
    );
    expect((await row(big!)).parked_reason).toMatch(/^permanent: .*MESSAGE_TOO_LARGE/);
    expect((await row(lost!)).parked_reason).toMatch(/^permanent: .*no stream captures subject/);
    await waitFor('the other aggregate published', async () => (await row(ok!)).published_at);
    expect((await row(afterBig!)).published_at).toBeNull();
  });
});
