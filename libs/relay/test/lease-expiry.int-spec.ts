import { consumeUntil, uniqueTopic, waitFor } from '@test/support';
import type { Registry } from 'prom-client';
import { RelayLoop } from '../src/loop/relay.loop';
import { RELAY_METRICS_REGISTRY } from '../src/relay.constants';
import { useRelayFixture } from './relay-test.fixture';

describe('Lease expiry during a slow publish (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-lease');
  const fixture = useRelayFixture('relay_lease', { topics: [topic] });

  it('Given a relay whose publish outlives its lease, when another relay takes over, then the slow relay is refused its mark ("lease lost") and the event is still published, never lost', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    const ids = await producer.write(Array.from({ length: 10 }, () => ({ aggregateId: 'slow' })));
    let slowEntered = false;
    const slow = await scene.start({
      routing: { defaultTopic: topic },
      hooks: {
        async onStage(stage) {
          if (stage !== 'after-send' || slowEntered) return;
          slowEntered = true;
          // Acked by the broker, but the mark comes only after another relay took over.
          await waitFor(
            'the fast relay to mark the events',
            async () => (await scene.pending()) === 0,
            { timeoutMs: 30_000 },
          );
        },
      },
      tuning: {
        relayId: 'slow',
        leaseMs: 1500,
        publishTimeoutMs: 1000,
        polling: { minMs: 60_000, maxMs: 60_000 },
        listen: false,
      },
    });
    await waitFor('slow relay in its publish', () => slowEntered);
    const fast = await scene.start({
      routing: { defaultTopic: topic },
      tuning: { relayId: 'fast' },
    });

    const slowLoop = slow.get(RelayLoop);
    await waitFor('slow relay to try its mark', () => slowLoop.totals.leaseLost > 0, {
      timeoutMs: 30_000,
    });
    expect(slowLoop.totals.leaseLost).toBe(10);
    expect(slowLoop.totals.published).toBe(0);
    expect(fast.get(RelayLoop).totals.published).toBe(10);
    const metrics = await slow
      .get<Registry>(RELAY_METRICS_REGISTRY)
      .getSingleMetricAsString('nest_outbox_relay_lease_lost_total');
    expect(metrics).toMatch(/nest_outbox_relay_lease_lost_total 10/);
    const again = await slow
      .get<Registry>(RELAY_METRICS_REGISTRY)
      .getSingleMetricAsString('nest_outbox_relay_published_again_total');
    expect(again).toMatch(/nest_outbox_relay_published_again_total\{cause="lease_lost"\} 10/);

    const { rows } = await schema.pool.query<{ owner: string }>(
      `SELECT lease_owner AS owner FROM "${schema.name}".outbox`,
    );
    for (const row of rows) expect(row.owner).toMatch(/^fast:/);
    const records = await consumeUntil([topic], (r) => r.length >= 20);
    for (const id of ids) expect(records.filter((r) => r.headers.event_id === id)).toHaveLength(2);
  });
});
