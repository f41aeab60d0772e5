import { OUTBOX_WAKEUP, OutboxWakeup } from '@nest-outbox/core/internal';
import { consumeUntil, uniqueTopic, waitFor } from '@test/support';
import { RelayLoop } from '../src/loop/relay.loop';
import type { Histogram } from 'prom-client';
import type { RelayMetrics } from '../src/metrics/relay.metrics';
import { RELAY_METRICS } from '../src/relay.constants';
import { checkDelivery, useRelayFixture } from './relay-test.fixture';

describe('Relay delivery (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-delivery');
  const routed = uniqueTopic('relay-routed');
  const own = uniqueTopic('relay-own');
  const fixture = useRelayFixture('relay_delivery', { topics: [topic, routed, own] });

  it('Given recorded events of many aggregates, when the relay drains them, then Kafka has each with key = aggregate_id, the contract headers and the exact payload bytes, in aggregate_version order per key, and each mark says where it went', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    await producer.writeMany(3000, 40, 250);
    const [oddPayload] = await producer.write([
      {
        aggregateId: 'k1',
        rawPayload: '{"b" : 1,   "a":[2, 3]}',
        occurredAt: '2026-03-04 07:06:07.891999+02',
      },
    ]);
    const [routedId] = await producer.write([{ aggregateType: 'invoice', aggregateId: 'i1' }]);
    const [ownId] = await producer.write([
      { aggregateType: 'invoice', aggregateId: 'i1', topic: own },
    ]);
    const before = Date.now();

    await scene.start({
      routing: { defaultTopic: topic, routes: `invoice=${routed}` },
      tuning: { batchSize: 500 },
    });
    await waitFor('outbox drained', async () => (await scene.pending()) === 0, {
      timeoutMs: 60_000,
    });

    const thingRecords = await consumeUntil([topic], (r) => r.length >= 3001, {
      timeoutMs: 30_000,
    });
    const thingEvents = producer.written.filter((e) => e.aggregateId.startsWith('k'));
    const report = checkDelivery(thingRecords, thingEvents);
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);

    const odd = thingRecords.find((r) => r.headers.event_id === oddPayload)!;
    expect(odd.value).toBe('{"b" : 1,   "a":[2, 3]}');
    expect(odd.key).toBe('k1');
    expect(odd.headers).toMatchObject({
      event_type: 'thing.happened',
      schema_version: '1',
      aggregate_type: 'thing',
      aggregate_id: 'k1',
      'content-type': 'application/json',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(Number(odd.headers.aggregate_version)).toBeGreaterThan(1);
    // UTC, milliseconds (microseconds truncated, as a JavaScript Date would keep them).
    expect(odd.headers.occurred_at).toBe('2026-03-04T05:06:07.891Z');
    // The record timestamp is the publish time, not the creation time.
    expect(Number(odd.timestamp)).toBeGreaterThanOrEqual(before - 50);

    const [routedRecord] = await consumeUntil([routed], (r) => r.length >= 1);
    expect(routedRecord!.headers.event_id).toBe(routedId);
    const [ownRecord] = await consumeUntil([own], (r) => r.length >= 1);
    expect(ownRecord!.headers.event_id).toBe(ownId);

    // The mark records where each event went.
    const { rows } = await schema.pool.query<{
      event_id: string;
      kafka_partition: number;
      kafka_offset: string;
    }>(
      `SELECT event_id, kafka_partition, kafka_offset::text FROM "${schema.name}".outbox WHERE aggregate_type = 'thing'`,
    );
    const where = new Map(
      thingRecords.map((r) => [r.headers.event_id, `${r.partition}/${r.offset}`]),
    );
    for (const row of rows)
      expect(`${row.kafka_partition}/${row.kafka_offset}`).toBe(where.get(row.event_id));
  });

  it('Given a relay waiting for a poll 40 s away, when the in-process after-commit signal comes, then it publishes long before that poll', async () => {
    // Polls 40 s apart and no LISTEN: within 20 s only the in-memory wake-up can publish.
    const scene = await fixture.newScene('relay_wakeup');
    const wakeup = new OutboxWakeup();
    const relay = await scene.start(
      {
        routing: { defaultTopic: topic },
        tuning: { polling: { minMs: 40_000, maxMs: 40_000 }, listen: false },
      },
      [{ provide: OUTBOX_WAKEUP, useValue: wakeup }],
    );
    const loop = relay.get(RelayLoop);
    const claims = async () =>
      (await (relay.get<RelayMetrics>(RELAY_METRICS).claimSeconds as Histogram).get()).values.find(
        (v) => v.metricName?.endsWith('_count'),
      )?.value ?? 0;
    // Its first claim found nothing: from now on it waits for its next poll or a wake-up.
    await waitFor('the first, empty claim', async () => (await claims()) >= 1);
    const [id] = await scene.producer.write([{ aggregateId: 'k-wake' }]);
    wakeup.signal();
    // Published well before its next poll (40 s away): only the wake-up can have done it. A
    // deadline, not a latency budget, so a busy machine does not fail it.
    await waitFor('the woken publish', () => loop.totals.published === 1, {
      timeoutMs: 20_000,
      intervalMs: 5,
    });
    const records = await consumeUntil([topic], (r) => r.some((x) => x.headers.event_id === id));
    expect(records.some((x) => x.headers.event_id === id)).toBe(true);
  });
});
