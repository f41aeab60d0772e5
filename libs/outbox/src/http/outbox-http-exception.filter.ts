import {
  Catch,
  ConflictException,
  InternalServerErrorException,
  Logger,
  ServiceUnavailableException,
  type ArgumentsHost,
} from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { logLine } from '@nest-outbox/core/internal';
import { InvalidTransitionError } from '../errors/invalid-transition.error';
import { NoActiveTransactionError } from '../errors/no-active-transaction.error';
import { OutboxBackPressureError } from '../errors/outbox-back-pressure.error';
import { OutboxDatabaseUnavailableError } from '../errors/outbox-database-unavailable.error';
import { OutboxUniqueViolationError } from '../errors/outbox-unique-violation.error';
import { DriverDatabaseUnavailable, DriverUniqueViolation } from './driver-error.matchers';
import { LogRateLimit } from './log-rate-limit';

/** `Retry-After` of a 503 for PostgreSQL unavailable: a restart or failover takes seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 2;
/** At most one warning per error class per this window, with the count held back. */
const LOG_WINDOW_MS = 10_000;

/**
 * Answers the outbox's errors the HTTP way, on any platform (it extends Nest's
 * `BaseExceptionFilter`), with bodies that name the case in `error` and carry no ids or values:
 * - `InvalidTransitionError`: 409 `invalid_transition`;
 * - `OutboxUniqueViolationError` (a write of the command hit a unique constraint), and a
 *   driver's unique violation thrown outside `@OutboxTransactional()` on any data stack
 *   (23505, Prisma's P2002/P2010): 409 `conflict` with the constraint's name, never the value;
 * - `OutboxBackPressureError`: 503 `back_pressure` with `Retry-After`;
 * - `OutboxDatabaseUnavailableError`, and a driver's error saying PostgreSQL is unreachable
 *   or went away outside `@OutboxTransactional()`: 503 `database_unavailable`,
 *   `retryable: true`, with `Retry-After: 2`;
 * - `NoActiveTransactionError`: 500, logged at ERROR with how to fix the code.
 * The two database cases log at WARN, at most one line per error class every 10 s with the
 * count of the others (an outage answered per request must not flood the log).
 * Other exceptions go to your other filters or Nest's default. Nest tries the global filter
 * registered last first: register a catch-all filter of yours before this one.
 * @example
 * providers: [{ provide: APP_FILTER, useClass: OutboxHttpExceptionFilter }]
 * @publicApi
 */
@Catch(
  InvalidTransitionError,
  OutboxBackPressureError,
  OutboxDatabaseUnavailableError,
  OutboxUniqueViolationError,
  NoActiveTransactionError,
  DriverUniqueViolation,
  DriverDatabaseUnavailable,
)
export class OutboxHttpExceptionFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('OutboxHttpExceptionFilter');
  private readonly warnings = new LogRateLimit(LOG_WINDOW_MS);

  override catch(error: unknown, host: ArgumentsHost): void {
    // A driver's error caught by its shape becomes the typed error the outbox would throw.
    const exception = OutboxUniqueViolationError.wrap(OutboxDatabaseUnavailableError.wrap(error));
    if (exception instanceof InvalidTransitionError) {
      const message = 'the entity is not in a state that allows this change; reload it';
      const body = { statusCode: 409, error: 'invalid_transition', message };
      return super.catch(new ConflictException(body), host);
    }
    if (exception instanceof OutboxUniqueViolationError) {
      const { constraint } = exception;
      this.warn(exception, 'answered 409: unique violation', { constraint });
      const message = 'a row with the same unique key exists; nothing was written';
      const body = { statusCode: 409, error: 'conflict', ...(constraint && { constraint }) };
      return super.catch(new ConflictException({ ...body, message }), host);
    }
    if (exception instanceof OutboxBackPressureError) {
      const retryAfterSeconds = exception.retryAfterSeconds;
      this.retryAfter(host, retryAfterSeconds);
      const message = 'the service is catching up on its events; retry later';
      const body = { statusCode: 503, error: 'back_pressure', retryable: true, retryAfterSeconds };
      return super.catch(new ServiceUnavailableException({ ...body, message }), host);
    }
    if (exception instanceof OutboxDatabaseUnavailableError) {
      this.warn(exception, 'answered 503: database unavailable', { reason: exception.reason });
      this.retryAfter(host, DATABASE_RETRY_AFTER_SECONDS);
      const message = 'the database is unavailable; retry the request';
      const body = { statusCode: 503, error: 'database_unavailable', retryable: true, message };
      return super.catch(new ServiceUnavailableException(body), host);
    }
    const { name, message } = exception as NoActiveTransactionError;
    this.logger.error(`${name}: ${message}`);
    return super.catch(new InternalServerErrorException(), host);
  }

  private warn(exception: Error, message: string, fields: Record<string, unknown>): void {
    const taken = this.warnings.take(exception.name);
    if (!taken) return;
    const suppressed = taken.suppressed > 0 ? taken.suppressed : undefined;
    this.logger.warn(logLine(message, { error: exception, ...fields, suppressed }));
  }

  private retryAfter(host: ArgumentsHost, seconds: number): void {
    const http = this.applicationRef ?? this.httpAdapterHost?.httpAdapter;
    http?.setHeader(host.switchToHttp().getResponse(), 'Retry-After', String(seconds));
  }
}
