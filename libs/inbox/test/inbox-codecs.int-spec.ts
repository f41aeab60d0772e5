import { gzipSync } from 'node:zlib';
import { InboxConsumerRegistry } from '@nest-outbox/inbox';
import {
  createTopics,
  javaProduce,
  KAFKA_BROKERS,
  uniqueTopic,
  waitFor,
  type JavaCompression,
  type JavaRecord,
} from '@test/support';
import type { INestApplication } from '@nestjs/common';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { committedOffsets, send } from './inbox-test.kafka';
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

describe.each(INBOX_TEST_CLIENTS)(
  'Compressed batches from any producer on %s (real PostgreSQL + Kafka + a Java kafka-clients producer)',
  (client) => {
    const fx = useInboxFixture(`inbox_codecs_${client}`);

    const applied = async (): Promise<string[]> =>
      (
        await fx.db.pool.query<{ event_id: string }>(
          `SELECT event_id FROM "${fx.db.name}".effects ORDER BY event_id`,
        )
      ).rows.map((r) => r.event_id);

    async function start(topic: string, groupId: string): Promise<INestApplication> {
      const app = await startInboxApp({
        schema: fx.db.name,
        topics: [topic],
        groupId,
        client,
        logger: ['error'],
      });
      fx.apps.push(app);
      return app;
    }

    const statuses = (app: INestApplication) =>
      app
        .get(InboxConsumerRegistry)
        .snapshots()
        .map((s) => s.status);

    it('Given snappy, lz4, zstd and gzip batches of a Java producer (each sent twice), then every event is applied exactly once and the consumer never crashes', async () => {
      const topic = uniqueTopic('inbox-codecs');
      const groupId = uniqueTopic('g');
      const codecs: JavaCompression[] = ['snappy', 'lz4', 'zstd', 'gzip'];
      await createTopics([{ topic, numPartitions: codecs.length }]);
      const batches = codecs.map((_, p) => Array.from({ length: 20 }, () => javaEvent(p)));
      const app = await start(topic, groupId);
      const crashes: string[] = [];
      const watch = setInterval(
        () => crashes.push(...statuses(app).filter((s) => s === 'crashed')),
        50,
      );
      try {
        // Each partition gets its codec's batch, then the same events again in the next codec.
        for (const [p, compression] of codecs.entries()) {
          await javaProduce(KAFKA_BROKERS, topic, batches[p]!, { compression });
          const again = batches[(p + 1) % codecs.length]!;
          await javaProduce(
            KAFKA_BROKERS,
            topic,
            again.map((r) => ({ ...r, partition: p })),
            { compression },
          );
        }
        await waitFor(
          'every partition committed to its end (40 records each)',
          async () =>
            [...(await committedOffsets(fx.tools.admin, groupId, topic)).values()].every(
              (o) => o === 40n,
            ),
          { timeoutMs: 180_000 },
        );
      } finally {
        clearInterval(watch);
      }
      const expected = batches
        .flat()
        .map((r) => r.eventId)
        .sort();
      expect(await applied()).toEqual(expected);
      expect(crashes).toEqual([]);
      expect(await inboxMetric(app, 'nest_outbox_inbox_events_rejected_total')).toBe(0);
    });

    it("Given a Java producer's transactions, then a committed one is applied, an aborted one never is, and the partition is committed past every abort that ends it", async () => {
      const topic = uniqueTopic('inbox-codecs-tx');
      const groupId = uniqueTopic('g');
      await createTopics([{ topic, numPartitions: 1 }]);
      const committed = [javaEvent(0), javaEvent(0)];
      const aborted = [javaEvent(0), javaEvent(0)];
      const late = [javaEvent(0), javaEvent(0)];
      const produce = (records: JavaRecord[], end: 'commit' | 'abort', n: number) =>
        javaProduce(KAFKA_BROKERS, topic, records, {
          compression: n % 2 === 0 ? 'zstd' : 'lz4',
          transaction: { id: `${topic}-${n}`, end },
        });
      const committedOffset = async () =>
        (await committedOffsets(fx.tools.admin, groupId, topic)).get(0);
      // Both written before the consumer starts, so that one fetch holds 2 records + commit
      // marker, 2 aborted records + abort marker (0-5).
      await produce(committed, 'commit', 0);
      await produce(aborted, 'abort', 1);
      await start(topic, groupId);
      await waitFor(
        'the group committed past the abort at the end of its batch',
        async () => (await committedOffset()) === 6n,
      );
      // A later fetch of nothing but an aborted transaction (offsets 6-8).
      await produce(late, 'abort', 2);
      await waitFor(
        'the group committed past an abort fetched alone',
        async () => (await committedOffset()) === 9n,
      );
      const ids = await applied();
      expect(committed.every((r) => ids.includes(r.eventId))).toBe(true);
      expect([...aborted, ...late].some((r) => ids.includes(r.eventId))).toBe(false);
    });

    it('Given a gzip batch that kafkajs cannot decompress, then its records are rejected as undecodable_batch, the rest of its partition and the other partitions keep flowing, and /health and the metric name it', async () => {
      const topic = uniqueTopic('inbox-codecs-bad');
      const groupId = uniqueTopic('g');
      await createTopics([{ topic, numPartitions: 3 }]);
      const app = await start(topic, groupId);
      const [before, b1, b2, after, other1, other2] = Array.from({ length: 6 }, () =>
        eventRecord(),
      );
      await send(fx.tools.producer, topic, [before!], 0);
      // A valid gzip stream followed by the start of a truncated second member: the broker
      // (and a Java consumer) accept it, Node's zlib refuses it. kafkajs computes the CRC.
      const gzip = CompressionCodecs[CompressionTypes.GZIP];
      CompressionCodecs[CompressionTypes.GZIP] = () => ({
        compress: (encoder: { buffer: Buffer }) =>
          Promise.resolve(
            Buffer.concat([gzipSync(encoder.buffer), Buffer.from([0x1f, 0x8b, 0x08])]),
          ),
        decompress: () => Promise.reject(new Error('only for producing')),
      });
      try {
        await fx.tools.producer.send({
          topic,
          compression: CompressionTypes.GZIP,
          messages: [b1!, b2!].map(({ key, value, headers }) => ({
            key,
            value,
            headers,
            partition: 0,
          })),
        });
      } finally {
        CompressionCodecs[CompressionTypes.GZIP] = gzip;
      }
      await send(fx.tools.producer, topic, [after!], 0);
      await send(fx.tools.producer, topic, [other1!], 1);
      await send(fx.tools.producer, topic, [other2!], 2);
      await waitFor('partition 0 committed past the batch', async () => {
        const offsets = await committedOffsets(fx.tools.admin, groupId, topic);
        return offsets.get(0) === 4n && offsets.get(1) === 1n && offsets.get(2) === 1n;
      });
      const ids = await applied();
      expect([before, after, other1, other2].every((r) => ids.includes(r!.eventId))).toBe(true);
      expect([b1, b2].some((r) => ids.includes(r!.eventId))).toBe(false);
      const rows = await fx.db.pool.query<{
        kafka_offset: string;
        reason_code: string;
        reason: string;
      }>(
        `SELECT kafka_offset, reason_code, reason FROM "${fx.db.name}".inbox_rejected WHERE topic = $1 ORDER BY kafka_offset`,
        [topic],
      );
      expect(rows.rows.map((r) => [r.kafka_offset, r.reason_code])).toEqual([
        ['1', 'undecodable_batch'],
        ['2', 'undecodable_batch'],
      ]);
      expect(rows.rows[0]!.reason).toContain('gzip');
      expect(await inboxMetric(app, 'nest_outbox_inbox_events_rejected_total')).toBe(2);
      const [snapshot] = app.get(InboxConsumerRegistry).snapshots();
      expect(snapshot?.status).toBe('running');
      expect(snapshot?.undecodable).toMatchObject({
        records: 2,
        last: { topic, partition: 0, offset: '2' },
      });
    });
  },
);
