import type { EventEnvelope } from '@nest-outbox/core';
import type { ConsumerSession } from '../consumer/consumer.session';
import type { PartitionOffsetTracker } from '../consumer/partition-offset.tracker';
import type { ResolvedHandlerPolicy } from '../options/inbox-options.resolver';
import type { ChunkRecord, InboxRoute } from './chunk';

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

/** @internal */
export function deliveryOf(
  record: ChunkRecord,
  route: Pick<InboxRoute, 'consumer' | 'policy'>,
  session: ConsumerSession,
  extra: { tracker?: PartitionOffsetTracker; envelope?: EventEnvelope } = {},
): InboxDelivery {
  return { ...record, consumer: route.consumer, policy: route.policy, session, ...extra };
}
