import { STATUS_CODES } from 'node:http';
import {
  BadRequestException,
  Catch,
  HttpException,
  HttpStatus,
  Logger,
  ServiceUnavailableException,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import {
  IdempotencyKeyInvalidError,
  OutboxDatabaseUnavailableError,
  type OutboxHttpExceptionFilter,
} from '@nest-outbox/outbox';
import { describeErrorWithoutValues } from '../observability/value-free-error';
import { InvalidRequestException } from './invalid-request.exception';

interface Answer {
  readonly status: number;
  readonly body: object;
}

/** The request as far as a log line may show it: method and the route's pattern. */
interface RouteOf {
  readonly method?: unknown;
  readonly route?: { readonly path?: unknown };
}

/** An error of the `http-errors` kind (body-parser's: too large, bad charset...). */
interface ClientHttpError {
  readonly status: number;
  readonly type?: unknown;
}

function isClientHttpError(error: unknown): error is ClientHttpError {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * Nest turns a body that is not JSON (a `SyntaxError` of the body parser) and a path
 * parameter that is not valid percent-encoding (express' `URIError`, "Failed to decode
 * param ...") into a `BadRequestException` whose message quotes the input. Name the part
 * instead. The original error is gone by then, so the message tells the two apart; any
 * other plain `BadRequestException` is taken for the body's (the sample apps throw none of
 * their own: their 400s are the pipe's `InvalidRequestException` and the outbox's
 * `IdempotencyKeyInvalidError`).
 */
function unreadableRequest(exception: BadRequestException): Answer {
  const message = exception.message;
  const field = message.startsWith('Failed to decode param') ? 'path' : 'body';
  const what = field === 'path' ? 'path must be valid percent-encoding' : 'body must be valid JSON';
  return {
    status: 400,
    body: new InvalidRequestException([{ field, message: what }]).getResponse() as object,
  };
}

/**
 * The sample apps' global exception filter: answers without echoing values, and logs
 * server errors without them. Validation errors (`InvalidRequestException`) and the app's
 * own `HttpException`s answer as Nest would. Framework errors that quote the input (bad
 * JSON, bad percent-encoding, body-parser's 413/415) answer a fixed text naming the part.
 * The outbox's errors go to `OutboxHttpExceptionFilter` (registered after this one), and so
 * does PostgreSQL unreachable or gone outside a command (a read): 503 `database_unavailable`.
 * Anything else answers `500 { statusCode, error, message: 'Internal server error' }` and
 * logs one line: status, method, route pattern (never the URL: it holds parameters), error
 * class and code (`QueryFailedError code=22P02`), never the message or SQL parameters.
 */
@Catch()
export class ValueFreeExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrors');

  constructor(
    private readonly http: AbstractHttpAdapter,
    private readonly outbox: OutboxHttpExceptionFilter,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (OutboxDatabaseUnavailableError.isCause(exception)) {
      const unavailable = OutboxDatabaseUnavailableError.wrap(exception);
      return this.outbox.catch(unavailable as OutboxDatabaseUnavailableError, host);
    }
    const [request, response] = [host.getArgByIndex<RouteOf>(0), host.getArgByIndex<unknown>(1)];
    const answer = this.answer(exception);
    // 503 is /health's answer while a dependency is down; terminus logs it already.
    const expected = exception instanceof ServiceUnavailableException;
    if (answer.status >= 500 && !expected) {
      this.logger.error(
        `${answer.status} on ${routeOf(request)}: ${describeErrorWithoutValues(exception)}`,
      );
    }
    if (this.http.isHeadersSent(response)) {
      this.http.end(response);
      return;
    }
    this.http.reply(response, answer.body, answer.status);
  }

  private answer(exception: unknown): Answer {
    if (
      exception instanceof BadRequestException &&
      !(exception instanceof InvalidRequestException) &&
      !(exception instanceof IdempotencyKeyInvalidError)
    ) {
      return unreadableRequest(exception);
    }
    if (exception instanceof HttpException) {
      const body = exception.getResponse();
      const status = exception.getStatus();
      return {
        status,
        body: typeof body === 'object' ? body : { statusCode: status, message: body },
      };
    }
    if (isClientHttpError(exception)) {
      const code =
        typeof exception.type === 'string' && /^[a-z.]{1,40}$/.test(exception.type)
          ? exception.type
          : 'unreadable';
      const body = {
        statusCode: exception.status,
        error: STATUS_CODES[exception.status],
        message: [`body could not be read (${code})`],
        fields: ['body'],
      };
      return { status: exception.status, body };
    }
    const status = HttpStatus.INTERNAL_SERVER_ERROR;
    return {
      status,
      body: { statusCode: status, error: STATUS_CODES[status], message: 'Internal server error' },
    };
  }
}

function routeOf(request: RouteOf | undefined): string {
  const method = request?.method;
  const verb = typeof method === 'string' && /^[A-Z]{1,16}$/.test(method) ? method : '?';
  const path = request?.route?.path;
  return `${verb} ${typeof path === 'string' ? path : '(no route matched)'}`;
}
