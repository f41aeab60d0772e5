/** What `inTransaction` needs of a pooled connection (`pg`'s `PoolClient` fits). @publicApi */
export interface TransactionClient {
  query(text: string, values?: unknown[]): Promise<unknown>;
  /** `release(error)` destroys the connection instead of returning it to the pool. */
  release(error?: Error | boolean): void;
}

/** `pg`'s `Pool` fits (the callback form lets TypeScript infer the client from the overloads). @publicApi */
export interface TransactionPool<C extends TransactionClient> {
  connect(): Promise<C>;
  connect(callback: (...args: never[]) => void): void;
}

/**
 * Runs `work` in one transaction on a connection of its own (ROLLBACK and rethrow on error;
 * the connection destroyed if even that failed). `begin` replaces the opening statement, so a
 * lock or `set_config` rides on its round trip (a simple query: no values).
 * @publicApi
 */
export async function inTransaction<C extends TransactionClient, T>(
  pool: TransactionPool<C>,
  work: (client: C) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (error) {
    await rollBackAndRelease(client, error);
    throw error;
  }
}

/**
 * Runs a transaction written as one simple query (`BEGIN; ...; COMMIT`): no lock is held
 * across a round trip; on failure it is rolled back here. Values are checked or escaped literals.
 * @publicApi
 */
export async function inOneQueryTransaction<C extends TransactionClient>(
  pool: TransactionPool<C>,
  text: string,
): Promise<unknown> {
  const client = await pool.connect();
  try {
    const results = await client.query(text);
    client.release();
    return results;
  } catch (error) {
    await rollBackAndRelease(client, error);
    throw error;
  }
}

async function rollBackAndRelease(client: TransactionClient, error: unknown): Promise<void> {
  const rolledBack = await client.query('ROLLBACK').then(
    () => true,
    () => false,
  );
  client.release(rolledBack ? undefined : error instanceof Error ? error : true);
}
