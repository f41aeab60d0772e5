/**
 * The offsets of one partition in one assignment. `committable()` never passes an offset still
 * in flight, nor the log end the broker last reported; counts per offset, as kafkajs may
 * redeliver a record still running. @internal
 */
export class PartitionOffsetTracker {
  private readonly inFlight = new Map<bigint, number>();
  private maxFinished: bigint | undefined;
  private committed: bigint | undefined;
  /** First offset begun in this assignment: the baseline before anything was committed. */
  private firstBegun: bigint | undefined;
  /** False once the partition was revoked: nothing is committed for it any more. */
  live = true;

  /** @param logEnd the partition's high watermark in its last fetch, when one was seen */
  constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly logEnd: () => bigint | undefined = () => undefined,
  ) {}

  begin(offset: bigint): void {
    this.firstBegun ??= offset;
    this.inFlight.set(offset, (this.inFlight.get(offset) ?? 0) + 1);
  }

  finish(offset: bigint): void {
    this.release(offset);
    if (this.maxFinished === undefined || offset > this.maxFinished) this.maxFinished = offset;
  }

  abandon(offset: bigint): void {
    this.release(offset);
  }

  /** The offset to commit now (next offset to read), or undefined when nothing new. */
  committable(): bigint | undefined {
    if (!this.live || this.maxFinished === undefined) return undefined;
    let next = this.maxFinished + 1n;
    for (const offset of this.inFlight.keys()) if (offset < next) next = offset;
    const logEnd = this.logEnd();
    if (logEnd !== undefined && next > logEnd) next = logEnd;
    if (this.committed !== undefined && next <= this.committed) return undefined;
    return next;
  }

  /** Records that `next` was committed. */
  committedUpTo(next: bigint): void {
    if (this.committed === undefined || next > this.committed) this.committed = next;
  }

  /**
   * Distance between the last finished offset + 1 and the last committed one (or the first
   * offset of the assignment before any commit): records done whose offset is not committed.
   */
  get uncommitted(): number {
    const base = this.committed ?? this.firstBegun;
    if (this.maxFinished === undefined || base === undefined) return 0;
    const next = this.maxFinished + 1n;
    return next > base ? Number(next - base) : 0;
  }

  /** Offset committed last by this consumer (next to read), if any. */
  get lastCommitted(): bigint | undefined {
    return this.committed;
  }

  private release(offset: bigint): void {
    const count = this.inFlight.get(offset) ?? 0;
    if (count <= 1) this.inFlight.delete(offset);
    else this.inFlight.set(offset, count - 1);
  }
}
