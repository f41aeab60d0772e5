import { Controller, Get, Module, type INestApplication, type LoggerService } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { InvalidTransitionError } from '../errors/invalid-transition.error';
import { NoActiveTransactionError } from '../errors/no-active-transaction.error';
import { OutboxBackPressureError } from '../errors/outbox-back-pressure.error';
import { OutboxDatabaseUnavailableError } from '../errors/outbox-database-unavailable.error';
import { OutboxUniqueViolationError } from '../errors/outbox-unique-violation.error';
import { OutboxHttpExceptionFilter } from './outbox-http-exception.filter';

const duplicateKey = () =>
  Object.assign(new Error('duplicate key value violates "orders_pkey"'), {
    code: '23505',
    constraint: 'orders_pkey',
    detail: 'Key (id)=(secret-id) already exists.',
  });

@Controller()
class FailingController {
  @Get('conflict')
  conflict(): never {
    throw new InvalidTransitionError('app.orders', 'secret-id', ['pending'], 'confirmed');
  }

  @Get('busy')
  busy(): never {
    throw new OutboxBackPressureError('OrdersService.place', ['backlog 9000 >= 5000'], 7);
  }

  @Get('database-down')
  databaseDown(): never {
    const driver = Object.assign(new Error('terminating connection secret-id'), { code: '57P01' });
    throw OutboxDatabaseUnavailableError.wrap(driver);
  }

  @Get('duplicate')
  duplicate(): never {
    throw OutboxUniqueViolationError.wrap(duplicateKey());
  }

  /** A repository's save outside `@OutboxTransactional()`: TypeORM's error, not typed. */
  @Get('duplicate-untyped')
  duplicateUntyped(): never {
    throw Object.assign(new Error('query failed secret-id'), { driverError: duplicateKey() });
  }

  @Get('database-down-untyped')
  databaseDownUntyped(): never {
    throw Object.assign(new Error('connect ECONNREFUSED secret-id'), { code: 'ECONNREFUSED' });
  }

  @Get('no-transaction')
  noTransaction(): never {
    throw new NoActiveTransactionError('record');
  }

  @Get('other')
  other(): never {
    throw new Error('not an outbox error');
  }
}

@Module({
  controllers: [FailingController],
  providers: [{ provide: APP_FILTER, useClass: OutboxHttpExceptionFilter }],
})
class FailingModule {}

describe('OutboxHttpExceptionFilter', () => {
  const errors: string[] = [];
  const warnings: string[] = [];
  const logger: LoggerService = {
    log: () => undefined,
    warn: (message: unknown) => void warnings.push(String(message)),
    error: (message: unknown) => void errors.push(String(message)),
  };
  let app: INestApplication;
  let url: string;

  // A new application (a new filter, its log rate limit fresh) for each test.
  beforeEach(async () => {
    errors.length = 0;
    warnings.length = 0;
    app = await NestFactory.create(FailingModule, { logger });
    await app.listen(0, '127.0.0.1');
    url = await app.getUrl();
  });

  afterEach(() => app.close());

  it('answers an InvalidTransitionError 409 without the entity id', async () => {
    const response = await fetch(`${url}/conflict`);
    expect(response.status).toBe(409);
    const body = await response.text();
    expect(JSON.parse(body)).toMatchObject({ statusCode: 409, error: 'invalid_transition' });
    expect(body).not.toContain('secret-id');
    expect(errors).toEqual([]);
  });

  it('answers an OutboxBackPressureError 503 with Retry-After', async () => {
    const response = await fetch(`${url}/busy`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await response.json()).toMatchObject({
      statusCode: 503,
      error: 'back_pressure',
      retryable: true,
      retryAfterSeconds: 7,
    });
    expect(errors).toEqual([]);
  });

  it.each(['database-down', 'database-down-untyped'])(
    'Given PostgreSQL unavailable during commands (%s), then each answers a typed 503 with Retry-After, and the log has one warning for the burst and no error',
    async (path) => {
      const responses = await Promise.all([1, 2, 3].map(() => fetch(`${url}/${path}`)));
      for (const response of responses) {
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('2');
        expect(await response.json()).toEqual({
          statusCode: 503,
          error: 'database_unavailable',
          retryable: true,
          message: 'the database is unavailable; retry the request',
        });
      }
      expect(warnings).toEqual([
        expect.stringMatching(
          /^answered 503: database unavailable error_class=OutboxDatabaseUnavailableError reason="Error (57P01|ECONNREFUSED)"$/,
        ),
      ]);
      expect(errors).toEqual([]);
    },
  );

  it.each(['duplicate', 'duplicate-untyped'])(
    'Given a unique violation in a command (%s), then it answers 409 conflict naming the constraint, and neither answer nor log has the value',
    async (path) => {
      const response = await fetch(`${url}/${path}`);
      expect(response.status).toBe(409);
      const body = await response.text();
      expect(JSON.parse(body)).toEqual({
        statusCode: 409,
        error: 'conflict',
        constraint: 'orders_pkey',
        message: 'a row with the same unique key exists; nothing was written',
      });
      expect(body).not.toContain('secret-id');
      expect(warnings.join('\n')).toContain('constraint=orders_pkey');
      expect(warnings.join('\n')).not.toContain('secret-id');
      expect(errors).toEqual([]);
    },
  );

  it('answers a NoActiveTransactionError 500 and logs one line that says how to fix it', async () => {
    const response = await fetch(`${url}/no-transaction`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      statusCode: 500,
      message: 'Internal Server Error',
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^NoActiveTransactionError: .*@OutboxTransactional\(\)/);
  });

  it('leaves any other error to Nest', async () => {
    const response = await fetch(`${url}/other`);
    expect(response.status).toBe(500);
    expect(errors.some((line) => line.includes('NoActiveTransactionError'))).toBe(false);
  });
});
