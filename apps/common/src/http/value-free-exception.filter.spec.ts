import {
  BadRequestException,
  ConflictException,
  Logger,
  ServiceUnavailableException,
  type ArgumentsHost,
} from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import { OutboxHttpExceptionFilter } from '@nest-outbox/outbox';
import { QueryFailedError } from 'typeorm';
import { InvalidRequestException } from './invalid-request.exception';
import { ValueFreeExceptionFilter } from './value-free-exception.filter';

const MARKER = 'MARKER-7f3a';

function run(exception: unknown, request: object = { method: 'POST', route: { path: '/orders' } }) {
  const replies: { body: unknown; status: number }[] = [];
  const headers: Record<string, string> = {};
  const response = {};
  const http = {
    isHeadersSent: () => false,
    reply: (_res: unknown, body: unknown, status: number) => replies.push({ body, status }),
    setHeader: (_res: unknown, name: string, value: string) => (headers[name] = value),
    end: () => undefined,
  } as unknown as AbstractHttpAdapter;
  const host = {
    getArgByIndex: (i: number) => (i === 0 ? request : response),
    switchToHttp: () => ({ getResponse: () => response }),
  } as unknown as ArgumentsHost;
  const logged: string[] = [];
  const spies = (['error', 'warn'] as const).map((level) =>
    jest
      .spyOn(Logger.prototype, level)
      .mockImplementation((...args: unknown[]) => void logged.push(`${level} ${String(args[0])}`)),
  );
  try {
    const outbox = new OutboxHttpExceptionFilter(http);
    new ValueFreeExceptionFilter(http, outbox).catch(exception, host);
  } finally {
    spies.forEach((spy) => spy.mockRestore());
  }
  return { reply: replies[0]!, logged, headers };
}

function queryFailed(): QueryFailedError {
  const driverError = Object.assign(new Error(`invalid input syntax for type uuid: "${MARKER}"`), {
    code: '22P02',
  });
  return new QueryFailedError('INSERT INTO orders VALUES ($1)', [MARKER], driverError);
}

describe('ValueFreeExceptionFilter (unit)', () => {
  it("Given PostgreSQL gone during a read (57P01 under a QueryFailedError), then the outbox's filter answers its typed, retryable 503 with Retry-After, logged as a warning without the driver message", () => {
    const driverError = Object.assign(new Error(`terminating connection ${MARKER}`), {
      code: '57P01',
    });
    const { reply, logged, headers } = run(new QueryFailedError('SELECT', [], driverError));
    expect(headers).toEqual({ 'Retry-After': '2' });
    expect(logged).toEqual([expect.stringMatching(/^warn answered 503: database unavailable /)]);
    expect(reply).toEqual({
      status: 503,
      body: {
        statusCode: 503,
        error: 'database_unavailable',
        retryable: true,
        message: 'the database is unavailable; retry the request',
      },
    });
    expect(logged.join('\n')).not.toContain(MARKER);
  });

  it('Given a database error echoing a value, then it answers a bare 500 and logs class, code and route only', () => {
    const { reply, logged } = run(queryFailed(), {
      method: 'POST',
      url: `/orders?x=${MARKER}`,
      route: { path: '/orders/:id/cancel' },
    });
    expect(reply).toEqual({
      status: 500,
      body: { statusCode: 500, error: 'Internal Server Error', message: 'Internal server error' },
    });
    expect(logged).toEqual(['error 500 on POST /orders/:id/cancel: QueryFailedError code=22P02']);
  });

  it('Given a thrown non-error, then it answers 500 and logs its type', () => {
    const { reply, logged } = run(MARKER);
    expect(reply.status).toBe(500);
    expect(logged).toEqual(['error 500 on POST /orders: thrown string']);
  });

  it('Given a validation exception, then it answers it as is and logs nothing', () => {
    const exception = new InvalidRequestException([{ field: 'amountCents', message: 'too big' }]);
    const { reply, logged } = run(exception);
    expect(reply).toEqual({ status: 400, body: exception.getResponse() });
    expect(logged).toEqual([]);
  });

  it("Given the app's own 409, then its body is kept", () => {
    const { reply } = run(new ConflictException({ error: 'invalid_transition', version: 2 }));
    expect(reply).toEqual({ status: 409, body: { error: 'invalid_transition', version: 2 } });
  });

  it.each([
    ['a body that is not JSON', `Unexpected token 'M', "{${MARKER}" is not valid JSON`, 'body'],
    ['a path that is not percent-encoding', `Failed to decode param '%FF${MARKER}'`, 'path'],
  ])(
    'Given %s (quoted by the framework), then the answer names the part, not the text',
    (_case, text, field) => {
      const { reply, logged } = run(new BadRequestException(text));
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ fields: [field] });
      expect(JSON.stringify(reply.body)).not.toContain(MARKER);
      expect(logged).toEqual([]);
    },
  );

  it("Given body-parser's unsupported charset, then it answers 415 with the error's type and logs nothing", () => {
    const error = Object.assign(new Error(`unsupported charset "${MARKER}"`), {
      status: 415,
      statusCode: 415,
      type: 'charset.unsupported',
      charset: MARKER,
    });
    const { reply, logged } = run(error, { method: 'POST' });
    expect(reply).toEqual({
      status: 415,
      body: {
        statusCode: 415,
        error: 'Unsupported Media Type',
        message: ['body could not be read (charset.unsupported)'],
        fields: ['body'],
      },
    });
    expect(logged).toEqual([]);
  });

  it("Given /health's 503, then the health body is kept and the filter does not log it again", () => {
    const { reply, logged } = run(new ServiceUnavailableException({ status: 'error' }));
    expect(reply).toEqual({ status: 503, body: { status: 'error' } });
    expect(logged).toEqual([]);
  });
});
