import { relayObjectNames, type RelayTableName } from '../schema/relay-schema.sql';

/** Advisory lock class ids (first key of the two-int form): claims and housekeeping. */
const CLAIM_LOCK = 1852796276;
const HOUSEKEEPING_LOCK = 1852796277;

const PENDING = (alias: string) => `${alias}.published_at IS NULL AND ${alias}.skipped_at IS NULL`;
/** A row nobody else holds and that waits for nothing (a lease at or past its expiry is free). */
const FREE = (alias: string) =>
  `${alias}.parked_at IS NULL
    AND (${alias}.lease_expires_at IS NULL OR ${alias}.lease_expires_at <= now())
    AND (${alias}.next_attempt_at IS NULL OR ${alias}.next_attempt_at <= now())`;

const HISTORY = (entry: string) =>
  `jsonb_path_query_array(t.error_history || ${entry}, '$[last-19 to last]')`;

/**
 * Every statement the relay runs against the outbox table, in one place. Identifiers are
 * validated (`qualifiedTable`) before they are interpolated; values are always bound.
 * @internal
 */
export function relaySql(name: RelayTableName) {
  const n = relayObjectNames(name);
  const T = n.outbox;
  const lockName = `'${name.schema}.${name.table}'`;
  return {
    /** Claims take turns: one claimer at a time per outbox table (transaction-scoped). */
    claimLock: `SELECT pg_advisory_xact_lock(${CLAIM_LOCK}, hashtext(${lockName}))`,
    /**
     * Runs of whole aggregates: free heads (first pending row of their aggregate, found by one
     * backward probe of the (aggregate_type, aggregate_id, id) partial index) in id order, and
     * for each the next `$2` pending rows of that aggregate (one forward probe of the same
     * index), until `$1` rows. A batch covers few aggregates with long runs, so other relays
     * find other aggregates' heads free. Execution is lazy (nested loop under the LIMIT): heads
     * are probed and locked only as far as the batch needs. The run rows are read without
     * SKIP LOCKED (a skipped row would open a gap); the claim keeps each run only up to its
     * first row that is not free, and the lease UPDATE locks the rows it takes.
     */
    pick: `SELECT r.id::text AS id, h.aggregate_type, h.aggregate_id, r.claims - r.attempts AS unfinished,
       h.id::text AS head_id, (${FREE('r')}) AS free
  FROM (
    SELECT o.id, o.aggregate_type, o.aggregate_id FROM ${T} o
     WHERE ${PENDING('o')} AND ${FREE('o')}
       AND NOT EXISTS (
         SELECT 1 FROM ${T} e
          WHERE e.aggregate_type = o.aggregate_type AND e.aggregate_id = o.aggregate_id
            AND ${PENDING('e')} AND e.id < o.id)
     ORDER BY o.id
     LIMIT $1
     FOR UPDATE OF o SKIP LOCKED) h
  CROSS JOIN LATERAL (
    SELECT r.id, r.claims, r.attempts, r.parked_at, r.lease_expires_at, r.next_attempt_at FROM ${T} r
     WHERE r.aggregate_type = h.aggregate_type AND r.aggregate_id = h.aggregate_id AND ${PENDING('r')}
       AND r.id >= h.id
     ORDER BY r.id
     LIMIT $2) r
 LIMIT $1`,
    /**
     * Leases picked rows; suspects are counted when their solo publish starts. Times come
     * back ready to use (the ISO-8601 header text, epoch milliseconds): parsing two dates per
     * row in Node cost more than the whole rest of the row.
     */
    lease: `UPDATE ${T} t SET lease_owner = $1, lease_expires_at = now() + $2 * interval '1 millisecond',
       claims = claims + CASE WHEN id = ANY($4::bigint[]) THEN 0 ELSE 1 END
 WHERE id = ANY($3::bigint[]) AND ${PENDING('t')} AND ${FREE('t')}
 RETURNING id::text AS id, event_id, event_type, schema_version, aggregate_type, aggregate_id,
       aggregate_version::text AS aggregate_version,
       to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS occurred_at,
       (extract(epoch FROM created_at) * 1000)::float8 AS created_at_ms, payload::text AS payload,
       headers, topic, attempts`,
    parkCrashLoop: `UPDATE ${T} t SET parked_at = now(), parked_reason = $2, last_error = $2,
       lease_expires_at = NULL, next_attempt_at = NULL,
       error_history = ${HISTORY(`jsonb_build_object('at', now(), 'attempt', t.attempts, 'kind', 'crash-loop', 'error', $2::text)`)}
 WHERE t.id = ANY($1::bigint[])
 RETURNING t.event_id, t.aggregate_id, t.event_type`,
    /** Counts the start of a suspect's solo publish, fenced by the lease. */
    start: `UPDATE ${T} SET claims = claims + 1
 WHERE id = $2 AND lease_owner = $1 AND lease_expires_at > now() RETURNING id`,
    /**
     * One statement per batch, fenced by the lease token: a lost lease cannot mark. The ids'
     * index condition comes from `= ANY`; partition and offset are joined from the same
     * arrays (a hash of the batch), not looked up per row (array_position is linear).
     */
    mark: `UPDATE ${T} t SET published_at = now(), kafka_partition = v.p, kafka_offset = v.o,
       lease_expires_at = NULL, next_attempt_at = NULL, attempts = t.attempts + 1, last_error = NULL
  FROM unnest($2::bigint[], $3::int[], $4::bigint[]) AS v(id, p, o)
 WHERE t.id = v.id AND t.lease_owner = $1 AND t.lease_expires_at > now()
 RETURNING t.id::text AS id`,
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
 WHERE t.id = v.id AND t.id = ANY($2::bigint[]) AND t.lease_owner = $1 AND t.lease_expires_at > now()
 RETURNING t.id::text AS id`,
    release: `UPDATE ${T} t SET lease_expires_at = NULL,
       claims = t.claims - CASE WHEN v.started THEN 1 ELSE 0 END
  FROM unnest($2::bigint[], $3::bool[]) AS v(id, started)
 WHERE t.id = v.id AND t.id = ANY($2::bigint[]) AND t.lease_owner = $1 AND t.lease_expires_at IS NOT NULL`,
    stats: `SELECT count(*) FILTER (WHERE parked_at IS NULL)::int AS pending,
       count(*) FILTER (WHERE parked_at IS NOT NULL)::int AS parked,
       (SELECT extract(epoch FROM now() - f.created_at) * 1000 FROM ${T} f
         WHERE ${PENDING('f')} ORDER BY f.id LIMIT 1)::float8 AS oldest_age_ms
  FROM ${T} s WHERE ${PENDING('s')}`,
    housekeepingLock: `SELECT pg_try_advisory_xact_lock(${HOUSEKEEPING_LOCK}, hashtext(${lockName})) AS ok`,
    deletePublished: `DELETE FROM ${T} WHERE id IN (
  SELECT id FROM ${T} WHERE published_at IS NOT NULL AND published_at < now() - $1 * interval '1 millisecond'
   ORDER BY published_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    archivePublished: `WITH moved AS (
  DELETE FROM ${T} WHERE id IN (
    SELECT id FROM ${T} WHERE published_at IS NOT NULL AND published_at < now() - $1 * interval '1 millisecond'
     ORDER BY published_at LIMIT $2 FOR UPDATE SKIP LOCKED)
  RETURNING *)
INSERT INTO ${n.archive} SELECT * FROM moved`,
    exists: `SELECT to_regclass($1) IS NOT NULL AS outbox, to_regclass($2) IS NOT NULL AS audit`,
  };
}

/** The statements of one outbox table. @internal */
export type RelaySql = ReturnType<typeof relaySql>;
