import type { EntityManager } from 'typeorm';
import type { OutboxRow } from '../event/outbox-event.interface';

/** The part of a TypeORM query runner the unit reads (`transactionDepth` is protected). */
interface DepthAware {
  readonly transactionDepth?: number;
}

/** Savepoint depth of the transaction behind `tx` (1 = top level). @internal */
export function transactionDepth(tx: EntityManager): number {
  return (tx.queryRunner as DepthAware | undefined)?.transactionDepth ?? 1;
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

  constructor(readonly tx: EntityManager) {
    this.depth = transactionDepth(tx);
  }

  /** True when the unit has events to announce after its commit. */
  hasEvents(): boolean {
    return this.written || this.rows.length > 0;
  }

  /** True when `tx` (the current transaction) is this unit's, at this unit's savepoint level. */
  accepts(tx: EntityManager): boolean {
    return !this.closed && tx === this.tx && transactionDepth(tx) === this.depth;
  }
}
