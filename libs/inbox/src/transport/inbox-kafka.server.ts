import { KafkaLogger, ServerKafka, type KafkaOptions } from '@nestjs/microservices';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { Batch, Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { InvalidOptionsError } from '@nest-outbox/core';
import { registerAhead } from '../chunk/chunk-registration';
import { InboxBatch, runInBatch, type ChunkHandler } from '../chunk/inbox-batch.context';
import { ParsedAheadKafkaParser } from './parsed-ahead.kafka-parser';
import { inboxKafka } from '../kafkajs/inbox-kafkajs';

/** Options of `InboxKafkaServer`: ServerKafka's, plus the chunk size. @publicApi */
export type InboxKafkaServerOptions = NonNullable<KafkaOptions['options']> & {
  /** Records of one partition handled in one PostgreSQL transaction. @default 100 */
  readonly inboxBatchSize?: number;
  /** The transactional connection of the chunks: `InboxModule`'s `connectionName`. */
  readonly connectionName?: string;
};

type Position = { readonly topic: string; readonly partition: number };

/**
 * Optional Kafka transport strategy for throughput: a `ServerKafka` that handles up to
 * `inboxBatchSize` records of one partition in ONE PostgreSQL transaction, each through Nest's
 * pipeline, in order, with the inbox rows registered ahead in one statement. Offsets become
 * committable after the commit; a failing record rolls the chunk back and it is replayed record
 * by record (retries, dead-letter, pause). Topics with only `@InboxBatchHandler`s go through
 * the pipeline once per chunk. Handlers write only through `TransactionHost.tx`.
 * @example
 * app.connectMicroservice({ strategy: new InboxKafkaServer({ client, consumer, run: { autoCommit: false } }) });
 * @publicApi
 */
export class InboxKafkaServer extends ServerKafka {
  private readonly batchSize: number;
  private readonly connectionName: string | undefined;
  private readonly aheadParser: ParsedAheadKafkaParser;
  /** Per topic, its inbox handlers seen so far; 'off': registered record by record. */
  private readonly topicHandlers = new Map<string, readonly ChunkHandler[] | 'off'>();

  constructor(options: InboxKafkaServerOptions) {
    super(options);
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
    this.aheadParser = new ParsedAheadKafkaParser(options.parser);
    this.parser = this.aheadParser;
  }

  /** The client runs on the inbox's own kafkajs (`inboxKafka`); no other client is changed. */
  override createClient<T = unknown>(): T {
    const Kafka = inboxKafka();
    const logCreator = KafkaLogger.bind(null, this.logger) as never;
    const { clientId, brokers } = this;
    return new Kafka({ logCreator, ...this.options.client, clientId, brokers }) as T;
  }

  /** Kafka patterns are topic names: look them up directly (Nest tries JSON.parse per record). */
  override getHandlerByPattern(pattern: string) {
    return this.messageHandlers.get(pattern) ?? super.getHandlerByPattern(pattern);
  }

  override async bindEvents(consumer: Consumer): Promise<void> {
    const patterns = [...this.messageHandlers.keys()];
    if (patterns.length > 0)
      await consumer.subscribe({ ...(this.options.subscribe ?? {}), topics: patterns });
    await consumer.run({
      ...(this.options.run ?? {}),
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.handleInboxBatch(payload),
    });
  }

  private async handleInboxBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const at: Position = { topic: batch.topic, partition: batch.partition };
    const isRunning = () => payload.isRunning();
    const isStale = () => payload.isStale();
    const resolveOffset = (offset: string) => payload.resolveOffset(offset);
    const heartbeat = () => payload.heartbeat();
    const pause = () => payload.pause();
    for (let i = 0; i < batch.messages.length; i += this.batchSize) {
      if (!isRunning() || isStale()) return;
      const chunk = batch.messages.slice(i, i + this.batchSize);
      const each = (message: KafkaMessage) =>
        this.handleMessage({ ...at, message, heartbeat, pause });
      if (!(await this.runChunk(at, chunk, each))) {
        for (const message of chunk) {
          if (!isRunning() || isStale()) return;
          await each(message);
          if (this.isPaused(batch)) return;
          resolveOffset(message.offset);
        }
      } else resolveOffset(chunk[chunk.length - 1]!.offset); // the chunk's last: all of it
      await heartbeat();
    }
  }

  private async runChunk(
    at: Position,
    chunk: KafkaMessage[],
    each: (m: KafkaMessage) => Promise<unknown>,
  ): Promise<boolean> {
    const txHost = TransactionHost.getInstance(this.connectionName);
    const inboxBatch = new InboxBatch(txHost);
    try {
      await txHost.withTransaction(() =>
        runInBatch(inboxBatch, () => this.handleChunk(at, chunk, each, inboxBatch)),
      );
    } catch {
      inboxBatch.settle(false);
      return false;
    } finally {
      this.learn(at.topic, inboxBatch);
    }
    inboxBatch.settle(true);
    return true;
  }

  /** Runs inside the chunk's transaction; throws to roll the whole chunk back. */
  private async handleChunk(
    at: Position,
    chunk: KafkaMessage[],
    each: (m: KafkaMessage) => Promise<unknown>,
    batch: InboxBatch,
  ): Promise<void> {
    const inOrder = async (messages: KafkaMessage[]) => {
      for (const message of messages) {
        await each(message);
        if (batch.aborted !== undefined)
          throw new Error('inbox batch aborted', { cause: batch.aborted });
      }
    };
    let rest = chunk;
    if (!this.topicHandlers.has(at.topic)) {
      // The topic's first record, handled on its own, tells which inbox handlers run here.
      await inOrder(chunk.slice(0, 1));
      this.learn(at.topic, batch);
      rest = chunk.slice(1);
    }
    const handlers = this.topicHandlers.get(at.topic);
    if (handlers !== undefined && handlers !== 'off' && rest.length > 0) {
      // Only @InboxBatchHandlers: just the last record goes through handleMessage (and its
      // parse); the others are read from batch.chunkCall, so their parse is not kept for it.
      const chunkCall = handlers.every((h) => h.batch);
      const last = rest.length - 1;
      const records = rest.map((message, i) => ({
        offset: message.offset,
        record: this.aheadParser.parseAhead<object>(
          Object.assign(message, at),
          !chunkCall || i === last,
        ),
      }));
      for (const handler of handlers) await registerAhead(batch, handler, at, records);
      if (chunkCall) {
        // Only @InboxBatchHandlers: ONE call, on the last record, whose guards read them all.
        batch.chunkCall = records;
        await inOrder(rest.slice(-1));
        batch.chunkCall = undefined;
        return this.checkClaimed(at, batch);
      }
    }
    await inOrder(rest);
    this.checkClaimed(at, batch);
  }

  /** A new inbox row registered ahead whose handler did not run must not commit. */
  private checkClaimed(at: Position, batch: InboxBatch): void {
    const missed = batch.ahead.unclaimed();
    if (!missed) return;
    this.topicHandlers.set(at.topic, 'off');
    this.logger.warn(
      `inbox row of event_id=${missed.eventId} consumer=${missed.consumer} registered ahead but its handler did not run ` +
        `(topic=${at.topic} partition=${at.partition} offset=${missed.offset} stage=chunk): chunk rolled back and replayed ` +
        'record by record; rows of this topic are registered record by record from now on',
    );
    throw new Error('inbox row registered ahead but not claimed');
  }

  /** Remembers the topic's inbox handlers; two policies for one consumer name: 'off'. */
  private learn(topic: string, batch: InboxBatch): void {
    const known = this.topicHandlers.get(topic) ?? [];
    if (known === 'off' || batch.handlers.length === 0) return;
    const next = [...known];
    for (const handler of batch.handlers) {
      const same = next.find((h) => h.consumer === handler.consumer);
      if (same === undefined) next.push(handler);
      else if (same.policy !== handler.policy) return void this.topicHandlers.set(topic, 'off');
    }
    this.topicHandlers.set(topic, next);
  }

  private isPaused(batch: Batch): boolean {
    return (this.consumer?.paused() ?? []).some(
      (p) => p.topic === batch.topic && p.partitions.includes(batch.partition),
    );
  }
}
