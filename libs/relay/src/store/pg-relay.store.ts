import type { Pool, PoolClient } from 'pg';
import type { ClaimedBatch, ClaimedRow, FailureUpdate, ReleaseUpdate } from './relay-row';
import { relaySql, type RelaySql } from './relay.sql';

interface PickRow {
  id: string;
  aggregate_type: string;
  aggregate_id: string;
  unfinished: number;
  head_id: string;
  free: boolean;
}

/** The last row of a pick (id NULL): what the window held, or how far the skip scan got. */
interface PickSummary {
  id: null;
  window_rows: number;
  last_type: string | null;
  last_id: string | null;
}

/** Splits a pick's result into its run rows and its summary row. */
function splitPick(rows: (PickRow | PickSummary)[]): { picks: PickRow[]; summary: PickSummary } {
  const picks: PickRow[] = [];
  let summary: PickSummary = { id: null, window_rows: 0, last_type: null, last_id: null };
  for (const row of rows) {
    if (row.id === null) summary = row;
    else picks.push(row);
  }
  return { picks, summary };
}

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

/** Figures for health and metrics. @publicApi */
export interface RelayStats {
  readonly pending: number;
  readonly parked: number;
  /** Age of the oldest unpublished event (parked included), 0 when there is none. */
  readonly oldestAgeMs: number;
}

/** Settings of the claim. @internal */
export interface ClaimSettings {
  readonly batchSize: number;
  /** Longest run of one aggregate per claim (a batch covers about batchSize / runLimit aggregates). */
  readonly runLimit: number;
  readonly leaseMs: number;
  readonly crashLoopThreshold: number;
  /** Pending rows the id-order window reads. @default 2 * batchSize */
  readonly windowRows?: number;
  /** Aggregates one skip scan reads at most. @default batchSize */
  readonly scanAggregates?: number;
}

/** The lease UPDATE found a picked row changed under it: roll the whole claim back. */
class ClaimRaceError extends Error {}

const byId = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id);

async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(error instanceof Error ? error : true);
    throw error;
  }
}

/**
 * The relay's PostgreSQL adapter: claim, start, mark, fail, release, stats. Every write
 * after the claim is fenced by the claim's lease token.
 * @internal
 */
export class PgRelayStore {
  readonly sql: RelaySql;
  private sequence = 0;
  /** Where the next skip scan starts (aggregate type, id): scans take turns over all aggregates. */
  private scanCursor: [string, string] = ['', ''];

  /** `synchronous_commit` of claims and marks. */
  private readonly commitMode: 'on' | 'off';

  /**
   * @param synchronousCommit false: claims and marks commit without waiting for their WAL to
   *   be flushed (a PostgreSQL crash can forget the last moments of them: those events are
   *   published again, never lost, and first occurrences keep their order)
   */
  constructor(
    readonly pool: Pool,
    table: { schema: string; table: string },
    private readonly relayId: string,
    synchronousCommit = true,
  ) {
    this.sql = relaySql(table);
    this.commitMode = synchronousCommit ? 'on' : 'off';
  }

  /** Claims a batch in one short transaction (claims take turns on an advisory lock). */
  async claim(settings: ClaimSettings): Promise<ClaimedBatch> {
    const leaseToken = `${this.relayId}:${++this.sequence}`;
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
    await client.query(this.sql.claimLock, [this.commitMode]);
    const picks = await this.pick(client, settings);
    const { keep, suspects, crashLoop } = this.filterPicks(picks, settings.crashLoopThreshold);
    const crashLoopParked = crashLoop.length
      ? (
          await client.query<{ event_id: string; aggregate_id: string; event_type: string }>(
            this.sql.parkCrashLoop,
            [
              crashLoop,
              `crash-loop: ${settings.crashLoopThreshold} publishes started and never finished (the relay died each time)`,
            ],
          )
        ).rows.map((r) => ({
          eventId: r.event_id,
          aggregateId: r.aggregate_id,
          eventType: r.event_type,
        }))
      : [];
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
    const rows = leased.rows.map((r) => this.toRow(r, suspects.has(r.id))).sort(byId);
    return { leaseToken, leaseDeadline, rows, crashLoopParked };
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

  /**
   * Keeps, per aggregate, the run from its head up to (not including) its first row that is
   * not free: a row leased, backing off or parked stops its aggregate (the SKIP LOCKED trap).
   * Heads whose publishes keep killing the relay are parked instead of claimed.
   */
  private filterPicks(picks: PickRow[], threshold: number) {
    const open = new Map<string, boolean>();
    const keep: string[] = [];
    const suspects = new Set<string>();
    const crashLoop: string[] = [];
    for (const pick of picks) {
      let ok = open.get(pick.head_id);
      if (ok === undefined) {
        ok = pick.id === pick.head_id && pick.free;
        if (ok && pick.unfinished >= threshold) {
          crashLoop.push(pick.id);
          ok = false;
        }
      } else if (ok && !pick.free) ok = false;
      open.set(pick.head_id, ok);
      if (!ok) continue;
      keep.push(pick.id);
      if (pick.unfinished > 0) suspects.add(pick.id);
    }
    return { keep, suspects, crashLoop };
  }

  private toRow(r: LeasedRow, suspect: boolean): ClaimedRow {
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

  /** Counts the start of a suspect's solo publish; false when the lease is gone. */
  async start(leaseToken: string, id: string): Promise<boolean> {
    return (await this.pool.query(this.sql.start, [leaseToken, id])).rowCount === 1;
  }

  /**
   * Marks acknowledged rows published. Returns the ids actually marked: the others' lease
   * was lost (expired, or taken by another relay).
   * @param beforeAwait test seam called once the statement is sent
   */
  async mark(
    leaseToken: string,
    acks: readonly { id: string; partition: number; offset: string }[],
    beforeAwait?: () => void | Promise<void>,
  ): Promise<Set<string>> {
    const params = [
      leaseToken,
      acks.map((a) => a.id),
      acks.map((a) => a.partition),
      acks.map((a) => a.offset),
    ];
    const markOn = async (db: Pool | PoolClient) => {
      const pending = db.query<{ id: string }>(this.sql.mark, params);
      if (beforeAwait) await beforeAwait();
      return new Set((await pending).rows.map((r) => r.id));
    };
    if (this.commitMode === 'on') return markOn(this.pool);
    return inTransaction(this.pool, async (client) => {
      await client.query(this.sql.commitMode, [this.commitMode]);
      return markOn(client);
    });
  }

  /** Records failures (backoff or park); returns the ids actually updated (lease still held). */
  async fail(leaseToken: string, failures: readonly FailureUpdate[]): Promise<Set<string>> {
    if (failures.length === 0) return new Set();
    const result = await this.pool.query<{ id: string }>(this.sql.fail, [
      leaseToken,
      failures.map((f) => f.id),
      failures.map((f) => f.counted),
      failures.map((f) => f.park),
      failures.map((f) => Math.round(f.delayMs)),
      failures.map((f) => f.kind),
      failures.map((f) => f.error),
    ]);
    return new Set(result.rows.map((r) => r.id));
  }

  /** Hands rows back without a finished publish (their claim is not counted). */
  async release(leaseToken: string, rows: readonly ReleaseUpdate[]): Promise<void> {
    if (rows.length === 0) return;
    await this.pool.query(this.sql.release, [
      leaseToken,
      rows.map((r) => r.id),
      rows.map((r) => r.started),
    ]);
  }

  async stats(): Promise<RelayStats> {
    const row = (
      await this.pool.query<{ pending: number; parked: number; oldest_age_ms: number | null }>(
        this.sql.stats,
      )
    ).rows[0];
    return {
      pending: row?.pending ?? 0,
      parked: row?.parked ?? 0,
      oldestAgeMs: Math.max(0, row?.oldest_age_ms ?? 0),
    };
  }
}
