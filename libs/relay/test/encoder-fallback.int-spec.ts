import { consumeUntil, uniqueTopic, waitFor } from '@test/support';
import type { Registry } from 'prom-client';
import type { KafkaPublisher } from '../src/publisher/kafka.publisher';
import { RELAY_METRICS_REGISTRY, RELAY_PUBLISHER } from '../src/relay.constants';
import { checkDelivery, useRelayFixture } from './relay-test.fixture';

describe("The relay's own encoder fails safe (real PostgreSQL + Kafka)", () => {
  const topic = uniqueTopic('relay-encoder-fallback');
  const fixture = useRelayFixture('relay_encoder', { topics: [{ topic, numPartitions: 3 }] });

  it("Given a broker that refuses the requests the relay's encoder builds as corrupt, then that producer switches to kafkajs' encoder and publishes everything, parking nothing", async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    await producer.writeMany(300, 10, 100);
    let corrupted = 0;
    const relay = await scene.start({
      routing: { defaultTopic: topic }, // a permanent or exhausted failure would park at once
      hooks: {
        // One wrong byte at the end of the last record: its batch CRC no longer matches.
        onEncoded(request) {
          corrupted++;
          const copy = Buffer.from(request);
          copy[copy.length - 1] = copy[copy.length - 1]! ^ 0xff;
          return copy;
        },
      },
      tuning: { retry: { maxAttempts: 2 } },
    });

    // Drained, or an event parked (what the broker's refusal would cause without the fallback).
    const settled = await waitFor(
      'outbox drained or an event parked',
      async () => {
        const { rows } = await schema.pool.query<{ parked: number }>(
          `SELECT count(*)::int AS parked FROM "${schema.name}".outbox WHERE parked_at IS NOT NULL`,
        );
        if (rows[0]!.parked > 0) return 'parked';
        return (await scene.pending()) === 0 && 'drained';
      },
      { timeoutMs: 60_000 },
    );
    expect(settled).toBe('drained');
    expect(corrupted).toBeGreaterThan(0);
    const publisher = relay.get<KafkaPublisher>(RELAY_PUBLISHER);
    expect(publisher['encoder'].fast).toBe(false);
    const { rows } = await schema.pool.query<{ parked: number; failed: number }>(
      `SELECT count(*) FILTER (WHERE parked_at IS NOT NULL)::int AS parked,
              count(*) FILTER (WHERE last_error IS NOT NULL OR attempts <> 1)::int AS failed
         FROM "${schema.name}".outbox`,
    );
    expect(rows[0]).toEqual({ parked: 0, failed: 0 });
    const metrics = await relay.get<Registry>(RELAY_METRICS_REGISTRY).metrics();
    expect(metrics).not.toMatch(/nest_outbox_relay_parked_total\{[^}]*\} [1-9]/);
    expect(metrics).not.toMatch(/nest_outbox_relay_retried_total\{[^}]*\} [1-9]/);

    const records = await consumeUntil(
      [topic],
      (r) => new Set(r.map((x) => x.headers.event_id)).size >= 300,
    );
    const report = checkDelivery(records, producer.written);
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    expect(report.duplicates).toEqual([]);
  });
});
