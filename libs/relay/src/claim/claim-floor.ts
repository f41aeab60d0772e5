/**
 * How often a window reads from the oldest end all the same: the backstop for a row that drew
 * its id before a claim's snapshot and its transaction id after it, which the rule below misses.
 */
export const BOTTOM_RESCAN_MS = 30_000;

/** What a window read saw: its first pending row, and its snapshot's bounds. @internal */
export interface WindowSighting {
  /** The lowest pending id the window read. */
  readonly first: bigint | undefined;
  /** The bounds of the window's snapshot (`pg_snapshot_xmin`, `pg_snapshot_xmax`). */
  readonly xmin: bigint;
  readonly xmax: bigint;
  /** The audit table's last id the window saw. */
  readonly auditMark: bigint;
}

/** Where a window starts: from `id`, unless the audit moved past `auditMark`. @internal */
export interface WindowStart {
  readonly id: bigint;
  readonly auditMark: bigint;
}

/**
 * The lower bound the claim's window starts from, so that a claim does not walk the index
 * entries of every row published since the oldest open snapshot (none can be removed yet).
 *
 * Commits land out of id order: a row below the lowest pending id a window saw may still
 * commit, from a transaction running at that window's snapshot. So that id becomes a
 * candidate, and the bound moves to it once a later window's xmin reaches the candidate's
 * xmax (those rows are then visible to the later window, read from the old bound): the bound
 * becomes the lower of the two first rows. A new audit row (an operator may have republished
 * rows below the bound) or `BOTTOM_RESCAN_MS` sends a window to the oldest end again.
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

  /** The bound for other readers (the stats), without the claim's reads from the oldest end. */
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
