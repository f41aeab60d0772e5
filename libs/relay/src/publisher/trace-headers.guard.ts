import { EVENT_HEADERS } from '@nest-outbox/core';
import { otelApi } from '@nest-outbox/core/internal';

/**
 * The headers handed to kafkajs for one record. When the event carries a `traceparent`
 * (the context it was recorded in) and OpenTelemetry is installed, a copy whose
 * `traceparent` and `tracestate` ignore writes: `@opentelemetry/instrumentation-kafkajs`
 * injects its own send span into every message's headers, which would replace the
 * producing trace the consumer must continue. Other headers stay writable. Only while a
 * global propagator writes `traceparent` or `tracestate` (with none, nothing can replace
 * them): the guarded copy costs a few microseconds per record, more than encoding it.
 * @internal
 */
export function guardTraceHeaders(
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  const api = headers[EVENT_HEADERS.traceparent] === undefined ? undefined : otelApi();
  if (!api || !writesTraceContext(api.propagation.fields()))
    return headers as Record<string, string>;
  const guarded = { ...headers };
  for (const name of [EVENT_HEADERS.traceparent, EVENT_HEADERS.tracestate]) {
    const value = headers[name];
    Object.defineProperty(guarded, name, {
      get: () => value,
      set: () => undefined,
      // An absent tracestate stays absent (no header with an undefined value).
      enumerable: value !== undefined,
      configurable: false,
    });
  }
  return guarded;
}

const writesTraceContext = (fields: readonly string[]) =>
  fields.includes(EVENT_HEADERS.traceparent) || fields.includes(EVENT_HEADERS.tracestate);
