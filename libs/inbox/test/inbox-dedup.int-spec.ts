import type { INestApplication } from '@nestjs/common';
import { InboxConsumerRegistry, INBOX_METRICS_REGISTRY } from '@nest-outbox/inbox';
import { createTopics, uniqueTopic, waitFor } from '@test/support';
import type { Registry } from 'prom-client';
import { committedOffsets, send, watchRejoins } from './inbox-test.kafka';
import { inboxMetric, useInboxFixture } from './inbox-test.fixture';
import { startInboxApp, type HandlerBehavior } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(90_000);

describe('InboxModule: one effect per event (real PostgreSQL + Kafka)', () => {
  const fx = useInboxFixture('inbox_dedup');

  const effects = async (eventId?: string) => {
    const { rows } = await fx.db.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${fx.db.name}".effects ${eventId ? 'WHERE event_id = $1' : ''}`,
      eventId ? [eventId] : [],
    );
    return Number(rows[0]!.n);
  };
  const start = async (
    topic: string,
    groupId: string,
    behavior?: HandlerBehavior,
    more: Partial<Parameters<typeof startInboxApp>[0]> = {},
  ) => {
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      behavior,
      ...more,
    });
    fx.apps.push(app);
    return app;
  };
  /**
   * Every delivery settled as applied or duplicate, and the duplicates are the `planted` ones:
   * exactly, unless the group rebalanced (then the redelivered records are duplicates too).
   */
  const expectDuplicates = async (
    app: INestApplication,
    rejoins: () => number,
    planted: number,
  ) => {
    const [received, applied, duplicates] = await Promise.all(
      ['received', 'applied', 'duplicate'].map((m) =>
        inboxMetric(app, `nest_outbox_inbox_events_${m}_total`),
      ),
    );
    expect({ received, rejoins: rejoins() }).toEqual({
      received: applied! + duplicates!,
      rejoins: rejoins(),
    });
    if (rejoins() === 0) expect(duplicates).toBe(planted);
    else expect(duplicates).toBeGreaterThanOrEqual(planted);
  };

  it('applies an event published twice once, and absorbs its redelivery after a restart', async () => {
    const topic = uniqueTopic('inbox-dedup');
    await createTopics([{ topic, numPartitions: 1 }]);
    const event = eventRecord();
    const other = eventRecord();
    await send(fx.tools.producer, topic, [event, event, other]); // the relay published it twice

    const groupId = uniqueTopic('g');
    const first = await start(topic, groupId);
    const firstRejoins = watchRejoins(first);
    await waitFor('both events applied and all three offsets committed', async () => {
      const committed = (await committedOffsets(fx.tools.admin, groupId, topic)).get(0);
      return (
        committed === 3n &&
        (await inboxMetric(first, 'nest_outbox_inbox_events_duplicate_total')) >= 1
      );
    });
    expect(await effects()).toBe(2);
    expect(await effects(event.eventId)).toBe(1);
    await expectDuplicates(first, firstRejoins, 1);
    await first.close();

    // A restart under a new group re-reads the whole topic: every delivery is a redelivery.
    const secondGroup = uniqueTopic('g');
    const second = await start(topic, secondGroup);
    const secondRejoins = watchRejoins(second);
    await waitFor(
      'the redeliveries absorbed and all three offsets committed',
      async () =>
        (await committedOffsets(fx.tools.admin, secondGroup, topic)).get(0) === 3n &&
        (await inboxMetric(second, 'nest_outbox_inbox_events_duplicate_total')) >= 3,
    );
    await expectDuplicates(second, secondRejoins, 3);
    expect(await effects(event.eventId)).toBe(1);
    expect(await effects(other.eventId)).toBe(1);
    expect(await inboxMetric(second, 'nest_outbox_inbox_events_applied_total')).toBe(0);
  });

  it('applies an event published twice once through a named connection (connectionName)', async () => {
    const topic = uniqueTopic('inbox-named');
    await createTopics([{ topic, numPartitions: 1 }]);
    const event = eventRecord();
    const others = Array.from({ length: 4 }, () => eventRecord());
    await send(fx.tools.producer, topic, [event, event, ...others, event]);
    const groupId = uniqueTopic('g');
    const app = await start(topic, groupId, undefined, {
      connectionName: `inbox_named_server`,
    });
    const rejoins = watchRejoins(app);
    await waitFor('every offset committed, the duplicates absorbed', async () => {
      const committed = (await committedOffsets(fx.tools.admin, groupId, topic)).get(0);
      return (
        committed === 7n &&
        (await inboxMetric(app, 'nest_outbox_inbox_events_duplicate_total')) >= 2
      );
    });
    await expectDuplicates(app, rejoins, 2);
    expect(await effects(event.eventId)).toBe(1);
    for (const other of others) expect(await effects(other.eventId)).toBe(1);
  });

  it('commits no offset while a handler fails in its chunk and twice more on its own, then applies its effect once when it succeeds', async () => {
    const topic = uniqueTopic('inbox-retry');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 1 }]);
    const event = eventRecord();
    let attempts = 0;
    const committedDuringFailures: bigint[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const app = await start(topic, groupId, {
      // The effect row is written first, then the handler fails: the rollback must undo it. The
      // first failure rolls its chunk back; the record is then replayed on its own (retries).
      after: async () => {
        attempts += 1;
        const committed = (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) ?? -1n;
        committedDuringFailures.push(committed);
        if (attempts <= 3) throw new Error(`transient failure ${attempts}`);
        await released;
      },
    });
    await send(fx.tools.producer, topic, [event]);
    await waitFor('the fourth attempt', () => attempts === 4);
    expect(await effects(event.eventId)).toBe(0); // the three failed attempts were rolled back
    expect((await committedOffsets(fx.tools.admin, groupId, topic)).get(0) ?? -1n).toBe(-1n);
    release();
    await waitFor(
      'offset 1 committed after the success',
      async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === 1n,
    );
    expect(committedDuringFailures).toEqual([-1n, -1n, -1n, -1n]);
    expect(await effects(event.eventId)).toBe(1);
    expect(await inboxMetric(app, 'nest_outbox_inbox_handler_failures_total')).toBe(2);
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_applied_total')).toBe(1);
    expect(await inboxMetric(app, 'nest_outbox_inbox_apply_errors_total')).toBe(2);
    const registry = app.get<Registry>(INBOX_METRICS_REGISTRY);
    expect(await registry.getSingleMetricAsString('nest_outbox_inbox_apply_errors_total')).toMatch(
      /reason="handler"\} 2/,
    );
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_received_total')).toBe(1);
    expect(
      await registry.getSingleMetricAsString('nest_outbox_inbox_handler_duration_seconds'),
    ).toMatch(/inbox_handler_duration_seconds_count\{consumer="[^"]+"\} 4$/m); // every attempt
    // Applied and committed: no distance left between the two offsets.
    await waitFor(
      'the applied-to-committed distance to close',
      async () => (await inboxMetric(app, 'nest_outbox_inbox_applied_uncommitted_offsets')) === 0,
    );
    const rows = await fx.db.pool.query(
      `SELECT kafka_offset FROM "${fx.db.name}".inbox WHERE event_id = $1`,
      [event.eventId],
    );
    expect(rows.rowCount).toBe(1);
    expect(app.get(InboxConsumerRegistry).snapshots()[0]?.status).toBe('running');
  });

  it('with the batching InboxKafkaServer: rolls back a chunk whose record fails, replays it record by record, and applies each event once', async () => {
    const topic = uniqueTopic('inbox-batched');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: 2 }]);
    const events = Array.from({ length: 30 }, () => eventRecord());
    const flaky = events[13]!.eventId;
    let failures = 0;
    await send(fx.tools.producer, topic, [
      ...events.slice(0, 20),
      events[3]!,
      events[13]!,
      ...events.slice(20),
      events[25]!,
    ]);
    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      partitionsConsumedConcurrently: 2,
      behavior: {
        after: (event) => {
          if (event.eventId === flaky && failures < 2) {
            failures += 1;
            throw new Error('transient failure');
          }
        },
      },
      logger: ['error'],
    });
    fx.apps.push(app);
    const rejoins = watchRejoins(app);
    await waitFor('every offset committed', async () => {
      const committed = await committedOffsets(fx.tools.admin, groupId, topic);
      return [...committed.values()].reduce((s, o) => s + (o > 0n ? o : 0n), 0n) === 33n;
    });
    const { rows } = await fx.db.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${fx.db.name}".effects WHERE event_id = ANY($1::uuid[]) GROUP BY event_id`,
      [events.map((e) => e.eventId)],
    );
    expect(rows).toHaveLength(30);
    expect(rows.every((r) => r.n === '1')).toBe(true);
    expect(failures).toBe(2);
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_applied_total')).toBe(30);
    // The duplicate share's denominator (received) counts every settled delivery.
    await expectDuplicates(app, rejoins, 3);
  });
});
