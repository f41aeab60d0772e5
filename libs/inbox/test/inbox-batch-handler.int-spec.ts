import { createHash } from 'node:crypto';
import type { EventEnvelope } from '@nest-outbox/core';
import { consumeUntil, createTopics, uniqueTopic, waitFor } from '@test/support';
import { committedOffsets, send } from './inbox-test.kafka';
import { inboxMetric, useInboxFixture } from './inbox-test.fixture';
import { startInboxApp, type InboxTestAppOptions } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(90_000);

type TestRecord = ReturnType<typeof eventRecord>;

describe('@InboxBatchHandler: one call per chunk with its new events (real PostgreSQL + Kafka)', () => {
  const fx = useInboxFixture('inbox_batch');

  const ids = (records: { eventId: string }[]) => records.map((r) => r.eventId);
  const effectCounts = async (records: TestRecord[]) => {
    const { rows } = await fx.db.pool.query<{ id: string; n: string }>(
      `SELECT event_id::text AS id, count(*) AS n FROM "${fx.db.name}".effects
       WHERE event_id = ANY($1::uuid[]) GROUP BY event_id`,
      [ids(records)],
    );
    return new Map(rows.map((r) => [r.id, Number(r.n)]));
  };
  const committed = async (groupId: string, topic: string) =>
    (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) ?? -1n;

  /**
   * A batch-handler app on a fresh one-partition topic, taught its handler by a first record
   * (applied and committed); `calls` lists the event ids of every handler call from then on.
   */
  async function warmStart(
    options: Partial<InboxTestAppOptions> & { failFirstCallWith?: string } = {},
  ) {
    const topic = uniqueTopic('inbox-batch');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 1 }]);
    const warmUp = eventRecord();
    await send(fx.tools.producer, topic, [warmUp], 0);
    const calls: string[][] = [];
    let failed = false;
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      inboxBatchSize: 50,
      batchHandler: true,
      logger: ['error'],
      ...options,
      behavior: {
        batch: (events: readonly EventEnvelope[]) => {
          calls.push(events.map((e) => e.eventId));
          const fail = options.failFirstCallWith;
          if (fail && !failed && events.some((e) => e.eventId === fail)) {
            failed = true;
            throw new Error('transient failure of the batch handler');
          }
        },
      },
    });
    fx.apps.push(app);
    await waitFor(
      'the warm-up record committed',
      async () => (await committed(groupId, topic)) === 1n,
    );
    calls.length = 0;
    return { topic, groupId, app, warmUp, calls };
  }

  it('Given a chunk mixing new events, duplicates of an earlier chunk and of itself, a refused record and a stale version, when it is consumed, then the handler runs ONCE with exactly the new events in offset order and every offset is committed', async () => {
    const { topic, groupId, app, warmUp, calls } = await warmStart({
      handler: { eventTypes: ['order.confirmed'], versionCheck: 'log' },
    });
    const v1 = eventRecord({ aggregateId: 'order-agg-1', aggregateVersion: 1 });
    const v2 = eventRecord({ aggregateId: 'order-agg-1', aggregateVersion: 2 });
    const stale = eventRecord({ aggregateId: 'order-agg-1', aggregateVersion: 1 });
    const other = eventRecord();
    const refused = eventRecord({ eventType: 'order.unknown' });
    // One producer request: one record batch, consumed as one chunk (offsets 1..7).
    await send(fx.tools.producer, topic, [v1, warmUp, v2, refused, v1, stale, other], 0);

    await waitFor('every offset committed', async () => (await committed(groupId, topic)) === 8n);
    expect(calls).toEqual([ids([v1, v2, other])]);
    expect(await effectCounts([v1, v2, other, stale, refused, warmUp])).toEqual(
      new Map(ids([v1, v2, other, warmUp]).map((id) => [id, 1])),
    );
    const { rows } = await fx.db.pool.query<{ kafka_offset: string; reason_code: string }>(
      `SELECT kafka_offset, reason_code FROM "${fx.db.name}".inbox_rejected`,
    );
    expect(rows).toEqual([{ kafka_offset: '4', reason_code: 'unknown_event_type' }]);
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_applied_total')).toBe(1 + 3);
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_duplicate_total')).toBe(2);
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_stale_total')).toBe(1);
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_received_total')).toBe(4 + 2 + 1);
  });

  it("Given a chunk with a refused record before the chunk's last one, when it is consumed, then the rejected row's evidence and the dead-letter record are that record's own key and value, not the last record's", async () => {
    const dlq = uniqueTopic('inbox-batch-dlq');
    await createTopics([{ topic: dlq, numPartitions: 1 }]);
    const { topic, groupId, calls } = await warmStart({
      handler: { eventTypes: ['order.confirmed'] },
      module: { deadLetterTopic: dlq },
    });
    const first = eventRecord();
    const refused = eventRecord({
      eventType: 'order.unknown',
      payload: { refused: 'x'.repeat(40) },
    });
    const last = eventRecord();
    await send(fx.tools.producer, topic, [first, refused, last], 0);

    await waitFor('every offset committed', async () => (await committed(groupId, topic)) === 4n);
    expect(calls).toEqual([ids([first, last])]);
    const { rows } = await fx.db.pool.query<{
      kafka_offset: string;
      key_bytes: Buffer | null;
      value_length: number | null;
      value_sha256: Buffer | null;
    }>(
      `SELECT kafka_offset, key_bytes, value_length, value_sha256 FROM "${fx.db.name}".inbox_rejected
       WHERE topic = $1`,
      [topic],
    );
    const value = Buffer.from(refused.value as string);
    expect(rows).toEqual([
      {
        kafka_offset: '2',
        key_bytes: Buffer.from(refused.key as string),
        value_length: value.length,
        value_sha256: createHash('sha256').update(value).digest(),
      },
    ]);
    const [dead] = await consumeUntil([dlq], (r) => r.length >= 1, { timeoutMs: 20_000 });
    expect(dead).toMatchObject({ key: refused.key, value: refused.value });
    expect(dead!.headers['x-inbox-source']).toBe(`${topic}/0/2`);
  });

  it('Given a batch handler that fails once on a chunk, when the chunk is replayed, then it runs record by record with one event per call, and each effect is applied exactly once', async () => {
    const chunk = [eventRecord(), eventRecord(), eventRecord()];
    const { topic, groupId, app, calls } = await warmStart({
      failFirstCallWith: chunk[1]!.eventId,
    });
    await send(fx.tools.producer, topic, chunk, 0);

    await waitFor('every offset committed', async () => (await committed(groupId, topic)) === 4n);
    expect(calls).toEqual([ids(chunk), ...ids(chunk).map((id) => [id])]);
    expect(await effectCounts(chunk)).toEqual(new Map(ids(chunk).map((id) => [id, 1])));
    // The rolled-back chunk counted nothing; the warm-up record and the replay count once each.
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_applied_total')).toBe(1 + 3);
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_received_total')).toBe(1 + 3);
  });
});
