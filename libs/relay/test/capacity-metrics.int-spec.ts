import { uniqueTopic, waitFor } from '@test/support';
import type { Registry } from 'prom-client';
import { RelayStatsService } from '../src/health/relay-stats.service';
import { RelayLoop } from '../src/loop/relay.loop';
import { RelayOperatorService } from '../src/operator/relay-operator.service';
import { RELAY_METRICS_REGISTRY } from '../src/relay.constants';
import { useRelayFixture } from './relay-test.fixture';

/** The value of `name{labels}` in `registry` (undefined when absent). */
async function valueOf(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return undefined;
  const { values } = await metric.get();
  const match = values.find((v) =>
    Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l),
  );
  return match?.value;
}

describe('Relay capacity metrics move with real PostgreSQL + Kafka', () => {
  const topic = uniqueTopic('relay-capacity');
  const fixture = useRelayFixture('relay_capacity', { topics: [topic] });

  it('Given a backlog and a crash-loop suspect, when the relay drains it, then backlog, suspects, forecast, drain, attempts, marks, pool, table and replay figures all move', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    await producer.writeMany(40, 8);
    // An earlier publish of this row started and never finished (a relay died after send).
    await schema.pool.query(
      `UPDATE "${schema.name}".outbox SET claims = attempts + 1 WHERE id = (SELECT min(id) FROM "${schema.name}".outbox)`,
    );
    const app = await scene.start({
      routing: { defaultTopic: topic },
      pressure: { maxBacklog: 50, windowMs: 30_000 },
      tuning: { autoStart: false, statsIntervalMs: 100, tableStatsIntervalMs: 200 },
    });
    const registry = app.get<Registry>(RELAY_METRICS_REGISTRY);
    const stats = app.get(RelayStatsService);
    const metric = (name: string, labels?: Record<string, string>) =>
      valueOf(registry, `nest_outbox_relay_${name}`, labels);

    // Not running yet: the backlog is what was written; 40 of a budget of 50 is warn (50 %).
    await stats.refresh();
    expect(await metric('pending_events')).toBe(40);
    expect(await metric('crash_loop_suspects')).toBe(1);
    expect(await metric('backlog_budget_events')).toBe(50);
    expect(await metric('pressure_level')).toBe(1);
    expect(stats.pressure).toMatchObject({ state: 'warn', backlog: 40 });
    await waitFor('the table figures', async () => ((await metric('table_size_bytes')) ?? 0) > 0);
    expect(await metric('table_dead_tuples')).toBeGreaterThanOrEqual(0);
    expect(await metric('seconds_since_last_autovacuum')).toBeGreaterThan(0);

    await app.get(RelayLoop).start();
    await waitFor('the backlog to drain', async () => (await scene.pending()) === 0, {
      timeoutMs: 30_000,
    });
    await waitFor('the gauges to see the drained backlog', async () => {
      await stats.refresh();
      return (await metric('pending_events')) === 0;
    });
    expect(await metric('crash_loop_suspects')).toBe(0);
    expect(await metric('pressure_level')).toBe(0);
    expect(await metric('drain_rate_per_second')).toBeGreaterThan(0);
    expect(await metric('fill_rate_per_second')).toBeGreaterThanOrEqual(0);
    expect(await metric('backlog_change_per_second')).toBeLessThan(0);
    expect(await metric('backlog_forecast_seconds')).toBe(Number.POSITIVE_INFINITY);
    const histogramCount = async (name: string) => {
      const text = await registry.getSingleMetricAsString(`nest_outbox_relay_${name}`);
      return Number(new RegExp(`_count (\\d+)`).exec(text)?.[1]);
    };
    expect(await histogramCount('publish_attempts')).toBe(40);
    expect(await histogramCount('mark_duration_seconds')).toBeGreaterThan(0);
    expect(await metric('published_again_total', { cause: 'kill_after_ack' })).toBe(1);
    expect(await metric('published_again_total', { cause: 'lease_lost' })).toBe(0);
    expect(await metric('pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
    expect(await metric('pool_connections', { state: 'held' })).toBeGreaterThanOrEqual(0);

    // A deliberate replay is counted apart.
    const replay = await app
      .get(RelayOperatorService)
      .republish(
        { aggregateType: 'thing', aggregateId: 'k1' },
        { actor: 'test', reason: 'replay' },
      );
    expect(replay.count).toBe(5);
    expect(await metric('published_again_total', { cause: 'replay' })).toBe(5);
  });

  it("Given old events held back behind a parked event of their aggregate, then they do not age the relay's backlog pressure; an old event that is not held back does", async () => {
    const scene = await fixture.newScene('relay_capacity_held');
    const { producer } = scene;
    await producer.writePoisoned('held');
    await producer.write([{ aggregateId: 'fresh' }]);
    const app = await scene.start({
      routing: { defaultTopic: topic },
      pressure: {
        maxBacklog: 1000,
        maxOldestAgeMs: 60_000,
        warnForecastSeconds: 0,
        criticalForecastSeconds: 0,
      },
      tuning: { autoStart: false },
    });
    const stats = app.get(RelayStatsService);
    await stats.refresh();
    expect(stats.pressure).toMatchObject({ state: 'ok' });
    expect(stats.pressure?.oldestAgeMs).toBeLessThan(60_000);

    await producer.age('fresh');
    await stats.refresh();
    expect(stats.pressure).toMatchObject({ state: 'critical' });
  });
});
