import {
  Catch,
  ConflictException,
  InternalServerErrorException,
  Logger,
  ServiceUnavailableException,
  type ArgumentsHost,
} from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { InvalidTransitionError } from '../errors/invalid-transition.error';
import { NoActiveTransactionError } from '../errors/no-active-transaction.error';
import { OutboxBackPressureError } from '../errors/outbox-back-pressure.error';

type OutboxHttpError = InvalidTransitionError | OutboxBackPressureError | NoActiveTransactionError;

/**
 * Answers the outbox's errors the HTTP way, on any platform (it extends Nest's
 * `BaseExceptionFilter`): `InvalidTransitionError` 409, `OutboxBackPressureError` 503 with
 * `Retry-After`, `NoActiveTransactionError` 500 with one log line saying how to fix the code.
 * Bodies name the case in `error` (`invalid_transition`, `back_pressure`) and carry no ids or
 * values. Other exceptions go to your other filters or Nest's default. Nest tries the global
 * filter registered last first: register a catch-all filter of yours before this one.
 * @example
 * providers: [{ provide: APP_FILTER, useClass: OutboxHttpExceptionFilter }]
 * @publicApi
 */
@Catch(InvalidTransitionError, OutboxBackPressureError, NoActiveTransactionError)
export class OutboxHttpExceptionFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('OutboxHttpExceptionFilter');

  override catch(exception: OutboxHttpError, host: ArgumentsHost): void {
    if (exception instanceof InvalidTransitionError) {
      const message = 'the entity is not in a state that allows this change; reload it';
      const body = { statusCode: 409, error: 'invalid_transition', message };
      return super.catch(new ConflictException(body), host);
    }
    if (exception instanceof OutboxBackPressureError) {
      const http = this.applicationRef ?? this.httpAdapterHost?.httpAdapter;
      const retryAfterSeconds = exception.retryAfterSeconds;
      http?.setHeader(host.switchToHttp().getResponse(), 'Retry-After', String(retryAfterSeconds));
      const message = 'the service is catching up on its events; retry later';
      const body = { statusCode: 503, error: 'back_pressure', retryable: true, retryAfterSeconds };
      return super.catch(new ServiceUnavailableException({ ...body, message }), host);
    }
    this.logger.error(`${exception.name}: ${exception.message}`);
    return super.catch(new InternalServerErrorException(), host);
  }
}
