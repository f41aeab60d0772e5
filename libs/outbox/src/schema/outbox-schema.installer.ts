import {
  relationExists,
  type SqlExecutor,
  type SqlExecutorFactory,
} from '@nest-outbox/core/internal';
import { OutboxTableNotFoundError } from '../errors/outbox-table-not-found.error';
import { outboxSchemaSql, type OutboxTableName } from './outbox-schema.sql';

interface Host {
  readonly tx: unknown;
  withTransaction<R>(fn: () => Promise<R>): Promise<R>;
}

/** The DDL under an advisory lock: `CREATE ... IF NOT EXISTS` races on the catalog between instances. @internal */
export async function installOutboxSchema(
  host: Host,
  name: OutboxTableName & { readonly sqlExecutor: SqlExecutorFactory },
): Promise<void> {
  await host.withTransaction(async () => {
    const sql = name.sqlExecutor(host.tx);
    await sql.query('SELECT pg_advisory_xact_lock(hashtext($1))::text AS locked', [
      `nest-outbox:install:${name.schema}.${name.table}`,
    ]);
    for (const statement of outboxSchemaSql(name)) await sql.query(statement, []);
  });
}

/** @throws OutboxTableNotFoundError saying how to create the table, when it does not exist @internal */
export async function verifyOutboxTable(sql: SqlExecutor, qualifiedTable: string): Promise<void> {
  if (!(await relationExists(sql, qualifiedTable)))
    throw new OutboxTableNotFoundError(qualifiedTable);
}
