import { Logger } from '@nestjs/common';
import {
  Kafka,
  Partitioners,
  logLevel,
  type Admin,
  type KafkaConfig,
  type LogEntry,
  type Message,
  type Producer,
  type ProducerConfig,
  type RecordMetadata,
} from 'kafkajs';
import { PublishTimeoutError } from '../errors/relay.errors';
import { installFastProduceEncoding, markFastRecord } from './encoding/kafkajs-produce.hook';
import { SocketTracker } from './socket.tracker';
import type { PublishAck, PublishRecord, RelayPublisher } from './relay-publisher.interface';

/**
 * Who encodes the relay's Produce requests: `relay` (its own encoder, the default) or
 * `kafkajs`. Both put the same bytes on the wire.
 * @publicApi
 */
export type KafkaRecordEncoder = 'relay' | 'kafkajs';

function kafkaLogCreator(logger: Logger) {
  return () =>
    ({ level, log }: LogEntry) => {
      // We limit the idempotent producer's retries on purpose (our own backoff retries).
      if (log.message.startsWith('Limiting retries for the idempotent producer')) return;
      const text = `kafkajs ${log.message}${log.broker ? ` broker=${String(log.broker)}` : ''}`;
      if (level === logLevel.ERROR) logger.error(text);
      else if (level === logLevel.WARN) logger.warn(text);
      else logger.debug(text);
    };
}

function rejectOnAbort(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let dispose = () => undefined as void;
  const promise = new Promise<never>((_, reject) => {
    const onAbort = () =>
      reject(signal.reason instanceof Error ? signal.reason : new Error('publish aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    dispose = () => signal.removeEventListener('abort', onAbort);
  });
  promise.catch(() => undefined);
  return { promise, dispose };
}

/**
 * kafkajs adapter: an idempotent producer (`acks: -1`, `maxInFlightRequests: 1`), record
 * key = aggregate id, publish time as the record timestamp. On abort the producer is
 * abandoned: its sockets are destroyed (kafkajs' own `disconnect()` would wait for the
 * in-flight request up to `requestTimeout`), which fails its in-flight requests and stops its
 * retries; a new producer (on a new kafkajs client) is created for the next publish.
 * @publicApi
 */
export class KafkaPublisher implements RelayPublisher {
  private readonly logger = new Logger('RelayKafkaPublisher');
  private readonly config: KafkaConfig;
  /** Each producer (and the admin) has a kafkajs client of its own, with tracked sockets. */
  private readonly trackers = new WeakMap<object, SocketTracker>();
  private producer: Producer | undefined;
  private connecting: Promise<Producer> | undefined;
  /** The producer being connected, so that an abort can cancel the connect too. */
  private pending: Producer | undefined;
  private admin: Admin | undefined;
  /** Partition each message went to, recorded by the partitioner (offsets are per partition). */
  private readonly partitions = new WeakMap<object, number>();
  /** Whether this publisher's requests are encoded by the relay's record encoder. */
  readonly fastEncoding: boolean;

  /**
   * @param encoder `relay`: the relay's own Produce request encoder (same bytes as kafkajs',
   *   about ten times less CPU per record); `kafkajs`: kafkajs' encoder.
   */
  constructor(
    config: KafkaConfig,
    private readonly producerConfig: Omit<
      ProducerConfig,
      'idempotent' | 'maxInFlightRequests'
    > = {},
    encoder: KafkaRecordEncoder = 'relay',
  ) {
    this.config = { logLevel: logLevel.WARN, logCreator: kafkaLogCreator(this.logger), ...config };
    this.fastEncoding = encoder === 'relay' && installFastProduceEncoding();
    if (encoder === 'relay' && !this.fastEncoding)
      this.logger.warn(
        "this kafkajs is not shaped like 2.2.x: records are encoded by kafkajs' own (slower) encoder",
      );
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
        createPartitioner: () => (args) => {
          const partition = inner(args);
          this.partitions.set(args.message, partition);
          return partition;
        },
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

  /** Drops the producer (its in-flight requests fail); the next publish makes a new one. */
  private reset(producer: Producer): void {
    if (this.producer === producer) this.producer = undefined;
    this.abandon(producer);
  }

  async publish(records: readonly PublishRecord[], signal: AbortSignal): Promise<PublishAck[]> {
    const abort = rejectOnAbort(signal);
    try {
      const producer = await Promise.race([this.ensureProducer(), abort.promise]);
      const messages: Message[] = records.map((r) => {
        const message: Message = { key: r.key, value: r.value, headers: r.headers };
        return this.fastEncoding ? markFastRecord(message) : message;
      });
      const byTopic = new Map<string, Message[]>();
      records.forEach((r, i) => {
        const list = byTopic.get(r.topic) ?? [];
        list.push(messages[i]!);
        byTopic.set(r.topic, list);
      });
      const sending = producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })),
      });
      sending.catch(() => undefined);
      let metadata: RecordMetadata[];
      try {
        metadata = await Promise.race([sending, abort.promise]);
      } catch (error) {
        if (signal.aborted) this.reset(producer);
        else if (isConnectionError(error)) this.reset(producer);
        throw error;
      }
      return this.acks(records, messages, metadata);
    } catch (error) {
      if (signal.aborted && this.pending) {
        const connecting = this.pending;
        this.pending = undefined;
        this.connecting = undefined;
        this.abandon(connecting);
      }
      if (signal.aborted && !(error instanceof PublishTimeoutError)) {
        const reason: unknown = signal.reason;
        throw reason instanceof Error ? reason : new Error('publish aborted');
      }
      throw error;
    } finally {
      abort.dispose();
    }
  }

  /** Offsets: each partition's base offset plus the record's index among that partition's records. */
  private acks(records: readonly PublishRecord[], messages: Message[], metadata: RecordMetadata[]) {
    const base = new Map<string, bigint>();
    for (const m of metadata)
      base.set(`${m.topicName}\u0000${m.partition}`, BigInt(m.baseOffset ?? '-1'));
    const next = new Map<string, bigint>();
    return records.map((r, i) => {
      const partition = this.partitions.get(messages[i]!) ?? -1;
      const slot = `${r.topic}\u0000${partition}`;
      const offset = next.get(slot) ?? base.get(slot) ?? -1n;
      next.set(slot, offset + 1n);
      return { partition, offset: offset.toString() };
    });
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
    const connecting = this.pending;
    if (connecting) {
      this.pending = undefined;
      this.connecting = undefined;
      this.abandon(connecting);
    }
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

function isConnectionError(error: unknown): boolean {
  for (let e: unknown = error, i = 0; e && i < 5; i++) {
    const name = (e as { name?: unknown }).name;
    if (name === 'KafkaJSConnectionError' || name === 'KafkaJSConnectionClosedError') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
