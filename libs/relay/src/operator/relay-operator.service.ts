import { Inject, Injectable } from '@nestjs/common';
import { InvalidOptionsError, isUuid } from '@nest-outbox/core';
import type { Pool, PoolClient } from 'pg';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import { relayObjectNames } from '../schema/relay-schema.sql';
import type {
  OperatorActor,
  ParkedEvent,
  RepublishOutcome,
  RepublishRange,
  RetryOutcome,
  SkipOutcome,
} from './relay-operator.types';

interface ParkedRow {
  id: string;
  event_id: string;
  event_type: string;
  aggregate_type: string;
  aggregate_id: string;
  aggregate_version: string;
  topic: string | null;
  created_at: Date;
  parked_at: Date;
  parked_reason: string | null;
  attempts: number;
  last_error: string | null;
  error_history: unknown[];
  waiting: number;
}

function requireActor(action: string, who: OperatorActor, needsReason: boolean): void {
  if (!who.actor?.trim()) {
    throw new InvalidOptionsError(
      'RelayOperator',
      'actor',
      `is required to ${action}: say who acts (for example --by alice)`,
    );
  }
  if (needsReason && !who.reason?.trim()) {
    throw new InvalidOptionsError(
      'RelayOperator',
      'reason',
      `is required to ${action}: say why (for example --reason "schema fixed")`,
    );
  }
}

/**
 * Operator actions on the outbox, each recorded in `<table>_relay_audit`: list parked
 * events (no payloads), retry one in place, skip one with a reason, republish a range.
 * Nothing is ever skipped automatically.
 * @publicApi
 */
@Injectable()
export class RelayOperatorService {
  private readonly names: ReturnType<typeof relayObjectNames>;

  constructor(
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
    @Inject(RELAY_OPTIONS) options: Pick<ResolvedRelayOptions, 'schema' | 'table'>,
  ) {
    this.names = relayObjectNames(options);
  }

  /** Parked events, oldest first, with how many later events of their aggregate wait. */
  async listParked(
    filter: { limit?: number; aggregateType?: string } = {},
  ): Promise<ParkedEvent[]> {
    const T = this.names.outbox;
    const { rows } = await this.pool.query<ParkedRow>(
      `SELECT p.id::text AS id, p.event_id, p.event_type, p.aggregate_type, p.aggregate_id,
              p.aggregate_version::text AS aggregate_version, p.topic, p.created_at, p.parked_at,
              p.parked_reason, p.attempts, p.last_error, p.error_history,
              (SELECT count(*)::int FROM ${T} w WHERE w.aggregate_type = p.aggregate_type
                 AND w.aggregate_id = p.aggregate_id AND w.id > p.id
                 AND w.published_at IS NULL AND w.skipped_at IS NULL) AS waiting
         FROM ${T} p
        WHERE p.parked_at IS NOT NULL AND p.published_at IS NULL AND p.skipped_at IS NULL
          AND ($2::text IS NULL OR p.aggregate_type = $2)
        ORDER BY p.id LIMIT $1`,
      [filter.limit ?? 100, filter.aggregateType ?? null],
    );
    return rows.map((r) => ({
      id: r.id,
      eventId: r.event_id,
      eventType: r.event_type,
      aggregateType: r.aggregate_type,
      aggregateId: r.aggregate_id,
      aggregateVersion: r.aggregate_version,
      topic: r.topic,
      createdAt: r.created_at,
      parkedAt: r.parked_at,
      parkedReason: r.parked_reason,
      attempts: r.attempts,
      lastError: r.last_error,
      errorHistory: r.error_history,
      waiting: r.waiting,
    }));
  }

  /** Un-parks an event in place (fresh attempts, history kept); the relay publishes it next. */
  async retry(eventId: string, who: OperatorActor): Promise<RetryOutcome> {
    requireActor('retry an event', who, false);
    if (!isUuid(eventId)) return { outcome: 'not-found', eventId };
    return this.audited('retry', eventId, who, async (client) => {
      const updated = await client.query(
        `UPDATE ${this.names.outbox} SET parked_at = NULL, parked_reason = NULL, next_attempt_at = NULL,
                lease_expires_at = NULL, attempts = 0, claims = 0
          WHERE event_id = $1 AND parked_at IS NOT NULL AND published_at IS NULL AND skipped_at IS NULL`,
        [eventId],
      );
      if (updated.rowCount === 1) return { outcome: 'retried', eventId } as const;
      return (await this.exists(client, eventId))
        ? ({ outcome: 'not-parked', eventId } as const)
        : ({ outcome: 'not-found', eventId } as const);
    });
  }

  /** Skips an unpublished event for good (never published), recording who and why. */
  async skip(eventId: string, who: OperatorActor): Promise<SkipOutcome> {
    requireActor('skip an event', who, true);
    if (!isUuid(eventId)) return { outcome: 'not-found', eventId };
    return this.audited('skip', eventId, who, async (client) => {
      const updated = await client.query(
        `UPDATE ${this.names.outbox} SET skipped_at = now(), skipped_by = $2, skip_reason = $3,
                lease_expires_at = NULL
          WHERE event_id = $1 AND published_at IS NULL AND skipped_at IS NULL
            AND (lease_expires_at IS NULL OR lease_expires_at <= now())`,
        [eventId, who.actor, who.reason],
      );
      if (updated.rowCount === 1) return { outcome: 'skipped', eventId } as const;
      const { rows } = await client.query<{ pending: boolean }>(
        `SELECT published_at IS NULL AND skipped_at IS NULL AS pending FROM ${this.names.outbox} WHERE event_id = $1`,
        [eventId],
      );
      if (!rows[0]) return { outcome: 'not-found', eventId } as const;
      return rows[0].pending
        ? ({ outcome: 'leased', eventId } as const)
        : ({ outcome: 'not-pending', eventId } as const);
    });
  }

  /**
   * Marks published events unpublished again so the relay publishes them once more, in
   * order per aggregate: a deliberate replay (consumers dedup by event_id).
   */
  async republish(range: RepublishRange, who: OperatorActor): Promise<RepublishOutcome> {
    requireActor('republish events', who, true);
    const where: { sql: string; params: unknown[] } =
      'aggregateType' in range
        ? {
            sql: `aggregate_type = $1 AND ($2::text IS NULL OR aggregate_id = $2)
                  AND ($3::bigint IS NULL OR aggregate_version >= $3) AND ($4::bigint IS NULL OR aggregate_version <= $4)`,
            params: [
              range.aggregateType,
              range.aggregateId ?? null,
              range.fromVersion ?? null,
              range.toVersion ?? null,
            ],
          }
        : {
            sql: `published_at >= $1 AND published_at < $2`,
            params: [range.publishedFrom, range.publishedTo],
          };
    return this.audited(
      'republish',
      null,
      who,
      async (client) => {
        const updated = await client.query(
          `UPDATE ${this.names.outbox} SET published_at = NULL, kafka_partition = NULL, kafka_offset = NULL,
                lease_expires_at = NULL, next_attempt_at = NULL, attempts = 0, claims = 0
          WHERE published_at IS NOT NULL AND skipped_at IS NULL AND ${where.sql}`,
          where.params,
        );
        return { outcome: 'republishing', count: updated.rowCount ?? 0 } as const;
      },
      range,
    );
  }

  private async exists(client: { query: Pool['query'] }, eventId: string): Promise<boolean> {
    const { rowCount } = await client.query(
      `SELECT 1 FROM ${this.names.outbox} WHERE event_id = $1`,
      [eventId],
    );
    return rowCount === 1;
  }

  private async audited<T extends { outcome: string }>(
    action: string,
    eventId: string | null,
    who: OperatorActor,
    work: (client: PoolClient) => Promise<T>,
    details: unknown = {},
  ): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query(
        `INSERT INTO ${this.names.audit} (action, actor, reason, event_id, details) VALUES ($1, $2, $3, $4, $5)`,
        [
          action,
          who.actor,
          who.reason ?? null,
          eventId,
          JSON.stringify({ ...(details as object), result }),
        ],
      );
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
