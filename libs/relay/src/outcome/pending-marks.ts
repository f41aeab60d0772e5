import type { ClaimedRow } from '../claim/claimed-batch';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { AckedRow } from '../store/relay.store';

/**
 * Most acknowledged events whose mark failed for a database outage that a relay keeps (in
 * memory) to mark once the database answers. Beyond it the oldest are dropped: their events
 * are published again once their lease runs out. A relay has at most two batches in flight.
 */
export const MAX_PENDING_MARKS = 10_000;

/** An acknowledged event as its mark needs it (the payload is not kept). @internal */
export interface KeptMark extends AckedRow {
  readonly row: Pick<ClaimedRow, 'eventId' | 'createdAtMs' | 'attempts' | 'suspect'>;
}

/** Kept marks of one claim, fenced by its lease token. @internal */
export interface PendingGroup {
  readonly leaseToken: string;
  readonly marks: readonly KeptMark[];
}

/** Only what a mark needs: the claimed row (payload and headers) is let go. */
const slim = ({ id, partition, offset, row }: KeptMark): KeptMark => ({
  id,
  partition,
  offset,
  row: {
    eventId: row.eventId,
    createdAtMs: row.createdAtMs,
    attempts: row.attempts,
    suspect: row.suspect,
  },
});

/**
 * Acknowledged events whose mark failed because the database was unavailable, by claim,
 * oldest first, at most `limit` of them: dropping the oldest beyond it (counted as
 * `published_again_total{cause="mark_dropped"}`: their lease runs out and they go out again).
 * @internal
 */
export class PendingMarks {
  private groups: PendingGroup[] = [];
  private count = 0;

  constructor(
    private readonly metrics: RelayMetrics,
    private readonly limit = MAX_PENDING_MARKS,
  ) {}

  /** Marks kept. */
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

  /** A group `next` gave, back at the front. */
  putBack(group: PendingGroup): void {
    this.add(group, 'oldest');
  }

  /**
   * Gives every kept mark up (counted as dropped): the relay stops, or the database refused.
   * @param inFlight marks taken by `next` whose mark has not answered, given up too
   */
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
