import { relayObjectNames, type RelayTableName } from '../schema/relay-schema.sql';
import { HISTORY, LOWEST_ID, PENDING } from '../schema/row-state.sql';

/** Milliseconds since `created_at`; NULL when infinite (`now() - created_at` would fail the statement). */
const AGE_MS = (alias: string) =>
  `CASE WHEN isfinite(${alias}.created_at) THEN extract(epoch FROM now() - ${alias}.created_at) * 1000 END`;

function markSql(T: string, unless: string): string {
  return `WITH m AS (
  UPDATE ${T} t SET published_at = now(), kafka_partition = v.p, kafka_offset = v.o,
         lease_expires_at = NULL, next_attempt_at = NULL, attempts = t.attempts + 1, last_error = NULL
    FROM unnest($2::bigint[], $3::int[], $4::bigint[]) AS v(id, p, o)
   WHERE t.id = v.id AND t.lease_owner = $1 AND t.lease_expires_at IS NOT NULL
     AND (SELECT set_config('synchronous_commit', $5::text, true)) IS NOT NULL
  RETURNING t.id)
SELECT u.id::text AS id FROM unnest($2::bigint[]) AS u(id)
 WHERE NOT EXISTS (SELECT 1 FROM m WHERE m.id = u.id)${unless}`;
}

/** The statements that record a batch's outcome (fenced by the lease token) and read the figures. @internal */
export function relayStoreSql(name: RelayTableName) {
  const { outbox: T, audit } = relayObjectNames(name);
  return {
    /** Counts the start of a suspect's solo publish, fenced by the lease. */
    start: `UPDATE ${T} SET claims = claims + 1
 WHERE id = $2 AND lease_owner = $1 AND lease_expires_at > now() RETURNING id`,
    /**
     * Fenced by the lease token: a lease another claim took cannot mark, one that only ran out
     * still does (a slow broker is not a dead relay). Returns the ids it did not mark.
     */
    mark: markSql(T, ''),
    /** `mark` again after a try that may have committed unseen: a row this lease marked counts. */
    remark: markSql(
      T,
      `
   AND NOT EXISTS (SELECT 1 FROM ${T} p WHERE p.id = u.id AND p.lease_owner = $1 AND p.published_at IS NOT NULL)`,
    ),
    fail: `UPDATE ${T} t SET
       attempts = t.attempts + CASE WHEN v.counted THEN 1 ELSE 0 END,
       claims = t.claims - CASE WHEN v.counted THEN 0 ELSE 1 END,
       lease_expires_at = NULL,
       next_attempt_at = CASE WHEN v.park THEN NULL ELSE now() + v.delay * interval '1 millisecond' END,
       parked_at = CASE WHEN v.park THEN now() END,
       parked_reason = CASE WHEN v.park THEN v.kind || ': ' || v.error END,
       last_error = v.error,
       error_history = ${HISTORY(`jsonb_build_object('at', now(), 'attempt', t.attempts + 1, 'kind', v.kind, 'error', v.error)`)}
  FROM unnest($2::bigint[], $3::bool[], $4::bool[], $5::int[], $6::text[], $7::text[])
       AS v(id, counted, park, delay, kind, error)
 WHERE t.id = v.id AND t.id = ANY($2::bigint[]) AND t.lease_owner = $1 AND t.lease_expires_at IS NOT NULL
 RETURNING t.id::text AS id`,
    release: `UPDATE ${T} t SET lease_expires_at = NULL,
       claims = t.claims - CASE WHEN v.started THEN 1 ELSE 0 END
  FROM unnest($2::bigint[], $3::bool[]) AS v(id, started)
 WHERE t.id = v.id AND t.id = ANY($2::bigint[]) AND t.lease_owner = $1 AND t.lease_expires_at IS NOT NULL`,
    /**
     * `RelayStats`, read from the claim's floor `$1` while the audit's last id is `$2` (else
     * from the oldest end), so as not to walk the entries of rows published long ago. The
     * oldest publishable age leaves out rows behind a parked event of their aggregate; the
     * parked heads are read once (probing per row walked the dead entries under a held snapshot).
     */
    stats: `WITH b AS MATERIALIZED (
  SELECT CASE WHEN $1::bigint IS NOT NULL
               AND (SELECT coalesce(max(a.id), 0) FROM ${audit} a) = $2::bigint
              THEN $1::bigint ELSE ${LOWEST_ID} END AS lo),
parked AS MATERIALIZED (
  SELECT h.aggregate_type, h.aggregate_id, min(h.id) AS id FROM ${T} h
   WHERE ${PENDING('h')} AND h.id >= (SELECT lo FROM b) AND h.parked_at IS NOT NULL
   GROUP BY h.aggregate_type, h.aggregate_id)
SELECT count(*) FILTER (WHERE parked_at IS NULL)::int AS pending,
       count(*) FILTER (WHERE parked_at IS NOT NULL)::int AS parked,
       count(*) FILTER (WHERE claims > attempts)::int AS suspects,
       greatest((SELECT ${AGE_MS('f')} FROM ${T} f
         WHERE ${PENDING('f')} AND f.id >= (SELECT lo FROM b) ORDER BY f.id LIMIT 1), 0)::float8 AS "oldestAgeMs",
       greatest((SELECT ${AGE_MS('f')} FROM ${T} f
         WHERE ${PENDING('f')} AND f.id >= (SELECT lo FROM b) AND f.parked_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM parked p WHERE p.aggregate_type = f.aggregate_type
                             AND p.aggregate_id = f.aggregate_id AND p.id < f.id)
         ORDER BY f.id LIMIT 1), 0)::float8 AS "oldestUnparkedAgeMs"
  FROM ${T} s WHERE ${PENDING('s')} AND s.id >= (SELECT lo FROM b)`,
    /** The oldest other transaction holding the xmin horizon (other roles' need `pg_read_all_stats`). */
    oldestTransaction: `SELECT a.pid, a.state, extract(epoch FROM now() - a.xact_start)::float8 AS "ageSeconds"
  FROM pg_stat_activity a
 WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL
   AND (a.backend_xmin IS NOT NULL OR a.backend_xid IS NOT NULL)
 ORDER BY a.xact_start LIMIT 1`,
    tableStats: `SELECT pg_total_relation_size(s.relid)::float8 AS "sizeBytes",
       s.n_dead_tup::float8 AS "deadTuples", s.n_live_tup::float8 AS "liveTuples",
       coalesce(extract(epoch FROM now() - GREATEST(s.last_autovacuum, s.last_vacuum))::float8,
                'Infinity') AS "secondsSinceVacuum"
  FROM pg_stat_user_tables s WHERE s.relid = to_regclass($1)`,
    exists: `SELECT to_regclass($1) IS NOT NULL AS outbox, to_regclass($2) IS NOT NULL AS audit,
       to_regclass($3) IS NOT NULL AS pressure`,
  };
}

export type RelayStoreSql = ReturnType<typeof relayStoreSql>;
