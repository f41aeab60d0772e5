/** The next offset to read of one partition, as committed. @internal */
export interface CommitOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

/** Records of one partition handed over together (kafkajs' batch, or one fetch's). @internal */
export interface HandedBatch {
  readonly topic: string;
  readonly partition: number;
  /** The partition's log end as the broker reported it with the records. */
  readonly highWatermark: string;
}

/** The end of a handed batch: its last offset (control records included) and record count. @internal */
export interface HandedBatchEnd {
  readonly topic: string;
  readonly partition: number;
  readonly lastOffset: string;
  readonly batchSize: number;
}

/** Why a consumer stopped consuming, and whether its client runs it again by itself. @internal */
export interface CrashPayload {
  readonly error?: Error;
  readonly restart?: boolean;
  readonly groupId?: string;
}

/** What a Kafka consumer tells the inbox's session. @internal */
export interface InboxConsumerEvents {
  /** Joined its group: the partitions it holds now (any other was revoked). */
  join(groupId: string, assignment: Readonly<Record<string, readonly number[]>>): void;
  /** The group rebalances: nothing may be committed until the next join. */
  rebalancing(): void;
  crash(payload: CrashPayload): void;
  stop(): void;
  connect(): void;
  /** The group's name, from any event that carries it (heartbeat, commit). */
  named(groupId: string): void;
  batchStart(batch: HandedBatch): void;
  batchEnd(batch: HandedBatchEnd): void;
}

/**
 * The part of a Kafka consumer the inbox's session needs, whatever the client: its group
 * events, manual offset commits with the broker's confirmation, and pause/seek/resume of one
 * partition. One adapter per client (`kafkajs-consumer.port.ts`, `platformatic/`). @internal
 */
export interface InboxConsumerPort {
  /** Delivers the consumer's events to `events`; returns the function that stops it. */
  listen(events: InboxConsumerEvents): () => void;
  /** Commits; true once the broker accepted, false when the client did not send them. */
  commit(offsets: readonly CommitOffset[]): Promise<boolean>;
  /** Stops fetching the partition until `resume`. */
  pause(topic: string, partition: number): void;
  /** The partition's next fetch starts at `offset`. */
  seek(topic: string, partition: number, offset: string): void;
  resume(topic: string, partition: number): void;
  /** Connects again after a crash its client does not restart by itself. */
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}
