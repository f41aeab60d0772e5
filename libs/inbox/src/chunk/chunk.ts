import type { EventEnvelope } from '@nest-outbox/core';
import type { KafkaContext } from '@nestjs/microservices';
import { headerStrings, type ParsedRecord, type RejectionCode } from '../envelope/envelope.decoder';
import type { ResolvedHandlerPolicy } from '../options/inbox-options.resolver';
import type { RecordPosition } from '../store/inbox.store';
import type { InboxKafkaContext } from './inbox-kafka.context';

/** One `@InboxHandler` / `@InboxBatchHandler` method of the application, ready to call. @internal */
export interface InboxRoute {
  readonly consumer: string;
  readonly policy: ResolvedHandlerPolicy;
  /** `@InboxBatchHandler`: called once per chunk with its new events. */
  readonly batch: boolean;
  /**
   * Calls the method with the controller's guards, interceptors, pipes and exception filters;
   * `payload` is what `@Payload()` reads, `context` what `@Ctx()` and `@InboxEvent(s)()` read.
   */
  readonly invoke: (payload: unknown, context: InboxKafkaContext) => Promise<unknown>;
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
  /** The record's `KafkaContext` (consumer, heartbeat, producer). */
  readonly context: KafkaContext;
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
