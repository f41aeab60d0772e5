import { uniqueTopic } from '@test/support';
import { RelayStore } from '../src/store/relay.store';
import { useRelayFixture } from './relay-test.fixture';

interface Row {
  attempts: number;
  claims: number;
  published: boolean;
  lease_owner: string | null;
}

describe('Outcome fencing by the lease token (real PostgreSQL)', () => {
  const fixture = useRelayFixture('relay_fence');

  it('Given leases that ran out while nobody claimed the rows again, then the relay still records its mark and its failure (a slow broker is not taken for a crash), and a lease another claim took refuses both', async () => {
    // Found by the chaos run: during a broker outage a batch's publish timed out after its
    // lease ran out; its failures were refused, its claims never balanced, and three such
    // rounds parked an innocent event as a crash loop ("publishes started and never finished").
    const { scene } = fixture;
    const relay = await scene.start({
      routing: { defaultTopic: uniqueTopic('fence') },
      tuning: { autoStart: false },
    });
    const store = relay.get(RelayStore);
    const [ran, taken] = await scene.producer.write([
      { aggregateId: 'ran' },
      { aggregateId: 'taken' },
    ]);
    const t = `"${scene.schema.name}".outbox`;
    const idOf = async (eventId: string) =>
      (
        await scene.schema.pool.query<{ id: string }>(
          `SELECT id::text FROM ${t} WHERE event_id = $1`,
          [eventId],
        )
      ).rows[0]!.id;
    const row = async (id: string) =>
      (
        await scene.schema.pool.query<Row>(
          `SELECT attempts, claims, published_at IS NOT NULL AS published, lease_owner FROM ${t} WHERE id = $1`,
          [id],
        )
      ).rows[0]!;
    const [ranId, takenId] = [await idOf(ran!), await idOf(taken!)];
    // Both claimed by token A (claims 1), both leases already expired; `taken` re-claimed by B.
    await scene.schema.pool.query(
      `UPDATE ${t} SET lease_owner = 'A', lease_expires_at = now() - interval '1 second', claims = 1`,
    );
    await scene.schema.pool.query(
      `UPDATE ${t} SET lease_owner = 'B', lease_expires_at = now() + interval '1 minute', claims = 2 WHERE id = $1`,
      [takenId],
    );
    const failure = {
      counted: true,
      park: false,
      delayMs: 100,
      kind: 'transient',
      error: 'PublishTimeoutError',
    };

    expect([...(await store.fail('A', [{ id: ranId, ...failure }]))]).toEqual([ranId]);
    expect(await row(ranId)).toMatchObject({ attempts: 1, claims: 1, published: false });
    expect([...(await store.fail('A', [{ id: takenId, ...failure }]))]).toEqual([]);
    expect(await row(takenId)).toMatchObject({ attempts: 0, claims: 2, lease_owner: 'B' });

    await scene.schema.pool.query(
      `UPDATE ${t} SET lease_expires_at = now() - interval '1 second', next_attempt_at = NULL WHERE id = $1`,
      [ranId],
    );
    // `mark` answers the ids it could NOT mark.
    expect([...(await store.mark('A', [{ id: ranId, partition: 0, offset: '7' }]))]).toEqual([]);
    expect(await row(ranId)).toMatchObject({ published: true });
    expect([...(await store.mark('A', [{ id: takenId, partition: 0, offset: '8' }]))]).toEqual([
      takenId,
    ]);
    expect(await row(takenId)).toMatchObject({ published: false, lease_owner: 'B' });
  });
});
