import { toKafkaHeaders, uuidv7 } from '@nest-outbox/core';
import type { Message } from 'kafkajs';

/** A Kafka record in the event contract's format (what the relay publishes). */
export function eventRecord(
  fields: {
    eventId?: string;
    eventType?: string;
    schemaVersion?: number;
    aggregateId?: string;
    aggregateVersion?: number;
    payload?: unknown;
  } = {},
): Message & { eventId: string } {
  const eventId = fields.eventId ?? uuidv7();
  const aggregateId = fields.aggregateId ?? `order-${eventId.slice(-6)}`;
  return {
    eventId,
    key: aggregateId,
    value: JSON.stringify(fields.payload ?? { orderId: aggregateId, total: 42 }),
    headers: toKafkaHeaders({
      eventId,
      eventType: fields.eventType ?? 'order.confirmed',
      schemaVersion: fields.schemaVersion ?? 1,
      aggregateType: 'order',
      aggregateId,
      aggregateVersion: fields.aggregateVersion ?? 1,
      occurredAt: new Date(),
      headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    }),
  };
}
