import { relayObjectNames, type RelayTableName } from '../schema/relay-schema.sql';

/** Advisory lock class id (first key of the two-int form) of housekeeping. */
const HOUSEKEEPING_LOCK = 1852796277;

/**
 * The statements of housekeeping: one instance at a time (a transaction-scoped try-lock),
 * published rows older than `$1` ms removed in batches of `$2`. Identifiers are validated
 * before they are interpolated.
 * @internal
 */
export function housekeepingSql(name: RelayTableName) {
  const n = relayObjectNames(name);
  const T = n.outbox;
  const olderPublished = `SELECT id FROM ${T} WHERE published_at IS NOT NULL AND published_at < now() - $1 * interval '1 millisecond'
   ORDER BY published_at LIMIT $2 FOR UPDATE SKIP LOCKED`;
  return {
    lock: `SELECT pg_try_advisory_xact_lock(${HOUSEKEEPING_LOCK}, hashtext('${name.schema}.${name.table}')) AS ok`,
    delete: `DELETE FROM ${T} WHERE id IN (
  ${olderPublished})`,
    archive: `WITH moved AS (
  DELETE FROM ${T} WHERE id IN (
    ${olderPublished})
  RETURNING *)
INSERT INTO ${n.archive} SELECT * FROM moved`,
  };
}
