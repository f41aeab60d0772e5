import fc from 'fast-check';
import { sqlExecutorOf, UnknownDataStackError } from './sql-executor';

describe('sqlExecutorOf', () => {
  it('Given a value of no known data stack, then UnknownDataStackError says to pass sqlExecutor', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.object()), (value) => {
        expect(() => sqlExecutorOf(value)).toThrow(UnknownDataStackError);
        expect(() => sqlExecutorOf(value)).toThrow(/sqlExecutor/);
      }),
    );
  });

  it('Given a Prisma client, then the statement and its values go to $queryRawUnsafe', async () => {
    const calls: unknown[][] = [];
    const prisma = {
      $queryRawUnsafe: (...args: unknown[]) => (calls.push(args), Promise.resolve([{ n: 1 }])),
    };
    await expect(sqlExecutorOf(prisma).query('SELECT $1::int AS n', [1], 'named')).resolves.toEqual(
      [{ n: 1 }],
    );
    expect(calls).toEqual([['SELECT $1::int AS n', 1]]);
  });

  it('Given a pg client, then the statement is sent named, with its values', async () => {
    const configs: unknown[] = [];
    const client = {
      query: (config: unknown) => (configs.push(config), Promise.resolve({ rows: [] })),
      release: () => undefined,
    };
    await sqlExecutorOf(client).query('SELECT $1', ['a'], 'stmt_1');
    expect(configs).toEqual([{ name: 'stmt_1', text: 'SELECT $1', values: ['a'] }]);
  });
});
