import { consumeUntil, createTopics, uniqueTopic, waitFor } from '@test/support';
import { checkDelivery, useRelayFixture } from './relay-test.fixture';

describe('Several relay processes racing on one table (real PostgreSQL + Kafka)', () => {
  const fixture = useRelayFixture('relay_race');

  it.each([2, 3])(
    'Given %i relays racing on one table while a producer writes, then everything is delivered once, in per-key order, each event marked where its publisher acked it',
    async (relays) => {
      const scene = await fixture.newScene(`relay_race_${relays}`);
      const { schema, producer } = scene;
      const topic = uniqueTopic(`relay-race-${relays}`);
      await createTopics([topic]);
      const started = await Promise.all(
        Array.from({ length: relays }, (_, i) =>
          scene.spawn({
            routing: { defaultTopic: topic },
            tuning: { batchSize: 40, leaseMs: 5000, relayId: `r${i}` },
          }),
        ),
      );

      // A continuous producer: small transactions over 30 keys for ~4 s.
      const until = Date.now() + 4000;
      let n = 0;
      while (Date.now() < until) {
        const size = 1 + (n % 5);
        await producer.write(
          Array.from({ length: size }, (_, j) => ({ aggregateId: `k${(n * 7 + j) % 30}` })),
        );
        n++;
      }
      await waitFor('outbox drained', async () => (await scene.pending()) === 0, {
        timeoutMs: 60_000,
      });
      for (const child of started) await child.stop(20_000);

      const expected = new Set(producer.written.map((e) => e.eventId));
      const records = await consumeUntil(
        [topic],
        (r) => new Set(r.map((x) => x.headers.event_id)).size >= expected.size,
      );
      const report = checkDelivery(records, producer.written);
      expect(report.missing).toEqual([]);
      expect(report.orderViolations).toEqual([]);
      // Normal operation: each event published by one relay at a time.
      expect(report.duplicates).toEqual([]);

      // Every mark points at the record its relay's publish produced (no mark by a lost lease).
      const { rows } = await schema.pool.query<{ event_id: string; at: string; owner: string }>(
        `SELECT event_id, kafka_partition || '/' || kafka_offset AS at, split_part(lease_owner, ':', 1) AS owner
           FROM "${schema.name}".outbox`,
      );
      const where = new Map(records.map((r) => [`${r.partition}/${r.offset}`, r.headers.event_id]));
      for (const row of rows) expect(where.get(row.at)).toBe(row.event_id);
      // The work was shared.
      expect(new Set(rows.map((r) => r.owner)).size).toBeGreaterThan(1);
      for (const child of started) expect(child.output()).not.toContain('lease lost');
    },
  );
});
