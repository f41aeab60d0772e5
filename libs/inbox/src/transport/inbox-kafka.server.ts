import {
  KafkaContext,
  KafkaLogger,
  ServerKafka,
  type KafkaOptions,
  type MessageHandler,
} from '@nestjs/microservices';
import {
  Kafka,
  Partitioners,
  type Consumer,
  type EachBatchPayload,
  type KafkaMessage,
} from 'kafkajs';
import { InvalidOptionsError } from '@nest-outbox/core';
import { recordOf, type ChunkRecord, type InboxRoute } from '../chunk/chunk';
import type { ConsumerSession } from '../consumer/consumer.session';
import { kafkajsConsumerPort } from '../consumer/kafkajs-consumer.port';
import { offsetsInLog } from '../consumer/offsets-in-log';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import { fetchGuard } from '../kafkajs/fetch-guard.socket';
import { unpackHeaders } from '../kafkajs/header-decoding';
import type { InboxLink } from './inbox-link';
import { PastLogEndRecovery } from './past-log-end.recovery';

/** Options of `InboxKafkaServer`: ServerKafka's, plus the chunk size. @publicApi */
export type InboxKafkaServerOptions = NonNullable<KafkaOptions['options']> & {
  /** Records of one partition handled in one PostgreSQL transaction. @default 100 */
  readonly inboxBatchSize?: number;
  /** `InboxModule`'s `connectionName`, when it has one (checked at start-up). */
  readonly connectionName?: string;
};

/**
 * The inbox's Kafka transport: a `ServerKafka` that consumes with `eachBatch` and handles up to
 * `inboxBatchSize` records of one partition in ONE PostgreSQL transaction (decode, register,
 * invoke), then settles them and commits their offsets. A chunk that fails is rolled back and
 * replayed record by record (retries, dead-letter, pause). Handlers write only through
 * `TransactionHost.tx`; every topic it serves must have only inbox handlers.
 * @example
 * app.connectMicroservice({ strategy: new InboxKafkaServer({ client, consumer, run: { autoCommit: false } }) });
 * @publicApi
 */
export class InboxKafkaServer extends ServerKafka {
  protected readonly batchSize: number;
  private readonly connectionName: string | undefined;
  private inbox: InboxLink | undefined;
  private readonly pastLogEnd = new PastLogEndRecovery(
    () => ({ client: this.client, consumer: this.consumer, groupId: this.groupId }),
    this.logger,
  );

  constructor(options: InboxKafkaServerOptions) {
    // kafkajs' own default partitioner, named so that kafkajs does not warn on every start.
    super({
      ...options,
      producer: { createPartitioner: Partitioners.DefaultPartitioner, ...options.producer },
    });
    const size = options.inboxBatchSize ?? 100;
    if (!Number.isInteger(size) || size < 1) {
      throw new InvalidOptionsError(
        'InboxKafkaServer',
        'inboxBatchSize',
        `must be a positive integer (got ${String(size)})`,
      );
    }
    if (options.run?.autoCommit !== false) {
      throw new InvalidOptionsError(
        'InboxKafkaServer',
        'run.autoCommit',
        'must be false: the inbox commits offsets after its PostgreSQL commit',
      );
    }
    this.batchSize = size;
    this.connectionName = options.connectionName;
  }

  /** Called by the application's `InboxModule` when the microservice is created. @internal */
  useInbox(link: InboxLink): void {
    this.inbox = link;
  }

  /**
   * Nest's client, whose connections run through `fetchGuard` (kafkajs' `socketFactory`, over
   * the application's own when it set one): record batches are checked, decompressed within a
   * cap and header-capped before kafkajs decodes them; other clients are not touched.
   */
  override createClient<T = unknown>(): T {
    const logCreator = KafkaLogger.bind(null, this.logger) as never;
    const { clientId, brokers } = this;
    const client = this.options.client;
    const socketFactory = fetchGuard({
      sockets: client?.socketFactory,
      onOutOfRange: this.pastLogEnd.handle,
    });
    return new Kafka({ logCreator, ...client, clientId, brokers, socketFactory }) as T;
  }

  override async close(): Promise<void> {
    await super.close();
    await this.pastLogEnd.close();
  }

  override async bindEvents(consumer: Consumer): Promise<void> {
    const { inbox, routes } = this.inboxRoutes();
    if (routes.size > 0)
      await consumer.subscribe({ ...(this.options.subscribe ?? {}), topics: [...routes.keys()] });
    const session = inbox.session(kafkajsConsumerPort(consumer));
    await consumer.run({
      ...(this.options.run ?? {}),
      eachBatchAutoResolve: false,
      eachBatch: (payload) =>
        this.consume(payload, inbox, session, routes.get(payload.batch.topic) ?? []),
    });
  }

  /** The linked inbox and the routes of each topic served (refused unless all are inbox handlers). */
  protected inboxRoutes(): { inbox: InboxLink; routes: Map<string, readonly InboxRoute[]> } {
    const inbox = this.inbox;
    if (!inbox)
      throw new InboxMisuseError(
        'InboxKafkaServer started without InboxModule: import InboxModule.forRoot() in the application that connects it.',
      );
    if (inbox.connectionName !== this.connectionName)
      throw new InboxMisuseError(
        `InboxKafkaServer has connectionName ${JSON.stringify(this.connectionName ?? null)} but InboxModule ` +
          `${JSON.stringify(inbox.connectionName ?? null)}: give both the same connectionName.`,
      );
    const routes = new Map<string, readonly InboxRoute[]>();
    for (const [topic, handler] of this.messageHandlers)
      routes.set(topic, this.routesOf(topic, handler, inbox));
    return { inbox, routes };
  }

  /** The topic's inbox routes; a topic with another kind of handler is refused at start-up. */
  private routesOf(
    topic: string,
    handler: MessageHandler,
    inbox: InboxLink,
  ): readonly InboxRoute[] {
    const routes = inbox.routes(topic);
    let handlers = 0;
    for (let h: MessageHandler | undefined = handler; h; h = h.next) handlers += 1;
    if (routes.length === 0 || routes.length !== handlers) {
      throw new InboxMisuseError(
        `InboxKafkaServer: topic '${topic}' has ${handlers - routes.length} @EventPattern handler(s) without ` +
          '@InboxHandler or @InboxBatchHandler. Serve that topic from an application without inbox ' +
          'handlers, or make its handlers inbox handlers.',
      );
    }
    return routes;
  }

  /**
   * eachBatch: chunk by chunk; a failed chunk is replayed record by record. Records at offsets
   * the log cannot have are refused first: never handled, resolved nor committed.
   */
  private async consume(
    payload: EachBatchPayload,
    { pipeline }: InboxLink,
    session: ConsumerSession,
    routes: readonly InboxRoute[],
  ): Promise<void> {
    const { batch } = payload;
    const live = () => payload.isRunning() && !payload.isStale();
    const { kept, refused } = offsetsInLog(batch.messages, batch.highWatermark);
    const consumers = routes.map((r) => r.consumer);
    for (const refusal of refused) session.refusals.refuse(batch, refusal, consumers);
    for (let i = 0; i < kept.length; i += this.batchSize) {
      if (!live()) return;
      const chunk = kept.slice(i, i + this.batchSize).map((m) => this.toRecord(m, payload));
      try {
        await pipeline.runChunk(session, routes, chunk);
        payload.resolveOffset(chunk[chunk.length - 1]!.position.offset);
      } catch {
        for (const record of chunk) {
          if (!live()) return;
          for (const route of routes)
            if ((await pipeline.runRecord(session, route, record)) === 'paused') return;
          payload.resolveOffset(record.position.offset);
        }
      }
      await payload.heartbeat();
    }
  }

  /** A record as Nest's `ServerKafka` hands it to handlers: parsed, with its `KafkaContext`. */
  private toRecord(message: KafkaMessage, payload: EachBatchPayload): ChunkRecord {
    const { topic, partition } = payload.batch;
    const headers = unpackHeaders(message.headers);
    const parsed = this.parser!.parse<KafkaMessage>(
      Object.assign(message, { topic, partition, headers }),
    );
    const context = new KafkaContext([
      parsed,
      partition,
      topic,
      this.consumer!,
      () => payload.heartbeat(),
      this.producer!,
    ]);
    return recordOf(context, async () => {
      const packet = await this.deserializer.deserialize(parsed, { channel: topic });
      return (packet as { data?: unknown }).data;
    });
  }
}
