import { NestOutboxError } from '@nest-outbox/core';
import { errorLabel, isDatabaseUnavailable } from '@nest-outbox/core/internal';

/**
 * A transaction of the outbox failed because PostgreSQL was unreachable or went away:
 * retryable (if the connection broke during COMMIT the outcome is unknown and the retry must
 * find out). `reason` is the driver error's class and code, never its message.
 * @publicApi
 */
export class OutboxDatabaseUnavailableError extends NestOutboxError {
  readonly retryable = true;

  constructor(
    readonly reason: string,
    cause?: unknown,
  ) {
    super(
      `OutboxModule: PostgreSQL is unavailable (${reason}); the transaction did not commit ` +
        '(its outcome is unknown only if the connection broke during COMMIT): retry the command ' +
        'once the database answers, reloading the state first',
      { cause },
    );
  }

  static isCause(error: unknown): boolean {
    return error instanceof OutboxDatabaseUnavailableError || isDatabaseUnavailable(error);
  }

  /** `error` as this error when the database is the cause; else `error` itself. */
  static wrap(error: unknown): unknown {
    if (error instanceof OutboxDatabaseUnavailableError) return error;
    return OutboxDatabaseUnavailableError.isCause(error)
      ? new OutboxDatabaseUnavailableError(errorLabel(error), error)
      : error;
  }
}
