import { EventEmitter } from 'node:events';
import type {
  Consumer,
  ConsumerGroupJoinPayload,
  ConsumerHeartbeatPayload,
} from '@platformatic/kafka';
import type {
  CommitOffset,
  InboxConsumerEvents,
  InboxConsumerPort,
} from '../consumer/inbox-consumer.port';
import { PartitionPositions } from './partition-positions';

type LoopEvents = Pick<InboxConsumerEvents, 'crash' | 'stop' | 'batchStart' | 'batchEnd'>;

/**
 * A `@platformatic/kafka` consumer as the inbox's port: its group events (join with the
 * assignment, rebalance, heartbeat), commits through `commit` (resolved once the broker accepted
 * them), and pause/seek/resume on the positions the inbox's own fetch loop reads. @internal
 */
export class PlatformaticConsumerPort implements InboxConsumerPort {
  readonly positions = new PartitionPositions();
  private readonly loop = new EventEmitter();

  constructor(readonly consumer: Consumer) {
    consumer.on('consumer:group:join', (p) => this.positions.assign(assignmentOf(p)));
  }

  listen(events: InboxConsumerEvents): () => void {
    const c = this.consumer;
    const onJoin = (p: ConsumerGroupJoinPayload) => events.join(p.groupId, assignmentOf(p));
    const onRebalance = () => events.rebalancing();
    const onHeartbeat = (p?: ConsumerHeartbeatPayload) => p?.groupId && events.named(p.groupId);
    c.on('consumer:group:join', onJoin);
    c.on('consumer:group:rebalance', onRebalance);
    c.on('consumer:heartbeat:end', onHeartbeat);
    const forwarded: LoopEvents = {
      crash: (p) => events.crash(p),
      stop: () => events.stop(),
      batchStart: (p) => events.batchStart(p),
      batchEnd: (p) => events.batchEnd(p),
    };
    const own = Object.entries(forwarded) as [string, () => void][];
    for (const [name, fn] of own) this.loop.on(name, fn);
    return () => {
      c.off('consumer:group:join', onJoin);
      c.off('consumer:group:rebalance', onRebalance);
      c.off('consumer:heartbeat:end', onHeartbeat);
      for (const [name, fn] of own) this.loop.off(name, fn);
    };
  }

  /** What the fetch loop reports. */
  emit<K extends keyof LoopEvents>(event: K, ...args: Parameters<LoopEvents[K]>): void {
    this.loop.emit(event, ...args);
  }

  async commit(offsets: readonly CommitOffset[]): Promise<boolean> {
    await this.consumer.commit({
      offsets: offsets.map((o) => ({ ...o, offset: BigInt(o.offset), leaderEpoch: -1 })),
    });
    return true;
  }

  pause(topic: string, partition: number): void {
    this.positions.pause(topic, partition);
  }

  seek(topic: string, partition: number, offset: string): void {
    this.positions.seek(topic, partition, BigInt(offset));
  }

  resume(topic: string, partition: number): void {
    this.positions.resume(topic, partition);
  }

  /** The fetch loop never stops by itself: nothing to connect again. */
  connect(): Promise<void> {
    return Promise.resolve();
  }

  disconnect(): Promise<void> {
    return Promise.resolve();
  }
}

function assignmentOf(p: ConsumerGroupJoinPayload): Record<string, number[]> {
  return Object.fromEntries((p.assignments ?? []).map((a) => [a.topic, a.partitions]));
}
