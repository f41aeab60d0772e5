/**
 * The statements over `idempotency_keys` (orders.migration.ts), for the schema-qualified
 * `table`. Each runs in the transaction of the order it answers for.
 */
export const idempotencyKeysSql = (table: string) => ({
  /** Takes the key; a concurrent request with the same key waits here for the first to end. */
  claim: `INSERT INTO ${table} (key, fingerprint) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING key`,
  /** The first request's fingerprint and answer ($1 = key). */
  first: `SELECT fingerprint, answer FROM ${table} WHERE key = $1`,
  /** Stores the answer ($1 = key, $2 = the answer's JSON). */
  answer: `UPDATE ${table} SET answer = $2::json WHERE key = $1`,
});
