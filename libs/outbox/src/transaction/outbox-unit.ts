import type { OutboxRow } from '../event/outbox-event.interface';

interface DepthAware {
  readonly queryRunner?: { readonly transactionDepth?: number };
}

/** Savepoint depth (1: top level); only TypeORM keeps one manager across savepoints. */
function transactionDepth(tx: unknown): number {
  return (tx as DepthAware | undefined)?.queryRunner?.transactionDepth ?? 1;
}

/** The events of one outermost decorated call, flushed in one INSERT at its end (then closed). @internal */
export class OutboxUnit {
  readonly rows: OutboxRow[] = [];
  readonly depth: number;
  closed = false;
  /** Some events were written before the flush (`transitionAndRecord`). */
  written = false;

  constructor(readonly tx: unknown) {
    this.depth = transactionDepth(tx);
  }

  hasEvents(): boolean {
    return this.written || this.rows.length > 0;
  }

  accepts(tx: unknown): boolean {
    return !this.closed && tx === this.tx && transactionDepth(tx) === this.depth;
  }
}
