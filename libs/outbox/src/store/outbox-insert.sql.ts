import { createHash } from 'node:crypto';
import type { NamedStatement } from './transaction-query';

/** The columns `record()` fills; the relay's columns keep their defaults. */
const COLUMNS = [
  ['event_id', 'uuid'],
  ['event_type', 'text'],
  ['schema_version', 'integer'],
  ['aggregate_type', 'text'],
  ['aggregate_id', 'text'],
  ['aggregate_version', 'bigint'],
  ['occurred_at', 'timestamptz'],
  ['payload', 'json'],
  ['headers', 'jsonb'],
  ['topic', 'text'],
] as const;

/**
 * One statement that first takes the advisory locks of every aggregate in the batch (`$1`,
 * keys already sorted and distinct), then inserts all rows in the order given.
 *
 * The locks sit in an uncorrelated sub-select of the WHERE clause, which PostgreSQL runs
 * as an InitPlan / one-time filter before the first row is produced, so every row's `id`
 * (identity) is drawn after the locks are held: for one aggregate, `id` order is commit
 * order. Same shape for 1 or n rows, so it is prepared once per connection.
 * @internal
 */
export function outboxInsertStatement(qualifiedTable: string): NamedStatement {
  const names = COLUMNS.map(([name]) => name).join(', ');
  const arrays = COLUMNS.map(([, type], i) => `$${i + 2}::${type}[]`).join(', ');
  const text =
    `INSERT INTO ${qualifiedTable} (${names})\n` +
    `SELECT ${names} FROM unnest(${arrays}) AS e(${names})\n` +
    'WHERE (SELECT count(pg_advisory_xact_lock(k)) FROM unnest($1::bigint[]) AS l(k)) > 0';
  const digest = createHash('sha1').update(text).digest('hex').slice(0, 16);
  return { name: `nest_outbox_insert_${digest}`, text };
}
