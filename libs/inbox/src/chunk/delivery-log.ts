import type { EventEnvelope } from '@nest-outbox/core';
import type { RecordPosition } from '../store/inbox.store';

/** Where a record is, for log lines: consumer, event, aggregate, type and position. @internal */
export function deliveryFields(
  at: { readonly consumer: string; readonly position: RecordPosition },
  event: EventEnvelope,
) {
  return {
    consumer: at.consumer,
    event_id: event.eventId,
    aggregate_id: event.aggregateId,
    type: event.eventType,
    topic: at.position.topic,
    partition: at.position.partition,
    offset: at.position.offset,
  };
}
