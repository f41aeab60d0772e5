import type { EventEnvelope } from '@nest-outbox/core';
import type { InboxStore } from '../../store/inbox.store';
import type { InboxBatch } from '../../chunk/inbox-batch.context';
import type { InboxDelivery } from '../delivery/inbox-delivery';

/**
 * The one dedup decision of the inbox, inside the attempt's transaction: registers
 * (consumer, event_id) and says whether the row is new (run the handler) or was there
 * already (a duplicate: skip the effect). Inside an `InboxKafkaServer` chunk the row may have
 * been registered ahead, with the chunk's other rows, by `registerAhead`: the record then
 * claims that registration instead of inserting its row.
 * @internal
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
