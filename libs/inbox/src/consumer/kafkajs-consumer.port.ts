import type {
  Consumer,
  ConsumerCommitOffsetsEvent,
  ConsumerEndBatchProcessEvent,
  ConsumerGroupJoinEvent,
  InstrumentationEvent,
} from 'kafkajs';
import { partitionKey } from './consumer-snapshot';
import type { CommitOffset, CrashPayload, InboxConsumerPort } from './inbox-consumer.port';

const ports = new WeakMap<Consumer, InboxConsumerPort>();

/** The port of a kafkajs consumer (one per consumer, so that one session serves it). @internal */
export function kafkajsConsumerPort(consumer: Consumer): InboxConsumerPort {
  let port = ports.get(consumer);
  if (!port) ports.set(consumer, (port = new KafkajsConsumerPort(consumer)));
  return port;
}

type BatchPayload = ConsumerEndBatchProcessEvent['payload'];

/**
 * A kafkajs consumer as the inbox's port, through its instrumentation events and public methods.
 * A commit counts only when kafkajs' COMMIT_OFFSETS event confirms it: while its consumer stops
 * or restarts, kafkajs resolves `commitOffsets` without sending.
 */
class KafkajsConsumerPort implements InboxConsumerPort {
  /** The offsets of the commit in flight that kafkajs has not reported sent yet. */
  private unconfirmed = new Map<string, string>();

  constructor(private readonly consumer: Consumer) {}

  listen(events: Parameters<InboxConsumerPort['listen']>[0]): () => void {
    const e = this.consumer.events;
    const offs = [
      this.on<ConsumerGroupJoinEvent['payload']>(e.GROUP_JOIN, (p) =>
        events.join(p.groupId, p.memberAssignment),
      ),
      this.on(e.REBALANCING, () => events.rebalancing()),
      this.on<CrashPayload>(e.CRASH, (p) => events.crash(p)),
      this.on(e.STOP, () => events.stop()),
      this.on<ConsumerCommitOffsetsEvent['payload']>(e.COMMIT_OFFSETS, (p) => {
        events.named(p.groupId);
        this.confirm(p.topics);
      }),
      // The join may come before the session is attached: the group is named by later events too.
      this.on<{ groupId: string }>(e.HEARTBEAT, (p) => events.named(p.groupId)),
      this.on(e.CONNECT, () => events.connect()),
      this.on<BatchPayload>(e.START_BATCH_PROCESS, (p) => events.batchStart(p)),
      this.on<BatchPayload>(e.END_BATCH_PROCESS, (p) => events.batchEnd(p)),
    ];
    return () => offs.forEach((off) => off());
  }

  async commit(offsets: readonly CommitOffset[]): Promise<boolean> {
    this.unconfirmed = new Map(offsets.map((o) => [partitionKey(o.topic, o.partition), o.offset]));
    await this.consumer.commitOffsets([...offsets]);
    return this.unconfirmed.size === 0;
  }

  private confirm(topics: ConsumerCommitOffsetsEvent['payload']['topics']): void {
    for (const { topic, partitions } of topics)
      for (const { partition, offset } of partitions) {
        const key = partitionKey(topic, partition);
        if (this.unconfirmed.get(key) === String(offset)) this.unconfirmed.delete(key);
      }
  }

  pause(topic: string, partition: number): void {
    this.consumer.pause([{ topic, partitions: [partition] }]);
  }

  seek(topic: string, partition: number, offset: string): void {
    this.consumer.seek({ topic, partition, offset });
  }

  resume(topic: string, partition: number): void {
    this.consumer.resume([{ topic, partitions: [partition] }]);
  }

  connect(): Promise<void> {
    return this.consumer.connect();
  }

  disconnect(): Promise<void> {
    return this.consumer.disconnect();
  }

  private on<T>(event: string, fn: (payload: T) => void): () => void {
    const listener = ((e: InstrumentationEvent<T>) => fn(e.payload)) as never;
    return this.consumer.on(event as never, listener) as unknown as () => void;
  }
}
