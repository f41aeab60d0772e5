import { randomUUID } from 'node:crypto';
import { EVENT_HEADERS } from '@nest-outbox/core';
import type { ChannelModel, ConfirmChannel, Message, Options } from 'amqplib';
import { UnencodableEventError } from '../errors/unencodable-event.error';
import { rejectOnAbort } from '../publisher/kafka-client.support';
import type {
  PublishAck,
  PublishRecord,
  RelayPublisher,
} from '../publisher/relay-publisher.interface';
import { guardTraceHeaders } from '../publisher/trace-headers.guard';
import { loadAmqplib, type AmqplibModule } from './amqplib.loader';
import { closedChannelError, RabbitMqPublishError } from './rabbitmq-publish.error';
import type { RelayRabbitMqOptions } from './rabbitmq.options';

/** One connection and its confirm channel; `closedBy` is why the broker closed either. */
interface Link {
  readonly connection: ChannelModel;
  readonly channel: ConfirmChannel;
  /** Messages in flight by message id: set when the broker returned one (unroutable). */
  readonly returns: Map<string, { returned: boolean }>;
  closedBy?: unknown;
  closed: boolean;
  /** The channel's publish sequence number (what its confirms count). */
  sequence: number;
}

const abortError = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('publish aborted');

/**
 * `amqplib` adapter (`broker: 'rabbitmq'`): one connection, one confirm channel. A publish sends
 * every record at once (pipelined), `mandatory` and persistent, then waits for all the broker's
 * confirms: it resolves only when every record was confirmed and none was returned. Routing key
 * = topic on the configured exchange; the contract headers as AMQP headers; `messageId` = event
 * id, `type` = event type, `timestamp` = publish time. A returned (unroutable) record, a missing
 * exchange, a refused write or a body over `maxMessageBytes` park the event; a lost connection
 * or channel is transient and the next publish opens new ones. On abort the connection is
 * closed. The ack of a record is partition 0 and the channel's publish sequence number.
 * @internal
 */
export class RabbitMqPublisher implements RelayPublisher {
  private readonly amqp: AmqplibModule = loadAmqplib();
  private readonly exchange: string;
  private readonly maxMessageBytes: number;
  private link: Link | undefined;
  private opening: Promise<Link> | undefined;

  constructor(private readonly options: RelayRabbitMqOptions) {
    this.exchange = options.exchange ?? '';
    this.maxMessageBytes = options.maxMessageBytes ?? 16 * 1024 * 1024;
  }

  async connect(): Promise<void> {
    await this.open();
  }

  async publish(records: readonly PublishRecord[], signal: AbortSignal): Promise<PublishAck[]> {
    if (signal.aborted) throw abortError(signal);
    const abort = rejectOnAbort(signal);
    let link: Link | undefined;
    try {
      link = await Promise.race([this.open(), abort.promise]);
      const sending = this.send(link, records);
      sending.catch(() => undefined);
      return await Promise.race([sending, abort.promise]);
    } catch (error) {
      if (!signal.aborted) throw error;
      if (link) this.drop(link);
      throw abortError(signal);
    } finally {
      abort.dispose();
    }
  }

  private open(): Promise<Link> {
    if (this.link && !this.link.closed) return Promise.resolve(this.link);
    this.opening ??= this.openLink().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async openLink(): Promise<Link> {
    const connection = await this.amqp.connect(this.options.url, {
      clientProperties: { connection_name: this.options.connectionName ?? 'nest-outbox-relay' },
    });
    let channel: ConfirmChannel;
    try {
      channel = await connection.createConfirmChannel();
    } catch (error) {
      void connection.close().catch(() => undefined);
      throw error;
    }
    const link: Link = { connection, channel, returns: new Map(), closed: false, sequence: 0 };
    const failed = (error: unknown) => (link.closedBy ??= error);
    connection.on('error', failed);
    connection.on('close', () => this.drop(link));
    channel.on('error', failed);
    channel.on('close', () => this.drop(link));
    channel.on('return', (message: Message) => {
      const sent = link.returns.get(String(message.properties.messageId));
      if (sent) sent.returned = true;
    });
    this.link = link;
    return link;
  }

  /**
   * Sends the records pipelined and waits for all their confirms (a return precedes its
   * confirm). A record whose aggregate has an earlier record of another topic in flight waits
   * for the confirms so far: were that one unroutable, this one must not reach a queue before it.
   */
  private async send(link: Link, records: readonly PublishRecord[]): Promise<PublishAck[]> {
    const bodies = records.map((r) => this.body(r));
    const sent = records.map(() => ({ returned: false }));
    const ids = records.map((r) => r.headers[EVENT_HEADERS.eventId] || randomUUID());
    const confirms: Promise<unknown>[] = [];
    const acks: PublishAck[] = [];
    const wave = new Map<string, string>();
    try {
      for (const [i, record] of records.entries()) {
        const aggregate = `${record.headers[EVENT_HEADERS.aggregateType]}\u0000${record.key}`;
        if ((wave.get(aggregate) ?? record.topic) !== record.topic) {
          await this.settled(link, confirms, records, sent);
          wave.clear();
        }
        wave.set(aggregate, record.topic);
        link.returns.set(ids[i]!, sent[i]!);
        const { written, confirm, thrown } = this.publishOne(link, record, bodies[i]!, ids[i]!);
        confirms.push(confirm);
        acks.push({ partition: 0, offset: String(++link.sequence) });
        if (thrown) break;
        if (!written) await drained(link);
      }
      await this.settled(link, confirms, records, sent);
      return acks;
    } finally {
      ids.forEach((id, i) => link.returns.get(id) === sent[i] && link.returns.delete(id));
    }
  }

  /** Waits for the confirms so far; throws the first failure, or the records returned. */
  private async settled(
    link: Link,
    confirms: readonly Promise<unknown>[],
    records: readonly PublishRecord[],
    sent: readonly { returned: boolean }[],
  ): Promise<void> {
    const failure = (await Promise.allSettled(confirms)).find((r) => r.status === 'rejected');
    if (failure) throw this.failure(link, failure.reason);
    const returned = records.filter((_, i) => sent[i]!.returned);
    if (returned.length > 0) throw this.unroutable(returned);
  }

  private publishOne(link: Link, record: PublishRecord, body: Buffer, messageId: string) {
    let written = true;
    let thrown = false;
    const confirm = new Promise<void>((resolve, reject) => {
      try {
        written = link.channel.publish(
          this.exchange,
          record.topic,
          body,
          this.properties(record, messageId),
          (error: unknown) => (error ? reject(error as Error) : resolve()),
        );
      } catch (error) {
        thrown = true;
        reject(error as Error);
      }
    });
    confirm.catch(() => undefined);
    return { written, confirm, thrown };
  }

  private body(record: PublishRecord): Buffer {
    const body = Buffer.from(record.value, 'utf8');
    if (body.length > this.maxMessageBytes)
      throw new RabbitMqPublishError(
        'MESSAGE_TOO_LARGE',
        `a body of ${body.length} bytes exceeds rabbitmq.maxMessageBytes (${this.maxMessageBytes}): raise it (under the broker's max_message_size) or make the event smaller`,
      );
    return body;
  }

  private properties(record: PublishRecord, messageId: string): Options.Publish {
    return {
      mandatory: true,
      persistent: true,
      messageId,
      type: record.headers[EVENT_HEADERS.eventType],
      timestamp: Math.floor(Date.now() / 1000),
      contentType: 'application/json',
      headers: guardTraceHeaders(record.headers),
    };
  }

  /** What a failed confirm means: the broker closed the channel (typed), a header too big, or a nack. */
  private failure(link: Link, error: unknown): unknown {
    if (error instanceof RangeError)
      return new UnencodableEventError(`its AMQP headers do not fit: ${error.message}`);
    if (link.closedBy !== undefined || link.closed) return closedChannelError(link.closedBy);
    const nacked = error instanceof Error && error.message === 'message nacked';
    return new RabbitMqPublishError(
      nacked ? 'NACKED' : undefined,
      nacked ? 'the broker nacked a message (an internal error of the broker)' : String(error),
      error,
    );
  }

  private unroutable(returned: readonly PublishRecord[]): RabbitMqPublishError {
    const keys = [...new Set(returned.map((r) => r.topic))].map((t) => JSON.stringify(t));
    return new RabbitMqPublishError(
      'UNROUTABLE',
      `${returned.length} message(s) returned unroutable: no queue is bound to exchange ${JSON.stringify(this.exchange)} for routing key(s) ${keys.join(', ')}; bind a queue, then retry the parked event`,
    );
  }

  /** Forgets the link and closes its connection (in-flight confirms fail with channel closed). */
  private drop(link: Link): void {
    if (this.link === link) this.link = undefined;
    if (link.closed) return;
    link.closed = true;
    void link.connection.close().catch(() => undefined);
  }

  async ping(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>(
      (resolve) => (timer = setTimeout(resolve, timeoutMs, false)),
    );
    const probe = (async () => {
      const link = await this.open();
      const channel = await link.connection.createChannel();
      await channel.close();
      return true;
    })().catch(() => false);
    const ok = await Promise.race([probe, timeout]);
    clearTimeout(timer);
    return ok;
  }

  /** Closes the connection; after `graceMs` it is abandoned. */
  async disconnect(graceMs = 1000): Promise<void> {
    const link = this.link ?? (await this.opening?.catch(() => undefined));
    this.link = undefined;
    if (!link || link.closed) return;
    link.closed = true;
    let timer: NodeJS.Timeout | undefined;
    const closing = link.connection.close().catch(() => undefined);
    await Promise.race([closing, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }
}

/** Waits until the channel can take more (its `drain`) or closes. */
function drained(link: Link): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      link.channel.off('drain', done);
      link.channel.off('close', done);
      resolve();
    };
    link.channel.once('drain', done);
    link.channel.once('close', done);
  });
}
