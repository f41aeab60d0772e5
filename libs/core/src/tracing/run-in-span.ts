import type { Context, Span } from '@opentelemetry/api';
import { errorLabel } from '../error-label';
import type { OtelApi } from './otel-api';

/** Runs `work` with `span` active under `parent`; ERROR status carries the error's class and code only. @publicApi */
export async function runInSpan<T>(
  api: OtelApi,
  span: Span,
  parent: Context,
  work: () => Promise<T>,
): Promise<T> {
  try {
    const result = await api.context.with(api.trace.setSpan(parent, span), work);
    span.setStatus({ code: api.SpanStatusCode.OK });
    return result;
  } catch (error) {
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorLabel(error) });
    throw error;
  } finally {
    span.end();
  }
}
