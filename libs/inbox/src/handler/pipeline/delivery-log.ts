import { logText, type EventEnvelope } from '@nest-outbox/core';
import type { InboxDelivery } from './inbox-delivery';

/**
 * Where a record is, for log lines: consumer, event, aggregate, type and position (the
 * strings that came from outside escaped by core's `logText`). @internal
 */
export function describeDelivery(delivery: InboxDelivery, event: EventEnvelope): string {
  return (
    `consumer=${delivery.consumer} event_id=${event.eventId} aggregate_id=${logText(event.aggregateId, 100)} ` +
    `type=${logText(event.eventType, 100)} topic=${delivery.position.topic} partition=${delivery.position.partition} offset=${delivery.position.offset}`
  );
}
