import type { ClaimedBatch, ClaimedRow } from './claimed-batch';

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

/**
 * Splits a lease statement's result into its leased rows (named as `ClaimedRow` names them) and
 * its summary row. @internal
 */
export function leasedRuns(result: readonly (ClaimedRow | LeaseSummary)[]): LeasedRuns {
  const rows: ClaimedRow[] = [];
  let summary: LeaseSummary | undefined;
  for (const row of result) {
    if (row.id === null) summary = row;
    else rows.push(row);
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
