/** A partition paused because an event kept failing (`onExhausted: 'pause'`). @publicApi */
export interface PoisonPause {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly consumer: string;
  readonly eventId: string;
  readonly reason: string;
  readonly since: Date;
}

/** The last record settled as `undecodable_batch` (its batch could not be decompressed). @publicApi */
export interface UndecodableRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly reason: string;
  readonly since: Date;
}

/** What the health indicator reports per Kafka consumer. @publicApi */
export interface ConsumerSnapshot {
  readonly groupId: string | undefined;
  readonly status: 'starting' | 'connected' | 'running' | 'rebalancing' | 'crashed' | 'stopped';
  readonly assigned: Readonly<Record<string, number[]>> | undefined;
  readonly paused: readonly PoisonPause[];
  /** Records of undecodable batches settled as rejected so far, and the last of them. */
  readonly undecodable: { readonly records: number; readonly last?: UndecodableRecord };
}

/**
 * Runs a crashed consumer again (subscribe + run with its handlers), for example
 * `() => server.bindEvents(consumer)` of the InboxKafkaServer that owns it. @publicApi
 */
export type ConsumerRecovery = () => Promise<void>;

/** The key of one partition in the session's maps. @internal */
export const partitionKey = (topic: string, partition: number): string =>
  `${topic}\u0000${partition}`;
