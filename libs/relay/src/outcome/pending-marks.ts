import type { ClaimedRow } from '../claim/claimed-batch';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { AckedRow } from '../store/relay.store';

/** Most marks kept in memory through a database outage; beyond it the oldest are dropped (published again). */
export const MAX_PENDING_MARKS = 10_000;

/** An acknowledged event as its mark needs it (no payload). @internal */
export interface KeptMark extends AckedRow {
  readonly row: Pick<ClaimedRow, 'eventId' | 'createdAtMs' | 'attempts' | 'suspect'>;
}

export interface PendingGroup {
  readonly leaseToken: string;
  readonly marks: readonly KeptMark[];
}

/** The claimed row's payload and headers are let go. */
const slim = ({
  id,
  partition,
  offset,
  row: { eventId, createdAtMs, attempts, suspect },
}: KeptMark) => ({
  id,
  partition,
  offset,
  row: { eventId, createdAtMs, attempts, suspect },
});

/**
 * Acknowledged events whose mark failed with the database unavailable, by claim, oldest first,
 * at most `limit` (the oldest dropped beyond: `published_again_total{cause="mark_dropped"}`).
 * @internal
 */
export class PendingMarks {
  private groups: PendingGroup[] = [];
  private count = 0;

  constructor(
    private readonly metrics: RelayMetrics,
    private readonly limit = MAX_PENDING_MARKS,
  ) {}

  get size(): number {
    return this.count;
  }

  /** Keeps the marks of `leaseToken` (newest), dropping the oldest beyond the bound. */
  keep(leaseToken: string, marks: readonly KeptMark[]): void {
    this.add({ leaseToken, marks: marks.map(slim) }, 'newest');
  }

  /** The oldest group, taken out; `putBack` returns it when its mark failed again. */
  next(): PendingGroup | undefined {
    const group = this.groups.shift();
    this.count -= group?.marks.length ?? 0;
    this.updated();
    return group;
  }

  putBack(group: PendingGroup): void {
    this.add(group, 'oldest');
  }

  /** Gives every kept mark up, and `inFlight` taken ones (counted as dropped). */
  dropAll(inFlight = 0): number {
    const dropped = this.count + inFlight;
    this.groups = [];
    this.count = 0;
    this.dropped(dropped);
    return dropped;
  }

  private add(group: PendingGroup, as: 'newest' | 'oldest'): void {
    if (group.marks.length === 0) return;
    if (as === 'newest') this.groups.push(group);
    else this.groups.unshift(group);
    this.count += group.marks.length;
    let over = this.count - this.limit;
    const before = over;
    while (over > 0) {
      const oldest = this.groups[0]!;
      const n = Math.min(over, oldest.marks.length);
      if (n === oldest.marks.length) this.groups.shift();
      else this.groups[0] = { leaseToken: oldest.leaseToken, marks: oldest.marks.slice(n) };
      over -= n;
      this.count -= n;
    }
    this.dropped(Math.max(0, before));
  }

  private dropped(n: number): void {
    if (n > 0) this.metrics.publishedAgain.inc({ cause: 'mark_dropped' }, n);
    this.updated();
  }

  private updated(): void {
    this.metrics.pendingMarks.set(this.count);
  }
}
