import type { EventEnvelope } from '@nest-outbox/core';
import type { KafkaContext } from '@nestjs/microservices';
import type { ConsumerSession } from '../../consumer/consumer.session';
import type { PartitionOffsetTracker } from '../../consumer/partition-offset.tracker';
import type { ParsedRecord, RejectionCode } from '../../envelope/envelope.decoder';
import type { ResolvedHandlerPolicy } from '../../options/inbox-options.resolver';
import type { RecordPosition } from '../../store/inbox.store';

const DELIVERY = Symbol('nest-outbox:inbox-delivery');

/** Why the guard refused a record. @internal */
export interface Rejection {
  readonly code: RejectionCode;
  readonly reason: string;
}

/** One record of a chunk handed to an `@InboxBatchHandler` in one call. @internal */
export interface ChunkEntry {
  /** The record as Nest's parser handed it over (its key and value feed rejection evidence). */
  readonly message: ParsedRecord;
  readonly position: RecordPosition;
  readonly offset: bigint;
  readonly headers: Record<string, string>;
  /** Set when the guard accepted the record. */
  readonly envelope: EventEnvelope | undefined;
  /** Set when the guard refused it: the interceptor records it and moves on. */
  readonly rejection: Rejection | undefined;
}

/** An entry of a chunk call the guard accepted, with its envelope. @internal */
export interface AcceptedEntry {
  readonly entry: ChunkEntry;
  readonly event: EventEnvelope;
}

/** The records of one `InboxKafkaServer` chunk call, and the new events the handler applies. @internal */
export interface ChunkDelivery {
  readonly entries: readonly ChunkEntry[];
  /** Filled by the interceptor before the handler runs (`@InboxEvents()`). */
  readonly fresh: EventEnvelope[];
}

/** One record on its way through the guard and the interceptor, on its KafkaContext. @internal */
export interface InboxDelivery extends ChunkEntry {
  readonly consumer: string;
  readonly policy: ResolvedHandlerPolicy;
  /** `@InboxBatchHandler`: the handler reads `@InboxEvents()`. */
  readonly batch: boolean;
  /** Set when `InboxKafkaServer` hands a whole chunk to a batch handler in one call. */
  readonly chunk?: ChunkDelivery;
  readonly session: ConsumerSession;
  /** For a chunk's record, the LAST record's context: read key and value from `message`. */
  readonly context: KafkaContext;
  /** The partition tracker the record was begun on (set by the interceptor). */
  readonly tracker?: PartitionOffsetTracker;
}

/** One record of a chunk call: the chunk's delivery with the record's own verdict. @internal */
export function entryDelivery(chunkDelivery: InboxDelivery, entry: ChunkEntry): InboxDelivery {
  return { ...chunkDelivery, ...entry, chunk: undefined };
}

/** @internal */
export function attachDelivery(context: KafkaContext, delivery: InboxDelivery): void {
  (context as unknown as Record<symbol, InboxDelivery>)[DELIVERY] = delivery;
}

/** @internal */
export function deliveryOf(context: unknown): InboxDelivery | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  return (context as Record<symbol, InboxDelivery | undefined>)[DELIVERY];
}
