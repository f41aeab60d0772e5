import {
  consumeUntil,
  countingSockets,
  javaConsume,
  uniqueTopic,
  waitFor,
  type ConsumedRecord,
  type JavaConsumedRecord,
} from '@test/support';
import { logLevel } from 'kafkajs';
import type { RelayCompression } from '../src/publisher/compression';
import { useRelayFixture } from './relay-test.fixture';

const EVENTS = 40;
const codecs = ['gzip', 'snappy'] as const satisfies RelayCompression[];
const topics = Object.fromEntries(codecs.map((codec) => [codec, uniqueTopic(`relay-${codec}`)]));

/** An order of about 1 KiB of JSON, as a service would announce it. */
function order(n: number) {
  const items = Array.from({ length: 12 }, (_, i) => ({
    sku: `SKU-${(n * 7 + i) % 1000}`,
    quantity: ((n + i) % 5) + 1,
    price: ((n * 31 + i) % 10_000) / 100,
    name: `Item ${((n * 131 + i * 17) % 99_991).toString(36)}`,
  }));
  return { orderId: `order-${n}`, customer: `customer-${n % 97}`, currency: 'EUR', items };
}

/** What a consumer saw of one record, by its place in the log. */
const byPlace = (records: (ConsumedRecord | JavaConsumedRecord)[]) =>
  new Map(
    records.map((r) => [
      `${r.partition}:${String(r.offset)}`,
      { key: r.key, value: r.value, headers: r.headers },
    ]),
  );

describe('Compressed publishing, read by kafkajs and by a Java kafka-clients consumer (real Kafka + PostgreSQL)', () => {
  const fixture = useRelayFixture('relay_compress', { topics: Object.values(topics) });

  it.each(codecs)(
    'Given compression %s, when the relay publishes 1 KiB JSON events, then they cross the wire compressed and a Java consumer sees the same keys, headers and values as kafkajs',
    async (compression) => {
      const scene = await fixture.newScene(`relay_${compression}`);
      const topic = topics[compression]!;
      await scene.producer.write(
        Array.from({ length: EVENTS }, (_, n) => ({
          aggregateId: `order-${n % 8}`,
          payload: order(n),
        })),
      );
      const payloadBytes = EVENTS * Buffer.byteLength(JSON.stringify(order(0)));
      const wire = countingSockets();
      await scene.start({
        kafka: {
          clientId: `relay-${compression}`,
          brokers: scene.options().kafka!.brokers,
          logLevel: logLevel.NOTHING,
          socketFactory: wire.factory,
        },
        routing: { defaultTopic: topic },
        tuning: { compression },
      });
      await waitFor('drained', async () => (await scene.pending()) === 0, { timeoutMs: 60_000 });
      // Everything the relay wrote (metadata, producer id and health requests included) is
      // well under the payloads' size: the batches were compressed.
      expect(wire.bytesWritten()).toBeLessThan(payloadBytes / 2);

      const kafkajs = await consumeUntil([topic], (r) => r.length >= EVENTS, { timeoutMs: 60_000 });
      const java = await javaConsume(scene.options().kafka!.brokers as string[], topic, {
        count: EVENTS,
      });
      expect(kafkajs).toHaveLength(EVENTS);
      expect(java).toHaveLength(EVENTS);
      expect(byPlace(java)).toEqual(byPlace(kafkajs));
      const ids = new Set(kafkajs.map((r) => r.headers.event_id));
      expect(ids).toEqual(new Set(scene.producer.written.map((w) => w.eventId)));
      for (const record of kafkajs) expect(JSON.parse(record.value!)).toHaveProperty('items');
    },
  );
});
