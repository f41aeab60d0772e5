import { randomBytes, randomUUID } from 'node:crypto';
import { natsConnectOptions, OptionChecks } from '@nest-outbox/core/internal';
import { NATS_SERVERS, createTestStream, type TestStream } from '@test/support';
import { classifyKafkaError } from '../src/errors/error-classifier';
import { publishFailureReason } from '../src/errors/failure-reason';
import { UnencodableEventError } from '../src/errors/unencodable-event.error';
import { NatsJetStreamPublisher } from '../src/jetstream/nats-jetstream.publisher';
import type { PublishRecord } from '../src/publisher/relay-publisher.interface';

jest.setTimeout(60_000);

const never = new AbortController().signal;
const options = (servers = NATS_SERVERS) =>
  natsConnectOptions(new OptionChecks('test'), 'nats', { servers, name: 'contract-jetstream' });
const record = (
  topic: string,
  key: string,
  value: string,
  headers: Record<string, string> = {},
): PublishRecord => ({
  topic,
  key,
  value,
  headers: { event_id: randomUUID(), aggregate_type: 'thing', ...headers },
});

/** Aggregate ids of every shape: subject characters, accents, emoji, NUL, spaces. */
const ODD_KEYS = [
  'order-1',
  'a.b.c',
  '*',
  '>',
  'with space',
  'Ünïcødé-ключ',
  '😀',
  'nul\u0000in',
  '%41',
];

describe('The publisher port on the nats-jetstream adapter (real NATS JetStream)', () => {
  let publisher: NatsJetStreamPublisher;
  const streams: TestStream[] = [];
  const stream = async (prefix: string, config = {}) => {
    const made = await createTestStream(prefix, config);
    streams.push(made);
    return made;
  };
  beforeEach(() => (publisher = new NatsJetStreamPublisher(options(), 5000)));
  afterEach(async () => {
    await publisher.disconnect(100);
    for (const s of streams.splice(0)) await s.close();
  });

  it('Given 20 publishes of 50 records over 7 aggregates, when each resolves, then every ack names the stored sequence, each aggregate keeps its order on its own subject, and nothing is duplicated', async () => {
    const { topic, read } = await stream('contract-order');
    const sent: { record: PublishRecord; offset: string }[] = [];
    const next = new Map<string, number>();
    for (let p = 0; p < 20; p++) {
      const batch = Array.from({ length: 50 }, (_, i) => {
        const key = `key-${(p * 50 + i) % 7}`;
        const n = next.get(key) ?? 0;
        next.set(key, n + 1);
        return record(topic, key, `${key}#${n}`);
      });
      const acks = await publisher.publish(batch, never);
      batch.forEach((r, i) => sent.push({ record: r, offset: acks[i]!.offset }));
    }
    const stored = await read();
    expect(stored).toHaveLength(1000);
    const bySeq = new Map(stored.map((r) => [r.offset, r]));
    for (const { record: r, offset } of sent) {
      expect(bySeq.get(offset)).toMatchObject({ key: r.key, value: r.value });
      expect(bySeq.get(offset)?.headers.event_id).toBe(r.headers.event_id);
    }
    for (const [key, count] of next)
      expect(stored.filter((r) => r.key === key).map((r) => r.value)).toEqual(
        Array.from({ length: count }, (_, n) => `${key}#${n}`),
      );
  });

  it('Given aggregate ids of any text and headers of any UTF-8 value (100 headers, NUL, emoji), when published, then each lands on a one-token subject that decodes to its id, with the exact header values', async () => {
    const { topic, read } = await stream('contract-bytes');
    const headers: Record<string, string> = { empty: '', utf8: 'värde 😀', nul: 'a\u0000b' };
    for (let i = 0; i < 100; i++) headers[`h-${i}`] = `value-${i}-${'é'.repeat(i % 5)}`;
    const batch = ODD_KEYS.map((key) => record(topic, key, `value of ${key}`, headers));
    await publisher.publish(batch, never);
    const stored = await read();
    expect(stored.map((r) => r.key).sort()).toEqual([...ODD_KEYS].sort());
    for (const r of batch) {
      const found = stored.find((s) => s.headers.event_id === r.headers.event_id)!;
      expect(found.value).toBe(r.value);
      for (const [name, value] of Object.entries(r.headers))
        expect(found.headers[name]).toBe(value);
      expect(found.headers['Nats-Msg-Id']).toBe(r.headers.event_id);
    }
  });

  it('Given records already stored, when the same events are published again (a relay restarted before marking them), then the stream keeps each once and the acks name the first copies', async () => {
    const { topic, messages } = await stream('contract-dedup');
    const batch = Array.from({ length: 30 }, (_, n) => record(topic, `agg-${n % 4}`, `v${n}`));
    const first = await publisher.publish(batch, never);
    const restarted = new NatsJetStreamPublisher(options(), 5000);
    const again = await restarted.publish(batch, never);
    await restarted.disconnect(100);
    expect(again).toEqual(first);
    expect(await messages()).toBe(30);
  });

  it('Given a publish aborted while in flight, when it is published again, then it rejected with the abort reason and the stream holds each event once, in order', async () => {
    const { topic, read } = await stream('contract-abort');
    const batch = Array.from({ length: 200 }, (_, n) => record(topic, 'one', `v${n}`));
    const abort = new AbortController();
    const reason = new Error('timed out');
    const publishing = publisher.publish(batch, abort.signal);
    setImmediate(() => abort.abort(reason));
    await expect(publishing).rejects.toBe(reason);
    await publisher.publish(batch, never);
    expect((await read()).map((r) => r.value)).toEqual(batch.map((r) => r.value));
  });

  it('Given a subject no stream captures, when a record is published to it, then the error is permanent (no_topic) and says to add the subject to a stream', async () => {
    const missing = record(`contract-missing-${randomBytes(4).toString('hex')}`, 'k', 'v');
    const error: unknown = await publisher.publish([missing], never).catch((e: unknown) => e);
    expect(classifyKafkaError(error)).toBe('permanent');
    expect(publishFailureReason(error)).toBe('no_topic');
    expect((error as Error).message).toMatch(/no stream captures subject .*add the subject/);
  });

  it("Given a stream whose max_msg_size is 1 KiB and a message over the server's max_payload, when each is published, then both errors are permanent (message_too_large) and the other aggregate's record is stored", async () => {
    const { topic, messages } = await stream('contract-large', { max_msg_size: 1024 });
    for (const size of [2048, 2 * 1024 * 1024]) {
      const big = record(topic, 'big', 'x'.repeat(size));
      const error: unknown = await publisher
        .publish([big, record(topic, 'small', 'v')], never)
        .catch((e: unknown) => e);
      expect(classifyKafkaError(error)).toBe('permanent');
      expect(publishFailureReason(error)).toBe('message_too_large');
    }
    expect(await messages()).toBe(1);
  });

  it('Given a header NATS cannot carry (a name with a colon, a value with CR LF, a Nats- name), when published, then the publish is refused as unencodable before anything is sent', async () => {
    const { topic, messages } = await stream('contract-headers');
    const refused: Record<string, string>[] = [
      { 'a:b': 'x' },
      { fine: 'a\r\nb' },
      { 'Nats-Msg-Id': 'forged' },
    ];
    for (const headers of refused) {
      const error: unknown = await publisher
        .publish([record(topic, 'k', 'v', headers)], never)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnencodableEventError);
      expect(classifyKafkaError(error)).toBe('permanent');
    }
    expect(await messages()).toBe(0);
  });

  it('Given a connected adapter and one pointed at a port where nothing listens, when pinged, then the first answers true and the second false within the timeout', async () => {
    await publisher.connect();
    expect(await publisher.ping(5000)).toBe(true);
    const nowhere = new NatsJetStreamPublisher(options(['127.0.0.1:1']), 1000);
    expect(await nowhere.ping(500)).toBe(false);
    await nowhere.disconnect(0);
  });
});
