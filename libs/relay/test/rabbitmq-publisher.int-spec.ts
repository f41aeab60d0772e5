import { randomUUID } from 'node:crypto';
import {
  RABBITMQ_URL,
  amqpHeaders,
  rabbitTestClient,
  uniqueTopic,
  type RabbitTestClient,
} from '@test/support';
import { classifyKafkaError } from '../src/errors/error-classifier';
import { publishFailureReason } from '../src/errors/failure-reason';
import type { PublishRecord } from '../src/publisher/relay-publisher.interface';
import { RabbitMqPublisher } from '../src/rabbitmq/rabbitmq.publisher';
import type { RelayRabbitMqOptions } from '../src/rabbitmq/rabbitmq.options';
import { StallProxy } from './stall-proxy.fixture';

jest.setTimeout(60_000);

const never = new AbortController().signal;
const record = (
  topic: string,
  key: string,
  value: string,
  headers: Record<string, string> = {},
): PublishRecord => ({
  topic,
  key,
  value,
  headers: { event_id: randomUUID(), event_type: 'thing.happened', aggregate_id: key, ...headers },
});
const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('The publisher port on the RabbitMQ adapter (amqplib confirm channel, real RabbitMQ)', () => {
  let admin: RabbitTestClient;
  const queues: string[] = [];
  const exchanges: string[] = [];
  const publishers: RabbitMqPublisher[] = [];
  const queue = async () => {
    const name = uniqueTopic('rmq-contract');
    queues.push(name);
    await admin.channel.assertQueue(name, { durable: false });
    return name;
  };
  const start = (options: Partial<RelayRabbitMqOptions> = {}) => {
    const publisher = new RabbitMqPublisher({ url: RABBITMQ_URL, ...options });
    publishers.push(publisher);
    return publisher;
  };

  beforeAll(async () => (admin = await rabbitTestClient()));
  afterEach(async () => {
    for (const p of publishers.splice(0)) await p.disconnect(1000);
  });
  afterAll(() => admin.close({ queues, exchanges }));

  it('Given 20 publishes of 50 records over 7 aggregates, when each resolves, then the queue holds every record once, in order per aggregate, persistent, with its event id as messageId and its headers', async () => {
    const topic = await queue();
    const publisher = start();
    const sent: PublishRecord[] = [];
    const next = new Map<string, number>();
    for (let p = 0; p < 20; p++) {
      const batch = Array.from({ length: 50 }, (_, i) => {
        const key = `agg-${(p * 50 + i) % 7}`;
        const n = next.get(key) ?? 0;
        next.set(key, n + 1);
        return record(topic, key, JSON.stringify({ key, n }), { n: String(n) });
      });
      const acks = await publisher.publish(batch, never);
      expect(acks).toHaveLength(50);
      sent.push(...batch);
    }
    const read = await admin.drain(topic, 1000);
    expect(read).toHaveLength(1000);
    expect(read.map((m) => String(m.properties.messageId))).toEqual(
      sent.map((r) => r.headers.event_id),
    );
    for (const [i, m] of read.entries()) {
      expect(m.properties.deliveryMode).toBe(2);
      expect(m.properties.type).toBe('thing.happened');
      expect(m.content.toString('utf8')).toBe(sent[i]!.value);
      expect(amqpHeaders(m)).toEqual(sent[i]!.headers);
    }
    for (const [key, count] of next) {
      const ns = read
        .filter((m) => amqpHeaders(m).aggregate_id === key)
        .map((m) => amqpHeaders(m).n);
      expect(ns).toEqual(Array.from({ length: count }, (_, n) => String(n)));
    }
  });

  it('Given headers of any UTF-8 text (empty, emoji, NUL, 100 headers), when published, then the broker holds their exact bytes', async () => {
    const topic = await queue();
    const headers: Record<string, string> = { empty: '', 'ключ-ü': 'värde 😀', nul: 'a\u0000b' };
    for (let i = 0; i < 100; i++) headers[`h-${i}`] = `value-${i}-${'é'.repeat(i % 5)}`;
    const sent = record(topic, 'Ünïcødé 😀', 'payload', headers);
    await start().publish([sent], never);
    const [got] = await admin.drain(topic, 1);
    expect(amqpHeaders(got!)).toEqual(sent.headers);
  });

  it('Given an exchange with no queue bound for one routing key, when a publish carries a routable and an unroutable record, then it rejects as permanent (no_topic, UNROUTABLE) and the routable record was delivered', async () => {
    const exchange = uniqueTopic('rmq-contract-x');
    exchanges.push(exchange);
    await admin.channel.assertExchange(exchange, 'direct', { durable: false });
    const bound = await queue();
    await admin.channel.bindQueue(bound, exchange, bound);
    const publisher = start({ exchange });
    const error = await failureOf(
      publisher.publish(
        [record(bound, 'a', 'routed'), record('nobody-listens', 'b', 'lost')],
        never,
      ),
    );
    expect(error).toMatchObject({ name: 'RabbitMqPublishError', type: 'UNROUTABLE' });
    expect(classifyKafkaError(error)).toBe('permanent');
    expect(publishFailureReason(error)).toBe('no_topic');
    const [got] = await admin.drain(bound, 1);
    expect(got!.content.toString()).toBe('routed');
    const acks = await publisher.publish([record(bound, 'a', 'after')], never);
    expect(acks).toHaveLength(1);
  });

  it('Given an exchange that does not exist, when a record is published to it, then the error is permanent (no_topic), again on the next publish (a new channel, not a dead one), and another exchange still works', async () => {
    const publisher = start({ exchange: uniqueTopic('rmq-missing-x') });
    const error = await failureOf(publisher.publish([record('any', 'k', 'v')], never));
    expect(error).toMatchObject({ type: 'UNKNOWN_TOPIC_OR_PARTITION' });
    expect(classifyKafkaError(error)).toBe('permanent');
    expect(publishFailureReason(error)).toBe('no_topic');
    const again = await failureOf(publisher.publish([record('any', 'k', 'v')], never));
    expect(again).toMatchObject({ type: 'UNKNOWN_TOPIC_OR_PARTITION' });
    const topic = await queue();
    const working = start();
    await working.publish([record(topic, 'k', 'v')], never);
    expect(await admin.drain(topic, 1)).toHaveLength(1);
  });

  it('Given maxMessageBytes of 1 KiB, when a 4 KiB record is published, then the error is permanent (message_too_large) and nothing of the publish was sent', async () => {
    const topic = await queue();
    const publisher = start({ maxMessageBytes: 1024 });
    const error = await failureOf(
      publisher.publish([record(topic, 'a', 'small'), record(topic, 'b', 'x'.repeat(4096))], never),
    );
    expect(classifyKafkaError(error)).toBe('permanent');
    expect(publishFailureReason(error)).toBe('message_too_large');
    expect((await admin.channel.checkQueue(topic)).messageCount).toBe(0);
  });

  it('Given headers larger than an AMQP header table holds, when published, then the error is permanent (unencodable) and the channel still works', async () => {
    const topic = await queue();
    const publisher = start();
    const error = await failureOf(
      publisher.publish([record(topic, 'a', 'v', { huge: 'h'.repeat(70_000) })], never),
    );
    expect(classifyKafkaError(error)).toBe('permanent');
    expect(publishFailureReason(error)).toBe('unencodable');
    await publisher.publish([record(topic, 'a', 'fine')], never);
    const [got] = await admin.drain(topic, 1);
    expect(got!.content.toString()).toBe('fine');
  });

  it('Given confirms held by the network, when the connection breaks, then the publish rejects as transient and the next publish reconnects and is confirmed', async () => {
    const proxy = new StallProxy({
      host: '127.0.0.1',
      port: Number(new URL(RABBITMQ_URL).port || 5672),
    });
    const address = await proxy.start();
    try {
      const topic = await queue();
      const url = new URL(RABBITMQ_URL);
      url.host = address;
      const publisher = start({ url: url.toString() });
      await publisher.connect();
      proxy.stall();
      const publishing = failureOf(publisher.publish([record(topic, 'k', 'held')], never));
      await new Promise((resolve) => setImmediate(resolve));
      proxy.cut();
      const error = await publishing;
      expect(error).toBeInstanceOf(Error);
      expect(classifyKafkaError(error)).toBe('transient');
      proxy.unstall();
      await publisher.publish([record(topic, 'k', 'after')], never);
      const read = await admin.drain(topic, 1);
      expect(read.map((m) => m.content.toString())).toContain('after');
    } finally {
      await proxy.stop();
    }
  });

  it('Given a publish of 2000 records waiting for its confirms, when its signal aborts, then it rejects with the reason, and the next publish works', async () => {
    const topic = await queue();
    const publisher = start();
    await publisher.connect();
    const controller = new AbortController();
    const reason = new Error('aborted by the contract');
    const batch = Array.from({ length: 2000 }, (_, n) => record(topic, `k${n % 5}`, `v${n}`));
    const publishing = publisher.publish(batch, controller.signal);
    controller.abort(reason);
    await expect(publishing).rejects.toBe(reason);
    await publisher.publish([record(topic, 'after', 'after')], never);
    await admin.channel.purgeQueue(topic);
  });

  it('Given a connected adapter, when pinged, then it answers true; against a closed port, false within the timeout', async () => {
    const publisher = start();
    await publisher.connect();
    expect(await publisher.ping(5000)).toBe(true);
    const nowhere = start({ url: 'amqp://guest:guest@127.0.0.1:1' });
    expect(await nowhere.ping(2000)).toBe(false);
  });
});
