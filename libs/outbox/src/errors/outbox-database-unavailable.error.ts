import { NestOutboxError } from '@nest-outbox/core';
import { errorLabel, isDatabaseUnavailable } from '@nest-outbox/core/internal';

/**
 * A transaction of the outbox failed because PostgreSQL was unreachable or went away (a
 * restart, a crash, a failover): retryable. Nothing was applied, except when the connection
 * broke during the COMMIT itself: then the outcome is unknown, and the retry must find out
 * (a conditional transition that already happened answers `InvalidTransitionError`).
 * `cause` holds the driver's error; `reason` its class and code (never its message).
 * @publicApi
 */
export class OutboxDatabaseUnavailableError extends NestOutboxError {
  /** Always true: the same command may be retried once the database answers again. */
  readonly retryable = true;

  constructor(
    /** The driver error's class and code, e.g. `DatabaseError 57P01`. */
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

  /** True when `error` (or an error it wraps) says the database is unreachable or went away. */
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
