import { uniqueTopic, waitFor } from '@test/support';
import { useRelayFixture } from './relay-test.fixture';

interface Row {
  event_id: string;
  published_at: Date | null;
  parked_at: Date | null;
  parked_reason: string | null;
}

describe('A poison event inside one request with the rest of its run (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-poison-run');
  const fixture = useRelayFixture('relay_poison_run', {
    topics: [
      { topic, numPartitions: 2, configEntries: [{ name: 'max.message.bytes', value: '3000' }] },
    ],
  });

  const rows = async (ids: string[]): Promise<Row[]> => {
    const { schema } = fixture.scene;
    const { rows } = await schema.pool.query<Row>(
      `SELECT event_id, published_at, parked_at, parked_reason FROM "${schema.name}".outbox
        WHERE event_id = ANY($1::uuid[]) ORDER BY id`,
      [ids],
    );
    return rows;
  };

  it('Given a run whose second event is too large for the topic, sent in one request with its neighbours, then the event before it is published, the culprit itself is parked (not the innocent head), and the event after it waits unparked', async () => {
    // Found by the chaos run: the whole run failed with MESSAGE_TOO_LARGE and its head, an
    // event the broker would have taken, was parked in place of the culprit.
    const { scene } = fixture;
    const ids = await scene.producer.write([
      { aggregateId: 'run' },
      { aggregateId: 'run', payload: { blob: 'x'.repeat(6000) } },
      { aggregateId: 'run' },
    ]);
    await scene.producer.writeMany(50, 5, 25, 'other');
    await scene.start({ routing: { defaultTopic: topic }, tuning: { batchSize: 100 } });

    const [head, culprit, after] = await waitFor('the culprit parked', async () => {
      const found = await rows(ids);
      return found[1]?.parked_at ? found : undefined;
    });
    expect(culprit!.parked_reason).toMatch(/^permanent: .*MESSAGE_TOO_LARGE/);
    expect(head!.published_at).not.toBeNull();
    expect(head!.parked_at).toBeNull();
    expect(after!.published_at).toBeNull();
    expect(after!.parked_at).toBeNull();
    await waitFor('the other aggregates drained', async () => (await scene.pending()) === 2);
  });
});
