import { ServerKafka, type KafkaOptions } from '@nestjs/microservices';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { Batch, Consumer, EachBatchPayload } from 'kafkajs';
import { InvalidOptionsError } from '@nest-outbox/core';
import { InboxBatch, runInBatch } from '../handler/inbox-batch.context';
import { INBOX_FAULT_ENV } from '../inbox.constants';

/** Options of `InboxKafkaServer`: ServerKafka's, plus the chunk size. @publicApi */
export type InboxKafkaServerOptions = NonNullable<KafkaOptions['options']> & {
  /** Records of one partition handled in one PostgreSQL transaction. @default 100 */
  readonly inboxBatchSize?: number;
};

/**
 * Optional Kafka transport strategy for throughput: a `ServerKafka` that consumes with
 * `eachBatch` and handles up to `inboxBatchSize` records of one partition in ONE PostgreSQL
 * transaction (each record still goes through Nest's guard / interceptor / handler
 * pipeline, in order). The chunk's offsets become committable only after its commit. The
 * first failing record rolls the chunk back (inbox rows included); the chunk is then
 * replayed record by record on the normal path, with per-record retries, dead-lettering
 * or pausing. Same guarantees as plain ServerKafka, far fewer round trips and commits.
 * Handlers must only write through `TransactionHost.tx` (an error aborts the whole chunk).
 * @example
 * app.connectMicroservice({ strategy: new InboxKafkaServer({ client, consumer, run: { autoCommit: false } }) });
 * @publicApi
 */
export class InboxKafkaServer extends ServerKafka {
  private readonly batchSize: number;
  private readonly killAfterCommit = process.env[INBOX_FAULT_ENV] === 'kill-after-pg-commit';

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
    const isRunning = () => payload.isRunning();
    const isStale = () => payload.isStale();
    const resolveOffset = (offset: string) => payload.resolveOffset(offset);
    const heartbeat = () => payload.heartbeat();
    const pause = () => payload.pause();
    for (let i = 0; i < batch.messages.length; i += this.batchSize) {
      if (!isRunning() || isStale()) return;
      const chunk = batch.messages.slice(i, i + this.batchSize);
      const each = (message: Batch['messages'][number]) =>
        this.handleMessage({
          topic: batch.topic,
          partition: batch.partition,
          message,
          heartbeat,
          pause,
        });
      if (!(await this.runChunk(chunk, each))) {
        // Replay record by record: per-record retries, dead-letter or pause apply.
        for (const message of chunk) {
          if (!isRunning() || isStale()) return;
          await each(message);
          if (this.isPaused(payload.batch)) return;
          resolveOffset(message.offset);
        }
      } else for (const message of chunk) resolveOffset(message.offset);
      await heartbeat();
    }
  }

  private async runChunk(
    chunk: Batch['messages'],
    each: (m: Batch['messages'][number]) => Promise<unknown>,
  ): Promise<boolean> {
    const txHost = TransactionHost.getInstance();
    const inboxBatch = new InboxBatch();
    try {
      await txHost.withTransaction(() =>
        runInBatch(inboxBatch, async () => {
          for (const message of chunk) {
            await each(message);
            if (inboxBatch.aborted !== undefined)
              throw new Error('inbox batch aborted', { cause: inboxBatch.aborted });
          }
        }),
      );
    } catch {
      inboxBatch.settle(false);
      return false;
    }
    if (this.killAfterCommit && inboxBatch.applied > 0) process.kill(process.pid, 'SIGKILL');
    inboxBatch.settle(true);
    return true;
  }

  private isPaused(batch: Batch): boolean {
    return (this.consumer?.paused() ?? []).some(
      (p) => p.topic === batch.topic && p.partitions.includes(batch.partition),
    );
  }
}
