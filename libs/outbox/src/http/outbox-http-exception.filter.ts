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
 * Answers the outbox's errors over HTTP (bodies name the case, never ids or values):
 * `InvalidTransitionError` 409 `invalid_transition`; a unique violation (typed, or a driver's
 * on any stack) 409 `conflict` with the constraint's name; `OutboxBackPressureError` 503
 * `back_pressure`; PostgreSQL unavailable (typed, or a driver's) 503 `database_unavailable`;
 * both 503s with `Retry-After`; `NoActiveTransactionError` 500. The database cases log at most
 * one WARN per error class per 10 s (an outage must not flood the log). Nest tries the global
 * filter registered last first: register a catch-all of yours before this one.
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
