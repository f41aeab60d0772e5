/**
 * How often a window starts from the oldest end of the claim index all the same: the backstop
 * for a row whose transaction drew its id before a claim's snapshot and its transaction id
 * after it (the instant between `nextval` and the row's insert), which the horizon rule below
 * cannot see.
 */
export const BOTTOM_RESCAN_MS = 30_000;

/** What a window read saw: its first pending row, and its snapshot's bounds. @internal */
export interface WindowSighting {
  /** The lowest pending id the window read (none: it read no row). */
  readonly first: bigint | undefined;
  /** `pg_snapshot_xmin` of the window's snapshot: every transaction below it had ended. */
  readonly xmin: bigint;
  /** `pg_snapshot_xmax` of the window's snapshot: every transaction below it had begun. */
  readonly xmax: bigint;
  /** The audit table's last id the window saw (an operator action adds one). */
  readonly auditMark: bigint;
}

/** Where a window starts: from `id`, unless the audit moved past `auditMark`. @internal */
export interface WindowStart {
  readonly id: bigint;
  readonly auditMark: bigint;
}

/**
 * The lower bound the claim's window starts from, so that a claim does not walk the index
 * entries of every row published since the oldest snapshot still open (under a held snapshot
 * none of them can be removed, and a window from the oldest end visits them all).
 *
 * Ids are drawn at insert and commits land out of order: a row below the lowest pending id a
 * window saw may still commit. Such a row belongs to a transaction that was running when that
 * window's snapshot was taken. So the lowest id a window saw becomes a candidate, and the bound
 * moves to it only once a later window's snapshot shows every transaction of the candidate's
 * snapshot ended (its xmin at or past the candidate's xmax); then such rows are visible to that
 * later window, which read from the old bound, and the bound becomes the lower of the two
 * windows' first rows. Every `BOTTOM_RESCAN_MS` a window reads from the oldest end again, and so
 * does a window that finds a new audit row (an operator may have republished rows below the
 * bound: the window checks in its own snapshot, so it never reads past them); the bound is then
 * settled anew. A relay restarted starts from the oldest end. A parked or blocked row is
 * pending: the bound stays at or below it.
 * @internal
 */
export class ClaimFloor {
  private bound: bigint | undefined;
  private candidate: { readonly first: bigint; readonly xmax: bigint } | undefined;
  private auditMark = 0n;
  private bottomReadAt = -Infinity;

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Where the next window starts: undefined for the oldest end. */
  start(): WindowStart | undefined {
    if (this.bound === undefined || this.now() - this.bottomReadAt >= BOTTOM_RESCAN_MS)
      return undefined;
    return { id: this.bound, auditMark: this.auditMark };
  }

  /**
   * The bound as it stands, for readers of bounded ranges other than the claim (the stats):
   * as `start()`, without the claim's periodic reads from the oldest end.
   */
  settled(): WindowStart | undefined {
    return this.bound === undefined ? undefined : { id: this.bound, auditMark: this.auditMark };
  }

  /** Takes in what a window started at `from` (as `start()` gave it) saw. */
  saw(from: WindowStart | undefined, window: WindowSighting): void {
    if (from === undefined || from.auditMark !== window.auditMark) {
      this.bottomReadAt = this.now();
      if (window.auditMark !== this.auditMark) this.bound = this.candidate = undefined;
      this.auditMark = window.auditMark;
    }
    const c = this.candidate;
    if (c && window.xmin >= c.xmax) {
      this.bound = window.first === undefined || c.first < window.first ? c.first : window.first;
      this.candidate = undefined;
    }
    if (!this.candidate && window.first !== undefined)
      this.candidate = { first: window.first, xmax: window.xmax };
  }
}
