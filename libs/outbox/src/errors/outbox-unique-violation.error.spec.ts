import { OutboxUniqueViolationError } from './outbox-unique-violation.error';

const MARKER = 'MARKER-55e1';
const pgError = (constraint?: string) =>
  Object.assign(new Error(`duplicate key value violates unique constraint`), {
    name: 'DatabaseError',
    code: '23505',
    constraint,
    detail: `Key (id)=(${MARKER}) already exists.`,
  });

describe('OutboxUniqueViolationError', () => {
  it.each<[string, Error]>([
    ['node-postgres', pgError('orders_pkey')],
    [
      "TypeORM's QueryFailedError",
      Object.assign(new Error(MARKER), { driverError: pgError('orders_pkey') }),
    ],
    [
      "Drizzle's query error (cause)",
      new Error(`Failed query params: ${MARKER}`, { cause: pgError('orders_pkey') }),
    ],
    [
      "MikroORM's UniqueConstraintViolationException (the driver's fields copied)",
      Object.assign(new Error(`insert - ${MARKER}`), { ...pgError('orders_pkey') }),
    ],
    ...['P2002', 'P2010'].map((code): [string, Error] => [
      `Prisma's ${code} (its driver adapter's error)`,
      Object.assign(new Error(MARKER), {
        code,
        meta: {
          driverAdapterError: Object.assign(new Error('UniqueConstraintViolation'), {
            cause: { originalCode: '23505', constraint: { index: 'orders_pkey' } },
          }),
        },
      }),
    ]),
  ])(
    'Given %s unique violation, then it names the constraint and never the value',
    (_what, error) => {
      const wrapped = OutboxUniqueViolationError.wrap(error) as OutboxUniqueViolationError;
      expect(wrapped).toBeInstanceOf(OutboxUniqueViolationError);
      expect(wrapped.constraint).toBe('orders_pkey');
      expect(wrapped.cause).toBe(error);
      expect(wrapped.message).not.toContain(MARKER);
    },
  );

  it('Given a P2002 of a Prisma without a driver adapter, then it is a violation without a name', () => {
    const error = Object.assign(new Error(MARKER), { code: 'P2002', meta: { target: ['id'] } });
    const wrapped = OutboxUniqueViolationError.wrap(error) as OutboxUniqueViolationError;
    expect(wrapped).toBeInstanceOf(OutboxUniqueViolationError);
    expect(wrapped.constraint).toBeUndefined();
  });

  it('Given a constraint name that is not an identifier, then it is left out', () => {
    const wrapped = OutboxUniqueViolationError.wrap(pgError(`x ${MARKER}`));
    expect((wrapped as OutboxUniqueViolationError).constraint).toBeUndefined();
  });

  it('Given another error, then it is returned as is', () => {
    const other = Object.assign(new Error('x'), { code: '22P02' });
    expect(OutboxUniqueViolationError.wrap(other)).toBe(other);
  });
});
