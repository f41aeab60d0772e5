import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { uuidv7 } from '@nest-outbox/core';
import { outboxSchemaSql } from '@nest-outbox/outbox';
import {
  DATABASE_URL,
  KAFKA_BROKERS,
  consumeUntil,
  createTestSchema,
  createTopics,
  uniqueTopic,
  waitFor,
  type TestSchema,
} from '@test/support';
import request from 'supertest';
import { RelayAppModule } from './relay-app.module';
import { relayOptionsFromEnv } from './relay-env.config';

describe('The standalone relay app (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-app');
  let db: TestSchema;
  let app: INestApplication | undefined;

  beforeAll(async () => {
    db = await createTestSchema('relay_app');
    for (const sql of outboxSchemaSql({ schema: db.name, table: 'outbox' }))
      await db.pool.query(sql);
    await createTopics([topic]);
  });

  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('Given an outbox named by the environment, when the standalone relay runs, then it publishes its events and serves /health and /metrics', async () => {
    const options = relayOptionsFromEnv({
      DATABASE_URL,
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      OUTBOX_SCHEMA: db.name,
      RELAY_DEFAULT_TOPIC: topic,
      RELAY_INSTALL_SCHEMA: '1',
      RELAY_POLL_MAX_MS: '200',
      RELAY_RETENTION_MS: '0',
      RELAY_ID: 'relay-app-test',
    });
    const moduleRef = await Test.createTestingModule({
      imports: [RelayAppModule.register(options)],
    }).compile();
    moduleRef.useLogger(false);
    app = moduleRef.createNestApplication();
    await app.init();

    const eventId = uuidv7();
    await db.pool.query(
      `INSERT INTO "${db.name}".outbox (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload)
       VALUES ($1, 'thing.happened', 1, 'thing', 't-1', 1, now(), '{"n":1}')`,
      [eventId],
    );
    const [record] = await consumeUntil([topic], (r) => r.length >= 1);
    expect(record!.headers.event_id).toBe(eventId);

    const server = app.getHttpServer() as Parameters<typeof request>[0];
    await waitFor('the mark', async () => {
      const metrics = await request(server).get('/metrics').expect(200);
      return /nest_outbox_relay_published_total 1\b/.test(metrics.text);
    });
    const health = await request(server).get('/health').expect(200);
    expect(health.body).toMatchObject({
      status: 'ok',
      details: { relay: { status: 'up', running: true, broker: 'up', pending: 0 } },
    });
  });
});
