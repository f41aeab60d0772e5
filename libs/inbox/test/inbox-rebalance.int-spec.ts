import { INBOX_METRICS_REGISTRY } from '@nest-outbox/inbox';
import { createTopics, uniqueTopic, waitFor } from '@test/support';
import type { Registry } from 'prom-client';
import { committedOffsets, send } from './inbox-test.kafka';
import { useInboxFixture } from './inbox-test.fixture';
import { startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(120_000);

describe('InboxModule in a consumer group: rebalance mid-stream', () => {
  const fx = useInboxFixture('inbox_rebalance');

  /** Offsets below the committed one that have no final result (inbox or rejected row). */
  async function offsetsAheadOfEffects(groupId: string, topic: string): Promise<string[]> {
    const committed = await committedOffsets(fx.tools.admin, groupId, topic); // read Kafka first, then PostgreSQL
    const { rows } = await fx.db.pool.query<{ p: number; n: string }>(
      `SELECT kafka_partition AS p, count(*) AS n FROM "${fx.db.name}".inbox GROUP BY 1`,
    );
    const final = new Map(rows.map((r) => [r.p, BigInt(r.n)]));
    return [...committed]
      .filter(([p, offset]) => offset > (final.get(p) ?? 0n))
      .map(
        ([p, offset]) => `partition ${p}: committed ${offset} with ${final.get(p) ?? 0n} effects`,
      );
  }

  it('applies every event once and never commits an offset ahead of its committed effect when a second consumer joins and the first leaves', async () => {
    const topic = uniqueTopic('inbox-rebalance');
    const groupId = uniqueTopic('g');
    const partitions = 4;
    const total = 400;
    await createTopics([{ topic, numPartitions: partitions }]);
    const events = Array.from({ length: total }, (_, i) =>
      eventRecord({ aggregateId: `order-${i % 40}`, aggregateVersion: Math.floor(i / 40) + 1 }),
    );
    const slow = { before: () => new Promise<void>((resolve) => setTimeout(resolve, 4)) };
    const start = async () => {
      const app = await startInboxApp({
        schema: fx.db.name,
        topics: [topic],
        groupId,
        behavior: slow,
        partitionsConsumedConcurrently: 2,
      });
      fx.apps.push(app);
      return app;
    };
    const applied = async () =>
      Number(
        (await fx.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${fx.db.name}".effects`))
          .rows[0]!.n,
      );

    const first = await start(); // creates the inbox tables; no offset can be committed before
    const violations: string[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        violations.push(...(await offsetsAheadOfEffects(groupId, topic)));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    await send(fx.tools.producer, topic, events.slice(0, 250));
    await waitFor('the first consumer to be mid-stream', async () => (await applied()) >= 60);
    const second = await start(); // rebalance: partitions move while records are in flight
    await send(fx.tools.producer, topic, events.slice(250));
    await waitFor('the second consumer to apply events', async () => {
      const m = await second
        .get<Registry>(INBOX_METRICS_REGISTRY)
        .getSingleMetric('nest_outbox_inbox_events_applied_total')
        ?.get();
      return (m?.values.reduce((s, v) => s + v.value, 0) ?? 0) > 10;
    });
    await first.close(); // second rebalance: the first consumer leaves mid-stream

    await waitFor(
      'every offset committed',
      async () => {
        const committed = await committedOffsets(fx.tools.admin, groupId, topic);
        const sum = [...committed.values()].reduce((s, o) => s + (o > 0n ? o : 0n), 0n);
        return sum === BigInt(total);
      },
      { timeoutMs: 60_000 },
    );
    watching = false;
    await watcher;

    const perEvent = await fx.db.pool.query<{ event_id: string; n: string }>(
      `SELECT event_id, count(*) AS n FROM "${fx.db.name}".effects GROUP BY 1 HAVING count(*) <> 1`,
    );
    expect(perEvent.rows).toEqual([]); // no doubled effect
    expect(await applied()).toBe(total); // no lost effect
    expect(violations).toEqual([]);
  });
});
