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
 * Runs a handler call in a CONSUMER span `process <topic>`. For one event (`@InboxHandler`) its
 * parent is the event's `traceparent` (else what is active); for a batch call the span is
 * linked to each event's producing span. A no-op without `@opentelemetry/api`. @internal
 */
export async function traceInboxCall<T>(
  record: TracedRecord,
  events: readonly EventEnvelope[],
  batch: boolean,
  handle: () => Promise<T>,
): Promise<T> {
  const api = otelApi();
  if (!api) return handle();
  const producing = events.map((event) =>
    parseTraceHeaders(
      event.headers[EVENT_HEADERS.traceparent],
      event.headers[EVENT_HEADERS.tracestate],
    ),
  );
  const active = api.context.active();
  const single = batch ? undefined : producing[0];
  const parent = single ? api.trace.setSpanContext(active, single) : active;
  const { topic, partition, offset } = record.position;
  const span = api.trace.getTracer(TRACER_NAME).startSpan(
    `process ${topic}`,
    {
      kind: api.SpanKind.CONSUMER,
      links: batch ? producing.flatMap((context) => (context ? [{ context }] : [])) : [],
      attributes: {
        'messaging.system': 'kafka',
        'messaging.operation.type': 'process',
        'messaging.operation.name': 'process',
        'messaging.destination.name': topic,
        'messaging.destination.partition.id': String(partition),
        'messaging.consumer.group.name': record.consumer,
        ...(batch
          ? { 'messaging.batch.message_count': events.length }
          : {
              'messaging.kafka.offset': Number(offset),
              'messaging.message.id': events[0]!.eventId,
              'nest_outbox.event_type': events[0]!.eventType,
            }),
      },
    },
    parent,
  );
  return runInSpan(api, span, parent, handle);
}
