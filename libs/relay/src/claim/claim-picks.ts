/** One run row a pick returned. @internal */
export interface PickRow {
  id: string;
  aggregate_type: string;
  aggregate_id: string;
  unfinished: number;
  head_id: string;
  free: boolean;
}

/** The last row of a pick (id NULL): what the window held, or how far the skip scan got. @internal */
export interface PickSummary {
  id: null;
  window_rows: number;
  last_type: string | null;
  last_id: string | null;
}

/** Splits a pick's result into its run rows and its summary row. @internal */
export function splitPick(rows: (PickRow | PickSummary)[]): {
  picks: PickRow[];
  summary: PickSummary;
} {
  const picks: PickRow[] = [];
  let summary: PickSummary = { id: null, window_rows: 0, last_type: null, last_id: null };
  for (const row of rows) {
    if (row.id === null) summary = row;
    else picks.push(row);
  }
  return { picks, summary };
}

/** What a claim keeps of its picks. @internal */
export interface KeptPicks {
  /** Row ids to lease. */
  readonly keep: string[];
  /** Kept rows whose earlier publish started and never finished. */
  readonly suspects: Set<string>;
  /** Heads to park as a crash loop instead. */
  readonly crashLoop: string[];
}

/**
 * Keeps, per aggregate, the run from its head up to (not including) its first row that is
 * not free: a row leased, backing off or parked stops its aggregate (the SKIP LOCKED trap).
 * Heads whose publishes keep killing the relay (`threshold` unfinished starts) are parked
 * instead of claimed.
 * @internal
 */
export function keepPicks(picks: readonly PickRow[], threshold: number): KeptPicks {
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
