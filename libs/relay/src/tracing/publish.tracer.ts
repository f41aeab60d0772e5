import { EVENT_HEADERS } from '@nest-outbox/core';
import { otelApi, parseTraceHeaders, runInSpan } from '@nest-outbox/core/internal';
import type { Link } from '@opentelemetry/api';
import type { PublishRecord } from '../publisher/relay-publisher.interface';

const TRACER_NAME = '@nest-outbox/relay';

/**
 * The relay's publish span: one PRODUCER span per Produce request, linked to each event's
 * `traceparent` and active while kafkajs sends. A no-op without `@opentelemetry/api`.
 * @internal
 */
export async function tracePublish<T>(
  records: readonly PublishRecord[],
  send: () => Promise<T>,
): Promise<T> {
  const api = otelApi();
  if (!api) return send();
  const topics = new Set(records.map((r) => r.topic));
  const topic = topics.size === 1 ? [...topics][0]! : undefined;
  const span = api.trace.getTracer(TRACER_NAME).startSpan(`send ${topic ?? 'batch'}`, {
    kind: api.SpanKind.PRODUCER,
    attributes: {
      'messaging.system': 'kafka',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      'messaging.batch.message_count': records.length,
      ...(topic === undefined ? {} : { 'messaging.destination.name': topic }),
    },
  });
  if (span.isRecording()) span.addLinks(linksOf(records));
  return runInSpan(api, span, api.context.active(), send);
}

function linksOf(records: readonly PublishRecord[]): Link[] {
  const links = new Map<string, Link>();
  for (const r of records) {
    const traceparent = r.headers[EVENT_HEADERS.traceparent];
    if (traceparent === undefined || links.has(traceparent)) continue;
    const context = parseTraceHeaders(traceparent, r.headers[EVENT_HEADERS.tracestate]);
    if (context)
      links.set(traceparent, {
        context,
        attributes: { 'messaging.message.id': r.headers[EVENT_HEADERS.eventId] ?? '' },
      });
  }
  return [...links.values()];
}
