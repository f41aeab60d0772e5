import type { TransactionalAdapter } from '@nestjs-cls/transactional';

/**
 * The app's transactional adapter, typed by what its code calls on `txHost.tx`:
 * `query(sql, params)`, which TypeORM's `EntityManager` and node-postgres' `PoolClient` both
 * have, so the same services run on the TypeORM apps and on the plain `pg` one.
 */
export type SqlAdapter = TransactionalAdapter<
  unknown,
  { query(sql: string, params: unknown[]): Promise<unknown> },
  unknown
>;
