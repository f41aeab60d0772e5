import type {
  DataSource,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';

/**
 * Wakes the relay after a transaction the outbox did not open commits: a TypeORM subscriber,
 * attached on first use (the one stack whose commit can be observed; elsewhere the relay polls).
 * @internal
 */
export class ForeignCommitListener implements EntitySubscriberInterface {
  private readonly pending = new WeakSet<QueryRunner>();
  private readonly attached = new Set<DataSource>();

  constructor(private readonly onCommit: () => void) {}

  track(tx: unknown): void {
    const manager = tx as { queryRunner?: QueryRunner; connection?: DataSource } | null;
    const queryRunner = manager?.queryRunner;
    const dataSource = manager?.connection;
    if (!queryRunner || !dataSource) return;
    if (!this.attached.has(dataSource)) {
      dataSource.subscribers.push(this);
      this.attached.add(dataSource);
    }
    this.pending.add(queryRunner);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    // A released savepoint broadcasts the same event with the transaction still active.
    if (event.queryRunner.isTransactionActive) return;
    if (this.pending.delete(event.queryRunner)) this.onCommit();
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (!event.queryRunner.isTransactionActive) this.pending.delete(event.queryRunner);
  }

  detach(): void {
    for (const dataSource of this.attached) {
      const index = dataSource.subscribers.indexOf(this);
      if (index >= 0) dataSource.subscribers.splice(index, 1);
    }
    this.attached.clear();
  }
}
