/**
 * The event contract: what a consumer may rely on (relay mechanics are never part of it). On
 * Kafka one record: key `aggregateId`, value the payload's UTF-8 JSON exactly as recorded,
 * headers the contract fields (`EVENT_HEADERS`), `content-type` and the event's own headers.
 * @publicApi
 */
export interface EventEnvelope<TPayload = unknown> {
  /** UUIDv7, assigned once when the event is recorded; the consumer's dedup key. */
  readonly eventId: string;
  readonly eventType: string;
  /** Version of this event type's payload format (not of the aggregate). */
  readonly schemaVersion: number;
  /** For example `order`; routes to a topic. */
  readonly aggregateType: string;
  /** The Kafka key. */
  readonly aggregateId: string;
  /** The aggregate's sequence number after this change (1, 2, 3, ...). */
  readonly aggregateVersion: number;
  readonly occurredAt: Date;
  readonly payload: TPayload;
  /** `traceparent`, `tracestate`, `correlation_id` and user headers. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Kafka header names of the contract fields. @publicApi */
export const EVENT_HEADERS = {
  eventId: 'event_id',
  eventType: 'event_type',
  schemaVersion: 'schema_version',
  aggregateType: 'aggregate_type',
  aggregateId: 'aggregate_id',
  aggregateVersion: 'aggregate_version',
  occurredAt: 'occurred_at',
  contentType: 'content-type',
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  correlationId: 'correlation_id',
} as const;

const RESERVED = new Set<string>(Object.values(EVENT_HEADERS));

/** True when `name` is a contract header that event headers must not override. @publicApi */
export function isReservedHeader(name: string): boolean {
  return RESERVED.has(name.toLowerCase());
}

/** The envelope without its payload; `occurredAt` may be an ISO-8601 text already. @publicApi */
export type KafkaHeaderSource = Omit<EventEnvelope, 'payload' | 'occurredAt'> & {
  readonly occurredAt: Date | string;
};

/** The Kafka headers of an event: its own headers, then the contract fields (which win). @publicApi */
export function toKafkaHeaders(event: KafkaHeaderSource): Record<string, string> {
  // Plain assignments, not `{ ...event.headers, [name]: value }`: the relay builds this for
  // every event it publishes, and V8 runs the spread-with-computed-keys form far slower.
  const out: Record<string, string> = {};
  const own = event.headers;
  for (const name in own) {
    if (!Object.hasOwn(own, name)) continue;
    // A `__proto__` header (JSON.parse makes it an own key) stays a header, not a prototype.
    if (name === '__proto__')
      Object.defineProperty(out, name, { value: own[name], enumerable: true, writable: true });
    else out[name] = own[name]!;
  }
  out.event_id = event.eventId;
  out.event_type = event.eventType;
  out.schema_version = String(event.schemaVersion);
  out.aggregate_type = event.aggregateType;
  out.aggregate_id = event.aggregateId;
  out.aggregate_version = String(event.aggregateVersion);
  out.occurred_at =
    typeof event.occurredAt === 'string' ? event.occurredAt : event.occurredAt.toISOString();
  out['content-type'] = 'application/json';
  return out;
}
