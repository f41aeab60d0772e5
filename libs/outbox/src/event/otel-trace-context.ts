import { activeTraceHeaders, otelApi } from '@nest-outbox/core/internal';
import type { TraceContext } from '../outbox-options.interface';

/**
 * The default `traceContext`: the active OpenTelemetry span's `traceparent`/`tracestate`
 * when `@opentelemetry/api` is installed (loaded once, at start-up), else none.
 * @internal
 */
export function otelTraceContext(): (() => TraceContext | undefined) | undefined {
  return otelApi() ? activeTraceHeaders : undefined;
}
