import { DATABASE_URL, consumeUntil, uniqueTopic, waitFor } from '@test/support';
import type { RelayStage } from './test-hooks';
import { useRelayFixture } from './relay-test.fixture';

/**
 * I7: no relay holds a transaction or a row lock across a Kafka call. Right before each send
 * and right after its ack (before the mark), another session tries to lock the rows in flight
 * with NOWAIT: the claim's transaction must have committed, and nothing may lock them while
 * the broker has them.
 */
describe('Relay: no row lock across a Kafka call (I7, real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-i7');
  const fixture = useRelayFixture('relay_i7', { topics: [{ topic, numPartitions: 3 }] });

  it('Given a relay draining many batches into Kafka, when another session locks the rows in flight with NOWAIT before each send and after each ack, then every lock is granted at once', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    await producer.writeMany(600, 40);
    const probes: Record<RelayStage, number> = {
      'after-claim': 0,
      'before-send': 0,
      'after-send': 0,
      'during-mark': 0,
    };
    const refused: string[] = [];
    const probe = async (stage: RelayStage, eventIds: readonly string[]) => {
      const client = await schema.pool.connect();
      try {
        await client.query('BEGIN');
        await client.query("SET LOCAL lock_timeout = '1ms'");
        const { rowCount } = await client.query(
          `SELECT 1 FROM "${schema.name}".outbox WHERE event_id = ANY($1::uuid[]) FOR UPDATE NOWAIT`,
          [eventIds],
        );
        if (rowCount !== eventIds.length)
          refused.push(`${stage}: ${rowCount}/${eventIds.length} rows`);
        probes[stage]++;
      } catch (error) {
        const code = (error as { code?: string }).code ?? 'unknown';
        refused.push(`${stage}: lock refused (${code}) on ${eventIds.length} rows in flight`);
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release();
      }
    };

    await scene.start({
      connection: { connectionString: DATABASE_URL, max: 4 },
      routing: { defaultTopic: topic },
      batchSize: 50,
      hooks: {
        async onStage(stage, eventIds) {
          if (stage === 'before-send' || stage === 'after-send') await probe(stage, eventIds);
        },
      },
    });

    await waitFor('the relay to drain the outbox', async () => (await scene.pending()) === 0, {
      timeoutMs: 60_000,
    });
    expect(refused).toEqual([]);
    expect(probes['before-send']).toBeGreaterThanOrEqual(12); // 600 events in batches of <= 50
    expect(probes['after-send']).toBe(probes['before-send']);
    const records = await consumeUntil([topic], (r) => r.length >= 600);
    expect(new Set(records.map((r) => r.headers.event_id)).size).toBe(600);
  });
});
