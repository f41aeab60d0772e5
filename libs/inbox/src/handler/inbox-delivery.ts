import type { EventEnvelope } from '@nest-outbox/core';
import type { KafkaContext } from '@nestjs/microservices';
import type { ConsumerSession } from '../consumer/consumer.session';
import type { PartitionOffsetTracker } from '../offsets/partition-offset.tracker';
import type { ResolvedHandlerPolicy } from '../inbox-options.resolver';
import type { RecordPosition } from '../store/inbox.store';

const DELIVERY = Symbol('nest-outbox:inbox-delivery');

/**
 * One record on its way through the guard and the interceptor, attached to its
 * KafkaContext (a per-record object, so nothing is shared between records or apps).
 * @internal
 */
export interface InboxDelivery {
  readonly consumer: string;
  readonly policy: ResolvedHandlerPolicy;
  readonly session: ConsumerSession;
  readonly context: KafkaContext;
  readonly position: RecordPosition;
  readonly offset: bigint;
  readonly headers: Record<string, string>;
  /** Set when the guard accepted the record. */
  readonly envelope: EventEnvelope | undefined;
  /** True when the guard already recorded the record as rejected (and committed it). */
  readonly settled: boolean;
  /** The partition tracker the record was begun on (set by the interceptor). */
  readonly tracker?: PartitionOffsetTracker;
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
