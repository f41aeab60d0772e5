import { Inject, Injectable } from '@nestjs/common';
import { inTransaction } from '@nest-outbox/core';
import type { Pool, PoolClient } from 'pg';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import { commitMode } from '../schema/row-state.sql';
import { claimSql, type ClaimSql } from './claim.sql';
import type { ClaimedBatch, ClaimSettings } from './claimed-batch';
import {
  inIdOrder,
  leasedRuns,
  type LeasedRow,
  type LeasedRuns,
  type LeaseSummary,
} from './leased-runs';

/** What the claimer needs of the relay options. @internal */
export type ClaimerOptions = Pick<
  ResolvedRelayOptions,
  'schema' | 'table' | 'relayId' | 'synchronousCommit'
>;

/** The lease UPDATE found a picked row changed under it: roll the whole claim back. */
class ClaimRaceError extends Error {}

/** One claim's token, lease and settings. */
interface Claim {
  readonly leaseToken: string;
  readonly settings: ClaimSettings;
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
    this.sql = claimSql(options, commitMode(options));
  }

  /** Claims a batch; an empty one when nothing is free or a concurrent change got in the way. */
  async claim(settings: ClaimSettings): Promise<ClaimedBatch> {
    const leaseToken = `${this.options.relayId}:${++this.sequence}`;
    const leaseDeadline = Date.now() + settings.leaseMs;
    try {
      return await inTransaction(
        this.pool,
        (client) => this.claimIn(client, { leaseToken, settings }, leaseDeadline),
        this.sql.begin,
      );
    } catch (error) {
      if (error instanceof ClaimRaceError)
        return { leaseToken, leaseDeadline, rows: [], crashLoopParked: [] };
      throw error;
    }
  }

  /**
   * Leases runs from the window of the oldest pending rows, and, when that window is full yet
   * gave fewer rows than a batch (its rows are mostly a blocked backlog), from a skip scan of
   * the next aggregates. Either way the cost is bounded by the settings, not by how long any
   * aggregate's backlog is. Heads that keep killing the relay are parked instead.
   */
  private async claimIn(
    client: PoolClient,
    claim: Claim,
    leaseDeadline: number,
  ): Promise<ClaimedBatch> {
    const { settings } = claim;
    const windowRows = settings.windowRows ?? 2 * settings.batchSize;
    const window = await this.lease(
      client,
      claim,
      this.sql.leaseWindow,
      settings.batchSize,
      windowRows,
    );
    const crashLoopParked = await this.parkCrashLoop(client, window.summary, settings);
    let rows = window.rows;
    const missing = settings.batchSize - window.summary.picked;
    if (missing > 0 && window.summary.window_rows >= windowRows) {
      const limit = settings.scanAggregates ?? settings.batchSize;
      const scan = await this.lease(
        client,
        claim,
        this.sql.leaseScan,
        missing,
        limit,
        this.scanCursor,
      );
      crashLoopParked.push(...(await this.parkCrashLoop(client, scan.summary, settings)));
      const { window_rows: scanned, last_type, last_id } = scan.summary;
      // Fewer aggregates than the limit: the scan reached the end, the next one starts over.
      this.scanCursor =
        scanned < limit || last_type === null || last_id === null ? ['', ''] : [last_type, last_id];
      rows = rows.concat(scan.rows);
    }
    return { leaseToken: claim.leaseToken, leaseDeadline, rows: inIdOrder(rows), crashLoopParked };
  }

  /**
   * Runs one lease statement: `limit` rows at most ($1), runs of `runLimit` ($2), a window of
   * `size` rows or a scan of `size` aggregates ($3), the lease token, duration and crash-loop
   * threshold ($4-$6), the scan's cursor ($7, $8). A row that stopped being free between the
   * pick and the lease would leave a gap in its run (later rows published before it): then
   * the whole claim is given back.
   */
  private async lease(
    client: PoolClient,
    { leaseToken, settings }: Claim,
    statement: string,
    limit: number,
    size: number,
    cursor: readonly string[] = [],
  ): Promise<LeasedRuns> {
    const { rows } = await client.query<LeasedRow | LeaseSummary>(statement, [
      limit,
      settings.runLimit,
      size,
      leaseToken,
      settings.leaseMs,
      settings.crashLoopThreshold,
      ...cursor,
    ]);
    const leased = leasedRuns(rows);
    if (leased.rows.length !== leased.summary.kept) throw new ClaimRaceError();
    return leased;
  }

  private async parkCrashLoop(
    client: PoolClient,
    { crash_loop: ids }: LeaseSummary,
    settings: ClaimSettings,
  ): Promise<ClaimedBatch['crashLoopParked'][number][]> {
    if (!ids || ids.length === 0) return [];
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
}
