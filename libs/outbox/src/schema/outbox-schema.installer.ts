import type { DataSource } from 'typeorm';
import { outboxSchemaSql, type OutboxTableName } from './outbox-schema.sql';

/**
 * Applies the outbox table's idempotent DDL in one transaction, under a transaction-scoped
 * advisory lock keyed by the table name: `CREATE ... IF NOT EXISTS` is not safe against a
 * concurrent twin (two instances starting together would race on the catalog).
 * @internal
 */
export async function installOutboxSchema(
  dataSource: DataSource,
  name: OutboxTableName,
): Promise<void> {
  const statements = outboxSchemaSql(name);
  await dataSource.transaction(async (manager) => {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
      `nest-outbox:install:${name.schema}.${name.table}`,
    ]);
    for (const statement of statements) await manager.query(statement);
  });
}
