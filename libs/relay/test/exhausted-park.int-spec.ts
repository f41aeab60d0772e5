import { uniqueTopic, waitFor } from '@test/support';
import type { ErrorClassifier } from '../src/options/relay-options.interface';
import { keyPartition } from '../src/publisher/key-partitioner';
import { useRelayFixture, type RelayScene } from './relay-test.fixture';

/** Aggregate ids whose records go to `partition` of a topic of `count` partitions. */
function idsOn(partition: number, count: number, n: number, prefix: string): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < n; i++)
    if (keyPartition(`${prefix}-${i}`, count) === partition) ids.push(`${prefix}-${i}`);
  return ids;
}

/** The big event's record is refused (too large for its topic); it says transient here. */
const bigIsTransient: ErrorClassifier = (_error, event) =>
  event.aggregateId.startsWith('big') ? 'transient' : undefined;

const BIG = JSON.stringify({ text: 'x'.repeat(4000) });

/**
 * An event whose transient attempts are exhausted parks only on evidence that the failure is
 * its own: its partition took other records between its failures. Real broker: the event's
 * record is refused (`max.message.bytes` 1024), a classifier calls that transient, and small
 * events of other aggregates go to the same partition, or only to the other one.
 */
describe('Exhausted transient failures park on evidence from their own partition (real PostgreSQL + Kafka)', () => {
  const shared = uniqueTopic('relay-exhausted-shared');
  const split = uniqueTopic('relay-exhausted-split');
  const small = [{ name: 'max.message.bytes', value: '1024' }];
  const fixture = useRelayFixture('relay_exhausted', {
    topics: [
      { topic: shared, numPartitions: 1, configEntries: small },
      { topic: split, numPartitions: 2, configEntries: small },
    ],
  });

  const big = async (scene: RelayScene, aggregateId: string) => {
    const { rows } = await scene.schema.pool.query<{
      parked: boolean;
      reason: string | null;
      history: number;
      attempts: number;
    }>(
      `SELECT parked_at IS NOT NULL AS parked, parked_reason AS reason, attempts,
              jsonb_array_length(error_history) AS history
         FROM "${scene.schema.name}".outbox WHERE aggregate_id = $1`,
      [aggregateId],
    );
    return rows[0]!;
  };

  /** Writes one small event per aggregate in turn until `done`, so the partition keeps acking. */
  const keepWriting = (scene: RelayScene, ids: string[], done: () => boolean) =>
    (async () => {
      for (let i = 0; !done(); i++) {
        await scene.producer.write([{ aggregateId: ids[i % ids.length]! }]);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

  const start = (scene: RelayScene, topic: string) =>
    scene.start({
      routing: { defaultTopic: topic },
      tuning: {
        batchSize: 1,
        retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 100 },
        classifyError: bigIsTransient,
      },
    });

  it('Given an event that keeps failing while its partition acknowledges other records, then it parks as exhausted after maxAttempts and the others are published', async () => {
    const scene = fixture.scene;
    await scene.producer.write([{ aggregateId: 'big-1', rawPayload: BIG }]);
    await start(scene, shared);
    let parked = false;
    const writing = keepWriting(scene, ['a', 'b', 'c'], () => parked);
    try {
      await waitFor(
        'the big event parked',
        async () => (parked = (await big(scene, 'big-1')).parked),
        {
          timeoutMs: 60_000,
        },
      );
    } finally {
      parked = true;
      await writing;
    }
    const row = await big(scene, 'big-1');
    expect(row.reason).toMatch(/^attempts exhausted \(3\)/);
    expect(row.attempts).toBe(3);
    await waitFor('the small events published', async () => (await scene.pending()) === 1, {
      timeoutMs: 60_000,
    });
  });

  it('Given an event that keeps failing while only the other partition acknowledges records, then it backs off past maxAttempts without parking', async () => {
    const scene = await fixture.newScene('relay_exhausted_split');
    const [bigId] = idsOn(0, 2, 1, 'big');
    await scene.producer.write([{ aggregateId: bigId!, rawPayload: BIG }]);
    await start(scene, split);
    let done = false;
    const writing = keepWriting(scene, idsOn(1, 2, 3, 'small'), () => done);
    try {
      // Past maxAttempts (3): uncounted failures pile up in the history, the event stays.
      await waitFor(
        'six failures of the big event, or its parking',
        async () => {
          const row = await big(scene, bigId!);
          return row.history >= 6 || row.parked;
        },
        {
          timeoutMs: 60_000,
        },
      );
    } finally {
      done = true;
      await writing;
    }
    const row = await big(scene, bigId!);
    expect(row.parked).toBe(false);
    expect(row.attempts).toBeLessThanOrEqual(3);
    await waitFor('the small events published', async () => (await scene.pending()) === 1, {
      timeoutMs: 60_000,
    });
  });
});
