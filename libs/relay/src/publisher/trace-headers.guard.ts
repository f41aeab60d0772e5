import { EVENT_HEADERS } from '@nest-outbox/core';
import { otelApi } from '@nest-outbox/core/internal';

/**
 * The headers handed to kafkajs for one record. While a global propagator writes trace
 * headers and the event carries a `traceparent`, a copy whose `traceparent` and `tracestate`
 * ignore writes: `@opentelemetry/instrumentation-kafkajs` would otherwise replace the
 * producing trace the consumer must continue with its own send span.
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
