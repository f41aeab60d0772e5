import {
  RABBITMQ_URL,
  amqpHeaders,
  rabbitTestClient,
  uniqueTopic,
  waitFor,
  type RabbitTestClient,
} from '@test/support';
import { useRelayFixture } from './relay-test.fixture';

interface Row {
  published_at: Date | null;
  parked_at: Date | null;
  parked_reason: string | null;
}

describe("RelayModule with broker 'rabbitmq' (real PostgreSQL + RabbitMQ)", () => {
  const fixture = useRelayFixture('relay_rabbitmq');
  let admin: RabbitTestClient;
  const exchange = uniqueTopic('relay-rmq-x');
  const orders = uniqueTopic('relay-rmq-orders');
  const rabbitmq = { url: RABBITMQ_URL, exchange };

  beforeAll(async () => {
    admin = await rabbitTestClient();
    await admin.channel.assertExchange(exchange, 'direct', { durable: false });
    await admin.channel.assertQueue(orders, {
      durable: false,
      arguments: { 'x-single-active-consumer': true },
    });
    await admin.channel.bindQueue(orders, exchange, orders);
  });
  afterAll(() => admin.close({ queues: [orders], exchanges: [exchange] }));

  it('Given 1500 events of 30 aggregates, when the relay drains them to RabbitMQ, then the queue holds each once, in aggregate_version order per aggregate, and every row is marked published', async () => {
    const { scene } = fixture;
    await scene.producer.writeMany(1500, 30, 250);
    await scene.start({
      kafka: undefined,
      broker: 'rabbitmq',
      rabbitmq,
      routing: { defaultTopic: orders },
      tuning: { batchSize: 200 },
    });
    const read = await admin.drain(orders, 1500, 60_000);
    expect(await scene.pending()).toBe(0);
    const ids = read.map((m) => m.properties.messageId as string);
    expect(new Set(ids).size).toBe(1500);
    expect(new Set(ids)).toEqual(new Set(scene.producer.written.map((e) => e.eventId)));
    const last = new Map<string, number>();
    const violations: string[] = [];
    for (const m of read) {
      const { aggregate_id: key, aggregate_version: version, event_id: id } = amqpHeaders(m);
      expect(id).toBe(m.properties.messageId);
      if (Number(version) !== (last.get(key!) ?? 0) + 1) violations.push(`${key} v${version}`);
      last.set(key!, Number(version));
    }
    expect(violations).toEqual([]);
  });

  it('Given an event whose topic no queue is bound to, when the relay publishes, then it parks as unroutable, the next event of its aggregate (routable) never reaches the queue, and other aggregates flow', async () => {
    const scene = await fixture.newScene('relay_rabbitmq_unroutable');
    const { producer, schema } = scene;
    const row = async (eventId: string): Promise<Row> =>
      (
        await schema.pool.query<Row>(
          `SELECT published_at, parked_at, parked_reason FROM "${schema.name}".outbox WHERE event_id = $1`,
          [eventId],
        )
      ).rows[0]!;
    const [lost, held] = await producer.write([
      { aggregateId: 'lost', topic: 'nobody-binds-this' },
      { aggregateId: 'lost' },
    ]);
    const [ok] = await producer.write([{ aggregateId: 'fine' }]);
    await scene.start({
      kafka: undefined,
      broker: 'rabbitmq',
      rabbitmq,
      routing: { defaultTopic: orders },
    });
    await waitFor('the unroutable event parked', async () => (await row(lost!)).parked_at);
    await waitFor('the other aggregate published', async () => (await row(ok!)).published_at);
    const delivered = await admin.drain(orders, 1);
    await scene.stopAll();
    const { messageCount } = await admin.channel.checkQueue(orders);
    expect([...delivered.map((m) => m.properties.messageId as string), messageCount]).toEqual([
      ok,
      0,
    ]);
    const parked = await row(lost!);
    expect(parked.parked_reason).toMatch(/^permanent: .*UNROUTABLE/);
    expect(await row(held!)).toMatchObject({ published_at: null, parked_at: null });
  });
});
