import { qualifiedTable, sqlIdentifier } from '@nest-outbox/core/internal';

/** Keys deleted per housekeeping statement: short transactions, small WAL bursts. */
const PURGE_BATCH = 1000;

/** `<table>_idempotency`, next to the outbox table `table` in `schema`. @internal */
export function idempotencyTable(schema: string, table: string): string {
  return qualifiedTable('OutboxModule', schema, `${table}_idempotency`, 'tuning.table');
}

/**
 * DDL of the idempotency keys of `@Idempotent()` commands, as idempotent statements: per
 * caller scope (stored hashed) and key, the request's fingerprint and the first answer.
 * @internal
 */
export function idempotencySchemaSql(schema: string, table: string): string[] {
  const index = sqlIdentifier('OutboxModule', 'tuning.table', `${table}_idempotency_created_idx`);
  const name = idempotencyTable(schema, table);
  return [
    `CREATE TABLE IF NOT EXISTS ${name} (
  scope       text        NOT NULL,
  key         text        NOT NULL,
  fingerprint text        NOT NULL,
  status      integer     NOT NULL DEFAULT 0,
  body        text        NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key)
)`,
    // Housekeeping: keys by age.
    `CREATE INDEX IF NOT EXISTS ${index} ON ${name} (created_at)`,
  ];
}

/** The statements over the keys table `table` (qualified). @internal */
export const idempotencySql = (table: string) => ({
  /** Takes the key; a concurrent request with the same key waits here for the first to end. */
  claim: `INSERT INTO ${table} (scope, key, fingerprint) VALUES ($1::text, $2::text, $3::text)
  ON CONFLICT (scope, key) DO NOTHING RETURNING key`,
  /** The first request's fingerprint and answer ($1 = scope, $2 = key). */
  first: `SELECT fingerprint, status, body FROM ${table} WHERE scope = $1::text AND key = $2::text`,
  /** Stores the answer ($3 = status, $4 = the body's JSON text). */
  answer: `UPDATE ${table} SET status = $3::int, body = $4::text WHERE scope = $1::text AND key = $2::text`,
  /** Deletes up to a batch of keys older than $1 milliseconds; answers how many. */
  purge: `WITH gone AS (DELETE FROM ${table} WHERE ctid IN (
    SELECT ctid FROM ${table} WHERE created_at < now() - $1::double precision * interval '1 millisecond'
    LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED) RETURNING 1)
  SELECT count(*)::int AS deleted FROM gone`,
  batch: PURGE_BATCH,
});
