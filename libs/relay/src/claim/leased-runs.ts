import type { ClaimedBatch, ClaimedRow } from './claimed-batch';

/** One row a lease statement leased, as PostgreSQL returns it. @internal */
export interface LeasedRow {
  id: string;
  event_id: string;
  event_type: string;
  schema_version: number;
  aggregate_type: string;
  aggregate_id: string;
  aggregate_version: string;
  occurred_at_ms: number;
  created_at_ms: number;
  payload: string;
  headers: unknown;
  topic: string | null;
  attempts: number;
  suspect: boolean;
}

/** The last row of a lease statement (id NULL): what it picked and kept, and its own figures. @internal */
export interface LeaseSummary {
  id: null;
  picked: number;
  kept: number;
  /** Heads the statement parked: their publishes kept killing the relay. */
  crash_loop: ClaimedBatch['crashLoopParked'][number][] | null;
  /** Rows the window held, or aggregates the skip scan read. */
  window_rows: number;
  /** The last aggregate the skip scan read (its next cursor). */
  last_type: string | null;
  last_id: string | null;
}

/** What one lease statement came to. @internal */
export interface LeasedRuns {
  readonly rows: ClaimedRow[];
  readonly summary: LeaseSummary;
}

function toRow(r: LeasedRow): ClaimedRow {
  return {
    id: r.id,
    eventId: r.event_id,
    eventType: r.event_type,
    schemaVersion: r.schema_version,
    aggregateType: r.aggregate_type,
    aggregateId: r.aggregate_id,
    aggregateVersion: r.aggregate_version,
    occurredAtMs: r.occurred_at_ms,
    createdAtMs: r.created_at_ms,
    payload: r.payload,
    headers: r.headers,
    topic: r.topic,
    attempts: r.attempts,
    suspect: r.suspect,
  };
}

/** Splits a lease statement's result into its leased rows and its summary row. @internal */
export function leasedRuns(result: readonly (LeasedRow | LeaseSummary)[]): LeasedRuns {
  const rows: ClaimedRow[] = [];
  let summary: LeaseSummary | undefined;
  for (const row of result) {
    if (row.id === null) summary = row;
    else rows.push(toRow(row));
  }
  if (!summary) throw new Error('a lease statement returned no summary row');
  return { rows, summary };
}

/** Rows in id order (ids are bigint text: compared as numbers, each parsed once). @internal */
export function inIdOrder(rows: readonly ClaimedRow[]): ClaimedRow[] {
  const keys = rows.map((row, index) => ({ n: Number(row.id), index }));
  keys.sort((a, b) => a.n - b.n);
  return keys.map((k) => rows[k.index]!);
}
