import type { DataSource } from 'typeorm';

interface PgPool {
  query(text: string): Promise<unknown>;
}

/**
 * Sends `sql` outside any transaction: straight through the data source's node-postgres
 * pool (one pooled connection for one statement, no TypeORM query runner around it), or
 * through `dataSource.query` when the driver has no such pool.
 * @internal
 */
export function createNotifySender(dataSource: DataSource, sql: string): () => Promise<unknown> {
  const pool = (dataSource.driver as { master?: Partial<PgPool> }).master;
  if (typeof pool?.query === 'function') {
    const pg = pool as PgPool;
    return () => pg.query(sql);
  }
  return () => dataSource.query(sql);
}
