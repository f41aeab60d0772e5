import type { ResolvedTables } from '../options/inbox-options.resolver';

/** Every statement of the inbox store, built once for the configured (quoted) tables. @internal */
export function inboxStatements(tables: ResolvedTables) {
  return {
    registerMany: `INSERT INTO ${tables.inbox} (consumer, event_id, event_type, schema_version, aggregate_type,
  aggregate_id, aggregate_version, topic, kafka_partition, kafka_offset)
SELECT $1, r.event_id, r.event_type, r.schema_version, r.aggregate_type, r.aggregate_id,
  r.aggregate_version, $2, $3, r.kafka_offset
FROM unnest($4::uuid[], $5::text[], $6::integer[], $7::text[], $8::text[], $9::bigint[], $10::bigint[])
  WITH ORDINALITY AS r(event_id, event_type, schema_version, aggregate_type, aggregate_id,
    aggregate_version, kafka_offset, ord)
ORDER BY r.ord
ON CONFLICT (consumer, event_id) DO NOTHING
RETURNING event_id::text AS event_id`,
    // The row lock of prev serialises concurrent deliveries of one aggregate. The INSERT reads
    // prev (the join), so prev is read and locked BEFORE the upsert writes: read only from
    // RETURNING, it would run after the upsert and find nothing (a row updated by the same
    // command cannot be locked), and every check would say 'first'.
    version: `WITH prev AS (
  SELECT last_version FROM ${tables.versions}
  WHERE consumer = $1 AND aggregate_type = $2 AND aggregate_id = $3 FOR UPDATE)
INSERT INTO ${tables.versions} AS v (consumer, aggregate_type, aggregate_id, last_version)
SELECT $1::text, $2::text, $3::text, $4::bigint FROM (VALUES (1)) AS one (n) LEFT JOIN prev ON true
ON CONFLICT (consumer, aggregate_type, aggregate_id)
  DO UPDATE SET last_version = GREATEST(v.last_version, EXCLUDED.last_version), updated_at = now()
RETURNING (SELECT last_version FROM prev) AS previous`,
    reject: `INSERT INTO ${tables.rejected} (consumer, topic, kafka_partition, kafka_offset, reason_code, reason,
  event_id, event_type, aggregate_id, attempts, headers, dead_letter_topic,
  key_bytes, headers_bytes, value_length, value_sha256)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15, $16)
ON CONFLICT (consumer, topic, kafka_partition, kafka_offset) DO NOTHING`,
    // The fallback when the full row is refused: nothing that came from outside but its position.
    rejectMinimal: `INSERT INTO ${tables.rejected} (consumer, topic, kafka_partition, kafka_offset, reason_code, reason, attempts)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (consumer, topic, kafka_partition, kafka_offset) DO NOTHING`,
    missingColumns: `SELECT c.name FROM unnest($2::text[]) AS c(name)
WHERE to_regclass($1) IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM pg_attribute a
  WHERE a.attrelid = to_regclass($1) AND a.attname = c.name AND NOT a.attisdropped)`,
    prune: `WITH pruned AS (DELETE FROM ${tables.inbox} WHERE ctid = ANY(ARRAY(
  SELECT ctid FROM ${tables.inbox}
  WHERE processed_at < now() - $1::double precision * interval '1 millisecond'
  LIMIT $2)) RETURNING 1)
SELECT count(*)::int AS pruned FROM pruned`,
  };
}
