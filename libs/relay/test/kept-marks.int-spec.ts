import {
  consumeUntil,
  createTopics,
  DATABASE_URL,
  PgFaultProxy,
  topicRecordCount,
  uniqueTopic,
  waitFor,
} from '@test/support';
import type { Registry } from 'prom-client';
import { RelayLoop } from '../src/loop/relay.loop';
import { RELAY_METRICS_REGISTRY } from '../src/relay.constants';
import { RelayStore } from '../src/store/relay.store';
import { checkDelivery, useRelayFixture, type RelayScene } from './relay-test.fixture';

const MARK = 'SET published_at = now(), kafka_partition';

/** The value of relay metric `name{labels}`: 0 before its first count, undefined without it. */
async function metric(registry: Registry, name: string, labels: Record<string, string> = {}) {
  const found = registry.getSingleMetric(`nest_outbox_relay_${name}`);
  if (!found) return undefined;
  const { values } = await found.get();
  const match = values.find((v) =>
    Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l),
  );
  return match?.value ?? 0;
}

/**
 * A relay whose PostgreSQL connection is cut as it sends its first mark (the broker's acks are
 * in): the acknowledged events are kept and marked when the database answers, never published
 * again. The cut is a fault proxy in front of the shared PostgreSQL; the topic is read back
 * by an independent consumer.
 */
describe('Marks kept through a lost database connection (real PostgreSQL + Kafka, fault proxy)', () => {
  const fixture = useRelayFixture('relay_kept_marks');
  let proxy: PgFaultProxy;

  beforeAll(async () => {
    proxy = await PgFaultProxy.start(Number(new URL(DATABASE_URL).port || 5432));
  });
  afterAll(async () => {
    await proxy?.close();
  });

  /** Drains 300 events through a relay whose first mark meets `fault`; what came of them. */
  async function drainThroughCut(
    scene: RelayScene,
    fault: (marked: () => Promise<number>) => Promise<string>,
  ) {
    const topic = uniqueTopic('kept-marks');
    await createTopics([{ topic, numPartitions: 3 }]);
    await scene.producer.writeMany(300, 30, 100);
    const marked = async () =>
      (
        await scene.schema.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${scene.schema.name}".outbox WHERE published_at IS NOT NULL`,
        )
      ).rows[0]!.n;
    const fired = fault(marked);
    const relay = await scene.start({
      connection: { connectionString: proxy.url(new URL(DATABASE_URL).pathname.slice(1)) },
      routing: { defaultTopic: topic },
      tuning: { batchSize: 100, synchronousCommit: true },
    });
    await fired;
    await waitFor('drained', async () => (await scene.pending()) === 0, { timeoutMs: 60_000 });
    const loop = relay.get(RelayLoop);
    const registry = relay.get<Registry>(RELAY_METRICS_REGISTRY);
    await waitFor('every mark counted', () => loop.totals.published === 300, { timeoutMs: 30_000 });
    const total = await topicRecordCount(topic);
    const records = await consumeUntil([topic], (all) => all.length >= total);
    return {
      delivery: checkDelivery(records, scene.producer.written),
      records: records.length,
      totals: { ...loop.totals },
      recovered: await metric(registry, 'marks_recovered_total'),
      pendingMarks: await metric(registry, 'pending_marks'),
      dropped: await metric(registry, 'published_again_total', { cause: 'mark_dropped' }),
      leaseLost: await metric(registry, 'lease_lost_total'),
    };
  }

  it('Given the mark cut off before it reaches PostgreSQL, when the relay reaches the database again, then it marks those events under the same lease: every event is in the topic exactly once, in order, counted as recovered', async () => {
    const scene = await fixture.newScene('relay_kept_lost');
    const result = await drainThroughCut(scene, () =>
      proxy.armOnce(MARK, () => undefined, { forward: false }),
    );
    expect(result.delivery).toEqual({ duplicates: [], missing: [], orderViolations: [] });
    expect(result.records).toBe(300);
    expect(result.totals).toMatchObject({ published: 300, leaseLost: 0 });
    expect(result.recovered).toBeGreaterThan(0);
    expect(result).toMatchObject({ pendingMarks: 0, dropped: 0, leaseLost: 0 });
  });

  it('Given a mark that committed but whose answer was cut off, when the relay marks those events again, then it finds them marked by its own lease: counted as published and recovered, not as lease lost, and none published again', async () => {
    const scene = await fixture.newScene('relay_kept_unseen');
    // The answer is held until PostgreSQL shows the mark committed, then the connection drops.
    const result = await drainThroughCut(scene, (marked) =>
      proxy.armOnce(MARK, async () => {
        await waitFor('the mark committed', async () => (await marked()) > 0);
      }),
    );
    expect(result.delivery).toEqual({ duplicates: [], missing: [], orderViolations: [] });
    expect(result.records).toBe(300);
    expect(result.totals).toMatchObject({ published: 300, leaseLost: 0 });
    expect(result.recovered).toBeGreaterThan(0);
    expect(result).toMatchObject({ pendingMarks: 0, dropped: 0, leaseLost: 0 });
  });

  it('Given marks kept as the relay is asked to stop, when it shuts down gracefully, then it makes them before it ends: the relay that drains the rest publishes none of them again', async () => {
    const scene = await fixture.newScene('relay_kept_stop');
    const topic = uniqueTopic('kept-stop');
    await createTopics([{ topic, numPartitions: 3 }]);
    await scene.producer.writeMany(300, 30, 100);
    const relay = await scene.start({
      connection: { connectionString: proxy.url(new URL(DATABASE_URL).pathname.slice(1)) },
      routing: { defaultTopic: topic },
      tuning: { batchSize: 100, synchronousCommit: true, autoStart: false },
    });
    const loop = relay.get(RelayLoop);
    const registry = relay.get<Registry>(RELAY_METRICS_REGISTRY);
    let stopped: Promise<void> | undefined;
    // The stop begins while the mark is cut off: no claim comes after it to make the marks.
    const fired = proxy.armOnce(MARK, () => void (stopped = loop.stop()), { forward: false });
    await loop.start();
    await fired;
    await stopped;
    expect(await metric(registry, 'marks_recovered_total')).toBeGreaterThan(0);
    expect(await metric(registry, 'pending_marks')).toBe(0);
    expect(await metric(registry, 'published_again_total', { cause: 'mark_dropped' })).toBe(0);

    await scene.start({ routing: { defaultTopic: topic }, tuning: { batchSize: 100 } });
    await waitFor('drained', async () => (await scene.pending()) === 0, { timeoutMs: 60_000 });
    const total = await topicRecordCount(topic);
    const records = await consumeUntil([topic], (all) => all.length >= total);
    expect(checkDelivery(records, scene.producer.written)).toEqual({
      duplicates: [],
      missing: [],
      orderViolations: [],
    });
  });

  it('Given rows marked by lease A and rows another claim took, when A marks them again after an outage, then its own marks count as marked and the taken rows are refused; a first mark still refuses a marked row', async () => {
    const { scene } = fixture;
    const relay = await scene.start({
      routing: { defaultTopic: uniqueTopic('kept-fence') },
      tuning: { autoStart: false },
    });
    const store = relay.get(RelayStore);
    await scene.producer.write([{ aggregateId: 'mine' }, { aggregateId: 'taken' }]);
    const t = `"${scene.schema.name}".outbox`;
    const { rows } = await scene.schema.pool.query<{ id: string }>(
      `SELECT id::text FROM ${t} ORDER BY id`,
    );
    const [mine, taken] = rows.map((r) => ({ id: r.id, partition: 0, offset: '1' }));
    await scene.schema.pool.query(
      `UPDATE ${t} SET lease_owner = 'A', lease_expires_at = now() - interval '1 second', claims = 1`,
    );
    expect([...(await store.mark('A', [mine!]))]).toEqual([]);
    await scene.schema.pool.query(
      `UPDATE ${t} SET lease_owner = 'B', lease_expires_at = now() + interval '1 minute', claims = 2 WHERE id = $1`,
      [taken!.id],
    );

    expect([...(await store.mark('A', [mine!, taken!], true))]).toEqual([taken!.id]);
    expect([...(await store.mark('A', [mine!]))]).toEqual([mine!.id]);
    const { rows: after } = await scene.schema.pool.query<{ attempts: number; owner: string }>(
      `SELECT attempts, lease_owner AS owner FROM ${t} ORDER BY id`,
    );
    expect(after).toEqual([
      { attempts: 1, owner: 'A' },
      { attempts: 0, owner: 'B' },
    ]);
  });
});
