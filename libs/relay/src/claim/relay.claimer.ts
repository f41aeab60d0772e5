import { Inject, Injectable } from '@nestjs/common';
import { inTransaction } from '@nest-outbox/core';
import type { Pool, PoolClient } from 'pg';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import { commitMode } from '../schema/row-state.sql';
import { splitPick, keepPicks, type PickRow, type PickSummary } from './claim-picks';
import { claimSql, type ClaimSql } from './claim.sql';
import type { ClaimedBatch, ClaimedRow, ClaimSettings } from './claimed-batch';

interface LeasedRow {
  id: string;
  event_id: string;
  event_type: string;
  schema_version: number;
  aggregate_type: string;
  aggregate_id: string;
  aggregate_version: string;
  occurred_at: string;
  created_at_ms: number;
  payload: string;
  headers: Record<string, string> | null;
  topic: string | null;
  attempts: number;
}

/** What the claimer needs of the relay options. @internal */
export type ClaimerOptions = Pick<
  ResolvedRelayOptions,
  'schema' | 'table' | 'relayId' | 'synchronousCommit'
>;

/** The lease UPDATE found a picked row changed under it: roll the whole claim back. */
class ClaimRaceError extends Error {}

const byId = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id);

function toRow(r: LeasedRow, suspect: boolean): ClaimedRow {
  return {
    id: r.id,
    eventId: r.event_id,
    eventType: r.event_type,
    schemaVersion: r.schema_version,
    aggregateType: r.aggregate_type,
    aggregateId: r.aggregate_id,
    aggregateVersion: r.aggregate_version,
    occurredAt: r.occurred_at,
    createdAtMs: r.created_at_ms,
    payload: r.payload,
    headers: r.headers ?? {},
    topic: r.topic,
    attempts: r.attempts,
    suspect,
  };
}

/**
 * Claims batches: in one short transaction (claims take turns on an advisory lock), the
 * runs of whole aggregates whose head is free, leased to this relay with a fresh token that
 * fences every later write of the batch. Heads that keep killing the relay are parked here.
 * @internal
 */
@Injectable()
export class RelayClaimer {
  private readonly sql: ClaimSql;
  private sequence = 0;
  /** Where the next skip scan starts (aggregate type, id): scans take turns over all aggregates. */
  private scanCursor: [string, string] = ['', ''];

  constructor(
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
    @Inject(RELAY_OPTIONS) private readonly options: ClaimerOptions,
  ) {
    this.sql = claimSql(options);
  }

  /** Claims a batch; an empty one when nothing is free or a concurrent change got in the way. */
  async claim(settings: ClaimSettings): Promise<ClaimedBatch> {
    const leaseToken = `${this.options.relayId}:${++this.sequence}`;
    const leaseDeadline = Date.now() + settings.leaseMs;
    try {
      return await inTransaction(this.pool, (client) =>
        this.claimIn(client, settings, leaseToken, leaseDeadline),
      );
    } catch (error) {
      if (error instanceof ClaimRaceError)
        return { leaseToken, leaseDeadline, rows: [], crashLoopParked: [] };
      throw error;
    }
  }

  private async claimIn(
    client: PoolClient,
    settings: ClaimSettings,
    leaseToken: string,
    leaseDeadline: number,
  ): Promise<ClaimedBatch> {
    await client.query(this.sql.claimLock, [commitMode(this.options)]);
    const picks = await this.pick(client, settings);
    const { keep, suspects, crashLoop } = keepPicks(picks, settings.crashLoopThreshold);
    const crashLoopParked = await this.parkCrashLoop(client, crashLoop, settings);
    if (keep.length === 0) return { leaseToken, leaseDeadline, rows: [], crashLoopParked };
    const leased = await client.query<LeasedRow>(this.sql.lease, [
      leaseToken,
      settings.leaseMs,
      keep,
      [...suspects],
    ]);
    // A row that stopped being free between the pick and the lease would leave a gap in its
    // run (later rows published before it): give the whole claim back instead.
    if (leased.rows.length !== keep.length) throw new ClaimRaceError();
    const rows = leased.rows.map((r) => toRow(r, suspects.has(r.id))).sort(byId);
    return { leaseToken, leaseDeadline, rows, crashLoopParked };
  }

  private async parkCrashLoop(
    client: PoolClient,
    ids: string[],
    settings: ClaimSettings,
  ): Promise<ClaimedBatch['crashLoopParked']> {
    if (ids.length === 0) return [];
    const reason = `crash-loop: ${settings.crashLoopThreshold} publishes started and never finished (the relay died each time)`;
    const { rows } = await client.query<{
      event_id: string;
      aggregate_id: string;
      event_type: string;
    }>(this.sql.parkCrashLoop, [ids, reason]);
    return rows.map((r) => ({
      eventId: r.event_id,
      aggregateId: r.aggregate_id,
      eventType: r.event_type,
    }));
  }

  /**
   * Heads and their runs: from the window of the oldest pending rows, and, when that window is
   * full yet gives fewer rows than a batch (its rows are mostly a blocked backlog), from a skip
   * scan of the next aggregates. Either way the cost is bounded by the settings, not by how
   * long any aggregate's backlog is.
   */
  private async pick(client: PoolClient, settings: ClaimSettings): Promise<PickRow[]> {
    const windowRows = settings.windowRows ?? 2 * settings.batchSize;
    const window = splitPick(
      (
        await client.query<PickRow | PickSummary>(this.sql.pickWindow, [
          settings.batchSize,
          settings.runLimit,
          windowRows,
        ])
      ).rows,
    );
    const missing = settings.batchSize - window.picks.length;
    if (missing <= 0 || window.summary.window_rows < windowRows) return window.picks;
    const limit = settings.scanAggregates ?? settings.batchSize;
    const scan = splitPick(
      (
        await client.query<PickRow | PickSummary>(this.sql.pickScan, [
          missing,
          settings.runLimit,
          limit,
          ...this.scanCursor,
          [...new Set(window.picks.map((p) => p.head_id))],
        ])
      ).rows,
    );
    const { window_rows: scanned, last_type, last_id } = scan.summary;
    // Fewer aggregates than the limit: the scan reached the end, the next one starts over.
    this.scanCursor =
      scanned < limit || last_type === null || last_id === null ? ['', ''] : [last_type, last_id];
    return [...window.picks, ...scan.picks];
  }
}
