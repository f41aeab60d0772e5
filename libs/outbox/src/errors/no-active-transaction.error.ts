import { NestOutboxError } from '@nest-outbox/core';

/** `record()` or `transition()` outside a transaction (the dual write the outbox exists to prevent). @publicApi */
export class NoActiveTransactionError extends NestOutboxError {
  constructor(operation: string) {
    super(
      `OutboxService.${operation}() needs an active transaction: call it from a method ` +
        'decorated with @OutboxTransactional(), inside outbox.transaction(fn), or inside a ' +
        'nestjs-cls transaction (@Transactional() / TransactionHost.withTransaction()) of the ' +
        'same connection',
    );
  }
}
