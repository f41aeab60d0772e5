import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';

/** A statement run on a transaction, prepared under `name` on each connection. @internal */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/**
 * `<prefix>_<digest of text>`: one prepared statement per text on each connection, and a
 * changed text never reuses a name prepared for another.
 * @internal
 */
export function statementName(prefix: string, text: string): string {
  return `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
}

interface PgClient {
  query(config: {
    name: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: Record<string, unknown>[] }>;
}

interface StructuredQueryRunner {
  databaseConnection?: Partial<PgClient>;
  query(text: string, values: unknown[], structured: true): Promise<{ records?: unknown[] }>;
}

/**
 * Runs `statement` in the transaction behind `tx` and returns its rows. It goes straight to
 * the transaction's node-postgres client as a named prepared statement (parsed once per
 * connection, one round trip, no TypeORM result mapping); TypeORM's query logging and
 * subscribers do not see it. Falls back to the query runner if the driver is not `pg`.
 * @internal
 */
export async function queryInTransaction(
  tx: EntityManager,
  statement: NamedStatement,
  values: unknown[],
): Promise<Record<string, unknown>[]> {
  const runner = tx.queryRunner as StructuredQueryRunner | undefined;
  const client = runner?.databaseConnection;
  if (typeof client?.query === 'function') {
    const result = await (client as PgClient).query({ ...statement, values });
    return result.rows;
  }
  if (!runner) return tx.query<Record<string, unknown>[]>(statement.text, values);
  const result = await runner.query(statement.text, values, true);
  return (result.records ?? []) as Record<string, unknown>[];
}
