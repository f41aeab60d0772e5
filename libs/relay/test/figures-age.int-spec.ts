import { pressureRowSql } from '@nest-outbox/core/internal';
import { uniqueTopic, waitFor } from '@test/support';
import type { PoolClient } from 'pg';
import type { Registry } from 'prom-client';
import { RelayStatsService } from '../src/health/relay-stats.service';
import { RelayHealthIndicator } from '../src/health/relay.health-indicator';
import { RELAY_METRICS_REGISTRY } from '../src/relay.constants';
import { useRelayFixture, type RelayScene } from './relay-test.fixture';

/** The value of an unlabelled metric in the registry's exposition (NaN as `NaN`). */
async function metric(registry: Registry, name: string): Promise<number> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`nest_outbox_relay_${name} `));
  return Number(line?.split(' ')[1]);
}

describe('The relay figures carry their age and never hang (real PostgreSQL)', () => {
  const topic = uniqueTopic('relay-figures-age');
  const fixture = useRelayFixture('relay_figures_age', { topics: [topic] });

  /** A session holding an ACCESS EXCLUSIVE lock on the outbox: every statistics statement waits. */
  async function lockOutbox({ schema }: RelayScene): Promise<PoolClient> {
    const locker = await schema.pool.connect();
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE "${schema.name}".outbox IN ACCESS EXCLUSIVE MODE`);
    return locker;
  }

  async function release(locker: PoolClient): Promise<void> {
    await locker.query('COMMIT').finally(() => locker.release());
  }

  /**
   * An outbox of its own with three parked rows: parked rows are never claimed, so the
   * figures stay as written while the relay runs.
   */
  async function parkedThree(): Promise<RelayScene> {
    const scene = await fixture.newScene('relay_figures_age');
    await scene.producer.writeMany(3, 3);
    await scene.schema.pool.query(`UPDATE "${scene.schema.name}".outbox SET parked_at = now()`);
    return scene;
  }

  /** Statistics statements waiting for `locker`'s lock. */
  async function statsWaiting({ schema }: RelayScene, locker: PoolClient): Promise<number> {
    const { rows: me } = await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const { rows } = await schema.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE pg_blocking_pids(pid) @> ARRAY[$1::int]
          AND query LIKE '%count(*) FILTER (WHERE parked_at IS NULL)%'`,
      [me[0]!.pid],
    );
    return rows[0]!.n;
  }

  it('Given a statistics statement blocked by an ACCESS EXCLUSIVE lock, when /health is asked, then it answers from the last figures with their age while the statement waits, and the statement is cancelled by its statement timeout', async () => {
    const scene = await parkedThree();
    const app = await scene.start({
      routing: { defaultTopic: topic },
      tuning: { statsIntervalMs: 60_000, statementTimeoutMs: 3_000 },
    });
    const stats = app.get(RelayStatsService);
    const health = app.get(RelayHealthIndicator);
    await waitFor('the first figures', () => stats.figures().stats?.parked === 3);

    const locker = await lockOutbox(scene);
    try {
      const blocked = stats.refresh().then(
        () => 'finished',
        (error: { code?: string }) => error.code,
      );
      await waitFor(
        'the stats statement to wait on the lock',
        async () => (await statsWaiting(scene, locker)) > 0,
      );
      const answer = (await health.isHealthy('relay')).relay;
      expect(answer).toMatchObject({ status: 'up', figures: 'fresh', parked: 3, pending: 0 });
      expect(answer.figuresAgeSeconds).toEqual(expect.any(Number));
      // Answered while the statement still waits: health never joined it.
      expect(await statsWaiting(scene, locker)).toBeGreaterThan(0);
      expect(await blocked).toBe('57014'); // query_canceled: the statement timeout
    } finally {
      await release(locker);
    }
  });

  it('Given figures older than two sampling intervals, then /health reads them stale (values null, pressure unknown) and the metrics export their age and NaN, until a statement succeeds again', async () => {
    const scene = await parkedThree();
    const app = await scene.start({
      routing: { defaultTopic: topic },
      tuning: { statsIntervalMs: 200, statementTimeoutMs: 500 },
    });
    const health = app.get(RelayHealthIndicator);
    const registry = app.get<Registry>(RELAY_METRICS_REGISTRY);
    await waitFor('the first figures', async () => (await metric(registry, 'parked_events')) === 3);

    const locker = await lockOutbox(scene);
    try {
      const stale = await waitFor('the figures to go stale', async () => {
        const answer = (await health.isHealthy('relay')).relay;
        return answer.figures === 'stale' ? answer : undefined;
      });
      expect(stale).toMatchObject({ status: 'up', pending: null, parked: null, oldestAgeMs: null });
      expect(stale.figuresAgeSeconds).toBeGreaterThan(0.4);
      expect(stale.pressure).toMatchObject({
        state: 'unknown',
        reasons: [expect.stringMatching(/^stale/)],
      });
      expect(await metric(registry, 'figures_age_seconds')).toBeGreaterThan(0.4);
      for (const name of [
        'pending_events',
        'parked_events',
        'oldest_pending_age_seconds',
        'pressure_level',
      ])
        expect({ name, value: await metric(registry, name) }).toEqual({ name, value: NaN });
    } finally {
      await release(locker);
    }
    await waitFor(
      'fresh figures again',
      async () => (await metric(registry, 'parked_events')) === 3,
    );
  });

  it('Given a pressure row whose figures are old (a stopped relay, fresh for an hour by its own rule), when a relay starts, then it never takes them: it runs its own statement and rewrites the row', async () => {
    const scene = await parkedThree();
    const { schema } = scene;
    const write = pressureRowSql('RelayModule', schema.name, 'outbox').write;
    const lie = {
      pending: 1136,
      parked: 0,
      suspects: 0,
      oldestAgeMs: 320,
      oldestUnparkedAgeMs: 320,
    };
    const figures = { stats: lie, pressure: { state: 'critical', reasons: ['test'] } };
    // Sampled 10 minutes ago, fresh for an hour by its writer's interval.
    await schema.pool.query(write, ['ghost', 3_600_000, JSON.stringify(figures), 600_000]);

    const app = await scene.start({
      routing: { defaultTopic: topic },
      tuning: { relayId: 'fresh-start', statsIntervalMs: 500 },
    });
    const stats = app.get(RelayStatsService);
    const registry = app.get<Registry>(RELAY_METRICS_REGISTRY);
    const first = await waitFor('the first figures', () => stats.figures().stats ?? undefined);
    expect(first).toMatchObject({ pending: 0, parked: 3 });
    expect(stats.figures().sampledBy).toBe('fresh-start');
    const samples = (await registry.getSingleMetric('nest_outbox_relay_stats_samples_total')!.get())
      .values;
    expect(samples.find((v) => v.labels.source === 'peer')?.value).toBe(0);
    // The row is written after the figures are taken: wait for the write, then read it whole.
    const sampledBy = async () =>
      (
        await schema.pool.query<{ sampled_by: string }>(
          `SELECT sampled_by FROM "${schema.name}".outbox_pressure`,
        )
      ).rows;
    await waitFor('the row rewritten by the new relay', async () =>
      (await sampledBy()).some((r) => r.sampled_by === 'fresh-start'),
    );
    expect(await sampledBy()).toEqual([{ sampled_by: 'fresh-start' }]);
  });

  it('Given a session holding a REPEATABLE READ snapshot, then /health and the metric report the oldest open transaction at least as old as it', async () => {
    const { schema } = fixture.scene;
    const held = await schema.pool.connect();
    try {
      await held.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await held.query(`SELECT count(*) FROM "${schema.name}".outbox`); // takes the snapshot
      const { rows } = await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const heldPid = rows[0]!.pid;
      const app = await fixture.scene.start({
        routing: { defaultTopic: topic },
        tuning: { tableStatsIntervalMs: 200 },
      });
      const health = app.get(RelayHealthIndicator);
      const registry = app.get<Registry>(RELAY_METRICS_REGISTRY);
      /** Our session's age now, by the database's clock. */
      const heldAge = async () =>
        (
          await schema.pool.query<{ age: number }>(
            'SELECT extract(epoch FROM now() - xact_start)::float8 AS age FROM pg_stat_activity WHERE pid = $1',
            [heldPid],
          )
        ).rows[0]!.age;
      // Another session of the shared database may be older still: the figure is the oldest.
      const seen = await waitFor('the held snapshot in /health', async () => {
        const oldest = (await health.isHealthy('relay')).relay.oldestTransaction as {
          pid?: number;
          state?: string;
          ageSeconds?: number;
          figureAgeSeconds: number;
        } | null;
        if (!oldest?.ageSeconds) return undefined;
        const ours = (await heldAge()) - oldest.figureAgeSeconds - 0.2;
        return oldest.pid === heldPid || (ours > 0 && oldest.ageSeconds >= ours)
          ? oldest
          : undefined;
      });
      expect(seen).toMatchObject({
        ageSeconds: expect.any(Number),
        figureAgeSeconds: expect.any(Number),
      });
      if (seen.pid === heldPid) expect(seen.state).toBe('idle in transaction');
      // The gauge reads NaN while its figure is stale (two 200 ms intervals): wait for a fresh one.
      await waitFor(
        'the oldest transaction in the metric',
        async () => (await metric(registry, 'oldest_xact_age_seconds')) > 0,
      );
    } finally {
      await held.query('COMMIT').finally(() => held.release());
    }
  });
});
