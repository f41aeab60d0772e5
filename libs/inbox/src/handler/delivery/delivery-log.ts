import type { EventEnvelope } from '@nest-outbox/core';
import type { InboxDelivery } from './inbox-delivery';

/** Where a record is, for log lines: consumer, event, aggregate, type and position. @internal */
export function deliveryFields(delivery: InboxDelivery, event: EventEnvelope) {
  return {
    consumer: delivery.consumer,
    event_id: event.eventId,
    aggregate_id: event.aggregateId,
    type: event.eventType,
    topic: delivery.position.topic,
    partition: delivery.position.partition,
    offset: delivery.position.offset,
  };
}
