import { uniqueTopic, waitFor } from '@test/support';
import type { Registry } from 'prom-client';
import { RelayHealthIndicator } from '../src/health/relay.health-indicator';
import { RELAY_METRICS_REGISTRY } from '../src/relay.constants';
import { useRelayFixture } from './relay-test.fixture';

describe('Relay health and parked events (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-health-parked');
  const fixture = useRelayFixture('relay_health_parked', { topics: [topic] });

  it('Given a parked head with followers older than maxOldestAgeMs, then health stays up while the parked gauge (the parked alert) counts it; an old event the relay could publish makes it down', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    const table = `"${schema.name}".outbox`;
    const [head] = await producer.write([
      { aggregateId: 'held' },
      { aggregateId: 'held' },
      { aggregateId: 'held' },
    ]);
    await schema.pool.query(
      `UPDATE ${table} SET created_at = now() - interval '10 minutes',
              parked_at = CASE WHEN event_id = $1 THEN now() END,
              parked_reason = CASE WHEN event_id = $1 THEN 'permanent: test' END`,
      [head],
    );
    const app = await scene.start({
      routing: { defaultTopic: topic },
      tuning: { unhealthyAfterMs: 60_000 },
    });
    const health = app.get(RelayHealthIndicator);
    const registry = app.get<Registry>(RELAY_METRICS_REGISTRY);
    await producer.write([{ aggregateId: 'flowing' }]);
    await waitFor('the other aggregate published', async () => (await scene.pending()) === 3);

    // Health answers from the latest figures (sampled every statsIntervalMs): polled.
    const up = await waitFor('figures counting the parked head', async () => {
      const result = (await health.isHealthy('relay')).relay;
      return result.parked === 1 && result.pending === 2 ? result : undefined;
    });
    expect(up).toMatchObject({ status: 'up', parked: 1 });
    expect(up.oldestAgeMs).toBeGreaterThan(9 * 60_000);
    expect(up.oldestPublishableAgeMs).toBeLessThan(60_000);
    const gauge = await registry.getSingleMetric('nest_outbox_relay_parked_events')!.get();
    expect(gauge.values[0]?.value).toBe(1);

    // Backing off, not parked: the relay's own backlog, old enough to be down.
    const [stuck] = await producer.write([{ aggregateId: 'backing-off' }]);
    await waitFor('it published', async () => (await scene.pending()) === 3);
    await schema.pool.query(
      `UPDATE ${table} SET published_at = NULL, next_attempt_at = now() + interval '1 hour',
              created_at = now() - interval '10 minutes' WHERE event_id = $1`,
      [stuck],
    );
    const down = await waitFor('figures counting the backing-off event', async () => {
      const result = (await health.isHealthy('relay')).relay;
      return result.pending === 3 ? result : undefined;
    });
    expect(down.status).toBe('down');
    expect(down.message).toMatch(/oldest publishable event is \d+ ms old \(> 60000\)/);
  });
});
