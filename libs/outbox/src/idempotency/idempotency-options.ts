import type { OptionChecks } from '@nest-outbox/core/internal';
import type { OutboxIdempotencyOptions, ResolvedOutboxOptions } from '../outbox-options.interface';
import { idempotencyTable } from './idempotency.sql';

/** `idempotency` of the outbox options, validated. @internal */
export function idempotencyOptions(
  check: OptionChecks,
  value: OutboxIdempotencyOptions | undefined,
  schema: string,
  table: string,
): ResolvedOutboxOptions['idempotency'] {
  if (value !== undefined && (value === null || typeof value !== 'object')) {
    check.fail('idempotency', 'must be an object ({ scope, retentionMs }) or omitted');
  }
  const scope: unknown = value?.scope;
  if (scope !== undefined && typeof scope !== 'function') {
    check.fail(
      'idempotency.scope',
      "must be a function (context) => string naming the caller (e.g. the request's tenant), or omitted (one scope)",
    );
  }
  return {
    scope: value?.scope ?? (() => ''),
    retentionMs: check.integer('idempotency.retentionMs', value?.retentionMs, 86_400_000, {
      min: 1000,
    }),
    table: idempotencyTable(schema, table),
  };
}
