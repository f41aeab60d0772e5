import { createTopics, uniqueTopic, waitFor } from '@test/support';
import { committedOffsets, send } from './inbox-test.kafka';
import { inboxMetric, useInboxFixture } from './inbox-test.fixture';
import { startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(90_000);

/**
 * Regression: the version check's statement read the previous version only after its own
 * upsert had written, found nothing and said 'first' for every event, so `versionCheck` never
 * skipped a stale event nor saw a gap.
 */
describe('versionCheck of an @InboxHandler (real PostgreSQL + Kafka)', () => {
  const fx = useInboxFixture('inbox_version');

  it("Given versionCheck 'log', when an aggregate's events arrive as 1, 2, a stale 1, then 4, then the stale event has no effect, the gap is counted, and every offset is committed", async () => {
    const topic = uniqueTopic('inbox-version');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 1 }]);
    const aggregateId = `order-server`;
    const v1 = eventRecord({ aggregateId, aggregateVersion: 1 });
    const v2 = eventRecord({ aggregateId, aggregateVersion: 2 });
    const stale = eventRecord({ aggregateId, aggregateVersion: 1 });
    const v4 = eventRecord({ aggregateId, aggregateVersion: 4 });
    await send(fx.tools.producer, topic, [v1, v2, stale, v4], 0);
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      handler: { versionCheck: 'log' },
      logger: ['error'],
    });
    fx.apps.push(app);

    await waitFor(
      'every offset committed',
      async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === 4n,
    );
    const { rows } = await fx.db.pool.query<{ id: string }>(
      `SELECT event_id::text AS id FROM "${fx.db.name}".effects WHERE aggregate_id = $1 ORDER BY kafka_offset`,
      [aggregateId],
    );
    expect(rows.map((r) => r.id)).toEqual([v1.eventId, v2.eventId, v4.eventId]);
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_stale_total')).toBe(1);
    expect(await inboxMetric(app, 'nest_outbox_inbox_version_gaps_total')).toBe(1);
    const versions = await fx.db.pool.query<{ last_version: string }>(
      `SELECT last_version FROM "${fx.db.name}".inbox_aggregate_versions WHERE aggregate_id = $1`,
      [aggregateId],
    );
    expect(versions.rows).toEqual([{ last_version: '4' }]);
  });
});
