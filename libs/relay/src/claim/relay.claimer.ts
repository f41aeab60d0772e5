import { Inject, Injectable } from '@nestjs/common';
import { inOneQueryTransaction } from '@nest-outbox/core/internal';
import type { Pool, QueryResult } from 'pg';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { RELAY_OPTIONS, RELAY_PG_POOL } from '../relay.constants';
import { commitMode } from '../schema/row-state.sql';
import { relayStoreSql } from '../store/relay-store.sql';
import { ClaimFloor, type WindowStart } from './claim-floor';
import { claimSql, type ClaimSql, type LeaseArgs } from './claim.sql';
import type { ClaimedBatch, ClaimedRow, ClaimSettings } from './claimed-batch';

/** The last row of a lease statement (id NULL): what it picked and kept, and its own figures. */
interface LeaseSummary {
  id: null;
  picked: number;
  kept: number;
  crash_loop: ClaimedBatch['crashLoopParked'][number][] | null;
  /** Rows the window held, or aggregates the skip scan read. */
  window_rows: number;
  /** The last aggregate the skip scan read (its next cursor). */
  last_type: string | null;
  last_id: string | null;
  window_first: string | null;
  audit_mark: string;
  snapshot_xmin: string;
  snapshot_xmax: string;
}

interface LeasedRuns {
  readonly rows: ClaimedRow[];
  readonly summary: LeaseSummary;
}

function leasedRuns(result: readonly (ClaimedRow | LeaseSummary)[]): LeasedRuns {
  const rows: ClaimedRow[] = [];
  let summary: LeaseSummary | undefined;
  for (const row of result) {
    if (row.id === null) summary = row;
    else rows.push(row);
  }
  if (!summary) throw new Error('a lease statement returned no summary row');
  return { rows, summary };
}

/** Rows in id order (ids are bigint text: compared as numbers, each parsed once). */
function inIdOrder(rows: readonly ClaimedRow[]): ClaimedRow[] {
  const keys = rows.map((row, index) => ({ n: Number(row.id), index }));
  keys.sort((a, b) => a.n - b.n);
  return keys.map((k) => rows[k.index]!);
}

type ClaimerOptions = Pick<
  ResolvedRelayOptions,
  'schema' | 'table' | 'relayId' | 'synchronousCommit'
>;

interface Claim {
  readonly leaseToken: string;
  readonly settings: ClaimSettings;
}

/** Claims runs of whole aggregates whose head is free, under a fresh token that fences the batch's writes. @internal */
@Injectable()
export class RelayClaimer {
  private readonly sql: ClaimSql;
  private readonly giveBackSql: string;
  private sequence = 0;
  private scanCursor: [string, string] | undefined;
  private readonly claimFloor = new ClaimFloor();

  constructor(
    @Inject(RELAY_PG_POOL) private readonly pool: Pool,
    @Inject(RELAY_OPTIONS) private readonly options: ClaimerOptions,
  ) {
    this.sql = claimSql(options, commitMode(options));
    this.giveBackSql = relayStoreSql(options).release;
  }

  get floor(): WindowStart | undefined {
    return this.claimFloor.settled();
  }

  /**
   * Claims a batch (empty when nothing is free or a concurrent change got in the way) from the
   * window of the oldest pending rows, then, when that window is full yet gave too few rows,
   * from a skip scan: the cost is bounded by the settings, not by any backlog.
   */
  async claim(settings: ClaimSettings): Promise<ClaimedBatch> {
    const claim: Claim = { leaseToken: `${this.options.relayId}:${++this.sequence}`, settings };
    const leaseDeadline = Date.now() + settings.leaseMs;
    const windowRows = settings.windowRows ?? 2 * settings.batchSize;
    const from = this.claimFloor.start();
    const window = await this.lease(
      claim,
      this.sql.leaseWindow({ ...this.args(claim, settings.batchSize, windowRows), from }),
    );
    const { window_first: first, audit_mark, snapshot_xmin, snapshot_xmax } = window.summary;
    this.claimFloor.saw(from, {
      first: first === null ? undefined : BigInt(first),
      xmin: BigInt(snapshot_xmin),
      xmax: BigInt(snapshot_xmax),
      auditMark: BigInt(audit_mark),
    });
    const crashLoopParked = [...(window.summary.crash_loop ?? [])];
    let rows = window.rows;
    const missing = settings.batchSize - window.summary.picked;
    if (!window.raced && missing > 0 && window.summary.window_rows >= windowRows) {
      const limit = settings.scanAggregates ?? settings.batchSize;
      const scan = await this.lease(
        claim,
        this.sql.leaseScan({ ...this.args(claim, missing, limit), cursor: this.scanCursor }),
      );
      crashLoopParked.push(...(scan.summary.crash_loop ?? []));
      const { window_rows: scanned, last_type, last_id } = scan.summary;
      // Fewer aggregates than the limit: the scan reached the end, the next one starts over.
      this.scanCursor =
        scanned < limit || last_type === null || last_id === null
          ? undefined
          : [last_type, last_id];
      if (scan.raced) await this.giveBack(claim.leaseToken, rows);
      rows = scan.raced ? [] : rows.concat(scan.rows);
    }
    return {
      leaseToken: claim.leaseToken,
      leaseDeadline,
      rows: window.raced ? [] : inIdOrder(rows),
      crashLoopParked,
    };
  }

  private args({ leaseToken, settings }: Claim, limit: number, size: number): LeaseArgs {
    return {
      limit,
      runLimit: settings.runLimit,
      size,
      leaseToken,
      leaseMs: settings.leaseMs,
      crashLoopThreshold: settings.crashLoopThreshold,
    };
  }

  /** One claim transaction; a row that changed between pick and lease would leave a gap in its run: then all are given back (raced). */
  private async lease(
    { leaseToken }: Claim,
    transaction: string,
  ): Promise<LeasedRuns & { raced: boolean }> {
    const results = (await inOneQueryTransaction(this.pool, transaction)) as QueryResult[];
    // BEGIN, the lock, the lease statement, COMMIT.
    const leased = leasedRuns(results[2]!.rows as (ClaimedRow | LeaseSummary)[]);
    if (leased.rows.length === leased.summary.kept) return { ...leased, raced: false };
    await this.giveBack(leaseToken, leased.rows);
    return { ...leased, raced: true };
  }

  private async giveBack(leaseToken: string, rows: readonly ClaimedRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.pool.query(this.giveBackSql, [
      leaseToken,
      rows.map((r) => r.id),
      rows.map((r) => !r.suspect),
    ]);
  }
}
