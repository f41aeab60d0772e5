import { relayObjectNames, type RelayTableName } from '../schema/relay-schema.sql';
import { FREE, HISTORY, PENDING } from '../schema/row-state.sql';

/** Advisory lock class id (first key of the two-int form) of claims. */
const CLAIM_LOCK = 1852796276;

/** What a pick returns per run row (`h` is the head, `r` the row). */
const RUN_COLUMNS = `r.id::text AS id, h.aggregate_type, h.aggregate_id, r.claims - r.attempts AS unfinished,
       h.id::text AS head_id, (${FREE('r')}) AS free`;
/** The run of head `h`: its next `$2` pending rows, the head included (one index probe). */
const RUN = (
  T: string,
) => `SELECT r.id, r.claims, r.attempts, r.parked_at, r.lease_expires_at, r.next_attempt_at FROM ${T} r
     WHERE r.aggregate_type = h.aggregate_type AND r.aggregate_id = h.aggregate_id AND ${PENDING('r')}
       AND r.id >= h.id
     ORDER BY r.id
     LIMIT $2`;

/**
 * The run rows of the heads `h` a pick chose, until `$1` rows (then the pick's summary row is
 * appended with UNION ALL: the summary columns are NULL here).
 */
const RUNS_OF_HEADS = (
  T: string,
) => `(SELECT ${RUN_COLUMNS}, NULL::int AS window_rows, NULL::text AS last_type, NULL::text AS last_id
   FROM h CROSS JOIN LATERAL (${RUN(T)}) r
  LIMIT $1)`;

/**
 * The statements of the claim, in one place. Identifiers are validated (`relayObjectNames`)
 * before they are interpolated; values are always bound.
 * @internal
 */
export function claimSql(name: RelayTableName) {
  const T = relayObjectNames(name).outbox;
  const lockName = `'${name.schema}.${name.table}'`;
  return {
    /**
     * Claims take turns: one claimer at a time per outbox table (transaction-scoped). `$1`:
     * the transaction's synchronous_commit (the lock is held until the commit is done).
     */
    claimLock: `SELECT pg_advisory_xact_lock(${CLAIM_LOCK}, hashtext(${lockName})),
       set_config('synchronous_commit', $1, true)`,
    /**
     * Runs of whole aggregates, from heads found in a window: the first `$3` pending rows in id
     * order (the claim index). The window is a prefix of the id order, so an aggregate's first
     * row in it is its head (its first pending row): no probe per row. Free heads in id order,
     * and for each the next `$2` pending rows of its aggregate (one forward probe of the
     * (aggregate_type, aggregate_id, id) index), until `$1` rows. The run rows are read as they
     * are (a row skipped there would open a gap); the claim keeps each run only up to its first
     * row that is not free, and the lease UPDATE locks the rows it takes. A last row (id NULL)
     * says how many rows the window held: a full window with too few free heads sends the claim
     * on to `pickScan`.
     */
    pickWindow: `WITH w AS MATERIALIZED (
  SELECT o.id, o.aggregate_type, o.aggregate_id, (${FREE('o')}) AS free FROM ${T} o
   WHERE ${PENDING('o')}
   ORDER BY o.id
   LIMIT $3),
h AS (
  SELECT f.id, f.aggregate_type, f.aggregate_id FROM (
    SELECT DISTINCT ON (w.aggregate_type, w.aggregate_id) w.id, w.aggregate_type, w.aggregate_id, w.free
      FROM w ORDER BY w.aggregate_type, w.aggregate_id, w.id) f
   WHERE f.free
   ORDER BY f.id
   LIMIT $1)
${RUNS_OF_HEADS(T)}
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, (SELECT count(*)::int FROM w), NULL, NULL`,
    /**
     * The fallback when the window's oldest rows are mostly one long blocked backlog (a hot
     * aggregate whose head is leased, backing off or parked): a skip scan of the
     * (aggregate_type, aggregate_id, id) index that reads the first pending row of each of at
     * most `$3` aggregates after the cursor ($4, $5), one index descent each, so its cost does
     * not grow with any backlog. Free heads not already taken (`$6`) in id order, their runs
     * as in `pickWindow`, until `$1` rows. The last row (id NULL) gives how many aggregates were
     * scanned and the last one (the next cursor; fewer than `$3` means the scan wrapped).
     */
    pickScan: `WITH RECURSIVE a AS (
  (SELECT o.aggregate_type, o.aggregate_id, o.id, 1 AS n FROM ${T} o
    WHERE ${PENDING('o')} AND (o.aggregate_type, o.aggregate_id) > ($4::text, $5::text)
    ORDER BY o.aggregate_type, o.aggregate_id, o.id
    LIMIT 1)
  UNION ALL
  SELECT nx.aggregate_type, nx.aggregate_id, nx.id, a.n + 1 FROM a CROSS JOIN LATERAL (
    SELECT o.aggregate_type, o.aggregate_id, o.id FROM ${T} o
     WHERE ${PENDING('o')} AND (o.aggregate_type, o.aggregate_id) > (a.aggregate_type, a.aggregate_id)
     ORDER BY o.aggregate_type, o.aggregate_id, o.id
     LIMIT 1) nx
   WHERE a.n < $3),
s AS MATERIALIZED (SELECT * FROM a),
h AS (
  SELECT s.id, s.aggregate_type, s.aggregate_id FROM s JOIN ${T} o ON o.id = s.id
   WHERE ${FREE('o')} AND s.id <> ALL($6::bigint[])
   ORDER BY s.id
   LIMIT $1)
${RUNS_OF_HEADS(T)}
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL, (SELECT count(*)::int FROM s), l.aggregate_type, l.aggregate_id
  FROM (SELECT 1) one LEFT JOIN (SELECT * FROM s ORDER BY s.n DESC LIMIT 1) l ON true`,
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
    /** Parks heads whose publishes kept killing the relay (`$2`: the reason). */
    parkCrashLoop: `UPDATE ${T} t SET parked_at = now(), parked_reason = $2, last_error = $2,
       lease_expires_at = NULL, next_attempt_at = NULL,
       error_history = ${HISTORY(`jsonb_build_object('at', now(), 'attempt', t.attempts, 'kind', 'crash-loop', 'error', $2::text)`)}
 WHERE t.id = ANY($1::bigint[])
 RETURNING t.event_id, t.aggregate_id, t.event_type`,
  };
}

/** The claim statements of one outbox table. @internal */
export type ClaimSql = ReturnType<typeof claimSql>;
