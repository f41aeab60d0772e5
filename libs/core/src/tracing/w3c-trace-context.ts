import type { SpanContext } from '@opentelemetry/api';
import { otelApi } from './otel-api';

/** W3C trace context as stored in an event's headers. @publicApi */
export interface TraceHeaders {
  readonly traceparent: string;
  readonly tracestate?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The `traceparent` (version 00) and `tracestate` of a valid span context. @publicApi */
export function formatTraceHeaders(span: SpanContext): TraceHeaders | undefined {
  const { traceId, spanId, traceFlags } = span;
  if (!/^[0-9a-f]{32}$/.test(traceId) || traceId === ZERO_TRACE) return undefined;
  if (!/^[0-9a-f]{16}$/.test(spanId) || spanId === ZERO_SPAN) return undefined;
  const traceparent = `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
  const tracestate = span.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** The remote span context of a `traceparent` header; undefined when missing or malformed (never throws). @publicApi */
export function parseTraceHeaders(
  traceparent: string | undefined,
  tracestate?: string,
): SpanContext | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent.trim());
  if (!match) return undefined;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const api = otelApi();
  let traceState: SpanContext['traceState'];
  try {
    traceState = tracestate && api ? api.createTraceState(tracestate) : undefined;
  } catch {
    traceState = undefined;
  }
  return { traceId, spanId, traceFlags: parseInt(flags, 16), isRemote: true, traceState };
}

/** The active span's trace headers (the default of the outbox's `traceContext`). @publicApi */
export function activeTraceHeaders(): TraceHeaders | undefined {
  const span = otelApi()?.trace.getActiveSpan();
  return span ? formatTraceHeaders(span.spanContext()) : undefined;
}
