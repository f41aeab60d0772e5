import { partitionKey } from '../consumer/consumer-snapshot';

/** One assigned partition: the next offset to fetch (unknown until read from the group). */
export interface Position {
  readonly topic: string;
  readonly partition: number;
  offset: bigint | undefined;
  /** Changes on every seek: a fetch or a batch of an older epoch is stale. */
  epoch: number;
}

/**
 * Where the fetch loop reads each partition assigned to the consumer next, and which partitions a
 * poison event paused. A partition kept over a rebalance keeps its position; a newly assigned one
 * starts from the group's committed offset. @internal
 */
export class PartitionPositions {
  private positions = new Map<string, Position>();
  private readonly paused = new Set<string>();
  private epochs = 0;

  assign(assignment: Readonly<Record<string, readonly number[]>>): void {
    const kept = new Map<string, Position>();
    for (const [topic, partitions] of Object.entries(assignment))
      for (const partition of partitions) {
        const key = partitionKey(topic, partition);
        const position = this.positions.get(key);
        kept.set(key, position ?? { topic, partition, offset: undefined, epoch: ++this.epochs });
      }
    for (const key of this.paused) if (!kept.has(key)) this.paused.delete(key);
    this.positions = kept;
  }

  clear(): void {
    this.assign({});
  }

  /** Assigned partitions whose position is not known yet. */
  unknown(): Position[] {
    return [...this.positions.values()].filter((p) => p.offset === undefined);
  }

  /** Assigned partitions to fetch now (known position, not paused). */
  fetchable(): Position[] {
    return [...this.positions.values()].filter(
      (p) => p.offset !== undefined && !this.paused.has(partitionKey(p.topic, p.partition)),
    );
  }

  /** True while `position` is assigned and was not moved by a seek since `epoch`. */
  current(position: Position, epoch: number): boolean {
    const now = this.positions.get(partitionKey(position.topic, position.partition));
    return now === position && now.epoch === epoch;
  }

  seek(topic: string, partition: number, offset: bigint): void {
    const position = this.positions.get(partitionKey(topic, partition));
    if (!position) return;
    position.offset = offset;
    position.epoch = ++this.epochs;
  }

  pause(topic: string, partition: number): void {
    if (this.positions.has(partitionKey(topic, partition)))
      this.paused.add(partitionKey(topic, partition));
  }

  resume(topic: string, partition: number): void {
    this.paused.delete(partitionKey(topic, partition));
  }
}
