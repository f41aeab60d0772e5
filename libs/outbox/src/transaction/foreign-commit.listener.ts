import type {
  DataSource,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';

/**
 * Learns when a transaction the outbox did not open (a plain nestjs-cls transaction in
 * which `record()` inserted directly) really commits, so the relay is woken after that
 * commit and not before. A TypeORM subscriber on the data source, attached on first use:
 * TypeORM is the one stack whose commit the outbox can observe; elsewhere the relay polls.
 * @internal
 */
export class ForeignCommitListener implements EntitySubscriberInterface {
  private readonly pending = new WeakSet<QueryRunner>();
  private readonly attached = new Set<DataSource>();

  constructor(private readonly onCommit: () => void) {}

  /** Wakes the relay when the transaction behind `tx` commits, if `tx` is TypeORM's. */
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

  /** Removes the subscriber from every data source it was attached to. */
  detach(): void {
    for (const dataSource of this.attached) {
      const index = dataSource.subscribers.indexOf(this);
      if (index >= 0) dataSource.subscribers.splice(index, 1);
    }
    this.attached.clear();
  }
}
