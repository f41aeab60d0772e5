import type { TestingModule } from '@nestjs/testing';
import { uniqueTopic, waitFor } from '@test/support';
import { RelayStatsService } from '../src/health/relay-stats.service';
import { RelayStore } from '../src/store/relay.store';
import { useRelayFixture } from './relay-test.fixture';

/** A started relay and how many stats statements it has run since it was counted. */
interface CountedRelay {
  readonly app: TestingModule;
  readonly stats: RelayStatsService;
  statements: number;
}

describe('Relays of one outbox share their stats (real PostgreSQL LISTEN/NOTIFY)', () => {
  const topic = uniqueTopic('relay-stats-sharing');
  const fixture = useRelayFixture('relay_stats_sharing', { topics: [topic] });

  async function startCounted(relayId: string): Promise<CountedRelay> {
    const app = await fixture.scene.start({
      relayId,
      routing: { defaultTopic: topic },
      statsIntervalMs: 500,
    });
    const relay: CountedRelay = { app, stats: app.get(RelayStatsService), statements: 0 };
    const store = app.get(RelayStore);
    const stats = store.stats.bind(store);
    jest.spyOn(store, 'stats').mockImplementation(() => {
      relay.statements++;
      return stats();
    });
    return relay;
  }

  /** Parked rows are never claimed: the figures stay as written while the relays run. */
  async function parkFive(): Promise<void> {
    const { schema, producer } = fixture.scene;
    await producer.writeMany(5, 5);
    await schema.pool.query(
      `UPDATE "${schema.name}".outbox SET parked_at = now(), parked_reason = 'test'`,
    );
  }

  it('Given two relays on one outbox, when they sample their stats, then one runs the statement for both, the other takes its figures, and it samples again itself once the first stops', async () => {
    await parkFive();
    const a = await startCounted('relay-a');
    const b = await startCounted('relay-b');

    // Both start sampling at once; after the first notice one of them leads.
    await waitFor(
      '12 stats statements between the two relays',
      () => a.statements + b.statements >= 12,
    );
    const [leader, follower] = a.statements >= b.statements ? [a, b] : [b, a];
    const followerBefore = follower.statements;
    const leaderBefore = leader.statements;
    await waitFor(
      '8 more statements of the leading relay',
      () => leader.statements >= leaderBefore + 8,
    );
    // Without the notices each would run one every 500 ms: 8 each.
    expect(follower.statements - followerBefore).toBeLessThanOrEqual(2);

    // The follower's figures come from the leader's statements.
    const { schema } = fixture.scene;
    await schema.pool.query(
      `DELETE FROM "${schema.name}".outbox WHERE id IN (SELECT id FROM "${schema.name}".outbox ORDER BY id LIMIT 2)`,
    );
    const followerNow = follower.statements;
    await waitFor(
      'the follower to report 3 parked rows',
      async () => (await follower.stats.refresh()).parked === 3,
    );
    expect(follower.statements).toBe(followerNow);

    // The leader stops: the follower samples on its own again.
    await fixture.scene.stop(leader.app);
    const alone = follower.statements;
    await waitFor(
      'the remaining relay to run its own statements again',
      () => follower.statements >= alone + 3,
    );
  });
});
