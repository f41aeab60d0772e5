import { OutboxNotInitializedError } from './errors/outbox-not-initialized.error';
import { OUTBOX_RUNNER, OUTBOX_TRANSACTIONAL_METHODS } from './outbox.constants';
import type { OutboxService } from './outbox.service';
import type { OutboxTransactionOptions } from './transaction/outbox-transaction-options.interface';

type AnyMethod = (...args: unknown[]) => unknown;

function copyMetadata(from: object, to: object): void {
  for (const key of Reflect.getMetadataKeys(from)) {
    Reflect.defineMetadata(key, Reflect.getMetadata(key, from), to);
  }
}

function markMethod(target: object, key: string | symbol): void {
  const names = (Reflect.getMetadata(OUTBOX_TRANSACTIONAL_METHODS, target.constructor) ?? []) as (
    | string
    | symbol
  )[];
  Reflect.defineMetadata(OUTBOX_TRANSACTIONAL_METHODS, [...names, key], target.constructor);
}

/** The options with the command named `Class.method` (for back-pressure refusals). */
function withCommand(
  self: object | undefined,
  key: string | symbol,
  options: OutboxTransactionOptions | undefined,
): OutboxTransactionOptions {
  if (options?.command) return options;
  const owner = (self?.constructor as { name?: string } | undefined)?.name ?? 'object';
  return { ...options, command: `${owner}.${String(key)}` };
}

/**
 * Runs the decorated method as one PostgreSQL transaction with the outbox: business
 * writes go through `TransactionHost.tx`, events recorded with `OutboxService.record()`
 * are inserted in the same transaction at the end of the outermost decorated call, and
 * relays are woken after the commit. Commit both or neither; no Kafka call inside.
 *
 * `@OutboxTransactional({ critical: false })` marks a non-critical command: while the
 * module's pressure state is `critical` (option `pressure`) it is refused with
 * `OutboxBackPressureError` before any write. Critical commands are never refused.
 *
 * Nested decorated calls join the outer transaction; inside a plain nestjs-cls
 * transaction the method joins that one. Metadata other decorators put on the method is
 * kept. The class must be a singleton provider or controller of an application that
 * imports `OutboxModule` (the function form `outbox.transaction(fn)` works anywhere).
 * @publicApi
 */
export function OutboxTransactional(options?: OutboxTransactionOptions): MethodDecorator {
  return (target, key, descriptor) => {
    const original = descriptor.value as unknown;
    if (typeof original !== 'function') {
      throw new TypeError(`@OutboxTransactional() decorates methods; ${String(key)} is not one`);
    }
    const method = original as AnyMethod;
    const wrapped = function (this: Record<symbol, OutboxService | undefined>, ...args: unknown[]) {
      const outbox = this?.[OUTBOX_RUNNER];
      if (!outbox) {
        const owner = (this?.constructor as { name?: string } | undefined)?.name ?? 'object';
        return Promise.reject(new OutboxNotInitializedError(owner, String(key)));
      }
      return outbox.transaction(() => method.apply(this, args), withCommand(this, key, options));
    };
    Object.defineProperty(wrapped, 'name', { value: method.name });
    copyMetadata(method, wrapped);
    markMethod(target, key);
    descriptor.value = wrapped as typeof descriptor.value;
    return descriptor;
  };
}
