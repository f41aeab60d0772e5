import { consumeUntil, uniqueTopic, waitFor } from '@test/support';
import type { TestingModule } from '@nestjs/testing';
import { FULL_PASS_EVERY, HousekeepingService } from '../src/housekeeping/housekeeping.service';
import { RelayOperatorService } from '../src/operator/relay-operator.service';
import { useRelayFixture } from './relay-test.fixture';

describe('Housekeeping and deliberate replay (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-housekeeping');
  const fixture = useRelayFixture('relay_housekeeping', { topics: [topic] });
  let relay: TestingModule;

  beforeAll(async () => {
    relay = await fixture.scene.start({
      routing: { defaultTopic: topic },
      retention: { keepMs: 60_000, mode: 'archive', batchSize: 7, intervalMs: 3_600_000 },
    });
  });

  it('Given published events of an aggregate, when an operator republishes a range of them, then they are published again in order and the action is in the audit table', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    const ids = await producer.write(Array.from({ length: 5 }, () => ({ aggregateId: 'replay' })));
    await waitFor('published', async () => (await scene.pending()) === 0);
    const outcome = await relay
      .get(RelayOperatorService)
      .republish(
        { aggregateType: 'thing', aggregateId: 'replay', fromVersion: 3 },
        { actor: 'carol', reason: 'consumer rebuilt' },
      );
    expect(outcome).toEqual({ outcome: 'republishing', count: 3 });
    const records = await consumeUntil([topic], (r) => r.length >= 8);
    expect(records.map((r) => r.headers.event_id)).toEqual([...ids, ...ids.slice(2)]);
    const audit = await schema.pool.query(
      `SELECT action, actor, reason FROM "${schema.name}".outbox_relay_audit`,
    );
    expect(audit.rows).toEqual([
      { action: 'republish', actor: 'carol', reason: 'consumer rebuilt' },
    ]);
  });

  it('Given published rows older than the retention, when housekeeping runs, then it archives them in small batches and leaves recent and unpublished rows', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    await producer.writeMany(30, 3, 10, 'old');
    await waitFor('published', async () => (await scene.pending()) === 0);
    await schema.pool.query(
      `UPDATE "${schema.name}".outbox SET published_at = now() - interval '2 minutes' WHERE aggregate_id LIKE 'old%'`,
    );
    const removed = await relay.get(HousekeepingService).runOnce();
    expect(removed).toBe(30);
    const left = await schema.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema.name}".outbox`,
    );
    expect(left.rows[0]!.n).toBe(5);
    const archived = await schema.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema.name}".outbox_archive WHERE aggregate_id LIKE 'old%'`,
    );
    expect(archived.rows[0]!.n).toBe(30);
  });

  it('Given a pass that ended, when the next passes run, then each starts where the last ended (a row published earlier is left) until the periodic full pass removes it', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    await producer.writeMany(5, 5, 1, 'late');
    await waitFor('published', async () => (await scene.pending()) === 0);
    // Older than where the last pass ended (2 minutes ago): only a full pass reads so far back.
    await schema.pool.query(
      `UPDATE "${schema.name}".outbox SET published_at = now() - interval '10 minutes' WHERE aggregate_id LIKE 'late%'`,
    );
    const housekeeping = relay.get(HousekeepingService);
    const removed: number[] = [];
    // The test before ran the first pass (a full one): the next full pass is the last of these.
    for (let pass = 0; pass < FULL_PASS_EVERY; pass++) removed.push(await housekeeping.runOnce());
    expect(removed).toEqual([...Array<number>(FULL_PASS_EVERY - 1).fill(0), 5]);
  });
});
