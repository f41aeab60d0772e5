import { uuidv7 } from '@nest-outbox/core';
import { readPartitionState, sqlExecutorOf } from '@nest-outbox/core/internal';
import { consumeUntil, createTopics, DATABASE_URL, uniqueTopic, waitFor } from '@test/support';
import type { TestingModule } from '@nestjs/testing';
import { runNestOutbox } from '../../outbox/src/cli/nest-outbox.commands';
import { HousekeepingService } from '../src/housekeeping/housekeeping.service';
import { useRelayFixture, type RelayScene } from './relay-test.fixture';

const quiet = { out: () => undefined, err: () => undefined };
const HOUR = 3_600_000;

/** A UUIDv7 made at `ms`: a fresh one with its 48-bit time replaced. */
function uuidv7At(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}${uuidv7().slice(13)}`;
}

/** The scene's outbox again, made by `nest-outbox migrate --partition hourly`. */
async function partition(scene: RelayScene): Promise<void> {
  await scene.schema.pool.query(`DROP TABLE "${scene.schema.name}".outbox CASCADE`);
  const values = { url: DATABASE_URL, schema: scene.schema.name, partition: 'hourly' };
  expect(await runNestOutbox('migrate', values, quiet)).toBe(0);
}

const state = (scene: RelayScene) =>
  readPartitionState(sqlExecutorOf(scene.schema.pool), scene.schema.name, 'outbox');

describe('A partitioned outbox (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-partitioned');
  const fixture = useRelayFixture('relay_partitioned', { topics: [topic] });

  it('Given events of one aggregate in four partitions (the default one too), when the relay runs, then it publishes them in the order they were written', async () => {
    const { scene } = fixture;
    await partition(scene);
    const { ranges, defaultPartition } = await state(scene);
    expect(defaultPartition).toBe('outbox_default');
    expect(ranges).toHaveLength(5);
    const indexes = await scene.schema.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = $1 AND tablename = ANY($2)
         AND indexdef LIKE '%WHERE ((published_at IS NULL) AND (skipped_at IS NULL))'`,
      [scene.schema.name, [...ranges.map((r) => r.name), defaultPartition]],
    );
    expect(indexes.rows[0]!.n).toBe(2 * (ranges.length + 1));
    const times = [ranges[1]!.from, ranges[0]!.from + 1, Date.UTC(2300, 0, 1), ranges[3]!.from];
    const ids = [];
    for (const [i, at] of [...times, ...times].entries())
      ids.push(
        ...(await scene.producer.write([{ aggregateId: `cross-${i % 2}`, eventId: uuidv7At(at) }])),
      );
    await scene.start({ routing: { defaultTopic: topic } });
    const records = await consumeUntil([topic], (r) => r.length >= ids.length);
    for (const key of ['cross-0', 'cross-1'])
      expect(records.filter((r) => r.key === key).map((r) => r.headers.event_id)).toEqual(
        ids.filter((_, i) => i % 2 === Number(key.slice(-1))),
      );
  });

  describe('retention', () => {
    let scene: RelayScene;
    let relay: TestingModule;
    let old: { name: string; from: number };
    const ageAll = (where: string) =>
      scene.schema.pool.query(
        `UPDATE "${scene.schema.name}".outbox SET published_at = now() - interval '1 minute' WHERE ${where}`,
      );
    const exists = async (name: string) => (await state(scene)).ranges.some((r) => r.name === name);

    beforeAll(async () => {
      scene = await fixture.newScene('relay_partitioned_keep');
      await partition(scene);
      old = (await state(scene)).ranges[0]!;
      relay = await scene.start({
        routing: { defaultTopic: topic },
        retention: { keepMs: 1000, mode: 'delete', batchSize: 100, intervalMs: HOUR },
        tuning: { autoStart: false },
      });
    });

    it('Given an old partition with an unpublished row, then a parked one, then a skipped one, when housekeeping runs, then it keeps the partition until every row is settled, and keeps the skipped row in the archive', async () => {
      const housekeeping = relay.get(HousekeepingService);
      const [unpublished, skipped] = await scene.producer.write([
        { aggregateId: 'held', eventId: uuidv7At(old.from + 5) },
        { aggregateId: 'skipped', eventId: uuidv7At(old.from + 6) },
      ]);
      await scene.schema.pool.query(
        `UPDATE "${scene.schema.name}".outbox SET skipped_at = now() - interval '1 minute', skipped_by = 'op' WHERE event_id = $1`,
        [skipped],
      );
      await housekeeping.runOnce();
      expect(await exists(old.name)).toBe(true);
      await scene.schema.pool.query(
        `UPDATE "${scene.schema.name}".outbox SET parked_at = now(), parked_reason = 'test' WHERE event_id = $1`,
        [unpublished],
      );
      await housekeeping.runOnce();
      expect(await exists(old.name)).toBe(true);
      await ageAll(`event_id = '${unpublished}'`);
      const pass = await housekeeping.maintainPartitions();
      expect(pass?.dropped).toEqual([old.name]);
      expect(await exists(old.name)).toBe(false);
      const archived = await scene.schema.pool.query(
        `SELECT event_id FROM "${scene.schema.name}".outbox_archive`,
      );
      expect(archived.rows).toEqual([{ event_id: skipped }]);
    });
  });

  it('Given producers writing into an old partition while housekeeping runs, when everything is published, then the partition is dropped and every event reached Kafka', async () => {
    const race = await fixture.newScene('relay_partitioned_race');
    await partition(race);
    const old = (await state(race)).ranges[0]!;
    const raceTopic = uniqueTopic('relay-partitioned-race');
    await createTopics([raceTopic]);
    const relay = await race.start({
      routing: { defaultTopic: raceTopic },
      retention: { keepMs: 1, mode: 'delete', batchSize: 100, intervalMs: HOUR },
    });
    const housekeeping = relay.get(HousekeepingService);
    const ids: string[] = [];
    let writing = true;
    const writer = (async () => {
      for (let round = 0; round < 40; round++) {
        const events = [0, 1].map((i) => ({
          aggregateId: `race-${(round + i) % 4}`,
          eventId: uuidv7At(old.from + round * 10 + i),
        }));
        ids.push(...(await race.producer.write(events)));
      }
      writing = false;
    })();
    let passes = 0;
    while (writing) {
      await housekeeping.runOnce();
      passes++;
    }
    await writer;
    await waitFor('all published', async () => (await race.pending()) === 0);
    await waitFor('old partition dropped', async () => {
      await housekeeping.runOnce();
      return !(await state(race)).ranges.some((r) => r.name === old.name);
    });
    const records = await consumeUntil([raceTopic], (r) =>
      ids.every((id) => r.some((x) => x.headers.event_id === id)),
    );
    expect(new Set(records.map((r) => r.headers.event_id))).toEqual(new Set(ids));
    expect(passes).toBeGreaterThan(0);
  });
});
