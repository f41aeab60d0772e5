import { InboxConsumerRegistry } from '@nest-outbox/inbox';
import {
  BATCH_ATTRIBUTES_AT,
  BATCH_RECORD_COUNT_AT,
  createTopics,
  javaProduce,
  KAFKA_BROKERS,
  KafkaFetchRewriter,
  replaceBatch,
  sealBatch,
  uniqueTopic,
  waitFor,
  type JavaCompression,
  type JavaRecord,
} from '@test/support';
import type { INestApplication } from '@nestjs/common';
import { committedOffsets } from './inbox-test.kafka';
import { inboxMetric, useInboxFixture } from './inbox-test.fixture';
import { INBOX_TEST_CLIENTS, startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(300_000);

/** The suite's event record as the Java tool takes it, on `partition`. */
function javaEvent(partition: number): JavaRecord & { eventId: string } {
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

/** How each partition's middle batch (offsets 3-5) is damaged on its way to the consumer. */
const DAMAGE: readonly [JavaCompression, string, (batch: Buffer) => Buffer][] = [
  // A flipped bit the producer's CRC-32C no longer covers.
  ['gzip', 'crc mismatch', (b) => ((b[b.length - 5]! ^= 0x10), b)],
  // Compressed data cut short by a producer that still wrote a valid CRC.
  [
    'snappy',
    'snappy (truncated|corrupt)',
    (b) => sealBatch(Buffer.from(b.subarray(0, b.length - 7))),
  ],
  // A codec id Kafka does not have.
  ['lz4', 'unknown codec 5', (b) => (b.writeInt16BE(5, BATCH_ATTRIBUTES_AT), sealBatch(b))],
  // A header that counts one record more than the batch holds.
  [
    'zstd',
    'record count mismatch',
    (b) => (
      b.writeInt32BE(b.readInt32BE(BATCH_RECORD_COUNT_AT) + 1, BATCH_RECORD_COUNT_AT),
      sealBatch(b)
    ),
  ],
];

describe('Record batches damaged between the broker and the inbox (real PostgreSQL + Kafka + a Fetch-rewriting proxy)', () => {
  let proxy: KafkaFetchRewriter;
  beforeAll(async () => {
    proxy = await KafkaFetchRewriter.start(Number(KAFKA_BROKERS[0]!.split(':')[1]));
  });
  afterAll(() => proxy.close());

  describe.each(INBOX_TEST_CLIENTS)('on %s', (client) => {
    const fx = useInboxFixture(`inbox_undecodable_${client}`);

    const applied = async (): Promise<string[]> =>
      (
        await fx.db.pool.query<{ event_id: string }>(
          `SELECT event_id FROM "${fx.db.name}".effects ORDER BY event_id`,
        )
      ).rows.map((r) => r.event_id);

    const statuses = (app: INestApplication) =>
      app
        .get(InboxConsumerRegistry)
        .snapshots()
        .map((s) => s.status);

    it('Given real gzip, snappy, lz4 and zstd batches and one damaged batch in the middle of each partition, then exactly its offsets are rejected with their reason, every other record is applied, the group commits to the end and the consumer never crashes', async () => {
      const topic = uniqueTopic('inbox-undecodable');
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
        client,
        logger: ['error'],
      });
      fx.apps.push(app);
      const crashes: string[] = [];
      const watch = setInterval(
        () => crashes.push(...statuses(app).filter((s) => s === 'crashed')),
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
        expect(row.reason).toMatch(new RegExp(`\\(${DAMAGE[row.kafka_partition]![1]}\\)`));
      const ids = await applied();
      const kept = batches
        .flatMap((rounds) => [...rounds[0]!, ...rounds[2]!])
        .map((r) => r.eventId);
      expect(ids).toEqual([...kept].sort());
      expect(await inboxMetric(app, 'nest_outbox_inbox_events_rejected_total')).toBe(12);
      expect(crashes).toEqual([]);
    });
  });
});
