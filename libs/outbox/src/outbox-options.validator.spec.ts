import { InvalidOptionsError } from '@nest-outbox/core';
import { activeTraceHeaders } from '@nest-outbox/core/internal';
import { resolveOutboxOptions } from './outbox-options.validator';

describe('resolveOutboxOptions: traceContext', () => {
  it('defaults to the active OpenTelemetry span when @opentelemetry/api is installed', () => {
    expect(resolveOutboxOptions({}, undefined).traceContext).toBe(activeTraceHeaders);
  });

  it('keeps a hook given by the application, and stores none with false', () => {
    const hook = () => ({ traceparent: 'tp' });
    expect(resolveOutboxOptions({ traceContext: hook }, undefined).traceContext).toBe(hook);
    expect(resolveOutboxOptions({ traceContext: false }, undefined).traceContext).toBeUndefined();
  });

  it('refuses anything else at start-up with a typed error saying what it may be', () => {
    const wrong = { traceContext: 'otel' } as unknown as Parameters<typeof resolveOutboxOptions>[0];
    expect(() => resolveOutboxOptions(wrong, undefined)).toThrow(InvalidOptionsError);
    expect(() => resolveOutboxOptions(wrong, undefined)).toThrow(/must be a function, false/);
  });
});
