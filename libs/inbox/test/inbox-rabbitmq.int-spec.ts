import { Controller, Inject, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, type RmqContext } from '@nestjs/microservices';
import { ClsPluginTransactional, getTransactionHostToken } from '@nestjs-cls/transactional';
import type { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { toKafkaHeaders, uuidv7, type EventEnvelope } from '@nest-outbox/core';
import { InboxEvent, InboxHandler, InboxModule, InboxRmqServer } from '@nest-outbox/inbox';
import {
  DATABASE_URL,
  RABBITMQ_URL,
  createTestSchema,
  rabbitTestClient,
  uniqueTopic,
  waitFor,
  type RabbitTestClient,
  type TestSchema,
} from '@test/support';
import type { AmqpConnectionManager } from 'amqp-connection-manager';
import { ClsModule } from 'nestjs-cls';
import { effectsDdl } from './inbox-test.app';

jest.setTimeout(60_000);

const CONSUMER = 'rmq-projection';

/** Per test: the event ids whose handler fails every time, and the one that breaks the connection once. */
const faults = {
  poison: new Set<string>(),
  cutOnce: new Set<string>(),
  server: undefined as InboxRmqServer | undefined,
};

function appModule(schema: string, queue: string): new () => unknown {
  @Controller()
  class RmqEffects {
    constructor(
      @Inject(getTransactionHostToken())
      private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    ) {}

    @EventPattern(queue)
    @InboxHandler(CONSUMER)
    async onEvent(@InboxEvent() event: EventEnvelope, @Ctx() ctx: RmqContext): Promise<void> {
      if (faults.poison.has(event.eventId)) throw new Error('poison');
      await this.txHost.tx.query(
        `INSERT INTO "${schema}".effects (consumer, event_id, aggregate_id, kafka_partition, kafka_offset) VALUES ($1, $2, $3, 0, $4)`,
        [
          CONSUMER,
          event.eventId,
          event.aggregateId,
          Number(ctx.getMessage().properties.headers?.n ?? 0),
        ],
      );
      // The effect commits after this; the connection is already closing: the ack is lost.
      if (faults.cutOnce.delete(event.eventId))
        faults.server!.unwrap<AmqpConnectionManager>().reconnect();
    }
  }

  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'postgres',
        url: DATABASE_URL,
        extra: { max: 5 },
        entities: [],
      }),
      ClsModuleWithTransactions(),
      InboxModule.forRoot({
        broker: 'rabbitmq',
        schema,
        retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 50 },
        tuning: { installSchema: true },
      }),
    ],
    controllers: [RmqEffects],
  })
  class AppModule {}
  return AppModule;
}

function ClsModuleWithTransactions() {
  return ClsModule.forRoot({
    global: true,
    plugins: [
      new ClsPluginTransactional({
        imports: [TypeOrmModule],
        adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
      }),
    ],
  });
}

/** A message as the relay publishes it (routing key = topic, contract headers). */
function publish(
  admin: RabbitTestClient,
  queue: string,
  e: {
    id?: string;
    aggregate: string;
    version: number;
    body?: string;
    headers?: Record<string, unknown>;
  },
) {
  const id = e.id ?? uuidv7();
  const headers = {
    ...toKafkaHeaders({
      eventId: id,
      eventType: 'order.confirmed',
      schemaVersion: 1,
      aggregateType: 'order',
      aggregateId: e.aggregate,
      aggregateVersion: e.version,
      occurredAt: new Date(),
      headers: {},
    }),
    n: e.version,
    ...e.headers,
  };
  admin.channel.sendToQueue(queue, Buffer.from(e.body ?? JSON.stringify({ v: e.version })), {
    persistent: true,
    messageId: id,
    headers,
  });
  return id;
}

describe('InboxRmqServer: @InboxHandler under Nest RMQ transport (real RabbitMQ + PostgreSQL)', () => {
  let db: TestSchema;
  let admin: RabbitTestClient;
  let app: INestApplication;
  const queue = uniqueTopic('inbox-rmq');
  const dlx = `${queue}.dlx`;
  const dlq = `${queue}.dead`;

  const effects = async () =>
    (
      await db.pool.query<{ event_id: string; aggregate_id: string; kafka_offset: string }>(
        `SELECT event_id, aggregate_id, kafka_offset FROM "${db.name}".effects ORDER BY applied_at`,
      )
    ).rows;
  const rejected = async () =>
    (
      await db.pool.query<{ reason_code: string; reason: string; event_id: string | null }>(
        `SELECT reason_code, reason, event_id FROM "${db.name}".inbox_rejected ORDER BY id`,
      )
    ).rows;

  beforeAll(async () => {
    db = await createTestSchema('inbox_rmq');
    await db.pool.query(effectsDdl(db.name));
    admin = await rabbitTestClient();
    await admin.channel.assertExchange(dlx, 'fanout', { durable: false });
    await admin.channel.assertQueue(dlq, { durable: false });
    await admin.channel.bindQueue(dlq, dlx, '');
    await admin.channel.assertQueue(queue, {
      durable: false,
      arguments: { 'x-dead-letter-exchange': dlx, 'x-single-active-consumer': true },
    });
    app = await NestFactory.create(appModule(db.name, queue), { logger: ['error'] });
    faults.server = new InboxRmqServer({
      urls: [RABBITMQ_URL],
      queue,
      noAck: false,
      noAssert: true,
      socketOptions: { reconnectTimeInSeconds: 0.1 },
    });
    app.connectMicroservice({ strategy: faults.server });
    await app.init();
    await app.startAllMicroservices();
  });
  afterAll(async () => {
    await app?.close();
    await admin?.close({ queues: [queue, dlq], exchanges: [dlx] });
    await db?.drop();
  });

  it('Given 200 events of 8 aggregates in the queue, when the inbox consumes them, then each effect is applied once, in version order per aggregate, and every message is acked', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 200; i++)
      ids.push(publish(admin, queue, { aggregate: `o-${i % 8}`, version: Math.floor(i / 8) + 1 }));
    await waitFor('200 effects', async () => (await effects()).length >= 200);
    const rows = await effects();
    expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
    for (let a = 0; a < 8; a++) {
      const versions = rows
        .filter((r) => r.aggregate_id === `o-${a}`)
        .map((r) => Number(r.kafka_offset));
      expect(versions).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    }
    await waitFor('queue empty and acked', async () => {
      const q = await admin.channel.checkQueue(queue);
      return q.messageCount === 0;
    });
  });

  it('Given the connection closes after the effect committed and before the ack, when the message is redelivered, then the duplicate is absorbed: exactly one effect', async () => {
    const aggregate = uniqueTopic('crash');
    const cut = uuidv7();
    faults.cutOnce.add(cut);
    publish(admin, queue, { id: cut, aggregate, version: 1 });
    const after = publish(admin, queue, { aggregate, version: 2 });
    await waitFor('the event after it applied', async () =>
      (await effects()).some((r) => r.event_id === after),
    );
    expect(faults.cutOnce.has(cut)).toBe(false);
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${db.name}".inbox WHERE consumer = $1 AND event_id = $2`,
      [CONSUMER, cut],
    );
    expect(rows[0]!.n).toBe(1);
    expect((await effects()).filter((r) => r.event_id === cut)).toHaveLength(1);
  });

  it("Given a poison event and bad input (not JSON, invalid event id, 1001 headers), when consumed, then each is written to the rejected table with its reason, dead-lettered through the queue's DLX, and the next event is applied", async () => {
    const poison = uuidv7();
    faults.poison.add(poison);
    publish(admin, queue, { id: poison, aggregate: 'p-1', version: 1 });
    publish(admin, queue, { aggregate: 'p-2', version: 1, body: '{not json' });
    publish(admin, queue, { aggregate: 'p-3', version: 1, headers: { event_id: 'not-a-uuid' } });
    const many: Record<string, string> = {};
    for (let i = 0; i < 1001; i++) many[`h${i}`] = 'x';
    publish(admin, queue, { aggregate: 'p-4', version: 1, headers: many });
    const next = publish(admin, queue, { aggregate: 'p-5', version: 1 });
    await waitFor('the next event applied', async () =>
      (await effects()).some((r) => r.event_id === next),
    );
    const rows = await rejected();
    expect(rows.map((r) => r.reason_code)).toEqual([
      'handler_failed',
      'not_json',
      'invalid_event_id',
      'too_many_headers',
    ]);
    expect(rows[0]).toMatchObject({ event_id: poison });
    expect(rows[0]!.reason).toMatch(/handler failed after 3 attempt/);
    const dead = await admin.drain(dlq, 4);
    expect(
      dead.map((m) => (m.properties.headers?.['x-death'] as { reason: string }[])[0]!.reason),
    ).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect(dead[0]!.properties.messageId).toBe(poison);
  });
});
