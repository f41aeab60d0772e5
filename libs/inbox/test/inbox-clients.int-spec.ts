import type { EventEnvelope } from '@nest-outbox/core';
import { InboxConsumerRegistry } from '@nest-outbox/inbox';
import { createTopics, uniqueTopic, waitFor } from '@test/support';
import type { INestApplication } from '@nestjs/common';
import { committedOffsets, send } from './inbox-test.kafka';
import { useInboxFixture } from './inbox-test.fixture';
import { startInboxApp, type InboxTestAppOptions, type InboxTestClient } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(180_000);

/**
 * The inbox's consumer contract, run on each Kafka client it supports (`InboxKafkaServer` on
 * kafkajs, `PlatformaticInboxServer` on @platformatic/kafka), against the real broker and
 * PostgreSQL: order per key, commits never ahead of effects, a rebalance between two members,
 * a poison pause and its resume.
 */
describe.each<InboxTestClient>(['kafkajs', 'platformatic'])(
  'The inbox consumer contract on %s (real PostgreSQL + Kafka)',
  (client) => {
    const fx = useInboxFixture(`inbox_${client}`);

    const start = async (o: Omit<InboxTestAppOptions, 'schema' | 'client'>) => {
      const app = await startInboxApp({ ...o, schema: fx.db.name, client, logger: ['error'] });
      fx.apps.push(app);
      return app;
    };

    /** Offsets committed while a record below them has no final row yet (inbox or rejected). */
    async function aheadOfEffects(groupId: string, topic: string): Promise<string[]> {
      const committed = await committedOffsets(fx.tools.admin, groupId, topic); // Kafka first
      const { rows } = await fx.db.pool.query<{ p: number; n: string }>(
        `SELECT kafka_partition AS p, count(*) AS n FROM "${fx.db.name}".inbox WHERE topic = $1 GROUP BY 1`,
        [topic],
      );
      const final = new Map(rows.map((r) => [r.p, BigInt(r.n)]));
      return [...committed]
        .filter(([p, offset]) => offset > (final.get(p) ?? 0n))
        .map(([p, offset]) => `partition ${p}: committed ${offset}, ${final.get(p) ?? 0n} rows`);
    }

    /** Samples `aheadOfEffects` until `until` resolves; returns what it saw. */
    async function watchCommits(groupId: string, topic: string, until: Promise<unknown>) {
      const seen: string[] = [];
      let done = false;
      void until.finally(() => (done = true));
      while (!done) {
        seen.push(...(await aheadOfEffects(groupId, topic)));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await until;
      return seen;
    }

    const committedTo = (groupId: string, topic: string, total: number) =>
      waitFor(
        `every offset committed (${total})`,
        async () => {
          const committed = await committedOffsets(fx.tools.admin, groupId, topic);
          return (
            [...committed.values()].reduce((s, o) => s + (o > 0n ? o : 0n), 0n) === BigInt(total)
          );
        },
        { timeoutMs: 120_000 },
      );

    /** Each event's effects: [aggregate, version, partition, offset] in the order they were applied. */
    const effects = async (topicEvents: { eventId: string }[]) =>
      (
        await fx.db.pool.query<{ a: string; p: number; o: string; e: string }>(
          `SELECT aggregate_id AS a, kafka_partition AS p, kafka_offset AS o, event_id AS e
             FROM "${fx.db.name}".effects WHERE event_id = ANY($1::uuid[]) ORDER BY applied_at`,
          [topicEvents.map((e) => e.eventId)],
        )
      ).rows;

    it('applies each event once, in offset order per key, and never commits an offset ahead of its effect', async () => {
      const topic = uniqueTopic(`inbox-order-${client}`);
      const groupId = uniqueTopic('g');
      await createTopics([{ topic, numPartitions: 3 }]);
      const events = Array.from({ length: 300 }, (_, i) =>
        eventRecord({ aggregateId: `order-${i % 30}`, aggregateVersion: Math.floor(i / 30) + 1 }),
      );
      const slow = { before: () => new Promise<void>((resolve) => setTimeout(resolve, 2)) };
      await start({ topics: [topic], groupId, behavior: slow, partitionsConsumedConcurrently: 3 });
      await send(fx.tools.producer, topic, events);
      const violations = await watchCommits(groupId, topic, committedTo(groupId, topic, 300));

      const rows = await effects(events);
      expect(new Set(rows.map((r) => r.e)).size).toBe(300);
      expect(rows).toHaveLength(300);
      const lastOffset = new Map<string, bigint>();
      for (const row of rows) {
        const at = `${row.a}@${row.p}`;
        expect(BigInt(row.o)).toBeGreaterThan(lastOffset.get(at) ?? -1n);
        lastOffset.set(at, BigInt(row.o));
      }
      expect(violations).toEqual([]);
    });

    it('moves partitions between two members without a lost or doubled effect, committing only behind effects', async () => {
      const topic = uniqueTopic(`inbox-members-${client}`);
      const groupId = uniqueTopic('g');
      await createTopics([{ topic, numPartitions: 4 }]);
      const events = Array.from({ length: 300 }, (_, i) =>
        eventRecord({ aggregateId: `order-${i % 40}`, aggregateVersion: Math.floor(i / 40) + 1 }),
      );
      const slow = { before: () => new Promise<void>((resolve) => setTimeout(resolve, 4)) };
      const o = { topics: [topic], groupId, behavior: slow, partitionsConsumedConcurrently: 2 };
      const first = await start(o);
      const run = (async () => {
        await send(fx.tools.producer, topic, events.slice(0, 150));
        await waitFor(
          'the first member mid-stream',
          async () => (await effects(events)).length >= 40,
        );
        const second = await start(o); // a rebalance while records are in flight
        await send(fx.tools.producer, topic, events.slice(150));
        await waitFor('both members hold partitions', () =>
          [first, second].every((app) => assignedTo(app).length > 0),
        );
        await committedTo(groupId, topic, 300);
      })();
      const violations = await watchCommits(groupId, topic, run);

      const rows = await effects(events);
      expect(rows).toHaveLength(300);
      expect(new Set(rows.map((r) => r.e)).size).toBe(300);
      expect(violations).toEqual([]);
    });

    it('pauses the partition of an exhausted event at its offset, keeps the others going, and resumes on request', async () => {
      const topic = uniqueTopic(`inbox-poison-${client}`);
      const groupId = uniqueTopic('g');
      await createTopics([{ topic, numPartitions: 2 }]);
      const byPartition = [0, 1].map(() => Array.from({ length: 5 }, () => eventRecord()));
      for (const [p, records] of byPartition.entries())
        await send(fx.tools.producer, topic, records, p);
      const poison = byPartition[0]![2]!.eventId;
      let failing = true;
      const app = await start({
        topics: [topic],
        groupId,
        partitionsConsumedConcurrently: 2,
        handler: {
          onExhausted: 'pause',
          retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
        },
        behavior: {
          before: (event: EventEnvelope) => {
            if (failing && event.eventId === poison) throw new Error('projection rejects it');
          },
        },
      });
      const registry = app.get(InboxConsumerRegistry);
      await waitFor('the partition paused at the poison event', () =>
        registry.snapshots().some((s) => s.paused.some((p) => p.eventId === poison)),
      );
      const committed = () => committedOffsets(fx.tools.admin, groupId, topic);
      await waitFor(
        'partition 1 committed to its end, partition 0 to the poison event',
        async () => {
          const now = await committed();
          return now.get(1) === 5n && now.get(0) === 2n;
        },
      );
      expect((await effects(byPartition[0]!)).map((r) => Number(r.o))).toEqual([0, 1]);

      failing = false;
      expect(registry.resume(topic, 0)).toBe(true);
      await waitFor(
        'partition 0 resumed and committed',
        async () => (await committed()).get(0) === 5n,
      );
      expect((await effects(byPartition[0]!)).map((r) => Number(r.o))).toEqual([0, 1, 2, 3, 4]);
    });
  },
);

/** The partitions the app's consumer holds now. */
function assignedTo(app: INestApplication): number[] {
  const [snapshot] = app.get(InboxConsumerRegistry).snapshots();
  return Object.values(snapshot?.assigned ?? {}).flat();
}
