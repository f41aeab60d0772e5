import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A chunk of records of one partition handled in one PostgreSQL transaction by
 * `InboxKafkaServer`. Records register what to do once the chunk commits (count, make the
 * offset committable) or rolls back (release the offset for redelivery); the first handler
 * error aborts the chunk, which is then replayed record by record on the normal path.
 * @internal
 */
export class InboxBatch {
  private readonly committed: (() => void)[] = [];
  private readonly rolledBack: (() => void)[] = [];
  aborted: unknown = undefined;
  applied = 0;

  onCommit(fn: () => void): void {
    this.committed.push(fn);
  }

  onRollback(fn: () => void): void {
    this.rolledBack.push(fn);
  }

  abort(error: unknown): void {
    this.aborted ??= error ?? new Error('inbox batch aborted');
  }

  settle(committed: boolean): void {
    for (const fn of committed ? this.committed : this.rolledBack) fn();
  }
}

const storage = new AsyncLocalStorage<InboxBatch>();

/** Runs `fn` with `batch` as the ambient inbox batch. @internal */
export function runInBatch<T>(batch: InboxBatch, fn: () => Promise<T>): Promise<T> {
  return storage.run(batch, fn);
}

/** The ambient inbox batch, if the record is handled inside one. @internal */
export function currentInboxBatch(): InboxBatch | undefined {
  return storage.getStore();
}
