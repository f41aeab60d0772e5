import { connect, type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { waitFor } from './poll';

/** The test RabbitMQ (a system service on the project's machines; `.ci/run` starts it). */
export const RABBITMQ_URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** A connection and channel of a test, to declare queues and read what was published. */
export interface RabbitTestClient {
  readonly connection: ChannelModel;
  readonly channel: Channel;
  /** Every message of `queue` (acknowledged), waiting until there are `count`. */
  drain(queue: string, count: number, timeoutMs?: number): Promise<ConsumeMessage[]>;
  /** Deletes the queues and exchanges named, then closes. */
  close(cleanup?: { queues?: string[]; exchanges?: string[] }): Promise<void>;
}

export async function rabbitTestClient(): Promise<RabbitTestClient> {
  const connection = await connect(RABBITMQ_URL);
  const channel = await connection.createChannel();
  return {
    connection,
    channel,
    async drain(queue, count, timeoutMs = 20_000) {
      const got: ConsumeMessage[] = [];
      const { consumerTag } = await channel.consume(queue, (m) => m && got.push(m), {
        noAck: true,
      });
      try {
        await waitFor(`${count} messages on ${queue}`, () => got.length >= count, { timeoutMs });
      } finally {
        await channel.cancel(consumerTag);
      }
      return got;
    },
    async close(cleanup = {}) {
      for (const q of cleanup.queues ?? []) await channel.deleteQueue(q).catch(() => undefined);
      for (const x of cleanup.exchanges ?? [])
        await channel.deleteExchange(x).catch(() => undefined);
      await connection.close().catch(() => undefined);
    },
  };
}

/** The AMQP headers of a message as strings. */
export function amqpHeaders(message: ConsumeMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(message.properties.headers ?? {}))
    out[k] = Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  return out;
}
