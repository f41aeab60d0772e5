import { NestOutboxError } from '@nest-outbox/core';

/**
 * `record()` or `transition()` was called with no active transaction. Recording outside a
 * transaction would autocommit the event apart from the change it announces (the dual
 * write the outbox exists to prevent), so it is refused.
 * @publicApi
 */
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
