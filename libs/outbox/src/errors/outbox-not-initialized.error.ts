import { NestOutboxError } from '@nest-outbox/core';

/** An `@OutboxTransactional()` method ran on an object the OutboxModule never saw. @publicApi */
export class OutboxNotInitializedError extends NestOutboxError {
  constructor(className: string, method: string) {
    super(
      `${className}.${method}() is decorated with @OutboxTransactional() but ${className} ` +
        'is not a singleton provider or controller of an initialised application importing ' +
        'OutboxModule: register it as a provider (default scope), call app.init() first, or ' +
        'use outbox.transaction(fn) instead of the decorator',
    );
  }
}
