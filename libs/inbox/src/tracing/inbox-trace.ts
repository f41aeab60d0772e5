import { EVENT_HEADERS } from '@nest-outbox/core';
import { otelApi, parseTraceHeaders, runInSpan } from '@nest-outbox/core/internal';
import type { EventEnvelope } from '@nest-outbox/core';

/** Instrumentation scope of the inbox's spans. */
const TRACER_NAME = '@nest-outbox/inbox';

/** Where the record came from, for the span's attributes. @internal */
export interface TracedRecord {
  readonly consumer: string;
  readonly position: {
    readonly topic: string;
    readonly partition: number;
    readonly offset: string;
  };
}

/**
 * Runs a handler attempt in a CONSUMER span whose parent is the event's `traceparent` (else
 * what is active). A no-op without `@opentelemetry/api`. @internal
 */
export async function traceInboxHandler<T>(
  record: TracedRecord,
  event: EventEnvelope,
  handle: () => Promise<T>,
): Promise<T> {
  const api = otelApi();
  if (!api) return handle();
  const producing = parseTraceHeaders(
    event.headers[EVENT_HEADERS.traceparent],
    event.headers[EVENT_HEADERS.tracestate],
  );
  const parent = producing
    ? api.trace.setSpanContext(api.context.active(), producing)
    : api.context.active();
  const { topic, offset } = record.position;
  const span = api.trace.getTracer(TRACER_NAME).startSpan(
    `process ${topic}`,
    {
      kind: api.SpanKind.CONSUMER,
      attributes: {
        ...processAttributes(record),
        'messaging.kafka.offset': Number(offset),
        'messaging.message.id': event.eventId,
        'nest_outbox.event_type': event.eventType,
      },
    },
    parent,
  );
  return runInSpan(api, span, parent, handle);
}

/**
 * Runs a chunk call in one CONSUMER span linked to each event's producing span. A no-op
 * without `@opentelemetry/api`. @internal
 */
export async function traceInboxChunk<T>(
  record: TracedRecord,
  events: readonly EventEnvelope[],
  handle: () => Promise<T>,
): Promise<T> {
  const api = otelApi();
  if (!api) return handle();
  const links = [];
  for (const event of events) {
    const producing = parseTraceHeaders(
      event.headers[EVENT_HEADERS.traceparent],
      event.headers[EVENT_HEADERS.tracestate],
    );
    if (producing) links.push({ context: producing });
  }
  const parent = api.context.active();
  const { topic } = record.position;
  const span = api.trace.getTracer(TRACER_NAME).startSpan(
    `process ${topic}`,
    {
      kind: api.SpanKind.CONSUMER,
      links,
      attributes: {
        ...processAttributes(record),
        'messaging.batch.message_count': events.length,
      },
    },
    parent,
  );
  return runInSpan(api, span, parent, handle);
}

/** The attributes of every `process` span of the inbox (semantic conventions for messaging). */
function processAttributes(record: TracedRecord) {
  return {
    'messaging.system': 'kafka',
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.destination.name': record.position.topic,
    'messaging.destination.partition.id': String(record.position.partition),
    'messaging.consumer.group.name': record.consumer,
  };
}
