import { NestOutboxError } from '@nest-outbox/core';

/** A publish cancelled after `publishTimeoutMs` (the producer disconnected: no retry in the background). Transient. @publicApi */
export class PublishTimeoutError extends NestOutboxError {
  constructor(readonly timeoutMs: number) {
    super(
      `RelayModule: publish cancelled after ${timeoutMs} ms (publishTimeoutMs); it will be retried with backoff`,
    );
  }
}
