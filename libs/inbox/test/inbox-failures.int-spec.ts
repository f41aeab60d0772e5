import type { EventEnvelope } from '@nest-outbox/core';
import { InboxConsumerRegistry, InboxPermanentError } from '@nest-outbox/inbox';
import { createTopics, uniqueTopic, waitFor } from '@test/support';
import request from 'supertest';
import { committedOffsets, send } from './inbox-test.kafka';
import { useInboxFixture } from './inbox-test.fixture';
import { startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(90_000);

describe('InboxModule handler failures on concurrent partitions (real PostgreSQL + Kafka)', () => {
  const fx = useInboxFixture('inbox_fail');

  /** Offsets of the effects of these records (the effect table is shared by the file's tests). */
  const effectsAt = async (records: { eventId: string }[]) =>
    (
      await fx.db.pool.query<{ o: string }>(
        `SELECT kafka_offset AS o FROM "${fx.db.name}".effects WHERE event_id = ANY($1::uuid[]) ORDER BY 1`,
        [records.map((r) => r.eventId)],
      )
    ).rows.map((r) => Number(r.o));

  /** Five events per partition, sent to explicit partitions. */
  async function fill(topic: string, partitions: number) {
    const byPartition = Array.from({ length: partitions }, () =>
      Array.from({ length: 5 }, () => eventRecord()),
    );
    for (const [p, records] of byPartition.entries())
      await send(fx.tools.producer, topic, records, p);
    return byPartition;
  }

  it('does not commit past an early failing offset while later offsets and other partitions succeed', async () => {
    const topic = uniqueTopic('inbox-conc');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 3 }]);
    const events = await fill(topic, 3);
    const poison = events[0]![0]!.eventId;
    let failing = true;
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      partitionsConsumedConcurrently: 3,
      handler: { retry: { maxAttempts: 1000, baseDelayMs: 20, maxDelayMs: 100 } },
      behavior: {
        before: (event: EventEnvelope) => {
          if (failing && event.eventId === poison) throw new Error('downstream unavailable');
        },
      },
    });
    fx.apps.push(app);
    await waitFor('partitions 1 and 2 fully committed', async () => {
      const c = await committedOffsets(fx.tools.admin, groupId, topic);
      return c.get(1) === 5n && c.get(2) === 5n;
    });
    expect((await committedOffsets(fx.tools.admin, groupId, topic)).get(0) ?? -1n).toBe(-1n);
    expect(await effectsAt(events[0]!)).toEqual([]);
    failing = false;
    await waitFor(
      'partition 0 committed',
      async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === 5n,
    );
    expect(await effectsAt(events[0]!)).toEqual([0, 1, 2, 3, 4]);
  });

  it('pauses the partition of an exhausted event (strict order), reports it in health, and resumes on request', async () => {
    const topic = uniqueTopic('inbox-pause');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 2 }]);
    const events = await fill(topic, 2);
    const poison = events[0]![1]!.eventId; // offset 1 of partition 0
    let failing = true;
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      partitionsConsumedConcurrently: 2,
      handler: {
        onExhausted: 'pause',
        retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 50 },
      },
      behavior: {
        before: (event: EventEnvelope) => {
          if (failing && event.eventId === poison) throw new Error('projection rejects this event');
        },
      },
      logger: ['error'],
    });
    fx.apps.push(app);
    await waitFor('health down with the paused partition', async () => {
      const res = await request(app.getHttpServer() as Parameters<typeof request>[0]).get(
        '/health',
      );
      return res.status === 503 && JSON.stringify(res.body).includes(poison);
    });
    await waitFor(
      'partition 1 fully committed',
      async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(1) === 5n,
    );
    expect((await committedOffsets(fx.tools.admin, groupId, topic)).get(0)).toBe(1n); // held at the poison event
    expect(await effectsAt(events[0]!)).toEqual([0]);

    failing = false;
    expect(app.get(InboxConsumerRegistry).resume(topic, 0)).toBe(true);
    await waitFor(
      'partition 0 resumed and committed',
      async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === 5n,
    );
    expect(await effectsAt(events[0]!)).toEqual([0, 1, 2, 3, 4]);
    expect(
      (await request(app.getHttpServer() as Parameters<typeof request>[0]).get('/health')).status,
    ).toBe(200);
  });

  it('dead-letters an event after its attempts (or at once for a permanent error) and moves on', async () => {
    const topic = uniqueTopic('inbox-dlq');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 1 }]);
    const events = await fill(topic, 1);
    const records = events[0];
    const transient = records![1]!.eventId;
    const permanent = records![3]!.eventId;
    const attempts = new Map<string, number>();
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      handler: { retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 } },
      behavior: {
        // Throwing after the effect write proves the rollback of a failed attempt.
        after: (event: EventEnvelope) => {
          attempts.set(event.eventId, (attempts.get(event.eventId) ?? 0) + 1);
          if (event.eventId === transient) throw new Error('always failing');
          if (event.eventId === permanent)
            throw new InboxPermanentError('violates a business rule');
        },
      },
      logger: false,
    });
    fx.apps.push(app);
    await waitFor(
      'all offsets committed',
      async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === 5n,
    );
    expect(await effectsAt(events[0]!)).toEqual([0, 2, 4]);
    // The five records are one chunk, rolled back at the transient failure, then replayed record
    // by record: the transient event's 3 attempts come after its try in the chunk.
    expect(attempts.get(transient)).toBe(1 + 3);
    expect(attempts.get(permanent)).toBe(1);
    const { rows } = await fx.db.pool.query<{
      event_id: string;
      reason_code: string;
      attempts: number;
    }>(
      `SELECT event_id, reason_code, attempts FROM "${fx.db.name}".inbox_rejected WHERE topic = $1 ORDER BY kafka_offset`,
      [topic],
    );
    expect(rows).toEqual([
      { event_id: transient, reason_code: 'handler_failed', attempts: 3 },
      { event_id: permanent, reason_code: 'handler_failed', attempts: 1 },
    ]);
    const inbox = await fx.db.pool.query(
      `SELECT 1 FROM "${fx.db.name}".inbox WHERE event_id = ANY($1::uuid[])`,
      [[transient, permanent]],
    );
    expect(inbox.rowCount).toBe(0); // an unapplied event is never marked processed
  });
});
