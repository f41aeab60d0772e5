import { OutboxNotInitializedError } from './errors/outbox-not-initialized.error';
import { OUTBOX_RUNNER, OUTBOX_TRANSACTIONAL_METHODS } from './outbox.constants';
import type { OutboxService } from './outbox.service';
import type { OutboxTransactionOptions } from './transaction/outbox-transaction-options.interface';

type AnyMethod = (...args: unknown[]) => unknown;

function copyMetadata(from: object, to: object): void {
  for (const key of Reflect.getMetadataKeys(from))
    Reflect.defineMetadata(key, Reflect.getMetadata(key, from), to);
}

/**
 * Runs the method as one transaction with the outbox: writes through `TransactionHost.tx`,
 * events recorded with `record()` inserted at the end of the outermost call, relays woken
 * after the commit. Nested calls join the outer transaction (or a plain nestjs-cls one); other
 * decorators' metadata is kept. The class must be a singleton provider or controller
 * (`outbox.transaction(fn)` works anywhere).
 * @example
 * class Orders { @OutboxTransactional() async confirm(id: string) { ... } }
 * @publicApi
 */
export function OutboxTransactional(options?: OutboxTransactionOptions): MethodDecorator {
  return (target, key, descriptor) => {
    const original = descriptor.value as unknown;
    if (typeof original !== 'function')
      throw new TypeError(`@OutboxTransactional() decorates methods; ${String(key)} is not one`);
    const method = original as AnyMethod;
    const wrapped = function (this: Record<symbol, OutboxService | undefined>, ...args: unknown[]) {
      const owner = (this?.constructor as { name?: string } | undefined)?.name ?? 'object';
      const outbox = this?.[OUTBOX_RUNNER];
      if (!outbox) return Promise.reject(new OutboxNotInitializedError(owner, String(key)));
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
