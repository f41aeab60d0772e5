import { NestOutboxError } from '@nest-outbox/core';

/**
 * An event given to `record()` breaks the event contract (a missing type or aggregate id,
 * a version that is not a non-negative integer, a header that would override a contract
 * header). Thrown by `record()`, so the transaction rolls back.
 * @publicApi
 */
export class InvalidEventError extends NestOutboxError {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`Invalid outbox event: "${field}" ${problem}`);
  }
}
