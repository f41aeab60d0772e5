import type { Logger } from '@nestjs/common';
import { Backoff, errorLabel } from '@nest-outbox/core/internal';
import type { ClusterMetadata, Consumer } from '@platformatic/kafka';
import type { PlatformaticConsumerPort } from './platformatic-consumer.port';
import { fetchedBatch, type FetchedBatch } from './fetched-batch';
import type { FetchedPartition, GuardedFetch } from './guarded-fetch';
import type { Position } from './partition-positions';

const EARLIEST = -2n;
const LATEST = -1n;
const OFFSET_OUT_OF_RANGE = 1;

/**
 * The inbox's fetch loop on a `@platformatic/kafka` consumer (its public `joinGroup`,
 * `listCommittedOffsets`, `listOffsets` and the guarded Fetch): fetches each assigned, unpaused
 * partition from its own position, hands each partition's records over as one batch and waits
 * for it, like kafkajs' `eachBatch`. The client heartbeats on its own timer meanwhile. A failing
 * round is retried with backoff; after `retries` failures in a row the loop reports a crash
 * (status `crashed`, as kafkajs' consumer does), joins its group again and goes on. @internal
 */
export class PlatformaticFetchLoop {
  private stopped = false;
  private running: Promise<void> | undefined;
  /** Partitions whose batch is being handled (at most `concurrency`), not fetched meanwhile. */
  private readonly busy = new Map<Position, Promise<void>>();

  constructor(
    private readonly port: PlatformaticConsumerPort,
    private readonly topics: readonly string[],
    private readonly settings: {
      fromBeginning: boolean;
      partitionMaxBytes: number;
      concurrency: number;
      retries: number;
    },
    private readonly fetcher: GuardedFetch,
    private readonly handle: (batch: FetchedBatch) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  private get consumer(): Consumer {
    return this.port.consumer;
  }

  async start(): Promise<void> {
    this.consumer.topics.trackAll(...this.topics);
    await this.consumer.joinGroup({});
    this.running = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await Promise.all(this.busy.values());
    this.port.emit('stop');
  }

  private async run(): Promise<void> {
    const backoff = new Backoff({ baseMs: 200, capMs: 5_000 });
    while (!this.stopped) {
      try {
        if (backoff.attempts > this.settings.retries) {
          backoff.reset();
          await this.consumer.joinGroup({});
        }
        await this.readPositions();
        const fetchable = this.port.positions.fetchable().filter((p) => !this.busy.has(p));
        if (fetchable.length === 0 || this.busy.size >= this.settings.concurrency) {
          await Promise.race([...this.busy.values(), sleep(50)]);
          continue;
        }
        await this.fetchAll(fetchable);
        backoff.reset();
      } catch (error) {
        if (this.stopped) return;
        this.consumer.clearMetadata();
        const delay = backoff.next();
        if (backoff.attempts > this.settings.retries) {
          const groupId = this.consumer.groupId;
          this.port.emit('crash', { error: error as Error, restart: true, groupId });
          this.port.positions.clear(); // read again from the group's commits once it rejoined
        } else this.logger.warn(`fetch failed stage=fetch (${errorLabel(error)}); trying again`);
        await sleep(delay);
      }
    }
  }

  /** Reads the partitions without a position from the group's commits, else from the log. */
  private async readPositions(): Promise<void> {
    const unknown = this.port.positions.unknown();
    if (unknown.length === 0) return;
    const topics = [...new Set(unknown.map((p) => p.topic))].map((topic) => ({
      topic,
      partitions: unknown.filter((p) => p.topic === topic).map((p) => p.partition),
    }));
    const epochs = unknown.map((p) => p.epoch);
    const committed = await this.consumer.listCommittedOffsets({ topics });
    const fallback = await this.logEdge(topics.map((t) => t.topic));
    unknown.forEach((p, i) => {
      if (p.offset !== undefined || p.epoch !== epochs[i]) return;
      const done = committed.get(p.topic)?.[p.partition];
      p.offset = done !== undefined && done >= 0n ? done : fallback.get(p.topic)?.[p.partition];
    });
  }

  /** The first or the next offset of each partition of `topics` (`fromBeginning`). */
  private logEdge(topics: string[]) {
    const timestamp = this.settings.fromBeginning ? EARLIEST : LATEST;
    return this.consumer.listOffsets({ topics, timestamp });
  }

  private async fetchAll(fetchable: Position[]): Promise<void> {
    const metadata = await this.consumer.metadata({ topics: [...this.topics] });
    const byLeader = new Map<number, Position[]>();
    for (const p of fetchable) {
      const leader = metadata.topics.get(p.topic)?.partitions[p.partition]?.leader ?? -1;
      byLeader.set(leader, [...(byLeader.get(leader) ?? []), p]);
    }
    const fetched = await Promise.all(
      [...byLeader].map(async ([node, positions]) => {
        const epochs = positions.map((p) => p.epoch);
        return { positions, epochs, partitions: await this.fetchFrom(node, metadata, positions) };
      }),
    );
    let stale = false;
    for (const { positions, epochs, partitions } of fetched)
      for (const [i, p] of positions.entries()) {
        const partition = partitions[i];
        if (partition?.errorCode === OFFSET_OUT_OF_RANGE && p.epoch === epochs[i])
          p.offset = (await this.logEdge([p.topic])).get(p.topic)?.[p.partition];
        else if (partition?.errorCode) stale = true;
        else this.deliver(p, epochs[i]!, partition);
      }
    if (stale) this.consumer.clearMetadata();
  }

  /** Fetches `positions` (all led by `node`), answering in their order. */
  private async fetchFrom(node: number, metadata: ClusterMetadata, positions: Position[]) {
    const topicIds = positions.map((p) => metadata.topics.get(p.topic)!.id);
    const maxBytes = this.settings.partitionMaxBytes;
    const response = await this.fetcher.fetch(
      node,
      [...new Set(topicIds)].map((topicId) => ({
        topicId,
        partitions: positions
          .filter((_, i) => topicIds[i] === topicId)
          .map((p) => ({ partition: p.partition, fetchOffset: p.offset!, maxBytes })),
      })),
    );
    return positions.map((p, i) =>
      response.get(topicIds[i]!)?.find((r) => r.partitionIndex === p.partition),
    );
  }

  /**
   * Hands one partition's records over (in the background, up to `concurrency` partitions at a
   * time) once its position still holds, and moves its position past them; a batch that throws
   * is fetched again after a pause.
   */
  private deliver(position: Position, epoch: number, fetched: FetchedPartition | undefined): void {
    const positions = this.port.positions;
    const from = position.offset;
    if (!fetched || from === undefined || !positions.current(position, epoch)) return;
    if (this.busy.size >= this.settings.concurrency) return; // fetched again once one is done
    const live = () => !this.stopped && positions.current(position, epoch);
    const batch = fetchedBatch({ ...position, live }, fetched, from);
    if (!batch) return;
    position.offset = batch.last + 1n;
    const { topic, partition } = position;
    this.port.emit('batchStart', { topic, partition, highWatermark: String(batch.highWatermark) });
    const handled = this.handle(batch).then(
      () => {
        const end = { topic, partition, lastOffset: String(batch.last) };
        this.port.emit('batchEnd', { ...end, batchSize: batch.records.length });
      },
      async (error: unknown) => {
        this.logger.error(
          `batch failed stage=consume topic=${topic} partition=${partition} (${errorLabel(error)}); fetched again`,
        );
        if (positions.current(position, epoch)) positions.seek(topic, partition, from);
        await sleep(1_000);
      },
    );
    this.busy.set(
      position,
      handled.finally(() => this.busy.delete(position)),
    );
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
