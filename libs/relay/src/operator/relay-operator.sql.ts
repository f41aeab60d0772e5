import { relayObjectNames, type RelayTableName } from '../schema/relay-schema.sql';
import { HISTORY, PENDING } from '../schema/row-state.sql';

/**
 * Every statement of the operator actions, in one place. Identifiers are validated before
 * they are interpolated; values are always bound.
 * @internal
 */
export function relayOperatorSql(name: RelayTableName) {
  const n = relayObjectNames(name);
  const T = n.outbox;
  return {
    /** Parked events (`$1` at most, of aggregate type `$2` if given) as `ParkedEvent`s. */
    listParked: `SELECT p.id::text AS id, p.event_id AS "eventId", p.event_type AS "eventType",
              p.aggregate_type AS "aggregateType", p.aggregate_id AS "aggregateId",
              p.aggregate_version::text AS "aggregateVersion", p.topic, p.created_at AS "createdAt",
              p.parked_at AS "parkedAt", p.parked_reason AS "parkedReason", p.attempts,
              p.last_error AS "lastError", p.error_history AS "errorHistory",
              (SELECT count(*)::int FROM ${T} w WHERE w.aggregate_type = p.aggregate_type
                 AND w.aggregate_id = p.aggregate_id AND w.id > p.id AND ${PENDING('w')}) AS waiting
         FROM ${T} p
        WHERE p.parked_at IS NOT NULL AND ${PENDING('p')}
          AND ($2::text IS NULL OR p.aggregate_type = $2)
        ORDER BY p.id LIMIT $1`,
    /** Un-parks event `$1` in place: fresh attempts, history kept. */
    retry: `UPDATE ${T} t SET parked_at = NULL, parked_reason = NULL, next_attempt_at = NULL,
                lease_expires_at = NULL, attempts = 0, claims = 0
          WHERE t.event_id = $1 AND t.parked_at IS NOT NULL AND ${PENDING('t')}`,
    /** Skips pending event `$1` for good unless it is leased, by `$2` for reason `$3`. */
    skip: `UPDATE ${T} t SET skipped_at = now(), skipped_by = $2, skip_reason = $3,
                lease_expires_at = NULL
          WHERE t.event_id = $1 AND ${PENDING('t')}
            AND (t.lease_expires_at IS NULL OR t.lease_expires_at <= now())`,
    /**
     * Parks pending event `$1` unless it is leased or parked already, by `$2` for reason `$3`:
     * its aggregate waits behind it until it is retried or skipped.
     */
    park: `UPDATE ${T} t SET parked_at = now(), parked_reason = 'operator ' || $2 || ': ' || $3,
                next_attempt_at = NULL, lease_expires_at = NULL,
                error_history = ${HISTORY(`jsonb_build_object('at', now(), 'attempt', t.attempts, 'kind', 'operator', 'error', $3::text)`)}
          WHERE t.event_id = $1 AND ${PENDING('t')} AND t.parked_at IS NULL
            AND (t.lease_expires_at IS NULL OR t.lease_expires_at <= now())`,
    /** Whether event `$1` exists, whether it is still pending, and who holds its lease. */
    state: `SELECT ${PENDING('t')} AS pending, t.parked_at IS NOT NULL AS parked, t.lease_owner,
                t.lease_expires_at FROM ${T} t WHERE t.event_id = $1`,
    /**
     * Marks published events unpublished again; `where` selects them (an aggregate range or a
     * publication window, with its own bound parameters).
     */
    republish: (
      where: string,
    ) => `UPDATE ${T} SET published_at = NULL, kafka_partition = NULL, kafka_offset = NULL,
                lease_expires_at = NULL, next_attempt_at = NULL, attempts = 0, claims = 0
          WHERE published_at IS NOT NULL AND skipped_at IS NULL AND ${where}`,
    republishAggregate: `aggregate_type = $1 AND ($2::text IS NULL OR aggregate_id = $2)
                  AND ($3::bigint IS NULL OR aggregate_version >= $3) AND ($4::bigint IS NULL OR aggregate_version <= $4)`,
    republishWindow: `published_at >= $1 AND published_at < $2`,
    /** Records who did what, why, and how it came out. */
    audit: `INSERT INTO ${n.audit} (action, actor, reason, event_id, details) VALUES ($1, $2, $3, $4, $5)`,
  };
}

/** The operator statements of one outbox table. @internal */
export type RelayOperatorSql = ReturnType<typeof relayOperatorSql>;
