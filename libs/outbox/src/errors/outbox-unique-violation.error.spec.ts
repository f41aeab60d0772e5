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
  it.each([
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
      "Prisma's P2002",
      Object.assign(new Error(MARKER), {
        code: 'P2002',
        meta: { driverAdapterError: { cause: { constraint: { index: 'orders_pkey' } } } },
      }),
    ],
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

  it('Given a constraint name that is not an identifier, then it is left out', () => {
    const wrapped = OutboxUniqueViolationError.wrap(pgError(`x ${MARKER}`));
    expect((wrapped as OutboxUniqueViolationError).constraint).toBeUndefined();
  });

  it('Given another error, then it is returned as is', () => {
    const other = Object.assign(new Error('x'), { code: '22P02' });
    expect(OutboxUniqueViolationError.wrap(other)).toBe(other);
  });
});
