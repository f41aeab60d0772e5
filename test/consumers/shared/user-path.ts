import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { InboxKafkaServer, PlatformaticInboxServer } from '@nest-outbox/inbox';
import { InvalidTransitionError } from '@nest-outbox/outbox';
import { Kafka, logLevel, type IHeaders } from 'kafkajs';
import pg from 'pg';
import { consumerEnv } from './consumer-env.js';
import { ShipmentsService } from './shipments.service.js';
import { OrdersService } from './orders.service.js';
import { waitFor } from './poll.js';

const { schema, topic, groupId, brokers, databaseUrl } = consumerEnv;

/** The first record of the topic, as the broker stored it. */
interface StoredRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: IHeaders;
}

/**
 * The user's path, end to end against the real PostgreSQL and Kafka: a decorated command
 * commits, the embedded relay publishes, the inbox applies the event once and absorbs a
 * redelivered copy, and (with terminus) `/health` answers, with a `database` check when the app
 * pings its database through terminus.
 */
export function userPath(
  appModule: DynamicModule,
  options: ({ readonly health: false } | { readonly health: true; readonly database: boolean }) & {
    /** The inbox's Kafka client: `InboxKafkaServer` (kafkajs) or `PlatformaticInboxServer`. */
    readonly client?: 'kafkajs' | 'platformatic';
  },
): void {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const kafka = new Kafka({ clientId: `${schema}-check`, brokers, logLevel: logLevel.NOTHING });
  const orderId = randomUUID();
  let app: INestApplication | undefined;
  let published: StoredRecord | undefined;

  const count = async (sql: string, params: unknown[] = []) =>
    Number((await pool.query<{ n: string }>(sql, params)).rows[0]?.n);

  before(async () => {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();
    app = await NestFactory.create(appModule, { logger: ['error', 'warn'] });
    const Server = options.client === 'platformatic' ? PlatformaticInboxServer : InboxKafkaServer;
    app.connectMicroservice<MicroserviceOptions>({
      strategy: new Server({
        postfixId: '',
        client: { clientId: `${schema}-consumer`, brokers },
        consumer: { groupId },
        subscribe: { fromBeginning: true },
        // The inbox commits each offset itself, after the effect's PostgreSQL commit.
        run: { autoCommit: false },
      }),
    });
    await app.listen(0, '127.0.0.1');
    await app.startAllMicroservices();
  });

  after(async () => {
    await app?.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteGroups([groupId, `${groupId}-check`]).catch(() => undefined);
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  test('a decorated command commits the conditional transition and its event', async () => {
    const orders = app!.get(OrdersService);
    await orders.place(orderId);
    await orders.confirm(orderId);
    const { rows } = await pool.query<{ status: string; version: number }>(
      `SELECT status, version FROM "${schema}".orders WHERE id = $1`,
      [orderId],
    );
    assert.deepEqual(rows, [{ status: 'confirmed', version: 2 }]);
    const events = `SELECT count(*) AS n FROM "${schema}".outbox WHERE aggregate_id = $1 AND event_type = 'order.confirmed' AND aggregate_version = 2`;
    assert.equal(await count(events, [orderId]), 1);
    // The transition is conditional: confirming again changes nothing and records nothing.
    await assert.rejects(orders.confirm(orderId), InvalidTransitionError);
    assert.equal(await count(events, [orderId]), 1);
  });

  test('RelayModule publishes the event to Kafka', async () => {
    await waitFor('the outbox row to be marked published', async () =>
      (await count(
        `SELECT count(*) AS n FROM "${schema}".outbox WHERE aggregate_id = $1 AND published_at IS NOT NULL`,
        [orderId],
      )) === 1
        ? true
        : undefined,
    );
    const consumer = kafka.consumer({ groupId: `${groupId}-check` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    let first: StoredRecord | undefined;
    await consumer.run({
      autoCommit: false,
      eachMessage: ({ message }) => {
        first ??= { key: message.key, value: message.value, headers: message.headers ?? {} };
        return Promise.resolve();
      },
    });
    published = await waitFor('the record on the topic', () => Promise.resolve(first));
    await consumer.disconnect();
    assert.equal(published.key?.toString(), orderId);
    assert.equal(published.headers.event_type?.toString(), 'order.confirmed');
    assert.deepEqual(JSON.parse(published.value?.toString() ?? 'null'), { orderId });
  });

  test('the @InboxHandler applies the event once', async () => {
    await waitFor('the shipment', async () =>
      (await count(`SELECT count(*) AS n FROM "${schema}".shipments WHERE order_id = $1`, [
        orderId,
      ])) === 1
        ? true
        : undefined,
    );
    assert.equal(app!.get(ShipmentsService).applied, 1);
    const eventId = published?.headers.event_id?.toString();
    assert.equal(
      await count(`SELECT count(*) AS n FROM "${schema}".inbox WHERE event_id = $1`, [eventId]),
      1,
    );
  });

  test('a redelivered copy is absorbed: the handler does not run again', async () => {
    assert.ok(published, 'needs the published record');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic,
      messages: [{ key: published.key, value: published.value, headers: published.headers }],
    });
    await producer.disconnect();
    // Both records settled: the group's committed offset passed the copy.
    const admin = kafka.admin();
    await admin.connect();
    await waitFor('the consumer to commit past the copy', async () => {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
      return offsets?.partitions[0]?.offset === '2' ? true : undefined;
    }).finally(() => admin.disconnect());
    assert.equal(app!.get(ShipmentsService).applied, 1);
    assert.equal(await count(`SELECT count(*) AS n FROM "${schema}".shipments`), 1);
    assert.equal(await count(`SELECT count(*) AS n FROM "${schema}".inbox`), 1);
  });

  if (options.health) {
    test('/health answers 200 through terminus', async () => {
      const url = await app!.getUrl();
      const answer = await waitFor('/health to answer 200', async () => {
        const response = await fetch(`${url.replace('[::1]', '127.0.0.1')}/health`);
        return response.status === 200
          ? ((await response.json()) as Record<string, unknown>)
          : undefined;
      });
      assert.equal(answer.status, 'ok');
      const checks = options.database ? ['database', 'inbox', 'relay'] : ['inbox', 'relay'];
      assert.deepEqual(Object.keys(answer.info as object).sort(), checks);
    });
  }
}
