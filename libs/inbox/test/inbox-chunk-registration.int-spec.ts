import { createTopics, uniqueTopic, waitFor } from '@test/support';
import { InboxStore } from '../src/store/inbox.store';
import { committedOffsets, send } from './inbox-test.kafka';
import { inboxMetric, useInboxFixture } from './inbox-test.fixture';
import { startInboxApp, type InboxTestAppOptions } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(90_000);

type TestRecord = ReturnType<typeof eventRecord>;

describe('InboxKafkaServer: a chunk registers its inbox rows in one statement (real PostgreSQL + Kafka)', () => {
  const fx = useInboxFixture('inbox_chunk');

  const ids = (records: TestRecord[]) => records.map((r) => r.eventId);
  const countBy = async (table: 'effects' | 'inbox', records: TestRecord[]) => {
    const { rows } = await fx.db.pool.query<{ id: string; n: string }>(
      `SELECT event_id::text AS id, count(*) AS n FROM "${fx.db.name}".${table}
       WHERE event_id = ANY($1::uuid[]) GROUP BY event_id`,
      [ids(records)],
    );
    return new Map(rows.map((r) => [r.id, Number(r.n)]));
  };
  const committedTotal = async (groupId: string, topic: string) =>
    [...(await committedOffsets(fx.tools.admin, groupId, topic)).values()].reduce(
      (s, o) => s + (o > 0n ? o : 0n),
      0n,
    );

  /**
   * A batched app on a fresh one-partition topic, taught its handler by a first chunk of
   * `warmUp` events (applied and committed), with spies on the real store.
   */
  async function warmStart(options: Partial<InboxTestAppOptions> = {}) {
    const topic = uniqueTopic('inbox-chunk');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 1 }]);
    const warmUp = [eventRecord(), eventRecord(), eventRecord()];
    await send(fx.tools.producer, topic, warmUp, 0);
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      inboxBatchSize: 50,
      logger: ['error'],
      ...options,
    });
    fx.apps.push(app);
    await waitFor(
      'the warm-up chunk committed',
      async () => (await committedTotal(groupId, topic)) === 3n,
    );
    const store = app.get(InboxStore);
    const registerMany = jest.spyOn(store, 'registerMany');
    /** Event ids passed to each registration statement so far. */
    const bulkIds = () =>
      registerMany.mock.calls.map(([, , pending]) => pending.map((p) => p.event.eventId));
    return { topic, groupId, app, warmUp, bulkIds };
  }

  it('Given a chunk mixing new events with duplicates of earlier chunks and of itself, when it is consumed, then each effect is applied once from ONE registration statement and every offset is committed', async () => {
    const { topic, groupId, app, warmUp, bulkIds } = await warmStart();
    const fresh = Array.from({ length: 5 }, () => eventRecord());
    const [n1, n2, n3, n4, n5] = fresh as [
      TestRecord,
      TestRecord,
      TestRecord,
      TestRecord,
      TestRecord,
    ];
    const [w1, w2] = warmUp as [TestRecord, TestRecord];
    // One producer request: one record batch, consumed as one chunk.
    await send(fx.tools.producer, topic, [n1, n2, w1, n3, n2, n4, w2, n5], 0);

    await waitFor(
      'every offset committed',
      async () => (await committedTotal(groupId, topic)) === 11n,
    );
    const effects = await countBy('effects', [...fresh, ...warmUp]);
    expect([...effects.values()]).toEqual(Array(8).fill(1));
    expect(effects.size).toBe(8);
    expect(bulkIds()).toEqual([expect.arrayContaining([...ids(fresh), w1.eventId, w2.eventId])]);
    expect(bulkIds()[0]).toHaveLength(7); // n2 once, at its first offset
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_applied_total')).toBe(3 + 5);
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_duplicate_total')).toBe(3);
  });

  it('Given a registered-ahead chunk whose fourth record fails once, when the chunk is replayed record by record, then nothing at or after the failure was marked processed or committed before its replay, and each effect is applied once', async () => {
    let calls = 0;
    let seenAtReplay:
      | { inbox: Map<string, number>; effects: Map<string, number>; offset: bigint }
      | undefined;
    const failing = eventRecord();
    const before = [eventRecord(), eventRecord()];
    const after = [eventRecord(), eventRecord()];
    const chunk = [before[0]!, before[1]!, failing, ...after];
    const { topic, groupId, app, warmUp, bulkIds } = await warmStart({
      behavior: {
        before: async (event) => {
          if (event.eventId !== failing.eventId) return;
          calls += 1;
          if (calls === 1) throw new Error('transient failure inside the chunk');
          seenAtReplay = {
            inbox: await countBy('inbox', chunk),
            effects: await countBy('effects', chunk),
            offset: await committedTotal(groupId, topic),
          };
        },
      },
    });
    // Offsets 3..8: before[0], before[1], a duplicate of a warm-up event, failing, after[0], after[1].
    await send(
      fx.tools.producer,
      topic,
      [before[0]!, before[1]!, warmUp[0]!, failing, ...after],
      0,
    );

    await waitFor(
      'every offset committed',
      async () => (await committedTotal(groupId, topic)) === 9n,
    );
    expect(calls).toBe(2);
    expect(bulkIds()[0]).toEqual(expect.arrayContaining(ids(chunk)));
    // At the replay of the failing record: only the records replayed before it are processed.
    expect(seenAtReplay?.inbox).toEqual(new Map(ids(before).map((id) => [id, 1])));
    expect(seenAtReplay?.effects).toEqual(new Map(ids(before).map((id) => [id, 1])));
    expect(seenAtReplay?.offset).toBeLessThanOrEqual(6n); // never past the failing offset (6)
    const effects = await countBy('effects', chunk);
    expect(effects).toEqual(new Map(ids(chunk).map((id) => [id, 1])));
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_applied_total')).toBe(3 + 5);
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_duplicate_total')).toBe(1);
  });
});
