import { InboxConsumerRegistry } from '@nest-outbox/inbox';
import {
  BATCH_ATTRIBUTES_AT,
  createTopics,
  javaProduce,
  KAFKA_BROKERS,
  KafkaFetchRewriter,
  replaceBatch,
  sealBatch,
  uniqueTopic,
  waitFor,
  type JavaCompression,
} from '@test/support';
import { committedOffsets } from './inbox-test.kafka';
import { inboxMetric, useInboxFixture } from './inbox-test.fixture';
import { startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(300_000);

/** The suite's event record as the Java tool takes it, on `partition`. */
function javaEvent(partition: number) {
  const { eventId, key, value, headers } = eventRecord();
  const text = Object.entries(headers ?? {}).map(([name, v]) => [name, String(v)]);
  return {
    eventId,
    key: String(key),
    value: String(value),
    headers: Object.fromEntries(text),
    partition,
  };
}

/**
 * How each partition's middle batch (offsets 3-5) is damaged on its way to the consumer, and the
 * reason its offsets are rejected with. @platformatic/kafka checks no CRC: the inbox checks an
 * uncompressed batch's, and a compressed one fails in its codec.
 */
const DAMAGE: readonly [JavaCompression, string, (batch: Buffer) => Buffer][] = [
  // A flipped bit in the gzip stream's own CRC-32.
  ['gzip', 'gzip corrupt', (b) => ((b[b.length - 5]! ^= 0x10), b)],
  // A codec id Kafka does not have.
  ['lz4', 'unknown codec 5', (b) => (b.writeInt16BE(5, BATCH_ATTRIBUTES_AT), sealBatch(b))],
  // A flipped bit the producer's CRC-32C no longer covers, in an uncompressed batch.
  ['none', 'crc mismatch', (b) => ((b[b.length - 5]! ^= 0x10), b)],
];

describe('Record batches damaged between the broker and PlatformaticInboxServer (real PostgreSQL + Kafka + a Fetch-rewriting proxy)', () => {
  const fx = useInboxFixture('inbox_undecodable_plt');
  let proxy: KafkaFetchRewriter;
  beforeAll(async () => {
    proxy = await KafkaFetchRewriter.start(Number(KAFKA_BROKERS[0]!.split(':')[1]));
  });
  afterAll(() => proxy.close());

  it('Given gzip, lz4 and uncompressed batches and one damaged batch in the middle of each partition, then exactly its offsets are rejected with their reason, every other record is applied, the group commits to the end and the consumer never crashes', async () => {
    const topic = uniqueTopic('inbox-undecodable-plt');
    const groupId = uniqueTopic('g');
    await createTopics([{ topic, numPartitions: DAMAGE.length }]);
    // Three batches of three records per partition: offsets 0-2, 3-5 (damaged), 6-8.
    const batches = DAMAGE.map((_, p) =>
      Array.from({ length: 3 }, () => Array.from({ length: 3 }, () => javaEvent(p))),
    );
    for (let round = 0; round < 3; round += 1)
      for (const [p, [compression]] of DAMAGE.entries())
        await javaProduce(KAFKA_BROKERS, topic, batches[p]![round]!, { compression });
    proxy.rewrite = (records, at) =>
      at.topic === topic ? replaceBatch(records, 3n, DAMAGE[at.partition]![2]) : records;

    const app = await startInboxApp({
      schema: fx.db.name,
      topics: [topic],
      groupId,
      brokers: proxy.brokers,
      client: 'platformatic',
      logger: ['error'],
    });
    fx.apps.push(app);
    const statuses: string[] = [];
    const watch = setInterval(
      () =>
        statuses.push(
          ...app
            .get(InboxConsumerRegistry)
            .snapshots()
            .map((s) => s.status),
        ),
      50,
    );
    try {
      await waitFor(
        'every partition committed to its end (9 records each)',
        async () =>
          [...(await committedOffsets(fx.tools.admin, groupId, topic)).values()].filter(
            (o) => o === 9n,
          ).length === DAMAGE.length,
        { timeoutMs: 180_000 },
      );
    } finally {
      clearInterval(watch);
    }

    const rows = await fx.db.pool.query<{
      kafka_partition: number;
      kafka_offset: string;
      reason_code: string;
      reason: string;
    }>(
      `SELECT kafka_partition, kafka_offset, reason_code, reason FROM "${fx.db.name}".inbox_rejected
        WHERE topic = $1 ORDER BY kafka_partition, kafka_offset::bigint`,
      [topic],
    );
    expect(rows.rows.map((r) => [r.kafka_partition, r.kafka_offset, r.reason_code])).toEqual(
      DAMAGE.flatMap((_, p) => ['3', '4', '5'].map((o) => [p, o, 'undecodable_batch'])),
    );
    for (const row of rows.rows)
      expect(row.reason).toContain(`(${DAMAGE[row.kafka_partition]![1]})`);
    const applied = await fx.db.pool.query<{ event_id: string }>(
      `SELECT event_id FROM "${fx.db.name}".effects ORDER BY event_id`,
    );
    const kept = batches.flatMap((rounds) => [...rounds[0]!, ...rounds[2]!]).map((r) => r.eventId);
    expect(applied.rows.map((r) => r.event_id)).toEqual([...kept].sort());
    expect(await inboxMetric(app, 'nest_outbox_inbox_events_rejected_total')).toBe(9);
    expect(statuses.filter((s) => s === 'crashed')).toEqual([]);
  });
});
