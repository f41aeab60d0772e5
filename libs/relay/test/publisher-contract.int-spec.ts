import { randomBytes } from 'node:crypto';
import {
  KAFKA_BROKERS,
  createTopics,
  javaConsume,
  javaProduce,
  topicRecordCount,
  uniqueTopic,
  waitFor,
} from '@test/support';
import { classifyKafkaError } from '../src/errors/error-classifier';
import { publishFailureReason } from '../src/errors/failure-reason';
import { kafkaCompression, type RelayCompression } from '../src/publisher/compression';
import { keyPartition } from '../src/publisher/key-partitioner';
import type { PublishAck, PublishRecord } from '../src/publisher/relay-publisher.interface';
import {
  CONTRACT_ADAPTERS,
  readRaw,
  type ContractClient,
  type RawRecord,
} from './publisher-contract';

jest.setTimeout(120_000);

const never = new AbortController().signal;
const record = (
  topic: string,
  key: string,
  value: string,
  headers: Record<string, string> = {},
): PublishRecord => ({ topic, key, value, headers });
const place = (r: { partition: number; offset: string }) => `${r.partition}:${r.offset}`;
const text = (b: Buffer | null | undefined) => b?.toString('utf8');

/** Keys of every shape: empty, ASCII, accents, emoji, NUL, a lone surrogate (sent as U+FFFD). */
const ODD_KEYS = ['', 'order-1', 'Ünïcødé-ключ', '😀 emoji', 'nul\u0000inside', 'lone-\ud800'];

/** Where Java's default partitioner (kafka-clients) puts each key on a topic of 6 partitions. */
let javaPlaces: Promise<Map<string, number>> | undefined;
function javaPartitions(keys: readonly string[]): Promise<Map<string, number>> {
  javaPlaces ??= (async () => {
    const topic = uniqueTopic('contract-java');
    await createTopics([{ topic, numPartitions: 6 }]);
    await javaProduce(
      KAFKA_BROKERS,
      topic,
      keys.map((key) => ({ key, value: 'java' })),
    );
    const read = await javaConsume(KAFKA_BROKERS, topic, { count: keys.length });
    return new Map(read.map((r) => [r.key ?? '', r.partition]));
  })();
  return javaPlaces;
}

beforeAll(() => kafkaCompression('snappy')); // the reading kafkajs consumer decodes snappy

describe.each(CONTRACT_ADAPTERS)(
  'The publisher port on the $name adapter (real Kafka)',
  (adapter) => {
    let client: ContractClient | undefined;
    const start = async (compression?: RelayCompression) =>
      (client = await adapter.start(compression));
    afterEach(async () => {
      await client?.close();
      client = undefined;
    });

    it('Given 20 publishes of 50 records over 7 keys, when each resolves, then every ack names the record in the log, each key keeps its order on the partition its murmur2 hash picks, and nothing is duplicated', async () => {
      const topic = uniqueTopic(`contract-order-${adapter.name}`);
      await createTopics([topic]);
      const { publisher } = await start();
      const sent: { record: PublishRecord; ack: PublishAck }[] = [];
      const next = new Map<string, number>();
      for (let p = 0; p < 20; p++) {
        const batch = Array.from({ length: 50 }, (_, i) => {
          const key = `key-${(p * 50 + i) % 7}`;
          const n = next.get(key) ?? 0;
          next.set(key, n + 1);
          return record(topic, key, `${key}#${n}`, { n: String(n) });
        });
        const acks = await publisher.publish(batch, never);
        batch.forEach((r, i) => sent.push({ record: r, ack: acks[i]! }));
      }
      const read = await readRaw(topic, 1000);
      expect(await topicRecordCount(topic)).toBe(1000);
      const byPlace = new Map(read.map((r) => [place(r), r]));
      for (const { record: r, ack } of sent) {
        expect(ack.partition).toBe(keyPartition(r.key, 3));
        const found = byPlace.get(place(ack));
        expect([text(found?.key), text(found?.value)]).toEqual([r.key, r.value]);
      }
      for (const [key, count] of next) {
        const values = read
          .filter((r) => text(r.key) === key)
          .sort((a, b) => Number(a.offset) - Number(b.offset))
          .map((r) => text(r.value));
        expect(values).toEqual(Array.from({ length: count }, (_, n) => `${key}#${n}`));
      }
    });

    it('Given keys and headers of any UTF-8 text (empty, emoji, NUL, 100 headers), when published, then the broker holds their exact bytes', async () => {
      const topic = uniqueTopic(`contract-bytes-${adapter.name}`);
      await createTopics([topic]);
      const { publisher } = await start();
      const headers: Record<string, string> = { empty: '', 'ключ-ü': 'värde 😀', nul: 'a\u0000b' };
      for (let i = 0; i < 100; i++) headers[`h-${i}`] = `value-${i}-${'é'.repeat(i % 5)}`;
      const batch = ODD_KEYS.map((key) => record(topic, key, `value of ${key}`, headers));
      const acks = await publisher.publish(batch, never);
      const byPlace = new Map((await readRaw(topic, batch.length)).map((r) => [place(r), r]));
      batch.forEach((r, i) => {
        const found = byPlace.get(place(acks[i]!)) as RawRecord;
        expect(found.key).toEqual(Buffer.from(r.key, 'utf8'));
        expect(found.value).toEqual(Buffer.from(r.value, 'utf8'));
        const got = Object.entries(found.headers).map(([k, v]) => [k, v]);
        expect(got).toEqual(Object.entries(headers).map(([k, v]) => [k, Buffer.from(v, 'utf8')]));
      });
    });

    it('Given the keys Java kafka-clients placed with its default partitioner, when this adapter publishes them, then each lands on the partition Java chose', async () => {
      // Java encodes a lone surrogate as '?', Node as U+FFFD: not the same key bytes.
      const keys = [
        ...ODD_KEYS.slice(0, -1),
        ...Array.from({ length: 40 }, (_, i) => `aggregate-${i}`),
      ];
      const java = await javaPartitions(keys);
      const topic = uniqueTopic(`contract-java-${adapter.name}`);
      await createTopics([{ topic, numPartitions: 6 }]);
      const { publisher } = await start();
      const acks = await publisher.publish(
        keys.map((key) => record(topic, key, 'same')),
        never,
      );
      expect(keys.map((key, i) => [key, acks[i]!.partition])).toEqual(
        keys.map((key) => [key, java.get(key)]),
      );
    });

    it.each(['none', 'gzip', 'snappy'] as const)(
      'Given compression %s, when 200 JSON events are published, then a kafkajs consumer reads every value back',
      async (compression) => {
        const topic = uniqueTopic(`contract-${compression}-${adapter.name}`);
        await createTopics([topic]);
        const { publisher } = await start(compression);
        const batch = Array.from({ length: 200 }, (_, n) =>
          record(
            topic,
            `order-${n % 9}`,
            JSON.stringify({ n, items: Array.from({ length: 8 }, (_, i) => ({ sku: n * i })) }),
          ),
        );
        const acks = await publisher.publish(batch, never);
        const byPlace = new Map((await readRaw(topic, batch.length)).map((r) => [place(r), r]));
        expect(acks.map((a) => text(byPlace.get(place(a))?.value))).toEqual(
          batch.map((r) => r.value),
        );
      },
    );

    it('Given a connection that breaks after a Produce request reached the broker, when the publish is retried, then the broker keeps each record once', async () => {
      const topic = uniqueTopic(`contract-idem-${adapter.name}`);
      await createTopics([{ topic, numPartitions: 1 }]);
      const live = await start();
      const batch = (tag: string) =>
        Array.from({ length: 10 }, (_, n) => record(topic, 'one', `${tag}-${n}`));
      await live.publisher.publish(batch('before'), never);
      live.cutNextProduce();
      const cut = batch('cut');
      // The adapter retries within the publish, or the relay publishes the batch again.
      const acks = await live.publisher
        .publish(cut, never)
        .catch(() => live.publisher.publish(cut, never));
      expect(live.cuts()).toBe(1);
      expect(acks.map((a) => a.offset)).toEqual(cut.map((_, n) => String(10 + n)));
      const read = await readRaw(topic, 20);
      expect(await topicRecordCount(topic)).toBe(20);
      expect(read.map((r) => text(r.value))).toEqual([
        ...batch('before').map((r) => r.value),
        ...cut.map((r) => r.value),
      ]);
    });

    it('Given a publish whose Produce request is on the wire, when its signal aborts, then it rejects with the reason, every socket of the adapter closes, and the next publish works', async () => {
      const topic = uniqueTopic(`contract-abort-${adapter.name}`);
      await createTopics([topic]);
      const live = await start();
      const controller = new AbortController();
      const reason = new Error('aborted by the contract');
      live.onProduce(() => controller.abort(reason));
      const batch = Array.from({ length: 100 }, (_, n) => record(topic, `k${n % 5}`, `v${n}`));
      await expect(live.publisher.publish(batch, controller.signal)).rejects.toBe(reason);
      await waitFor('the aborted publish closed its sockets', () => live.openSockets() === 0, {
        timeoutMs: 10_000,
      });
      live.onProduce(() => undefined);
      const acks = await live.publisher.publish([record(topic, 'after', 'after')], never);
      const read = await readRaw(topic, 1);
      expect(read.some((r) => place(r) === place(acks[0]!) && text(r.value) === 'after')).toBe(
        true,
      );
    });

    it('Given a topic whose max.message.bytes is 1 KiB, when a 4 KiB record is published, then the error is permanent (message_too_large) and pins the record on its partition', async () => {
      const topic = uniqueTopic(`contract-large-${adapter.name}`);
      await createTopics([
        { topic, numPartitions: 2, configEntries: [{ name: 'max.message.bytes', value: '1024' }] },
      ]);
      const { publisher } = await start();
      const big = record(topic, 'big', randomBytes(2048).toString('hex'));
      const error: unknown = await publisher.publish([big], never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(classifyKafkaError(error)).toBe('permanent');
      expect(publishFailureReason(error)).toBe('message_too_large');
      expect(publisher.failedPartition?.(big)).toBe(keyPartition('big', 2));
    });

    it('Given a topic that does not exist (no auto-creation), when a record is published to it, then the error is permanent (no_topic)', async () => {
      const { publisher } = await start();
      const missing = record(uniqueTopic(`contract-missing-${adapter.name}`), 'k', 'v');
      const error: unknown = await publisher.publish([missing], never).catch((e: unknown) => e);
      expect(classifyKafkaError(error)).toBe('permanent');
      expect(publishFailureReason(error)).toBe('no_topic');
    });

    it('Given a connected adapter, when pinged and then disconnected, then the ping answers true and no socket stays open', async () => {
      const live = await start();
      await live.publisher.connect();
      expect(await live.publisher.ping(5000)).toBe(true);
      await live.publisher.disconnect(1000);
      await waitFor('sockets closed', () => live.openSockets() === 0, { timeoutMs: 10_000 });
    });
  },
);
