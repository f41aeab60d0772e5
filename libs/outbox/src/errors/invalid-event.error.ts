import { NestOutboxError } from '@nest-outbox/core';

/** An event given to `record()` breaks the event contract (thrown by `record()`). @publicApi */
export class InvalidEventError extends NestOutboxError {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`Invalid outbox event: "${field}" ${problem}`);
  }
}
