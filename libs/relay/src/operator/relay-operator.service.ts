import { Inject, Injectable, Optional } from '@nestjs/common';
import { InvalidOptionsError } from '@nest-outbox/core';
import { inTransaction, isUuid } from '@nest-outbox/core/internal';
import type { Pool, PoolClient } from 'pg';
import { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import { relayOperatorSql, type RelayOperatorSql } from './relay-operator.sql';
import type {
  LeasedOutcome,
  OperatorActor,
  ParkedEvent,
  ParkOutcome,
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

interface EventState {
  pending: boolean;
  parked: boolean;
  lease_owner: string | null;
  lease_expires_at: Date | null;
}

/** A pending event a relay holds: who, until when, and what to do. */
function leased(eventId: string, action: string, state: EventState): LeasedOutcome {
  // A lease token is `<relayId>:<claim sequence>`.
  const relayId = (state.lease_owner ?? '').replace(/:\d+$/, '');
  const until = state.lease_expires_at ?? new Date();
  return {
    outcome: 'leased',
    eventId,
    relayId,
    leaseExpiresAt: until,
    hint:
      `relay ${relayId} is publishing this event; by ${until.toISOString()} (its lease) it is published, ` +
      `backing off or parked. Run ${action} again after that, or pause that relay first ` +
      `(operator console: POST /operator/api/relay/pause) and run ${action} again.`,
  };
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
 * Operator actions on the outbox, each recorded in `<table>_relay_audit`: list parked events
 * (no payloads), retry, skip or park one with a reason, republish a range. An event a running
 * relay holds is left alone (outcome `leased`). Nothing is ever skipped automatically.
 * @publicApi
 */
@Injectable()
export class RelayOperatorService {
  private readonly sql: RelayOperatorSql;

  constructor(
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
    @Inject(RELAY_OPTIONS) options: Pick<ResolvedRelayOptions, 'schema' | 'table'>,
    /** Counts replays (`published_again_total{cause="replay"}`); absent in the CLI. */
    @Optional() private readonly metrics?: RelayMetrics,
  ) {
    this.sql = relayOperatorSql(options);
  }

  /** Parked events, oldest first, with how many later events of their aggregate wait. */
  async listParked(
    filter: { limit?: number; aggregateType?: string } = {},
  ): Promise<ParkedEvent[]> {
    const { rows } = await this.pool.query<ParkedRow>(this.sql.listParked, [
      filter.limit ?? 100,
      filter.aggregateType ?? null,
    ]);
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
      const updated = await client.query(this.sql.retry, [eventId]);
      if (updated.rowCount === 1) return { outcome: 'retried', eventId } as const;
      return (await this.state(client, eventId)) === undefined
        ? ({ outcome: 'not-found', eventId } as const)
        : ({ outcome: 'not-parked', eventId } as const);
    });
  }

  /** Skips an unpublished event for good (never published), recording who and why. */
  async skip(eventId: string, who: OperatorActor): Promise<SkipOutcome> {
    requireActor('skip an event', who, true);
    if (!isUuid(eventId)) return { outcome: 'not-found', eventId };
    return this.audited('skip', eventId, who, async (client) => {
      const updated = await client.query(this.sql.skip, [eventId, who.actor, who.reason]);
      if (updated.rowCount === 1) return { outcome: 'skipped', eventId } as const;
      const state = await this.state(client, eventId);
      if (!state) return { outcome: 'not-found', eventId } as const;
      if (!state.pending) return { outcome: 'not-pending', eventId } as const;
      return leased(eventId, 'skip', state);
    });
  }

  /**
   * Parks a pending event by hand (it and the later events of its aggregate wait until it is
   * retried or skipped), recording who and why.
   */
  async park(eventId: string, who: OperatorActor): Promise<ParkOutcome> {
    requireActor('park an event', who, true);
    if (!isUuid(eventId)) return { outcome: 'not-found', eventId };
    return this.audited('park', eventId, who, async (client) => {
      const updated = await client.query(this.sql.park, [eventId, who.actor, who.reason]);
      if (updated.rowCount === 1) return { outcome: 'parked', eventId } as const;
      const state = await this.state(client, eventId);
      if (!state) return { outcome: 'not-found', eventId } as const;
      if (!state.pending) return { outcome: 'not-pending', eventId } as const;
      if (state.parked) return { outcome: 'already-parked', eventId } as const;
      return leased(eventId, 'park', state);
    });
  }

  /**
   * Marks published events unpublished again so the relay publishes them once more, in
   * order per aggregate: a deliberate replay (consumers dedup by event_id).
   */
  async republish(range: RepublishRange, who: OperatorActor): Promise<RepublishOutcome> {
    requireActor('republish events', who, true);
    const [where, params] =
      'aggregateType' in range
        ? [
            this.sql.republishAggregate,
            [
              range.aggregateType,
              range.aggregateId ?? null,
              range.fromVersion ?? null,
              range.toVersion ?? null,
            ],
          ]
        : [this.sql.republishWindow, [range.publishedFrom, range.publishedTo]];
    const outcome = await this.audited(
      'republish',
      null,
      who,
      async (client) => {
        const updated = await client.query(this.sql.republish(where), params);
        return { outcome: 'republishing', count: updated.rowCount ?? 0 } as const;
      },
      range,
    );
    // Counted once committed, by the process that ran the action (a deliberate replay).
    this.metrics?.publishedAgain.inc({ cause: 'replay' }, outcome.count);
    return outcome;
  }

  /** Records an action taken outside the table (pause, resume) in the audit table. */
  async recordAction(action: string, who: OperatorActor, details: object = {}): Promise<void> {
    requireActor(action, who, false);
    await this.audited(action, null, who, () => Promise.resolve({ outcome: 'done' }), details);
  }

  /** Whether the event is still pending and who holds it; `undefined` when there is no such event. */
  private async state(client: PoolClient, eventId: string): Promise<EventState | undefined> {
    const { rows } = await client.query<EventState>(this.sql.state, [eventId]);
    return rows[0];
  }

  /** Runs an action and its audit row in one transaction. */
  private audited<T extends { outcome: string }>(
    action: string,
    eventId: string | null,
    who: OperatorActor,
    work: (client: PoolClient) => Promise<T>,
    details: unknown = {},
  ): Promise<T> {
    return inTransaction(this.pool, async (client) => {
      const result = await work(client);
      await client.query(this.sql.audit, [
        action,
        who.actor,
        who.reason ?? null,
        eventId,
        JSON.stringify({ ...(details as object), result }),
      ]);
      return result;
    });
  }
}
