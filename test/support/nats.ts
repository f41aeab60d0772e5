import { randomBytes } from 'node:crypto';
import { jetstream, jetstreamManager, type StreamConfig } from '@nats-io/jetstream';
import type { ConnectionOptions, MsgHdrs, NatsConnection } from '@nats-io/nats-core';
import * as transport from '@nats-io/transport-node';
import type { ConsumedRecord } from './kafka';
import { waitFor } from './poll';

/** `connect` of `@nats-io/transport-node`, typed by nats-core (its own re-export is lost to lint). */
export const natsConnect = (
  transport as { connect: (o: ConnectionOptions) => Promise<NatsConnection> }
).connect;

/** The NATS server with JetStream of the tests (a system service; `.ci/run` starts it). */
export const NATS_SERVERS = (process.env.NATS_SERVERS ?? '127.0.0.1:4222').split(',');

/** A stream of a test's own, capturing `<topic>.>`, and its stored messages as records. */
export interface TestStream {
  readonly stream: string;
  readonly topic: string;
  /** Every stored message in stream order (`offset` = stream sequence, `key` = the decoded aggregate token). */
  read(): Promise<ConsumedRecord[]>;
  /** Waits until the stream holds at least `count` messages, then reads them all. */
  readUntil(count: number, timeoutMs?: number): Promise<ConsumedRecord[]>;
  messages(): Promise<number>;
  /** The test's own connection (for consumers and raw publishes). */
  readonly nc: NatsConnection;
  /** Deletes the stream and closes the connection. */
  close(): Promise<void>;
}

/** Creates a stream named after `prefix` with a unique suffix; `config` adds settings. */
export async function createTestStream(
  prefix: string,
  config: Partial<StreamConfig> = {},
): Promise<TestStream> {
  const suffix = randomBytes(4).toString('hex');
  const topic = `${prefix}-${suffix}`;
  const stream = `${prefix}_${suffix}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const nc = await natsConnect({ servers: NATS_SERVERS });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [`${topic}.>`], ...config });
  const messages = async () => (await jsm.streams.info(stream)).state.messages;
  const read = async (): Promise<ConsumedRecord[]> => {
    const total = await messages();
    const records: ConsumedRecord[] = [];
    if (total === 0) return records;
    const consumer = await jetstream(nc).consumers.get(stream);
    while (records.length < total) {
      const batch = await consumer.fetch({ max_messages: total - records.length, expires: 2000 });
      for await (const m of batch) {
        const headers: Record<string, string> = {};
        const stored = m.headers as MsgHdrs | undefined;
        for (const name of stored?.keys() ?? []) headers[name] = stored!.get(name);
        records.push({
          topic,
          partition: 0,
          offset: String(m.seq),
          key: decodeURIComponent(m.subject.slice(topic.length + 1)),
          value: m.string(),
          timestamp: String(m.info.timestampNanos),
          headers,
        });
      }
    }
    return records;
  };
  return {
    stream,
    topic,
    nc,
    read,
    messages,
    async readUntil(count, timeoutMs = 30_000) {
      await waitFor(`${count} messages in ${stream}`, async () => (await messages()) >= count, {
        timeoutMs,
      });
      return read();
    },
    async close() {
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
    },
  };
}
