import type {
  DataSource,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
} from 'typeorm';

/** A promise with its resolve function. */
export interface Latch {
  readonly promise: Promise<void>;
  readonly open: () => void;
}

export function latch(): Latch {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * Test instrument on a real data source: holds chosen transactions just before their COMMIT
 * and records the order in which labelled transactions really committed.
 */
export class CommitGate implements EntitySubscriberInterface {
  readonly commits: string[] = [];
  private readonly labels = new Map<QueryRunner, string>();
  private readonly holds = new Map<QueryRunner, { reached: Latch; release: Latch }>();

  constructor(dataSource: DataSource) {
    dataSource.subscribers.push(this);
  }

  /** Labels the transaction of `queryRunner` so its commit is recorded. */
  label(queryRunner: QueryRunner, label: string): void {
    this.labels.set(queryRunner, label);
  }

  /** Holds that transaction before COMMIT; `reached` resolves when it is held. */
  hold(queryRunner: QueryRunner): { reached: Promise<void>; release: () => void } {
    const gate = { reached: latch(), release: latch() };
    this.holds.set(queryRunner, gate);
    return { reached: gate.reached.promise, release: gate.release.open };
  }

  async beforeTransactionCommit(event: TransactionCommitEvent): Promise<void> {
    const gate = this.holds.get(event.queryRunner);
    if (!gate) return;
    this.holds.delete(event.queryRunner);
    gate.reached.open();
    await gate.release.promise;
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    const label = this.labels.get(event.queryRunner);
    if (label && !event.queryRunner.isTransactionActive) {
      this.labels.delete(event.queryRunner);
      this.commits.push(label);
    }
  }
}
