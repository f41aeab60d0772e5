import type { OutboxRow } from '../event/outbox-event.interface';

/** The part of a TypeORM query runner the unit reads (`transactionDepth` is protected). */
interface DepthAware {
  readonly queryRunner?: { readonly transactionDepth?: number };
}

/**
 * Savepoint depth of the transaction behind `tx` (1 = top level). Only TypeORM keeps one
 * manager across savepoints; the other stacks give a nested transaction its own object.
 */
function transactionDepth(tx: unknown): number {
  return (tx as DepthAware | undefined)?.queryRunner?.transactionDepth ?? 1;
}

/**
 * The events recorded during one outermost decorated call, flushed in one INSERT at its
 * end, inside its transaction. Closed once flushed: a late `record()` cannot join it.
 * @internal
 */
export class OutboxUnit {
  /** Recorded and not written yet. */
  readonly rows: OutboxRow[] = [];
  readonly depth: number;
  closed = false;
  /** Some of its events were written before the flush (`transitionAndRecord`). */
  written = false;

  constructor(readonly tx: unknown) {
    this.depth = transactionDepth(tx);
  }

  /** True when the unit has events to announce after its commit. */
  hasEvents(): boolean {
    return this.written || this.rows.length > 0;
  }

  /** True when `tx` (the current transaction) is this unit's, at this unit's savepoint level. */
  accepts(tx: unknown): boolean {
    return !this.closed && tx === this.tx && transactionDepth(tx) === this.depth;
  }
}
