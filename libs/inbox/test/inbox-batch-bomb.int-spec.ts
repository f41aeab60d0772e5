import { createTopics, uniqueTopic, waitFor } from '@test/support';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { gzipBomb, lz4Bomb, snappyBomb, zstdBomb } from './batch-bombs';
import { committedOffsets, send } from './inbox-test.kafka';
import { useInboxFixture } from './inbox-test.fixture';
import { INBOX_TEST_CLIENTS, startInboxApp } from './inbox-test.app';
import { eventRecord } from './inbox-test.records';

jest.setTimeout(600_000);

const MIB = 1024 * 1024;
/** Records of 8 MiB of zeros: 128 of them are 1 GiB once decompressed. */
const VALUE_BYTES = 8 * MIB;

type Table = Record<number, (() => unknown) | undefined>;

describe.each(INBOX_TEST_CLIENTS)(
  'Decompression bombs on %s (real PostgreSQL + Kafka: batches the broker accepts)',
  (client) => {
    const fx = useInboxFixture(`inbox_batch_bomb_${client}`);

    /** Produces `bomb` as one batch of `records` records with codec `type` (kafkajs computes the CRC). */
    async function produceBomb(
      topic: string,
      type: CompressionTypes,
      records: number,
      bomb: Buffer,
    ) {
      const table = CompressionCodecs as unknown as Table;
      const before = table[type];
      table[type] = () => ({
        compress: () => Promise.resolve(bomb),
        decompress: () => Promise.reject(new Error('only for producing')),
      });
      try {
        await fx.tools.producer.send({
          topic,
          compression: type,
          messages: Array.from({ length: records }, () => ({ value: 'x', partition: 0 })),
        });
      } finally {
        table[type] = before;
      }
    }

    it('Given 1 GiB gzip, zstd and lz4 bombs and a 128 MiB snappy bomb (snappy expands 21x at most) between ordinary events, then each is rejected as exceeding the cap for every offset, the events around them are applied, and the memory is bounded and given back', async () => {
      const topic = uniqueTopic('inbox-bomb');
      const groupId = uniqueTopic('g');
      await createTopics([
        {
          topic,
          numPartitions: 1,
          configEntries: [{ name: 'max.message.bytes', value: String(8 * MIB) }],
        },
      ]);
      const app = await startInboxApp({
        schema: fx.db.name,
        topics: [topic],
        groupId,
        client,
      });
      fx.apps.push(app);
      const bombs: [string, CompressionTypes, number, typeof gzipBomb | typeof zstdBomb][] = [
        ['gzip', CompressionTypes.GZIP, 128, gzipBomb],
        ['zstd', CompressionTypes.ZSTD, 128, zstdBomb],
        ['lz4', CompressionTypes.LZ4, 128, lz4Bomb],
        ['snappy', CompressionTypes.Snappy, 16, snappyBomb],
      ];
      const events: string[] = [];
      let end = 0n;
      const opening = eventRecord();
      await send(fx.tools.producer, topic, [opening], 0);
      events.push(opening.eventId);
      end += 1n;
      await waitFor(
        'the first event committed',
        async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === end,
      );
      const figures: string[] = [];
      let first = 1n;
      const expected: object[] = [];
      for (const [name, type, records, build] of bombs) {
        const bomb = await build(records, VALUE_BYTES);
        global.gc?.();
        const baseline = process.memoryUsage().rss;
        let peak = baseline;
        const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
        const after = eventRecord();
        try {
          await produceBomb(topic, type, records, bomb);
          await send(fx.tools.producer, topic, [after], 0);
          events.push(after.eventId);
          end += BigInt(records) + 1n;
          await waitFor(
            `the ${name} bomb and the event after it committed`,
            async () => (await committedOffsets(fx.tools.admin, groupId, topic)).get(0) === end,
          );
        } finally {
          clearInterval(sampler);
        }
        global.gc?.();
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const settled = process.memoryUsage().rss;
        expected.push({
          reason: `record of a batch that could not be decoded (${name} exceeds ${32 * MIB} bytes)`,
          n: String(records),
          first: String(first),
          last: String(first + BigInt(records) - 1n),
        });
        first += BigInt(records) + 1n;
        figures.push(
          `${name} bomb (${bomb.length} bytes compressed, ${mib(records * VALUE_BYTES)} expanded): RSS ${mib(baseline)} -> peak ${mib(peak)} (+${mib(peak - baseline)}) -> ${mib(settled)} after`,
        );
        // An unbounded decoder holds the whole GiB; the cap holds 32 MiB and its copies.
        expect(peak - baseline).toBeLessThan(512 * MIB);
      }
      console.log(figures.join('\n'));

      const rows = await fx.db.pool.query<{
        reason: string;
        n: string;
        first: string;
        last: string;
      }>(
        `SELECT reason, count(*) AS n, min(kafka_offset::bigint) AS first, max(kafka_offset::bigint) AS last
         FROM "${fx.db.name}".inbox_rejected WHERE topic = $1 AND reason_code = 'undecodable_batch'
        GROUP BY reason ORDER BY first`,
        [topic],
      );
      expect(rows.rows).toEqual(expected);
      const applied = await fx.db.pool.query<{ event_id: string }>(
        `SELECT event_id FROM "${fx.db.name}".effects ORDER BY event_id`,
      );
      expect(applied.rows.map((r) => r.event_id)).toEqual([...events].sort());
    });
  },
);

const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)} MiB`;
