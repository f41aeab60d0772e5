import { consumeUntil, uniqueTopic, waitFor } from '@test/support';
import { RelayHealthIndicator } from '../src/health/relay.health-indicator';
import { RelayStatsService } from '../src/health/relay-stats.service';
import { useRelayFixture } from './relay-test.fixture';

interface Row {
  event_id: string;
  aggregate_id: string;
  published: boolean;
  parked_reason: string | null;
  attempts: number;
  history: number;
}

describe('Rows written by SQL with values the library never writes (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-hostile-rows');
  const fixture = useRelayFixture('relay_hostile', { topics: [{ topic, numPartitions: 2 }] });

  it('Given an infinity row, a non-string-headers row and a BC row, each followed by a row of its aggregate, among normal rows, then the normal rows publish at their first attempt, the infinity and headers rows park at once with a reason naming their column, the BC row publishes with its era, nothing else is charged, health stays up and the pressure never turns critical', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    const table = `"${schema.name}".outbox`;
    await producer.writeMany(40, 8, 10, 'early');
    const [inf, infNext] = await producer.write([{ aggregateId: 'inf' }, { aggregateId: 'inf' }]);
    const [hdr, hdrNext] = await producer.write([{ aggregateId: 'hdr' }, { aggregateId: 'hdr' }]);
    const [bc] = await producer.write([
      { aggregateId: 'bc', occurredAt: '4714-11-24 00:00:00+00 BC' },
    ]);
    await producer.writeMany(40, 8, 10, 'late');
    await schema.pool.query(`UPDATE ${table} SET occurred_at = 'infinity' WHERE event_id = $1`, [
      inf,
    ]);
    await schema.pool.query(`UPDATE ${table} SET headers = '{"x-num": 5}' WHERE event_id = $1`, [
      hdr,
    ]);
    // As old as in the issue: without the fix they alone would turn the pressure critical.
    await schema.pool.query(
      `UPDATE ${table} SET created_at = now() - interval '10 minutes' WHERE aggregate_id IN ('inf', 'hdr')`,
    );

    const app = await scene.start({
      routing: { defaultTopic: topic },
      pressure: { maxBacklog: 10_000, maxOldestAgeMs: 60_000 },
      tuning: { batchSize: 100, unhealthyAfterMs: 60_000, statsIntervalMs: 200 },
    });
    const stats = app.get(RelayStatsService);
    const states = new Set<string>();
    const rows = async () =>
      (
        await schema.pool.query<Row>(
          `SELECT event_id, aggregate_id, published_at IS NOT NULL AS published, parked_reason,
                  attempts, jsonb_array_length(error_history) AS history FROM ${table} ORDER BY id`,
        )
      ).rows;
    await waitFor('every normal row published and both bad rows parked', async () => {
      const all = await rows();
      const pending = all.filter((r) => !r.published).map((r) => r.event_id);
      const parked = all.filter((r) => r.parked_reason !== null).length;
      return parked === 2 && pending.sort().join() === [inf, infNext, hdr, hdrNext].sort().join();
    });

    const all = await rows();
    const byId = new Map(all.map((r) => [r.event_id, r]));
    expect(byId.get(inf!)).toMatchObject({ attempts: 1, history: 1 });
    expect(byId.get(inf!)!.parked_reason).toMatch(
      /^permanent: .*unencodable: occurred_at is infinity/,
    );
    expect(byId.get(hdr!)).toMatchObject({ attempts: 1, history: 1 });
    expect(byId.get(hdr!)!.parked_reason).toMatch(
      /^permanent: .*unencodable: headers\."x-num" is a number, not a string/,
    );
    for (const follower of [infNext!, hdrNext!])
      expect(byId.get(follower)).toMatchObject({
        published: false,
        parked_reason: null,
        attempts: 0,
        history: 0,
      });
    for (const r of all.filter((x) => x.published))
      expect({ id: r.aggregate_id, attempts: r.attempts, history: r.history }).toEqual({
        id: r.aggregate_id,
        attempts: 1,
        history: 0,
      });

    const [record] = await consumeUntil([topic], (records) =>
      records.some((x) => x.headers.event_id === bc),
    ).then((records) => records.filter((x) => x.headers.event_id === bc));
    expect(record!.headers.occurred_at).toBe('-004713-11-24T00:00:00.000Z');

    // The figures refresh at their own pace: health is polled until they count both parks.
    // Before that (a busy machine can sample before the first claim reached them) the old rows
    // are simply pending; from the first sample that counts both parks on, they never count.
    const health = app.get(RelayHealthIndicator);
    const statuses = new Set<string>();
    await waitFor('health to count both parked rows', async () => {
      const result = (await health.isHealthy('relay')).relay;
      statuses.add(result.status);
      return result.parked === 2;
    });
    let last = stats.pressure;
    states.add(last?.state ?? 'none');
    let later = 0;
    await waitFor('three more pressure assessments', async () => {
      await stats.refresh();
      const assessment = stats.pressure;
      if (assessment && assessment !== last) {
        states.add(assessment.state);
        last = assessment;
        later += 1;
      }
      return later >= 3;
    });
    expect([...statuses]).toEqual(['up']);
    expect([...states]).not.toContain('critical');
    expect(stats.pressure?.state).toBe('ok');
  });
});
