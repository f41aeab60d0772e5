import { inOneQueryTransaction, inTransaction, type TransactionClient } from './in-transaction';

/** Records the statements and how the connection was given back. */
function fakePool(failOn: string[] = []) {
  const statements: string[] = [];
  const released: unknown[] = [];
  const client: TransactionClient = {
    query: (text: string) => {
      statements.push(text);
      return failOn.includes(text)
        ? Promise.reject(new Error(`${text} failed`))
        : Promise.resolve();
    },
    release: (error?: Error | boolean) => void released.push(error),
  };
  return { pool: { connect: () => Promise.resolve(client) }, statements, released };
}

describe('inTransaction', () => {
  it('commits the work and returns its result', async () => {
    const { pool, statements, released } = fakePool();
    await expect(
      inTransaction(pool, async (c) => {
        await c.query('UPDATE t');
        return 7;
      }),
    ).resolves.toBe(7);
    expect(statements).toEqual(['BEGIN', 'UPDATE t', 'COMMIT']);
    expect(released).toEqual([undefined]);
  });

  it('rolls back and rethrows when the work fails, giving the connection back', async () => {
    const { pool, statements, released } = fakePool(['UPDATE t']);
    await expect(inTransaction(pool, (c) => c.query('UPDATE t'))).rejects.toThrow(
      'UPDATE t failed',
    );
    expect(statements).toEqual(['BEGIN', 'UPDATE t', 'ROLLBACK']);
    expect(released).toEqual([undefined]);
  });

  it('opens the transaction with the given statement instead of a bare BEGIN', async () => {
    const { pool, statements } = fakePool();
    await inTransaction(pool, (c) => c.query('UPDATE t'), 'BEGIN; SELECT pg_advisory_xact_lock(1)');
    expect(statements).toEqual(['BEGIN; SELECT pg_advisory_xact_lock(1)', 'UPDATE t', 'COMMIT']);
  });

  it('rolls back when the opening statement fails part-way', async () => {
    const { pool, statements, released } = fakePool(['BEGIN; SELECT 1/0']);
    await expect(inTransaction(pool, () => Promise.resolve(), 'BEGIN; SELECT 1/0')).rejects.toThrow(
      'failed',
    );
    expect(statements).toEqual(['BEGIN; SELECT 1/0', 'ROLLBACK']);
    expect(released).toEqual([undefined]);
  });

  it('destroys the connection when even the rollback fails', async () => {
    const { pool, released } = fakePool(['COMMIT', 'ROLLBACK']);
    await expect(inTransaction(pool, () => Promise.resolve())).rejects.toThrow('COMMIT failed');
    expect(released).toEqual([expect.objectContaining({ message: 'COMMIT failed' })]);
  });
});

describe('inOneQueryTransaction', () => {
  it('sends the whole transaction once and returns its results, giving the connection back', async () => {
    const { pool, statements, released } = fakePool();
    await inOneQueryTransaction(pool, 'BEGIN; UPDATE t; COMMIT');
    expect(statements).toEqual(['BEGIN; UPDATE t; COMMIT']);
    expect(released).toEqual([undefined]);
  });

  it('rolls back and rethrows when a statement of it fails', async () => {
    const { pool, statements, released } = fakePool(['BEGIN; SELECT 1/0; COMMIT']);
    await expect(inOneQueryTransaction(pool, 'BEGIN; SELECT 1/0; COMMIT')).rejects.toThrow(
      'failed',
    );
    expect(statements).toEqual(['BEGIN; SELECT 1/0; COMMIT', 'ROLLBACK']);
    expect(released).toEqual([undefined]);
  });

  it('destroys the connection when even the rollback fails', async () => {
    const { pool, released } = fakePool(['BEGIN; SELECT 1/0; COMMIT', 'ROLLBACK']);
    await expect(inOneQueryTransaction(pool, 'BEGIN; SELECT 1/0; COMMIT')).rejects.toThrow();
    expect(released).toEqual([
      expect.objectContaining({ message: 'BEGIN; SELECT 1/0; COMMIT failed' }),
    ]);
  });
});
