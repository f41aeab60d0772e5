import type { Socket } from 'node:net';
import type { Admin, Base, BaseOptions, MessageToProduce, Producer } from '@platformatic/kafka';
import type { KafkaConfig, RecordMetadata } from 'kafkajs';
import type { RelayCompression } from '../publisher/compression';
import {
  isProducerStateError,
  publishAcks,
  rejectOnAbort,
} from '../publisher/kafka-client.support';
import { keyPartition } from '../publisher/key-partitioner';
import type {
  PublishAck,
  PublishRecord,
  RelayPublisher,
} from '../publisher/relay-publisher.interface';
import { guardTraceHeaders } from '../publisher/trace-headers.guard';
import { platformaticClientOptions } from './platformatic-config';
import { platformaticError } from './platformatic-kafka.error';
import { loadPlatformaticKafka, type PlatformaticKafkaModule } from './platformatic.loader';

type Message = MessageToProduce<Buffer, Buffer, Buffer, Buffer> & { partition: number };

/** The client's own bounded retries (an idempotent producer would otherwise retry forever). */
const RETRIES = { retries: 3, retryDelay: 250 };

const abortError = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('publish aborted');

/**
 * `@platformatic/kafka` adapter (`client: 'platformatic'`): an idempotent producer (acks all,
 * one request in flight per connection), key = aggregate id, each record placed by Kafka's
 * murmur2 of its key as Java's and the kafkajs adapter's partitioner do. A connection broken
 * mid-request is retried by the same producer, whose sequence numbers let the broker drop what
 * it already appended. On abort the producer is closed and its sockets destroyed; the next
 * publish makes a new one.
 * @internal
 */
export class PlatformaticKafkaPublisher implements RelayPublisher {
  private readonly kafka: PlatformaticKafkaModule = loadPlatformaticKafka();
  private readonly options: BaseOptions;
  private producer: Producer | undefined;
  private admin: Admin | undefined;
  /** The partition each record's latest failed send is pinned on (see `failedPartition`). */
  private readonly failedOn = new WeakMap<PublishRecord, number>();
  private readonly headerNames = new Map<string, Buffer>();

  constructor(
    config: KafkaConfig,
    private readonly compression: RelayCompression = 'none',
  ) {
    this.options = platformaticClientOptions(config);
  }

  private ensureProducer(): Producer {
    this.producer ??= new this.kafka.Producer({
      ...this.options,
      ...RETRIES,
      idempotent: true,
      acks: this.kafka.ProduceAcks.ALL,
      compression: this.compression,
      autocreateTopics: false,
    });
    return this.producer;
  }

  async connect(): Promise<void> {
    const producer = this.ensureProducer();
    try {
      await producer.initIdempotentProducer({});
    } catch (error) {
      throw platformaticError(error);
    }
  }

  async publish(records: readonly PublishRecord[], signal: AbortSignal): Promise<PublishAck[]> {
    if (signal.aborted) throw abortError(signal);
    const abort = rejectOnAbort(signal);
    const producer = this.ensureProducer();
    let messages: Message[] = [];
    try {
      messages = await Promise.race([this.place(producer, records), abort.promise]);
      const sending = producer.send({ messages });
      sending.catch(() => undefined);
      const { offsets = [] } = await Promise.race([sending, abort.promise]);
      const metadata = offsets.map(
        (o): RecordMetadata => ({
          topicName: o.topic,
          partition: o.partition,
          baseOffset: o.offset.toString(),
          errorCode: 0,
        }),
      );
      return publishAcks(records, (i) => messages[i]!.partition, metadata);
    } catch (error) {
      if (signal.aborted) {
        this.drop(producer);
        throw abortError(signal);
      }
      this.pin(records, messages);
      const failure = platformaticError(error);
      // The broker refuses this producer's sequence numbers from now on: start a new one.
      if (isProducerStateError(failure)) this.drop(producer);
      throw failure;
    } finally {
      abort.dispose();
    }
  }

  /** The records as the client sends them, each on the partition its key hashes to. */
  private async place(producer: Producer, records: readonly PublishRecord[]): Promise<Message[]> {
    const topics = [...new Set(records.map((r) => r.topic))];
    let counts: Map<string, number>;
    try {
      const metadata = await producer.metadata({ topics });
      counts = new Map(topics.map((t) => [t, metadata.topics.get(t)?.partitionsCount ?? 0]));
    } catch (error) {
      // The client answers a topic the broker does not know (and will not create) with a
      // UserError that has lost the protocol error: it is this one.
      const unknown = (error as { code?: unknown }).code === 'PLT_KFK_USER';
      throw platformaticError(error, unknown ? 'UNKNOWN_TOPIC_OR_PARTITION' : undefined);
    }
    return records.map(({ topic, key, value, headers }) => {
      const bytes = Buffer.from(key, 'utf8');
      const map = new Map<Buffer, Buffer>();
      for (const [k, v] of Object.entries(guardTraceHeaders(headers)))
        map.set(this.headerName(k), Buffer.from(v, 'utf8'));
      return {
        topic,
        key: bytes,
        value: Buffer.from(value, 'utf8'),
        headers: map,
        partition: keyPartition(bytes, counts.get(topic) || 1),
      };
    });
  }

  /** The bytes of a header name: the same few names on every record, kept (up to 256). */
  private headerName(name: string): Buffer {
    let bytes = this.headerNames.get(name);
    if (!bytes) {
      bytes = Buffer.from(name, 'utf8');
      if (this.headerNames.size < 256) this.headerNames.set(name, bytes);
    }
    return bytes;
  }

  /** The partition the latest failed send of `record` is pinned on (one partition only). */
  failedPartition(record: PublishRecord): number | undefined {
    return this.failedOn.get(record);
  }

  /** A failed request pins its records on their partition when it held one partition only. */
  private pin(records: readonly PublishRecord[], messages: readonly Message[]): void {
    const places = new Set(messages.map((m) => `${m.partition}:${m.topic}`));
    const partition =
      messages.length === records.length && places.size === 1 ? messages[0]!.partition : -1;
    for (const r of records)
      void (partition >= 0 ? this.failedOn.set(r, partition) : this.failedOn.delete(r));
  }

  /** Drops the producer: closed, its sockets destroyed; the next publish makes a new one. */
  private drop(producer: Producer): void {
    if (this.producer === producer) this.producer = undefined;
    void closeClient(producer, 0);
  }

  async ping(timeoutMs: number): Promise<boolean> {
    const admin = (this.admin ??= new this.kafka.Admin({ ...this.options, retries: 0 }));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>(
      (resolve) => (timer = setTimeout(resolve, timeoutMs, false)),
    );
    const probe = admin.metadata({ topics: [], forceUpdate: true }).then(
      () => true,
      () => false,
    );
    const ok = await Promise.race([probe, timeout]);
    clearTimeout(timer);
    if (!ok) {
      if (this.admin === admin) this.admin = undefined;
      void closeClient(admin, 0);
    }
    return ok;
  }

  /** Closes both clients; after `graceMs` whatever is still open is destroyed. */
  async disconnect(graceMs = 1000): Promise<void> {
    const clients = [this.producer, this.admin].filter((c): c is Producer | Admin => !!c);
    this.producer = undefined;
    this.admin = undefined;
    await Promise.all(clients.map((client) => closeClient(client, graceMs)));
  }
}

/** Closes `client` and, after `graceMs`, destroys the sockets it still had open. */
async function closeClient(client: Base, graceMs: number): Promise<void> {
  const sockets: (Socket | undefined)[] = [];
  for (const [, connection] of client.connections) sockets.push(connection.socket);
  const closing = client.close().catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  if (graceMs > 0)
    await Promise.race([closing, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
  clearTimeout(timer);
  for (const socket of sockets) socket?.destroy();
}
