import type { TestingModule } from '@nestjs/testing';
import { uniqueTopic, waitFor } from '@test/support';
import type { Registry } from 'prom-client';
import { RelayStatsService } from '../src/health/relay-stats.service';
import { RELAY_METRICS_REGISTRY } from '../src/relay.constants';
import { RelayStore } from '../src/store/relay.store';
import { useRelayFixture } from './relay-test.fixture';

/** A started relay and how many stats statements it has run since it was counted. */
interface CountedRelay {
  readonly relayId: string;
  readonly app: TestingModule;
  readonly stats: RelayStatsService;
  statements: number;
}

describe('Relays of one outbox share their stats through the pressure row (real PostgreSQL)', () => {
  const topic = uniqueTopic('relay-stats-sharing');
  const fixture = useRelayFixture('relay_stats_sharing', { topics: [topic] });

  async function startCounted(relayId: string): Promise<CountedRelay> {
    const app = await fixture.scene.start({
      routing: { defaultTopic: topic },
      tuning: { relayId, statsIntervalMs: 500 },
    });
    const stats = app.get(RelayStatsService);
    const relay: CountedRelay = { relayId, app, stats, statements: 0 };
    const store = app.get(RelayStore);
    const statement = store.stats.bind(store);
    jest.spyOn(store, 'stats').mockImplementation(() => {
      relay.statements++;
      return statement();
    });
    return relay;
  }

  /** `nest_outbox_relay_stats_samples_total` of a relay, by source. */
  async function samples(relay: CountedRelay): Promise<Record<string, number>> {
    const registry = relay.app.get<Registry>(RELAY_METRICS_REGISTRY);
    const metric = registry.getSingleMetric('nest_outbox_relay_stats_samples_total');
    const { values } = await metric!.get();
    return Object.fromEntries(values.map((v) => [String(v.labels.source), v.value]));
  }

  /** Parked rows are never claimed: the figures stay as written while the relays run. */
  async function parkFive(): Promise<void> {
    const { schema, producer } = fixture.scene;
    await producer.writeMany(5, 5);
    await schema.pool.query(
      `UPDATE "${schema.name}".outbox SET parked_at = now(), parked_reason = 'test'`,
    );
  }

  it('Given two relays on one outbox, when they sample their stats, then they run the statement about once per interval between them, the row names its writer, each reports the figures, a refresh on shared figures still queries its own pool, and one samples on its own once the other stops', async () => {
    await parkFive();
    const a = await startCounted('relay-a');
    const b = await startCounted('relay-b');
    const total = () => a.statements + b.statements;

    // Both start sampling at once; once one has written the row, it leads.
    await waitFor('the first stats statements', () => total() >= 4);
    const startedAt = Date.now();
    const before = { a: a.statements, b: b.statements, total: total() };
    await waitFor('10 more stats statements', () => total() >= before.total + 10, {
      timeoutMs: 20_000,
    });
    // One every 500 ms between them takes at least 4.5 s; each on its own (two every 500 ms)
    // would take about 2.5 s.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(3500);
    const peer = (await samples(a)).peer! + (await samples(b)).peer!;
    expect(peer).toBeGreaterThanOrEqual(8);
    // Operators see where the figures came from (a statement may be under way as we read).
    for (const relay of [a, b])
      expect(Math.abs((await samples(relay)).own! - relay.statements)).toBeLessThanOrEqual(1);

    const { schema } = fixture.scene;
    const { rows } = await schema.pool.query<{ sampled_by: string; state: string }>(
      `SELECT sampled_by, figures->'pressure'->>'state' AS state FROM "${schema.name}".outbox_pressure`,
    );
    expect(rows).toEqual([{ sampled_by: expect.stringMatching(/^relay-[ab]$/), state: 'ok' }]);

    // Both report a change, whichever of them counted it.
    await schema.pool.query(
      `DELETE FROM "${schema.name}".outbox WHERE id IN (SELECT id FROM "${schema.name}".outbox ORDER BY id LIMIT 2)`,
    );
    for (const relay of [a, b])
      await waitFor(
        'each relay to report 3 parked rows',
        async () => (await relay.stats.refresh()).parked === 3,
      );

    // Another's figures prove nothing of a relay's own connections: refresh() reads the row on
    // its own pool.
    const follower = await waitFor('a relay holding figures another relay shared', () =>
      [a, b].find((r) => (r.stats.figures().sampledBy ?? r.relayId) !== r.relayId),
    );
    const read = jest
      .spyOn(follower.app.get(RelayStore), 'readPressure')
      .mockRejectedValueOnce(new Error('connection refused'));
    await expect(follower.stats.refresh()).rejects.toThrow('connection refused');
    read.mockRestore();

    // The one that ran more of them stops: the other samples on its own again.
    const [leader, other] = a.statements - before.a >= b.statements - before.b ? [a, b] : [b, a];
    await fixture.scene.stop(leader.app);
    const alone = other.statements;
    await waitFor(
      'the remaining relay to run its own statements again',
      () => other.statements >= alone + 3,
    );
  });
});
