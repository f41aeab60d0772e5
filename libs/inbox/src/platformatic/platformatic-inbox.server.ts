import { KafkaContext, type KafkaStatus } from '@nestjs/microservices';
import type { KafkaMessage } from 'kafkajs';
import { recordOf, type ChunkRecord, type InboxRoute } from '../chunk/chunk';
import type { ConsumerSession } from '../consumer/consumer.session';
import type { InboxConsumerPort } from '../consumer/inbox-consumer.port';
import { offsetsInLog } from '../consumer/offsets-in-log';
import { InboxKafkaServer } from '../transport/inbox-kafka.server';
import type { InboxLink } from '../transport/inbox-link';
import { PlatformaticConsumerPort } from './platformatic-consumer.port';
import type { FetchedBatch } from './fetched-batch';
import { GuardedFetch } from './guarded-fetch';
import { PlatformaticFetchLoop } from './platformatic-fetch.loop';
import { platformaticKafka } from './platformatic-kafka';
import { messageOf } from './platformatic-message';
import type { PlatformaticInboxServerOptions } from './platformatic-inbox.options';
import { consumerOptionsOf } from './platformatic-options';
import { PlatformaticContextProducer } from './platformatic-producer';

/**
 * `InboxKafkaServer` on `@platformatic/kafka` (an optional peer: `npm i @platformatic/kafka`), with
 * the same options: swap the class, keep the options. The inbox runs its own fetch loop on the
 * client's public API, so chunks, commits after the effects (never past the high watermark),
 * poison pauses, rebalances and health are those of the kafkajs path. Handlers get what they
 * get under `ServerKafka` (the payload parsed by Nest's parser); `@Ctx()` is a `KafkaContext`
 * whose `getConsumer()` is the `@platformatic/kafka` `Consumer`, whose `getHeartbeat()` resolves
 * at once (the client heartbeats on its own timer) and whose `getProducer()` has kafkajs'
 * `send({ topic, messages })` on an idempotent `@platformatic/kafka` producer.
 * @example
 * app.connectMicroservice({ strategy: new PlatformaticInboxServer({ client, consumer, run: { autoCommit: false } }) });
 * @publicApi
 */
export class PlatformaticInboxServer extends InboxKafkaServer {
  private port: PlatformaticConsumerPort | undefined;
  private loop: PlatformaticFetchLoop | undefined;
  private contextProducer: PlatformaticContextProducer | undefined;

  constructor(private readonly settings: PlatformaticInboxServerOptions) {
    super(settings);
  }

  /** The port of its consumer, once started (how `InboxConsumerRegistry` attaches it). @internal */
  inboxConsumerPort(): InboxConsumerPort | undefined {
    return this.port;
  }

  override async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      const kafka = platformaticKafka();
      const { inbox, routes } = this.inboxRoutes();
      const { clientId, groupId, brokers } = this;
      const options = consumerOptionsOf(this.settings, { clientId, groupId, brokers });
      const port = (this.port = new PlatformaticConsumerPort(new kafka.Consumer(options)));
      this.contextProducer = new PlatformaticContextProducer(kafka, options);
      this._status$.next('connected' as KafkaStatus);
      const session = inbox.session(port);
      const fetcher = new GuardedFetch(kafka, port.consumer, {
        maxWaitTime: options.maxWaitTime ?? 5_000,
        minBytes: options.minBytes ?? 1,
        maxBytes: options.maxBytes ?? 10 * 1_048_576,
        isolationLevel: options.isolationLevel ?? kafka.FetchIsolationLevels.READ_COMMITTED,
      });
      this.loop = new PlatformaticFetchLoop(
        port,
        [...routes.keys()],
        {
          fromBeginning: this.settings.subscribe?.fromBeginning === true,
          partitionMaxBytes: this.settings.consumer?.maxBytesPerPartition ?? 1_048_576,
          concurrency: this.settings.run?.partitionsConsumedConcurrently ?? 1,
          retries: this.settings.consumer?.retry?.retries ?? 5,
        },
        fetcher,
        (batch) => this.consumeBatch(batch, inbox, session, routes.get(batch.topic) ?? []),
        this.logger as never,
      );
      if (routes.size > 0) await this.loop.start();
      callback();
    } catch (error) {
      callback(error);
    }
  }

  override async close(): Promise<void> {
    await this.loop?.stop();
    await this.port?.consumer.close();
    await this.contextProducer?.close();
    this.loop = this.port = this.contextProducer = undefined;
  }

  /** `[consumer, consumer, producer]`: the `@platformatic/kafka` consumer stands for the client. */
  override unwrap<T>(): T {
    if (!this.port) throw new Error('Not initialized: call startAllMicroservices() first.');
    return [this.port.consumer, this.port.consumer, this.contextProducer] as T;
  }

  /** One partition's fetched records, chunk by chunk; a failed chunk is replayed record by record. */
  private async consumeBatch(
    batch: FetchedBatch,
    { pipeline }: InboxLink,
    session: ConsumerSession,
    routes: readonly InboxRoute[],
  ): Promise<void> {
    const messages = batch.records.map((r) => messageOf(r));
    const at = { ...batch, highWatermark: String(batch.highWatermark) };
    const { kept, refused } = offsetsInLog(messages, at.highWatermark);
    const consumers = routes.map((r) => r.consumer);
    for (const refusal of refused) session.refusals.refuse(at, refusal, consumers);
    for (let i = 0; i < kept.length; i += this.batchSize) {
      if (!batch.live()) return;
      const chunk = kept.slice(i, i + this.batchSize).map((m) => this.chunkRecord(m, batch));
      try {
        await pipeline.runChunk(session, routes, chunk);
      } catch {
        for (const record of chunk) {
          if (!batch.live()) return;
          for (const route of routes)
            if ((await pipeline.runRecord(session, route, record)) === 'paused') return;
        }
      }
    }
  }

  /** A record as Nest's `ServerKafka` hands it to handlers: parsed, with its `KafkaContext`. */
  private chunkRecord(message: KafkaMessage, { topic, partition }: FetchedBatch): ChunkRecord {
    const parsed = this.parser!.parse<KafkaMessage>(Object.assign(message, { topic, partition }));
    const heartbeat = () => Promise.resolve();
    const context = new KafkaContext([
      parsed,
      partition,
      topic,
      this.port!.consumer as never,
      heartbeat,
      this.contextProducer as never,
    ]);
    return recordOf(context, async () => {
      const packet = await this.deserializer.deserialize(parsed, { channel: topic });
      return (packet as { data?: unknown }).data;
    });
  }
}
