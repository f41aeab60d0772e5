import type { DataSource, QueryRunner } from 'typeorm';

/**
 * The data source and query runner behind `tx` when it is a TypeORM `EntityManager` in a
 * transaction (the one stack whose commit the outbox can observe); undefined otherwise.
 * @internal
 */
export function typeOrmTransaction(
  tx: unknown,
): { readonly dataSource: DataSource; readonly queryRunner: QueryRunner } | undefined {
  const manager = tx as { queryRunner?: QueryRunner; connection?: DataSource } | null;
  const queryRunner = manager?.queryRunner;
  const dataSource = manager?.connection;
  return queryRunner && dataSource ? { dataSource, queryRunner } : undefined;
}
