import { Inject, Injectable, Optional } from '@nestjs/common';
import { InvalidOptionsError } from '@nest-outbox/core';
import { inTransaction, isUuid } from '@nest-outbox/core/internal';
import type { Pool, PoolClient } from 'pg';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_METRICS, RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import { relayOperatorSql, type RelayOperatorSql } from './relay-operator.sql';
import type {
  EventOutcome,
  LeasedOutcome,
  OperatorActor,
  ParkedEvent,
  ParkOutcome,
  RepublishOutcome,
  RepublishRange,
  RetryOutcome,
  SkipOutcome,
} from './relay-operator.types';

interface EventState {
  pending: boolean;
  parked: boolean;
  lease_owner: string | null;
  lease_expires_at: Date | null;
}

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
  const missing: [string, string] | undefined = !who.actor?.trim()
    ? ['actor', 'who acts (for example --by alice)']
    : needsReason && !who.reason?.trim()
      ? ['reason', 'why (for example --reason "schema fixed")']
      : undefined;
  if (missing)
    throw new InvalidOptionsError(
      'RelayOperator',
      missing[0],
      `is required to ${action}: say ${missing[1]}`,
    );
}

/**
 * Operator actions, each recorded in `<table>_relay_audit`: list parked events (no payloads),
 * retry, skip or park one, republish a range. An event a running relay holds is left alone
 * (outcome `leased`). Nothing is ever skipped automatically.
 * @publicApi
 */
@Injectable()
export class RelayOperatorService {
  private readonly sql: RelayOperatorSql;

  constructor(
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
    @Inject(RELAY_OPTIONS) options: Pick<ResolvedRelayOptions, 'schema' | 'table'>,
    @Optional() @Inject(RELAY_METRICS) private readonly metrics?: RelayMetrics,
  ) {
    this.sql = relayOperatorSql(options);
  }

  /** Parked events, oldest first, with how many later events of their aggregate wait. */
  async listParked(
    filter: { limit?: number; aggregateType?: string } = {},
  ): Promise<ParkedEvent[]> {
    const { rows } = await this.pool.query<ParkedEvent>(this.sql.listParked, [
      filter.limit ?? 100,
      filter.aggregateType ?? null,
    ]);
    return rows;
  }

  /** Un-parks an event in place (fresh attempts, history kept); the relay publishes it next. */
  retry(eventId: string, who: OperatorActor): Promise<RetryOutcome> {
    return this.act('retry', 'retried', eventId, who, () => 'not-parked');
  }

  /** Skips an unpublished event for good (never published), recording who and why. */
  skip(eventId: string, who: OperatorActor): Promise<SkipOutcome> {
    return this.act('skip', 'skipped', eventId, who, (state) =>
      state.pending ? leased(eventId, 'skip', state) : 'not-pending',
    );
  }

  /** Parks a pending event by hand: its aggregate waits until it is retried or skipped. */
  park(eventId: string, who: OperatorActor): Promise<ParkOutcome> {
    return this.act('park', 'parked', eventId, who, (state) => {
      if (!state.pending) return 'not-pending';
      return state.parked ? 'already-parked' : leased(eventId, 'park', state);
    });
  }

  /** `done` when the statement changed the event, else `not-found` or what `whyNot` says. */
  private async act<D extends string, W extends string | LeasedOutcome>(
    action: 'retry' | 'skip' | 'park',
    done: D,
    eventId: string,
    who: OperatorActor,
    whyNot: (state: EventState) => W,
  ): Promise<EventOutcome<D | 'not-found' | Extract<W, string>> | Exclude<W, string>> {
    requireActor(`${action} an event`, who, action !== 'retry');
    if (!isUuid(eventId)) return { outcome: 'not-found', eventId };
    return this.audited(action, eventId, who, async (client) => {
      const params = action === 'retry' ? [eventId] : [eventId, who.actor, who.reason];
      const updated = await client.query(this.sql[action], params);
      if (updated.rowCount === 1) return { outcome: done, eventId };
      const [state] = (await client.query<EventState>(this.sql.state, [eventId])).rows;
      if (!state) return { outcome: 'not-found' as const, eventId };
      const why = whyNot(state);
      return typeof why === 'string'
        ? { outcome: why as Extract<W, string>, eventId }
        : (why as Exclude<W, string>);
    });
  }

  /** A deliberate replay, in order per aggregate (consumers dedup by event_id). */
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
    this.metrics?.publishedAgain.inc({ cause: 'replay' }, outcome.count);
    return outcome;
  }

  /** Records an action taken outside the table (pause, resume) in the audit table. */
  async recordAction(action: string, who: OperatorActor, details: object = {}): Promise<void> {
    requireActor(action, who, false);
    await this.audited(action, null, who, () => Promise.resolve({ outcome: 'done' }), details);
  }

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
