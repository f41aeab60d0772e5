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
  readonly envelope: EventEnvelope | undefined;
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

/**
 * One record on its way through the guard and the interceptor, attached to its
 * KafkaContext (a per-record object, so nothing is shared between records or apps).
 * @internal
 */
export interface InboxDelivery {
  readonly consumer: string;
  readonly policy: ResolvedHandlerPolicy;
  /** `@InboxBatchHandler`: the handler reads `@InboxEvents()`. */
  readonly batch: boolean;
  /** Set when `InboxKafkaServer` hands a whole chunk to a batch handler in one call. */
  readonly chunk?: ChunkDelivery;
  readonly session: ConsumerSession;
  /** The Kafka context the pipeline ran in: for a chunk's record, the chunk's LAST record's. */
  readonly context: KafkaContext;
  /**
   * This record as Nest's parser handed it over: read its key and value here, never from
   * `context.getMessage()` (a chunk's records share the last record's context).
   */
  readonly message: ParsedRecord;
  readonly position: RecordPosition;
  readonly offset: bigint;
  readonly headers: Record<string, string>;
  /** Set when the guard accepted the record. */
  readonly envelope: EventEnvelope | undefined;
  /** Set when the guard refused the record: the interceptor records it and moves on. */
  readonly rejection: Rejection | undefined;
  /** The partition tracker the record was begun on (set by the interceptor). */
  readonly tracker?: PartitionOffsetTracker;
}

/**
 * The delivery of one record of a chunk call: the chunk's delivery (handler, session, the
 * last record's context) with the record's own message, place and verdict.
 * @internal
 */
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
