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

/**
 * Runs the decorated method as one PostgreSQL transaction with the outbox: business
 * writes go through `TransactionHost.tx`, events recorded with `OutboxService.record()`
 * are inserted in the same transaction at the end of the outermost decorated call, and
 * relays are woken after the commit. Commit both or neither; no Kafka call inside.
 * `{ critical: false }` marks a command refused under back-pressure (`OutboxTransactionOptions`).
 *
 * Nested decorated calls join the outer transaction; inside a plain nestjs-cls
 * transaction the method joins that one. Metadata other decorators put on the method is
 * kept. The class must be a singleton provider or controller of an application that
 * imports `OutboxModule` (the function form `outbox.transaction(fn)` works anywhere).
 * @example
 * class Orders { @OutboxTransactional() async confirm(id: string) { ... } }
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
      const owner = (this?.constructor as { name?: string } | undefined)?.name ?? 'object';
      const outbox = this?.[OUTBOX_RUNNER];
      if (!outbox) return Promise.reject(new OutboxNotInitializedError(owner, String(key)));
      // Named `Class.method` in back-pressure refusals unless the options name it.
      const command = options?.command ?? `${owner}.${String(key)}`;
      return outbox.transaction(() => method.apply(this, args), { ...options, command });
    };
    Object.defineProperty(wrapped, 'name', { value: method.name });
    copyMetadata(method, wrapped);
    Reflect.defineMetadata(OUTBOX_TRANSACTIONAL_METHODS, true, target.constructor);
    descriptor.value = wrapped as typeof descriptor.value;
    return descriptor;
  };
}
