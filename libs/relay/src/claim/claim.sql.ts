import { escapeLiteral } from 'pg';
import { relayObjectNames, type RelayTableName } from '../schema/relay-schema.sql';
import { FREE, HISTORY, LOWEST_ID, PENDING } from '../schema/row-state.sql';

/** Advisory lock class id (first key of the two-int form) of claims. */
const CLAIM_LOCK = 1852796276;

/** The values of one lease statement, written into its text as SQL literals. @internal */
export interface LeaseArgs {
  readonly limit: number;
  /** Longest run of one aggregate. */
  readonly runLimit: number;
  /** Rows the window reads, or aggregates the skip scan reads. */
  readonly size: number;
  readonly leaseToken: string;
  readonly leaseMs: number;
  /** Unfinished publishes of a head after which it is parked instead of leased. */
  readonly crashLoopThreshold: number;
  /** The skip scan's start: after this (aggregate type, aggregate id). */
  readonly cursor?: readonly [string, string];
  /** The window's start (`ClaimFloor`): ids from `id` while the audit's last id is still `auditMark`. */
  readonly from?: { readonly id: bigint; readonly auditMark: bigint };
}

/** The last id of the audit table (0 when empty): each operator action adds one. */
const AUDIT_MARK = (audit: string) => `(SELECT coalesce(max(a.id), 0) FROM ${audit} a)`;

type Literals = ReturnType<typeof literals>;

function integer(name: string, value: number): string {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new TypeError(`claim ${name} must be a non-negative integer (got ${String(value)})`);
  return String(value);
}

function literals(args: LeaseArgs, audit: string) {
  const threshold = integer('crashLoopThreshold', args.crashLoopThreshold);
  return {
    limit: integer('limit', args.limit),
    runLimit: integer('runLimit', args.runLimit),
    size: integer('size', args.size),
    token: escapeLiteral(args.leaseToken),
    leaseMs: integer('leaseMs', args.leaseMs),
    threshold,
    reason: escapeLiteral(
      `crash-loop: ${threshold} publishes started and never finished (the relay died each time)`,
    ),
    // Without a cursor, no bound at all: ('', '') is an aggregate like any other.
    afterCursor: args.cursor
      ? `(o.aggregate_type, o.aggregate_id) > (${escapeLiteral(args.cursor[0])}::text, ${escapeLiteral(args.cursor[1])}::text)`
      : 'TRUE',
    fromId:
      args.from === undefined
        ? 'TRUE'
        : `o.id >= (SELECT CASE WHEN ${AUDIT_MARK(audit)} = ${BigInt(args.from.auditMark)} THEN ${BigInt(args.from.id)}
                          ELSE ${LOWEST_ID} END)`,
  };
}

/** The run of head `h`: its next `runLimit` pending rows, the head included (one index probe). */
const RUN = (
  T: string,
  v: Literals,
) => `SELECT r.id, r.claims, r.attempts, r.parked_at, r.lease_expires_at, r.next_attempt_at FROM ${T} r
     WHERE r.aggregate_type = h.aggregate_type AND r.aggregate_id = h.aggregate_id AND ${PENDING('r')}
       AND r.id >= h.id
     ORDER BY r.id
     LIMIT ${v.runLimit}`;

/** Kept rows whose earlier publish started and never finished. */
const SUSPECTS = `ARRAY(SELECT k.id FROM k WHERE k.kept AND k.unfinished > 0)`;

/**
 * A leased row `t` as `ClaimedRow` names it. `occurred_at` as epoch milliseconds: `to_char`
 * drops the era and has no form for infinity.
 */
const LEASED = `t.id::text AS id, t.event_id AS "eventId", t.event_type AS "eventType",
       t.schema_version AS "schemaVersion", t.aggregate_type AS "aggregateType",
       t.aggregate_id AS "aggregateId", t.aggregate_version::text AS "aggregateVersion",
       floor(extract(epoch FROM t.occurred_at) * 1000)::float8 AS "occurredAtMs",
       (extract(epoch FROM t.created_at) * 1000)::float8 AS "createdAtMs", t.payload::text AS payload,
       t.headers, t.topic, t.attempts, coalesce(t.id = ANY(${SUSPECTS}), false) AS suspect`;

/** The leased rows' columns as NULLs, for the summary row. */
const NO_ROW = `NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL`;

/**
 * Picks and leases the runs of the heads `h`, in one statement:
 * - `p`: the run rows of the heads, head by head, until `limit` rows;
 * - `k`: each run kept up to its first row that is not free (a leased, backing-off or parked
 *   row stops its aggregate); a head that kept killing the relay (`crashLoopThreshold`) is not;
 * - `l`: the lease of the kept rows, the claim counted except for suspects (their solo start
 *   counts it). It checks again that each row is pending and free: if fewer rows are leased
 *   than kept, the caller gives the claim back. Its pending test is written `coalesce(...) IS
 *   NULL` so that it cannot use the partial indexes: on a fresh table's empty statistics the
 *   planner walked the claim index and joined `k` to every pending row until the first ANALYZE;
 * - `c`: the park of the crash-looping heads (disjoint from `l`).
 * Then the leased rows, and a summary row (id NULL): rows picked and kept, the heads parked,
 * `summary` and the bounds of the statement's snapshot.
 */
const LEASE_RUNS = (T: string, v: Literals, summary: string) => `p AS MATERIALIZED (
  SELECT r.id, h.id AS head_id, r.claims - r.attempts AS unfinished, (${FREE('r')}) AS free
    FROM h CROSS JOIN LATERAL (${RUN(T, v)}) r
   LIMIT ${v.limit}),
k AS MATERIALIZED (
  SELECT p.id, p.head_id, p.unfinished, p.free,
         first_value(p.id) OVER run = p.head_id AND bool_and(p.free) OVER run
           AND first_value(p.unfinished) OVER run < ${v.threshold} AS kept
    FROM p WINDOW run AS (PARTITION BY p.head_id ORDER BY p.id)),
l AS (
  UPDATE ${T} t SET lease_owner = ${v.token}, lease_expires_at = now() + ${v.leaseMs} * interval '1 millisecond',
         claims = t.claims + CASE WHEN t.id = ANY(${SUSPECTS}) THEN 0 ELSE 1 END
    FROM k
   WHERE t.id = k.id AND k.kept AND coalesce(t.published_at, t.skipped_at) IS NULL AND ${FREE('t')}
  RETURNING ${LEASED}),
c AS (
  UPDATE ${T} t SET parked_at = now(), parked_reason = ${v.reason}, last_error = ${v.reason},
         lease_expires_at = NULL, next_attempt_at = NULL,
         error_history = ${HISTORY(`jsonb_build_object('at', now(), 'attempt', t.attempts, 'kind', 'crash-loop', 'error', ${v.reason}::text)`)}
    FROM k
   WHERE t.id = k.id AND k.id = k.head_id AND k.free AND k.unfinished >= ${v.threshold}
     AND coalesce(t.published_at, t.skipped_at) IS NULL AND ${FREE('t')}
  RETURNING t.id, t.event_id, t.aggregate_id, t.event_type)
SELECT l.*, NULL::int AS picked, NULL::int AS kept, NULL::json AS crash_loop,
       NULL::int AS window_rows, NULL::text AS last_type, NULL::text AS last_id,
       NULL::text AS window_first, NULL::text AS audit_mark, NULL::text AS snapshot_xmin,
       NULL::text AS snapshot_xmax
  FROM l
UNION ALL
SELECT ${NO_ROW}, (SELECT count(*)::int FROM p), (SELECT count(*)::int FROM k WHERE k.kept),
       (SELECT json_agg(json_build_object('eventId', c.event_id, 'aggregateId', c.aggregate_id,
                                          'eventType', c.event_type) ORDER BY c.id) FROM c),
       ${summary}, pg_snapshot_xmin(pg_current_snapshot())::text,
       pg_snapshot_xmax(pg_current_snapshot())::text`;

/** The claim's statements: validated identifiers and checked or escaped literals (a simple query binds nothing). @internal */
export function claimSql(name: RelayTableName, commitMode: 'on' | 'off') {
  const { outbox: T, audit } = relayObjectNames(name);
  const lockName = `'${name.schema}.${name.table}'`;
  /**
   * One claim transaction as one simple query: claims take turns per table on a transaction
   * lock, the lease's snapshot sees the previous claim's leases, and the COMMIT follows without
   * a round trip to the relay. If the lease fails, the caller rolls back.
   */
  const transaction = (lease: string) => `BEGIN;
SELECT pg_advisory_xact_lock(${CLAIM_LOCK}, hashtext(${lockName})),
       set_config('synchronous_commit', '${commitMode}', true);
${lease};
COMMIT`;
  return {
    /**
     * Leases runs from the heads in a window: the first `size` pending rows from `from` (no
     * pending row lies below a `ClaimFloor` bound, so an aggregate's first row in it is its
     * head). The summary: the rows it held, its first id and the audit's last id.
     */
    leaseWindow: (args: LeaseArgs) => {
      const v = literals(args, audit);
      return transaction(`WITH w AS MATERIALIZED (
  SELECT o.id, o.aggregate_type, o.aggregate_id, (${FREE('o')}) AS free FROM ${T} o
   WHERE ${PENDING('o')} AND ${v.fromId}
   ORDER BY o.id
   LIMIT ${v.size}),
h AS (
  SELECT f.id, f.aggregate_type, f.aggregate_id FROM (
    SELECT DISTINCT ON (w.aggregate_type, w.aggregate_id) w.id, w.aggregate_type, w.aggregate_id, w.free
      FROM w ORDER BY w.aggregate_type, w.aggregate_id, w.id) f
   WHERE f.free
   ORDER BY f.id
   LIMIT ${v.limit}),
${LEASE_RUNS(T, v, `(SELECT count(*)::int FROM w), NULL, NULL, (SELECT min(w.id)::text FROM w), ${AUDIT_MARK(audit)}::text`)}`);
    },
    /**
     * The fallback when the window is mostly one blocked backlog: a skip scan of the aggregate
     * index, one descent per aggregate for at most `size` aggregates after `cursor` (its cost
     * does not grow with any backlog). The summary: the aggregates scanned and the last one.
     */
    leaseScan: (args: LeaseArgs) => {
      const v = literals(args, audit);
      return transaction(`WITH RECURSIVE a AS (
  (SELECT o.aggregate_type, o.aggregate_id, o.id, 1 AS n FROM ${T} o
    WHERE ${PENDING('o')} AND ${v.afterCursor}
    ORDER BY o.aggregate_type, o.aggregate_id, o.id
    LIMIT 1)
  UNION ALL
  SELECT nx.aggregate_type, nx.aggregate_id, nx.id, a.n + 1 FROM a CROSS JOIN LATERAL (
    SELECT o.aggregate_type, o.aggregate_id, o.id FROM ${T} o
     WHERE ${PENDING('o')} AND (o.aggregate_type, o.aggregate_id) > (a.aggregate_type, a.aggregate_id)
     ORDER BY o.aggregate_type, o.aggregate_id, o.id
     LIMIT 1) nx
   WHERE a.n < ${v.size}),
s AS MATERIALIZED (SELECT * FROM a),
h AS (
  SELECT s.id, s.aggregate_type, s.aggregate_id FROM s JOIN ${T} o ON o.id = s.id
   WHERE ${FREE('o')}
   ORDER BY s.id
   LIMIT ${v.limit}),
${LEASE_RUNS(
  T,
  v,
  `(SELECT count(*)::int FROM s), (SELECT l.aggregate_type FROM s l ORDER BY l.n DESC LIMIT 1),
       (SELECT l.aggregate_id FROM s l ORDER BY l.n DESC LIMIT 1), NULL, NULL`,
)}`);
    },
  };
}

/** The claim statements of one outbox table. @internal */
export type ClaimSql = ReturnType<typeof claimSql>;
