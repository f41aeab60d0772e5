import { relayObjectNames, type RelayTableName } from '../schema/relay-schema.sql';
import { HISTORY, PENDING } from '../schema/row-state.sql';

/** The operator actions' statements: validated identifiers, bound values. @internal */
export function relayOperatorSql(name: RelayTableName) {
  const n = relayObjectNames(name);
  const T = n.outbox;
  return {
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
    retry: `UPDATE ${T} t SET parked_at = NULL, parked_reason = NULL, next_attempt_at = NULL,
                lease_expires_at = NULL, attempts = 0, claims = 0
          WHERE t.event_id = $1 AND t.parked_at IS NOT NULL AND ${PENDING('t')}`,
    skip: `UPDATE ${T} t SET skipped_at = now(), skipped_by = $2, skip_reason = $3,
                lease_expires_at = NULL
          WHERE t.event_id = $1 AND ${PENDING('t')}
            AND (t.lease_expires_at IS NULL OR t.lease_expires_at <= now())`,
    park: `UPDATE ${T} t SET parked_at = now(), parked_reason = 'operator ' || $2 || ': ' || $3,
                next_attempt_at = NULL, lease_expires_at = NULL,
                error_history = ${HISTORY(`jsonb_build_object('at', now(), 'attempt', t.attempts, 'kind', 'operator', 'error', $3::text)`)}
          WHERE t.event_id = $1 AND ${PENDING('t')} AND t.parked_at IS NULL
            AND (t.lease_expires_at IS NULL OR t.lease_expires_at <= now())`,
    state: `SELECT ${PENDING('t')} AS pending, t.parked_at IS NOT NULL AS parked, t.lease_owner,
                t.lease_expires_at FROM ${T} t WHERE t.event_id = $1`,
    republish: (
      where: string,
    ) => `UPDATE ${T} SET published_at = NULL, kafka_partition = NULL, kafka_offset = NULL,
                lease_expires_at = NULL, next_attempt_at = NULL, attempts = 0, claims = 0
          WHERE published_at IS NOT NULL AND skipped_at IS NULL AND ${where}`,
    republishAggregate: `aggregate_type = $1 AND ($2::text IS NULL OR aggregate_id = $2)
                  AND ($3::bigint IS NULL OR aggregate_version >= $3) AND ($4::bigint IS NULL OR aggregate_version <= $4)`,
    republishWindow: `published_at >= $1 AND published_at < $2`,
    audit: `INSERT INTO ${n.audit} (action, actor, reason, event_id, details) VALUES ($1, $2, $3, $4, $5)`,
  };
}

export type RelayOperatorSql = ReturnType<typeof relayOperatorSql>;
