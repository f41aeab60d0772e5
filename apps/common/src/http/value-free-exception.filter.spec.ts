import {
  BadRequestException,
  ConflictException,
  Logger,
  ServiceUnavailableException,
  type ArgumentsHost,
} from '@nestjs/common';
import type { AbstractHttpAdapter } from '@nestjs/core';
import { QueryFailedError } from 'typeorm';
import { InvalidRequestException } from './invalid-request.exception';
import { ValueFreeExceptionFilter } from './value-free-exception.filter';

const MARKER = 'MARKER-7f3a';

function run(exception: unknown, request: object = { method: 'POST', route: { path: '/orders' } }) {
  const replies: { body: unknown; status: number }[] = [];
  const http = {
    isHeadersSent: () => false,
    reply: (_res: unknown, body: unknown, status: number) => replies.push({ body, status }),
    end: () => undefined,
  } as unknown as AbstractHttpAdapter;
  const host = { getArgByIndex: (i: number) => (i === 0 ? request : {}) } as ArgumentsHost;
  const logged: string[] = [];
  const spy = jest
    .spyOn(Logger.prototype, 'error')
    .mockImplementation((message: unknown) => void logged.push(String(message)));
  try {
    new ValueFreeExceptionFilter(http).catch(exception, host);
  } finally {
    spy.mockRestore();
  }
  return { reply: replies[0]!, logged };
}

function queryFailed(): QueryFailedError {
  const driverError = Object.assign(new Error(`invalid input syntax for type uuid: "${MARKER}"`), {
    code: '22P02',
  });
  return new QueryFailedError('INSERT INTO orders VALUES ($1)', [MARKER], driverError);
}

describe('ValueFreeExceptionFilter (unit)', () => {
  it('Given PostgreSQL went away mid-command (57P01 under a QueryFailedError), then it answers a typed, retryable 503 without the driver message', () => {
    const driverError = Object.assign(new Error(`terminating connection ${MARKER}`), {
      code: '57P01',
    });
    const { reply, logged } = run(new QueryFailedError('COMMIT', [], driverError));
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
    expect(logged).toEqual(['500 on POST /orders/:id/cancel: QueryFailedError code=22P02']);
  });

  it('Given a thrown non-error, then it answers 500 and logs its type', () => {
    const { reply, logged } = run(MARKER);
    expect(reply.status).toBe(500);
    expect(logged).toEqual(['500 on POST /orders: thrown string']);
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
