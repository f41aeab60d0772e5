import { Logger } from '@nestjs/common';
import {
  Kafka,
  Partitioners,
  logLevel,
  type Admin,
  type CompressionTypes,
  type KafkaConfig,
  type Message,
  type Producer,
  type ProducerConfig,
  type RecordMetadata,
} from 'kafkajs';
import { PublishTimeoutError } from '../errors/publish-timeout.error';
import { kafkaCompression, type PublisherEncoding } from './compression';
import { guardTraceHeaders } from './trace-headers.guard';
import {
  isConnectionError,
  isProducerStateError,
  kafkaLogCreator,
  publishAcks,
  rejectOnAbort,
} from './kafka-client.support';
import { partitionOf, recordingPartitioner } from './key-partitioner';
import { SocketTracker } from './socket.tracker';
import type { PublishAck, PublishRecord, RelayPublisher } from './relay-publisher.interface';

/**
 * kafkajs adapter: an idempotent producer (`acks: -1`, `maxInFlightRequests: 1`), record key =
 * aggregate id, publish time as timestamp. On abort the producer is abandoned: its sockets are
 * destroyed (`disconnect()` would wait up to `requestTimeout`); the next publish makes a new one.
 * @publicApi
 */
export class KafkaPublisher implements RelayPublisher {
  private readonly logger = new Logger('RelayKafkaPublisher');
  private readonly config: KafkaConfig;
  private readonly compression: CompressionTypes;
  /** Each producer (and the admin) has a kafkajs client of its own, with tracked sockets. */
  private readonly trackers = new WeakMap<object, SocketTracker>();
  private producer: Producer | undefined;
  private connecting: Promise<Producer> | undefined;
  /** The producer being connected, so that an abort can cancel the connect too. */
  private pending: Producer | undefined;
  private admin: Admin | undefined;
  /** The partition each record's latest failed send is pinned on (see `failedPartition`). */
  private readonly failedOn = new WeakMap<PublishRecord, number>();

  /** @param encoding the compression of the record batches (`none` by default) */
  constructor(
    config: KafkaConfig,
    private readonly producerConfig: Omit<
      ProducerConfig,
      'idempotent' | 'maxInFlightRequests'
    > = {},
    encoding: PublisherEncoding = {},
  ) {
    this.config = { logLevel: logLevel.WARN, logCreator: kafkaLogCreator(this.logger), ...config };
    this.compression = kafkaCompression(encoding.compression ?? 'none');
  }

  /** A kafkajs client whose sockets `tracker` can destroy. */
  private client(tracker: SocketTracker): Kafka {
    return new Kafka({ ...this.config, socketFactory: tracker.factory });
  }

  /** Destroys a client's sockets at once, then lets kafkajs tidy up in the background. */
  private abandon(client: Producer | Admin): void {
    this.trackers.get(client)?.close();
    void client.disconnect().catch(() => undefined);
  }

  async connect(): Promise<void> {
    await this.ensureProducer();
  }

  private ensureProducer(): Promise<Producer> {
    if (this.producer) return Promise.resolve(this.producer);
    this.connecting ??= (async () => {
      const inner = Partitioners.DefaultPartitioner();
      const tracker = new SocketTracker(this.config.socketFactory);
      const producer = this.client(tracker).producer({
        allowAutoTopicCreation: false,
        retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
        ...this.producerConfig,
        idempotent: true,
        maxInFlightRequests: 1,
        // Records each message's partition (offsets are per partition).
        createPartitioner: () => recordingPartitioner(inner),
      });
      this.trackers.set(producer, tracker);
      this.pending = producer;
      try {
        await producer.connect();
      } catch (error) {
        this.abandon(producer);
        throw error;
      } finally {
        this.connecting = undefined;
        if (this.pending === producer) this.pending = undefined;
      }
      this.producer = producer;
      return producer;
    })();
    return this.connecting;
  }

  /** Cancels the producer being connected, if any. */
  private abandonConnect(): void {
    const connecting = this.pending;
    if (!connecting) return;
    this.pending = undefined;
    this.connecting = undefined;
    this.abandon(connecting);
  }

  /** Drops the producer (its in-flight requests fail); the next publish makes a new one. */
  private reset(producer: Producer): void {
    if (this.producer === producer) this.producer = undefined;
    this.abandon(producer);
  }

  /** Publishes `records` with one `sendBatch` (kafkajs sends one request per partition leader). */
  async publish(records: readonly PublishRecord[], signal: AbortSignal): Promise<PublishAck[]> {
    const abort = rejectOnAbort(signal);
    try {
      const producer = await Promise.race([this.ensureProducer(), abort.promise]);
      const messages: Message[] = records.map(({ key, value, headers }) => ({
        key,
        value,
        headers: guardTraceHeaders(headers),
      }));
      const byTopic = new Map<string, Message[]>();
      records.forEach((r, i) => {
        const list = byTopic.get(r.topic) ?? [];
        list.push(messages[i]!);
        byTopic.set(r.topic, list);
      });
      const sending = producer.sendBatch({
        acks: -1,
        compression: this.compression,
        topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })),
      });
      sending.catch(() => undefined);
      let metadata: RecordMetadata[];
      try {
        metadata = await Promise.race([sending, abort.promise]);
      } catch (error) {
        if (signal.aborted || isConnectionError(error) || isProducerStateError(error))
          this.reset(producer);
        this.pin(records, messages);
        throw error;
      }
      return publishAcks(records, (i) => partitionOf(messages[i]!), metadata);
    } catch (error) {
      if (signal.aborted) this.abandonConnect();
      if (signal.aborted && !(error instanceof PublishTimeoutError)) {
        const reason: unknown = signal.reason;
        throw reason instanceof Error ? reason : new Error('publish aborted');
      }
      throw error;
    } finally {
      abort.dispose();
    }
  }

  /** The partition the latest failed send of `record` is pinned on (one partition only). */
  failedPartition(record: PublishRecord): number | undefined {
    return this.failedOn.get(record);
  }

  /** A failed request pins its records on their partition when it held one partition only. */
  private pin(records: readonly PublishRecord[], messages: readonly Message[]): void {
    const places = new Set(records.map((r, i) => `${partitionOf(messages[i]!)}:${r.topic}`));
    const partition = places.size === 1 ? partitionOf(messages[0]!) : -1;
    for (const r of records)
      void (partition >= 0 ? this.failedOn.set(r, partition) : this.failedOn.delete(r));
  }

  async ping(timeoutMs: number): Promise<boolean> {
    let admin = this.admin;
    if (!admin) {
      const tracker = new SocketTracker(this.config.socketFactory);
      admin = this.admin = this.client(tracker).admin({ retry: { retries: 0 } });
      this.trackers.set(admin, tracker);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>(
      (resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)),
    );
    const probe = (async () => {
      await admin.connect();
      await admin.describeCluster();
      return true;
    })().catch(() => false);
    const ok = await Promise.race([probe, timeout]);
    clearTimeout(timer);
    if (!ok) {
      if (this.admin === admin) this.admin = undefined;
      this.abandon(admin);
    }
    return ok;
  }

  /**
   * Disconnects gracefully, bounded: a client still waiting for a stalled broker after
   * `graceMs` is abandoned (its sockets destroyed), so shutdown never waits `requestTimeout`.
   */
  async disconnect(graceMs = 1000): Promise<void> {
    this.abandonConnect();
    const clients = [this.producer, this.admin].filter((c): c is Producer | Admin => !!c);
    this.producer = undefined;
    this.admin = undefined;
    await Promise.all(
      clients.map(async (client) => {
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
        await Promise.race([client.disconnect().catch(() => undefined), grace]);
        clearTimeout(timer);
        this.trackers.get(client)?.close();
      }),
    );
  }
}
