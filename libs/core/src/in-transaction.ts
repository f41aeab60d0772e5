/** What `inTransaction` needs of a pooled connection (`pg`'s `PoolClient` fits). @publicApi */
export interface TransactionClient {
  query(text: string, values?: unknown[]): Promise<unknown>;
  /** `release(error)` destroys the connection instead of returning it to the pool. */
  release(error?: Error | boolean): void;
}

/**
 * What `inTransaction` needs of a pool (`pg`'s `Pool` fits). The callback form is listed only
 * so that TypeScript infers the client type from `pg`'s overloaded `connect`. @publicApi
 */
export interface TransactionPool<C extends TransactionClient> {
  connect(): Promise<C>;
  connect(callback: (...args: never[]) => void): void;
}

/**
 * Runs `work` in one transaction on a connection of its own: BEGIN, `work`, COMMIT; on any
 * error ROLLBACK and rethrow. `begin` replaces the opening statement, so that what every such
 * transaction starts with (a lock, a `set_config`) rides on the same round trip as its BEGIN;
 * a simple query, it holds no values (only constants and validated identifiers). The
 * connection is destroyed when even the ROLLBACK failed (its state is unknown).
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
 * Runs a whole transaction written as one simple query (`BEGIN; ...; COMMIT`) on a connection
 * of its own; returns `pg`'s results. When a statement fails, PostgreSQL skips the rest (its
 * COMMIT too) and the transaction is rolled back here. Locks taken in it are never held across
 * a round trip to the client. `text` carries its values as literals the caller checked or
 * escaped (a simple query binds none).
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

/** ROLLBACK, then the connection back to the pool, or destroyed if even that failed. */
async function rollBackAndRelease(client: TransactionClient, error: unknown): Promise<void> {
  const rolledBack = await client.query('ROLLBACK').then(
    () => true,
    () => false,
  );
  client.release(rolledBack ? undefined : error instanceof Error ? error : true);
}
