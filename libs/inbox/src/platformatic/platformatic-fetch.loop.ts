import type { Logger } from '@nestjs/common';
import { Backoff, errorLabel } from '@nest-outbox/core/internal';
import type { ClusterMetadata, Consumer } from '@platformatic/kafka';
import type { PlatformaticConsumerPort } from './platformatic-consumer.port';
import { fetchedBatch, type FetchedBatch } from './fetched-batch';
import type { Position } from './partition-positions';
import {
  UndecodableProbe,
  type FetchOne,
  type FetchResponsePartition,
  type UndecodableOffsets,
} from './undecodable-probe';

const EARLIEST = -2n;
const LATEST = -1n;

/**
 * The inbox's fetch loop on a `@platformatic/kafka` consumer (its public `joinGroup`, `fetch`,
 * `listCommittedOffsets`, `listOffsets`): fetches each assigned, unpaused partition from its own
 * position, hands each partition's records over as one batch and waits for it, like kafkajs'
 * `eachBatch`. The client heartbeats on its own timer meanwhile. A fetch that fails is retried
 * partition by partition; a batch the client cannot decode becomes rejected offsets. @internal
 */
export class PlatformaticFetchLoop {
  private stopped = false;
  private running: Promise<void> | undefined;
  /** Partitions whose batch is being handled (at most `concurrency`), not fetched meanwhile. */
  private readonly busy = new Map<Position, Promise<void>>();
  private readonly probe: UndecodableProbe;

  constructor(
    private readonly port: PlatformaticConsumerPort,
    private readonly topics: readonly string[],
    private readonly settings: {
      fromBeginning: boolean;
      partitionMaxBytes: number;
      concurrency: number;
    },
    private readonly handle: (batch: FetchedBatch) => Promise<void>,
    private readonly logger: Logger,
    probeClient: () => Consumer,
  ) {
    this.probe = new UndecodableProbe(port.consumer, probeClient);
  }

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
    await this.probe.close();
    this.port.emit('stop');
  }

  private async run(): Promise<void> {
    const backoff = new Backoff({ baseMs: 200, capMs: 5_000 });
    while (!this.stopped) {
      try {
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
        this.logger.warn(`fetch failed stage=fetch (${errorLabel(error)}); trying again`);
        this.consumer.clearMetadata();
        await sleep(backoff.next());
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
        const fetch = this.fetcher(this.consumer, node, metadata);
        return fetch(positions, this.settings.partitionMaxBytes).then(
          (partitions) => ({ node, positions, epochs, partitions }),
          () => ({ node, positions, epochs, partitions: undefined }),
        );
      }),
    );
    for (const { node, positions, epochs, partitions } of fetched) {
      if (!partitions) {
        const one = this.fetcher(this.probe.client(), node, metadata);
        for (const p of positions) {
          const isolated = await this.probe.isolate(p, one);
          if (isolated !== 'out-of-range') this.deliver(p, p.epoch, isolated);
          else p.offset = (await this.logEdge([p.topic])).get(p.topic)?.[p.partition];
        }
        continue;
      }
      for (const [i, p] of positions.entries()) this.deliver(p, epochs[i]!, partitions[i]);
    }
  }

  /** Fetches `positions` (all led by `node`) with `client`, answering in their order. */
  private fetcher(client: Consumer, node: number, metadata: ClusterMetadata): FetchOne {
    return async (positions, partitionMaxBytes) => {
      const topicIds = positions.map((p) => metadata.topics.get(p.topic)!.id);
      const ids = [...new Set(topicIds)];
      const response = await client.fetch({
        node,
        topics: ids.map((topicId) => ({
          topicId,
          partitions: positions
            .filter((_, i) => topicIds[i] === topicId)
            .map((p) => ({
              partition: p.partition,
              fetchOffset: p.offset!,
              partitionMaxBytes,
              currentLeaderEpoch: -1,
              lastFetchedEpoch: -1,
            })),
        })),
      });
      return positions.map((p, i) =>
        response.responses
          .find((r) => r.topicId === topicIds[i])
          ?.partitions.find((r) => r.partitionIndex === p.partition),
      );
    };
  }

  /**
   * Hands one partition's records over (in the background, up to `concurrency` partitions at a
   * time) once its position still holds, and moves its position past them; a batch that throws
   * is fetched again after a pause.
   */
  private deliver(
    position: Position,
    epoch: number,
    fetched: FetchResponsePartition | UndecodableOffsets | undefined,
  ): void {
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
