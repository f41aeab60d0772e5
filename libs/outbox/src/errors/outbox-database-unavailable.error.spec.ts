import { OutboxDatabaseUnavailableError } from './outbox-database-unavailable.error';

const withCode = (code: string, name = 'DatabaseError') =>
  Object.assign(new Error('terminating connection due to administrator command'), { code, name });

describe('OutboxDatabaseUnavailableError', () => {
  it.each([
    ['a shutdown (57P01)', withCode('57P01')],
    ['a crash shutdown (57P02)', withCode('57P02')],
    ['a database starting up (57P03)', withCode('57P03')],
    ['a connection exception (08006)', withCode('08006')],
    ['a refused connection', Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })],
    ['a broken connection', new Error('Connection terminated unexpectedly')],
    [
      "TypeORM's QueryFailedError around it",
      Object.assign(new Error('x'), { driverError: withCode('57P01') }),
    ],
  ])('recognises %s as the database being unavailable', (_what, error) => {
    const wrapped = OutboxDatabaseUnavailableError.wrap(error);
    expect(wrapped).toBeInstanceOf(OutboxDatabaseUnavailableError);
    expect((wrapped as OutboxDatabaseUnavailableError).retryable).toBe(true);
    expect((wrapped as Error).cause).toBe(error);
  });

  it('leaves other errors alone, and never puts the driver message in its own', () => {
    const unique = withCode('23505');
    expect(OutboxDatabaseUnavailableError.wrap(unique)).toBe(unique);
    const wrapped = OutboxDatabaseUnavailableError.wrap(withCode('57P01')) as Error;
    expect(wrapped.message).toContain('DatabaseError 57P01');
    expect(wrapped.message).not.toContain('administrator');
  });
});
