import { uniqueTopic, waitFor } from '@test/support';
import { RelayStatsService } from '../src/health/relay-stats.service';
import type { RelayStats } from '../src/store/relay-stats';
import { RelayStore } from '../src/store/relay.store';
import { useRelayFixture } from './relay-test.fixture';

describe('Relay stats pace themselves on a slow statement (real PostgreSQL)', () => {
  const topic = uniqueTopic('relay-stats-pacing');
  const fixture = useRelayFixture('relay_stats_pacing', { topics: [topic] });

  it('Given a stats statement that took 400 ms, when health checks refresh within its pause, then they get its figures and no statement runs until the pause is over', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    await producer.writeMany(5, 5);
    const app = await scene.start({
      routing: { defaultTopic: topic },
      tuning: { autoStart: false, statsIntervalMs: 100 },
    });
    const stats = app.get(RelayStatsService);
    const statements = jest.spyOn(app.get(RelayStore), 'stats');
    // Only the test's refreshes run the statement: a scheduled run already in flight when the
    // lock is taken would not wait for it and race the slow run under test (seen on a busy
    // machine). Stopping the schedule leaves refresh() as health checks use it.
    await stats.beforeApplicationShutdown();

    // The statement waits 400 ms behind a lock: a slow run (its pause: at least 3.6 s).
    const locker = await schema.pool.connect();
    let slow: Promise<RelayStats> | undefined;
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE "${schema.name}".outbox IN ACCESS EXCLUSIVE MODE`);
      // Until the pause of the figures taken at start is over, refresh() answers with them.
      const before = statements.mock.calls.length;
      await waitFor('a refresh that runs a statement', () => {
        slow = stats.refresh();
        return statements.mock.calls.length > before;
      });
      // Holding the lock is the slowness under test, not a wait for a result.
      await new Promise((resolve) => setTimeout(resolve, 400));
      await locker.query('COMMIT');
    } finally {
      locker.release();
    }
    const first = await slow;
    expect(first).toMatchObject({ pending: 5 });

    await producer.writeMany(3, 3);
    const held = await stats.refresh();
    expect(held).toBe(first); // the slow run's very snapshot: no new statement
    expect(held.pending).toBe(5);

    await waitFor(
      'a refresh after the pause to count the new rows',
      async () => (await stats.refresh()).pending === 8,
      { timeoutMs: 15_000 },
    );
  });
});
