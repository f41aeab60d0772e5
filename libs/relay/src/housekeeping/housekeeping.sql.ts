import { relayObjectNames, type RelayTableName } from '../schema/relay-schema.sql';

/** Advisory lock class id (first key of the two-int form) of housekeeping. */
const HOUSEKEEPING_LOCK = 1852796277;

/**
 * Removes published rows older than `$1` ms, published at `$3` or later, in batches of `$2`;
 * returns the count and the last `published_at` (the next batch's `$3`). `source`
 * (qualified) is read instead of the outbox table: its default partition.
 * @internal
 */
export function housekeepingSql(name: RelayTableName, source?: string) {
  const n = relayObjectNames(name);
  const T = source ?? n.outbox;
  const olderPublished = `SELECT id FROM ${T} WHERE published_at IS NOT NULL AND published_at < now() - $1 * interval '1 millisecond'
     AND published_at >= coalesce($3::timestamptz, '-infinity')
   ORDER BY published_at LIMIT $2 FOR UPDATE SKIP LOCKED`;
  const removed = `SELECT count(*)::int AS removed, max(published_at)::text AS last FROM gone`;
  return {
    lock: `SELECT pg_try_advisory_xact_lock(${HOUSEKEEPING_LOCK}, hashtext('${name.schema}.${name.table}')) AS ok`,
    delete: `WITH gone AS (
  DELETE FROM ${T} WHERE id IN (
    ${olderPublished})
  RETURNING published_at)
${removed}`,
    archive: `WITH moved AS (
  DELETE FROM ${T} WHERE id IN (
    ${olderPublished})
  RETURNING *),
gone AS (INSERT INTO ${n.archive} SELECT * FROM moved RETURNING published_at)
${removed}`,
  };
}
