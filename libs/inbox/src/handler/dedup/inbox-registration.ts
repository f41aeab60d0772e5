import type { EventEnvelope } from '@nest-outbox/core';
import type { InboxStore } from '../../store/inbox.store';
import type { InboxBatch } from '../../chunk/inbox-batch.context';
import type { InboxDelivery } from '../delivery/inbox-delivery';

/**
 * The inbox's one dedup decision, in the attempt's transaction: true when (consumer, event_id)
 * is new (run the handler), false for a duplicate; claims a row registered ahead if any. @internal
 */
export async function registerOnce(
  store: InboxStore,
  delivery: InboxDelivery,
  event: EventEnvelope,
  batch?: InboxBatch,
): Promise<boolean> {
  const ahead = batch?.ahead.claim(delivery.consumer, delivery.position.offset, event.eventId);
  return ahead ?? store.register(delivery.consumer, event, delivery.position);
}
