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

  constructor(
    readonly pool: Pool,
    table: { schema: string; table: string },
    private readonly relayId: string,
  ) {
    this.sql = relaySql(table);
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
    await client.query(this.sql.claimLock);
    const picks = (
      await client.query<PickRow>(this.sql.pick, [settings.batchSize, settings.runLimit])
    ).rows;
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
    const pending = this.pool.query<{ id: string }>(this.sql.mark, [
      leaseToken,
      acks.map((a) => a.id),
      acks.map((a) => a.partition),
      acks.map((a) => a.offset),
    ]);
    if (beforeAwait) await beforeAwait();
    return new Set((await pending).rows.map((r) => r.id));
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
