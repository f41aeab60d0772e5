import { EVENT_HEADERS } from '@nest-outbox/core';
import {
  InboxConsumerRegistry,
  InboxRetentionTooShortError,
  InboxSchemaMissingError,
} from '@nest-outbox/inbox';
import { consumeUntil, createTopics, uniqueTopic, waitFor } from '@test/support';
import request from 'supertest';
import { committedOffsets, send } from './inbox-test.kafka';
import { useInboxFixture } from './inbox-test.fixture';
import { startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(90_000);

describe('InboxModule guard: bad input is recorded, committed and skipped (real PostgreSQL + Kafka)', () => {
  const fx = useInboxFixture('inbox_bad');

  it('records each bad record with its reason, commits past it, stays healthy and applies the next good event', async () => {
    const topic = uniqueTopic('inbox-bad');
    const dlq = uniqueTopic('inbox-bad-dlq');
    const groupId = uniqueTopic('g');
    await createTopics([
      { topic, numPartitions: 1 },
      { topic: dlq, numPartitions: 1 },
    ]);
    const withoutHeaders = eventRecord();
    delete (withoutHeaders.headers as Record<string, string>)[EVENT_HEADERS.aggregateId];
    delete (withoutHeaders.headers as Record<string, string>)[EVENT_HEADERS.eventType];
    const notUuid = eventRecord();
    (notUuid.headers as Record<string, string>)[EVENT_HEADERS.eventId] = 'abc-123';
    const bad = [
      { ...eventRecord(), value: 'not json {' },
      withoutHeaders,
      eventRecord({ eventType: 'order.cancelled' }),
      eventRecord({ schemaVersion: 2 }),
      eventRecord({ payload: { blob: 'x'.repeat(5000) } }),
      notUuid,
    ];
    const good = eventRecord();
    await send(fx.tools.producer, topic, [...bad, good]);

    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      handler: { eventTypes: ['order.confirmed'], schemaVersions: [1], maxMessageBytes: 2048 },
      module: { deadLetterTopic: dlq },
    });
    fx.apps.push(app);

    await waitFor(
      'all seven offsets committed',
      async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === 7n,
    );
    const { rows } = await fx.db.pool.query<{
      kafka_offset: string;
      reason_code: string;
      reason: string;
      headers: Record<string, string>;
    }>(
      `SELECT kafka_offset, reason_code, reason, headers FROM "${fx.db.name}".inbox_rejected ORDER BY kafka_offset`,
    );
    expect(rows.map((r) => [Number(r.kafka_offset), r.reason_code])).toEqual([
      [0, 'not_json'],
      [1, 'missing_header'],
      [2, 'unknown_event_type'],
      [3, 'unsupported_schema_version'],
      [4, 'oversize'],
      [5, 'invalid_event_id'],
    ]);
    expect(rows[1]!.reason).toContain('aggregate_id');
    expect(JSON.stringify(rows)).not.toContain('xxxxxxxx'); // headers and reasons only, never the payload
    const effects = await fx.db.pool.query(`SELECT event_id FROM "${fx.db.name}".effects`);
    expect(effects.rows).toEqual([{ event_id: good.eventId }]);

    const dead = await consumeUntil([dlq], (r) => r.length >= 6, { timeoutMs: 20_000 });
    expect(dead.map((r) => r.headers['x-inbox-reason-code'])).toEqual(
      rows.map((r) => r.reason_code),
    );
    expect(dead[0]!.headers['x-inbox-source']).toBe(`${topic}/0/0`);

    expect(app.get(InboxConsumerRegistry).snapshots()[0]?.status).toBe('running');
    const health = await request(app.getHttpServer() as Parameters<typeof request>[0]).get(
      '/health',
    );
    expect(health.status).toBe(200);
    expect(health.body.info.inbox.status).toBe('up');
  });

  it('refuses to start when the inbox retention is shorter than the topic retention plus the replay window', async () => {
    const topic = uniqueTopic('inbox-retention');
    await createTopics([
      {
        topic,
        numPartitions: 1,
        configEntries: [{ name: 'retention.ms', value: String(3 * 86_400_000) }],
      },
    ]);
    const attempt = startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId: uniqueTopic('g'),
      module: { retention: { inboxRetentionMs: 3 * 86_400_000, replayWindowMs: 3_600_000 } },
      logger: false,
    });
    await expect(attempt).rejects.toThrow(InboxRetentionTooShortError);
    await expect(attempt).rejects.toThrow(/retention.inboxRetentionMs to at least 262800000 ms/);

    const accepted = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId: uniqueTopic('g'),
      module: {
        retention: { inboxRetentionMs: 3 * 86_400_000 + 3_600_000, replayWindowMs: 3_600_000 },
      },
    });
    fx.apps.push(accepted);
    const warned = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId: uniqueTopic('g'),
      module: { retention: { inboxRetentionMs: 1000, onTooShort: 'warn' } },
      logger: false,
    });
    fx.apps.push(warned);
  });

  it('refuses to start without its tables (verifySchema), naming them and how to create them', async () => {
    const topic = uniqueTopic('inbox-noschema');
    await createTopics([{ topic, numPartitions: 1 }]);
    const attempt = startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId: uniqueTopic('g'),
      module: { table: 'never_created', installSchema: false },
      logger: false,
    });
    await expect(attempt).rejects.toThrow(InboxSchemaMissingError);
    await expect(attempt).rejects.toThrow(
      new RegExp(
        `"${fx.db.name}"\\."never_created"(, "[^"]+"\\."[a-z_]+")* not found\\. Run .npx nest-outbox migrate`,
      ),
    );
  });
});
