import { KAFKA_BROKERS, uniqueTopic, waitFor } from '@test/support';
import { logLevel } from 'kafkajs';
import { KafkaPublisher } from '../src/publisher/kafka.publisher';
import type {
  PublishAck,
  PublishRecord,
  RelayPublisher,
} from '../src/publisher/relay-publisher.interface';
import { useRelayFixture } from './relay-test.fixture';

/**
 * The real Kafka publisher, except that a request holding the record of aggregate `culprit`
 * throws the TypeError kafkajs throws on a record it cannot encode.
 */
class CulpritPublisher implements RelayPublisher {
  constructor(private readonly inner: KafkaPublisher) {}
  connect = () => this.inner.connect();
  ping = (ms: number) => this.inner.ping(ms);
  disconnect = (ms?: number) => this.inner.disconnect(ms);
  publish(records: readonly PublishRecord[], signal: AbortSignal): Promise<PublishAck[]> {
    if (records.some((r) => r.key === 'culprit'))
      return Promise.reject(new TypeError('Kafka header "x" must be a string or a Buffer'));
    return this.inner.publish(records, signal);
  }
}

interface Row {
  aggregate_id: string;
  published: boolean;
  attempts: number;
  history: number;
}

describe('An error caused by one row is charged to that row alone (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-charged-alone');
  const fixture = useRelayFixture('relay_charged', { topics: [topic] });

  it('Given a row whose record makes the request throw a TypeError among rows of other aggregates, some with an infinite created_at, then every other row is published at its first attempt with no error in its history, and only the culprit backs off', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    await producer.write([{ aggregateId: 'culprit' }, { aggregateId: 'culprit' }]);
    await producer.writeMany(60, 20, 60, 'innocent');
    await schema.pool.query(
      `UPDATE "${schema.name}".outbox SET created_at = CASE WHEN aggregate_id = 'innocent1' THEN 'infinity'::timestamptz ELSE '-infinity' END
        WHERE aggregate_id IN ('innocent1', 'innocent2')`,
    );
    const publisher = new CulpritPublisher(
      new KafkaPublisher({
        clientId: 'charged',
        brokers: KAFKA_BROKERS,
        logLevel: logLevel.NOTHING,
      }),
    );
    await scene.start({ routing: { defaultTopic: topic }, tuning: { batchSize: 100, publisher } });

    const rows = async () =>
      (
        await schema.pool.query<Row>(
          `SELECT aggregate_id, published_at IS NOT NULL AS published, attempts,
                  jsonb_array_length(error_history) AS history
             FROM "${schema.name}".outbox ORDER BY id`,
        )
      ).rows;
    await waitFor(
      'every innocent row published and the culprit failed twice',
      async () => {
        const all = await rows();
        const culprit = all.find((r) => r.aggregate_id === 'culprit')!;
        return (
          all.every((r) => r.aggregate_id === 'culprit' || r.published) && culprit.attempts >= 2
        );
      },
      { timeoutMs: 60_000 },
    );
    const all = await rows();
    const innocents = all.filter((r) => r.aggregate_id !== 'culprit');
    expect(innocents).toHaveLength(60);
    for (const r of innocents)
      expect(r).toMatchObject({ published: true, attempts: 1, history: 0 });
    const [head, next] = all.filter((r) => r.aggregate_id === 'culprit');
    expect(head!.published).toBe(false);
    expect(head!.history).toBe(head!.attempts);
    // The row behind it waits, uncharged.
    expect(next).toMatchObject({ published: false, attempts: 0, history: 0 });
  });
});
