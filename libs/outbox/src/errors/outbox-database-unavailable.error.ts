import { NestOutboxError, errorLabel } from '@nest-outbox/core';

/** SQLSTATEs of a database that is gone or going: connection exceptions, shutdowns, start-up. */
const UNAVAILABLE_CODES = /^(08...|57P0[1-3])$/;
/** Node socket errors and node-postgres' own messages when the connection broke. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
const BROKEN_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection is not established)/;

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  driverError?: unknown;
  errors?: unknown;
}

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
  static isCause(error: unknown, depth = 0): boolean {
    if (depth > 5 || typeof error !== 'object' || error === null) return false;
    if (error instanceof OutboxDatabaseUnavailableError) return true;
    const e = error as ErrorLike;
    if (typeof e.code === 'string' && (UNAVAILABLE_CODES.test(e.code) || SOCKET_CODES.has(e.code)))
      return true;
    if (typeof e.message === 'string' && BROKEN_CONNECTION.test(e.message)) return true;
    const inner = [
      e.driverError,
      e.cause,
      ...(Array.isArray(e.errors) ? (e.errors as unknown[]) : []),
    ];
    return inner.some((i) => i !== error && OutboxDatabaseUnavailableError.isCause(i, depth + 1));
  }

  /** `error` as this error when the database is the cause; else `error` itself. */
  static wrap(error: unknown): unknown {
    if (error instanceof OutboxDatabaseUnavailableError) return error;
    return OutboxDatabaseUnavailableError.isCause(error)
      ? new OutboxDatabaseUnavailableError(errorLabel(error), error)
      : error;
  }
}
