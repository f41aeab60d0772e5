import { NestOutboxError } from '@nest-outbox/core';

/**
 * A publish did not finish within `publishTimeoutMs` and was cancelled (the producer was
 * disconnected, so nothing keeps retrying in the background). Transient.
 * @publicApi
 */
export class PublishTimeoutError extends NestOutboxError {
  constructor(readonly timeoutMs: number) {
    super(
      `RelayModule: publish cancelled after ${timeoutMs} ms (publishTimeoutMs); it will be retried with backoff`,
    );
  }
}
