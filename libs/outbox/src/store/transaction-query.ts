import { createHash } from 'node:crypto';
import type { SqlExecutor } from '@nest-outbox/core/internal';

/** A statement run on a transaction, prepared under `name` where the driver allows. @internal */
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

/**
 * Runs `statement` through `sql` (the current transaction's executor) and returns its rows.
 * On node-postgres (TypeORM, Drizzle, plain `pg`) it is a named prepared statement: parsed
 * once per connection, one round trip, no ORM result mapping nor query logging.
 * @internal
 */
export function queryInTransaction(
  sql: SqlExecutor,
  statement: NamedStatement,
  values: unknown[],
): Promise<Record<string, unknown>[]> {
  return sql.query(statement.text, values, statement.name);
}
