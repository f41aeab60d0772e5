import type { EventEnvelope } from '@nest-outbox/core';
import { KafkaContext, type RmqContext } from '@nestjs/microservices';
import type { ConsumerSession } from '../consumer/consumer.session';
import type { PartitionOffsetTracker } from '../consumer/partition-offset.tracker';
import { headerStrings, type ParsedRecord, type RejectionCode } from '../envelope/envelope.decoder';
import type { ResolvedHandlerPolicy } from '../options/inbox-options.resolver';
import type { RecordPosition } from '../store/inbox.store';
import type { InboxRmqContext } from './inbox-rmq.context';

/**
 * The final result of one record. `paused` is the only one that is not final: its offset
 * is not committed and the partition waits at it. @publicApi
 */
export type InboxOutcome = 'applied' | 'duplicate' | 'stale' | 'dead-lettered' | 'paused';

/**
 * The `KafkaContext` an inbox handler is called with: the record's own context, plus the events
 * the inbox admitted for it (`@InboxEvent()` reads the one, `@InboxBatchHandler`'s
 * `@InboxEvents()` all of a chunk's, where `@Ctx()` is the chunk's last record's). @internal
 */
export class InboxKafkaContext extends KafkaContext {
  constructor(
    context: KafkaContext,
    readonly events: readonly EventEnvelope[],
    readonly batch: boolean,
  ) {
    super(context.getArgs());
  }
}

/** One `@InboxHandler` / `@InboxBatchHandler` method of the application, ready to call. @internal */
export interface InboxRoute {
  readonly consumer: string;
  readonly policy: ResolvedHandlerPolicy;
  readonly batch: boolean;
  /**
   * Calls the method with the controller's guards, interceptors, pipes and exception filters;
   * `payload` is what `@Payload()` reads, `context` what `@Ctx()` and `@InboxEvent(s)()` read.
   */
  readonly invoke: (
    payload: unknown,
    context: InboxKafkaContext | InboxRmqContext,
  ) => Promise<unknown>;
}

/** One Kafka record of a chunk, as Nest's parser and deserializer made it. @internal */
export interface ChunkRecord {
  /** The parsed record (its key and value feed rejection evidence and the dead-letter copy). */
  readonly message: ParsedRecord;
  readonly position: RecordPosition;
  readonly offset: bigint;
  readonly headers: Record<string, string>;
  /** What `@Payload()` reads (computed on first use). */
  readonly payload: () => unknown;
  /** The record's `KafkaContext` (consumer, heartbeat, producer), or its `RmqContext`. */
  readonly context: KafkaContext | RmqContext;
}

/** Why a record was refused before any handler ran. @internal */
export interface Rejection {
  readonly code: RejectionCode;
  readonly reason: string;
}

/** A record's verdict for one route: its event, or why it was refused. @internal */
export type Verdict =
  | { readonly record: ChunkRecord; readonly event: EventEnvelope; readonly rejection?: undefined }
  | { readonly record: ChunkRecord; readonly event?: undefined; readonly rejection: Rejection };

/**
 * An accepted record after registration: `new` (its handler runs), a `duplicate` of an event
 * already handled, or `stale` (an older aggregate version than one applied). @internal
 */
export interface Admission {
  readonly record: ChunkRecord;
  readonly event: EventEnvelope;
  readonly outcome: 'new' | 'duplicate' | 'stale';
}

/** One record for one route, as the settle stage needs it (built only on that path). @internal */
export interface InboxDelivery extends ChunkRecord {
  readonly consumer: string;
  readonly policy: ResolvedHandlerPolicy;
  readonly session: ConsumerSession;
  /** The partition tracker the record was begun on. */
  readonly tracker?: PartitionOffsetTracker;
  /** The decoded event, when the record was accepted. */
  readonly envelope?: EventEnvelope;
}

/** Keeps a Kafka consumer in its group while a record waits (RabbitMQ needs nothing). @internal */
export function heartbeatOf(record: Pick<ChunkRecord, 'context'>): Promise<void> {
  const { context } = record;
  return context instanceof KafkaContext ? context.getHeartbeat()() : Promise.resolve();
}

/** The chunk record of a record's `KafkaContext` (its message as Nest's parser made it). @internal */
export function recordOf(context: KafkaContext, payload: () => unknown): ChunkRecord {
  const message = context.getMessage();
  const { offset } = message;
  return {
    message: message as ParsedRecord,
    position: { topic: context.getTopic(), partition: context.getPartition(), offset },
    offset: BigInt(offset),
    headers: headerStrings(message.headers as Record<string, unknown> | undefined),
    payload,
    context,
  };
}

/** @internal */
export function deliveryOf(
  record: ChunkRecord,
  route: Pick<InboxRoute, 'consumer' | 'policy'>,
  session: ConsumerSession,
  extra: { tracker?: PartitionOffsetTracker; envelope?: EventEnvelope } = {},
): InboxDelivery {
  return { ...record, consumer: route.consumer, policy: route.policy, session, ...extra };
}

/** Where a record is, for log lines: consumer, event, aggregate, type and position. @internal */
export function deliveryFields(
  at: { readonly consumer: string; readonly position: RecordPosition },
  event: EventEnvelope,
) {
  const { topic, partition, offset } = at.position;
  const { eventId, aggregateId, eventType } = event;
  return {
    consumer: at.consumer,
    ...{ event_id: eventId, aggregate_id: aggregateId, type: eventType },
    ...{ topic, partition, offset },
  };
}
