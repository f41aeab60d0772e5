import { InvalidOptionsError, RenamedOptionError } from '@nest-outbox/core';
import { activeTraceHeaders } from '@nest-outbox/core/internal';
import { resolveOutboxOptions } from './outbox-options.validator';

describe('resolveOutboxOptions: traceContext', () => {
  it('defaults to the active OpenTelemetry span when @opentelemetry/api is installed', () => {
    expect(resolveOutboxOptions({}, undefined).traceContext).toBe(activeTraceHeaders);
  });

  it('keeps a hook given by the application, and stores none with false', () => {
    const hook = () => ({ traceparent: 'tp' });
    expect(resolveOutboxOptions({ tuning: { traceContext: hook } }, undefined).traceContext).toBe(
      hook,
    );
    expect(
      resolveOutboxOptions({ tuning: { traceContext: false } }, undefined).traceContext,
    ).toBeUndefined();
  });

  it('refuses anything else at start-up with a typed error saying what it may be', () => {
    const wrong = { tuning: { traceContext: 'otel' } } as unknown as Parameters<
      typeof resolveOutboxOptions
    >[0];
    expect(() => resolveOutboxOptions(wrong, undefined)).toThrow(InvalidOptionsError);
    expect(() => resolveOutboxOptions(wrong, undefined)).toThrow(/must be a function, false/);
  });
});

describe('resolveOutboxOptions: options moved under tuning', () => {
  it.each(
    `table maxPayloadBytes notifyChannel notifyCoalesceMs traceContext installSchema
    verifySchema sqlExecutor`.split(/\s+/),
  )('refuses %s at the top level with a RenamedOptionError naming tuning.%s', (name) => {
    const old = { [name]: 1 } as Parameters<typeof resolveOutboxOptions>[0];
    expect(() => resolveOutboxOptions(old, undefined)).toThrow(RenamedOptionError);
    expect(() => resolveOutboxOptions(old, undefined)).toThrow(
      `option "${name}" was renamed to "tuning.${name}"`,
    );
  });

  it('reads them under tuning, and schema at the top level', () => {
    const o = resolveOutboxOptions({ schema: 'app', tuning: { maxPayloadBytes: 10 } }, undefined);
    expect(o).toMatchObject({ qualifiedTable: '"app"."outbox"', maxPayloadBytes: 10 });
  });

  it('refuses tuning.schema with a RenamedOptionError naming schema', () => {
    const old = { tuning: { schema: 'app' } } as Parameters<typeof resolveOutboxOptions>[0];
    expect(() => resolveOutboxOptions(old, undefined)).toThrow(RenamedOptionError);
    expect(() => resolveOutboxOptions(old, undefined)).toThrow(
      'option "tuning.schema" was renamed to "schema"',
    );
  });
});

describe('resolveOutboxOptions: idempotency', () => {
  it('defaults to one scope, 24 h of retention and the keys next to the outbox table', () => {
    const { idempotency } = resolveOutboxOptions({ schema: 'app' }, undefined);
    expect(idempotency).toEqual({
      scope: expect.any(Function),
      retentionMs: 86_400_000,
      table: '"app"."outbox_idempotency"',
    });
    expect(idempotency.scope({} as never)).toBe('');
  });

  it.each([
    [{ scope: 'tenant' }, /idempotency.scope" must be a function \(context\) => string/],
    [{ retentionMs: 10 }, /idempotency.retentionMs"/],
    ['24h', /idempotency" must be an object/],
  ])('refuses %p with an InvalidOptionsError saying how to fix it', (idempotency, message) => {
    const wrong = { idempotency } as unknown as Parameters<typeof resolveOutboxOptions>[0];
    expect(() => resolveOutboxOptions(wrong, undefined)).toThrow(InvalidOptionsError);
    expect(() => resolveOutboxOptions(wrong, undefined)).toThrow(message);
  });
});
