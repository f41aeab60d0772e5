import type {
  DataSource,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
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
 * and records the order in which labelled transactions committed on the server.
 *
 * That order is the server's, not the order in which Node happened to read the COMMIT
 * replies: labelled COMMITs are sent one at a time (each waits until the previous one has
 * returned), so no two of them are ever in flight together and the order recorded is the
 * order PostgreSQL committed them in. Everything before the COMMIT (inserts, lock waits)
 * still runs concurrently.
 */
export class CommitGate implements EntitySubscriberInterface {
  readonly commits: string[] = [];
  private readonly labels = new Map<QueryRunner, string>();
  private readonly holds = new Map<QueryRunner, { reached: Latch; release: Latch }>();
  /** The end of the queue of labelled COMMITs, and the turn each one in flight holds. */
  private commitQueue: Promise<void> = Promise.resolve();
  private readonly turns = new Map<QueryRunner, () => void>();

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
    const runner = event.queryRunner;
    const gate = this.holds.get(runner);
    if (gate) {
      this.holds.delete(runner);
      gate.reached.open();
      await gate.release.promise;
    }
    // Held first, queued after: a held transaction must not block the others' COMMITs.
    if (this.labels.has(runner) && !this.turns.has(runner)) await this.takeTurn(runner);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    const runner = event.queryRunner;
    const label = this.labels.get(runner);
    if (label && !runner.isTransactionActive) {
      this.labels.delete(runner);
      this.commits.push(label);
      this.endTurn(runner);
    }
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (!event.queryRunner.isTransactionActive) this.endTurn(event.queryRunner);
  }

  private async takeTurn(runner: QueryRunner): Promise<void> {
    let done!: () => void;
    const turn = new Promise<void>((resolve) => (done = resolve));
    const before = this.commitQueue;
    this.commitQueue = before.then(() => turn);
    this.turns.set(runner, done);
    await before;
  }

  private endTurn(runner: QueryRunner): void {
    this.turns.get(runner)?.();
    this.turns.delete(runner);
  }
}
