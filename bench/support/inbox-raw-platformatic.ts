import { Consumer, type Message, type MessagesStream } from '@platformatic/kafka';
import {
  rawEvent,
  RawChunkApplier,
  type RawInboxProgress,
  type RawInboxSetup,
} from './inbox-raw-consumer';

/** Records queued per partition (in chunks) above which the stream is paused. */
const QUEUED_CHUNKS = 10;

/**
 * The inbox bench's reference on `@platformatic/kafka`: its public `consume()` stream (manual
 * commits), each partition's records queued and applied by `RawChunkApplier` in chunks of
 * `chunkSize`, up to `partitionsConsumedConcurrently` partitions at a time; the last applied
 * offset committed once the partition's queue is empty (after the transactions, never ahead of
 * the effects), as kafkajs commits after `eachBatch`. No Nest, no inbox pipeline.
 */
export class RawPlatformaticInboxConsumer {
  private readonly chunks: RawChunkApplier;
  private readonly consumer: Consumer;
  private stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | undefined;
  private readonly queues = new Map<number, Message[]>();
  private readonly draining = new Map<number, Promise<void>>();
  private queued = 0;

  constructor(
    private readonly setup: RawInboxSetup,
    groupId: string,
  ) {
    this.chunks = new RawChunkApplier(setup);
    this.consumer = new Consumer({
      clientId: 'bench-inbox-raw-platformatic',
      bootstrapBrokers: setup.brokers,
      groupId,
      maxWaitTime: 100,
      autocommit: false,
    });
  }

  get progress(): RawInboxProgress {
    return this.chunks.progress;
  }

  async start(): Promise<void> {
    this.stream = await this.consumer.consume({
      topics: [this.setup.topic],
      mode: 'committed',
      fallbackMode: 'earliest',
      autocommit: false,
    });
    this.stream.on('data', (message: Message) => this.enqueue(message));
  }

  async stop(): Promise<void> {
    await this.stream?.close();
    await Promise.all(this.draining.values());
    await this.consumer.close();
    await this.chunks.close();
  }

  private pauseAbove(): number {
    return QUEUED_CHUNKS * this.setup.chunkSize * this.setup.partitionsConsumedConcurrently;
  }

  private enqueue(message: Message): void {
    this.progress.firstAt ??= process.hrtime.bigint();
    const { partition } = message;
    const queue = this.queues.get(partition) ?? [];
    this.queues.set(partition, queue);
    queue.push(message);
    this.queued += 1;
    if (this.queued >= this.pauseAbove()) this.stream?.pause();
    if (!this.draining.has(partition))
      this.draining.set(
        partition,
        this.drain(partition, queue).finally(() => this.draining.delete(partition)),
      );
  }

  /** Applies `queue` chunk by chunk (the fetch's other records first land in it), then commits. */
  private async drain(partition: number, queue: Message[]): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (queue.length > 0) {
      const chunk = queue.splice(0, this.setup.chunkSize);
      await this.chunks.apply(partition, chunk.map(toEvent));
      this.queued -= chunk.length;
      if (this.stream?.isPaused() && this.queued < this.pauseAbove()) this.stream.resume();
      if (queue.length === 0) await chunk[chunk.length - 1]!.commit();
    }
  }
}

function toEvent(m: Message) {
  const headers = new Map<string, string>();
  for (const [k, v] of m.headers) headers.set(k.toString(), v.toString());
  return rawEvent(String(m.offset), m.value, (name) => headers.get(name) ?? '');
}
