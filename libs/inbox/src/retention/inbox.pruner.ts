import type { Logger } from '@nestjs/common';
import { errorLabel, PeriodicTask } from '@nest-outbox/core/internal';
import type { InboxStore } from '../store/inbox.store';

/** How a pruner runs. @internal */
export interface InboxPrunerOptions {
  readonly retentionMs: number;
  /** Rows per DELETE. */
  readonly batchSize: number;
  readonly intervalMs: number;
  /** DELETE statements per run at most. @default 100 */
  readonly maxBatches?: number;
}

/**
 * Deletes processed inbox rows older than the retention in small batches, at most `maxBatches`
 * per run, every `intervalMs`. @internal
 */
export class InboxPruner {
  private readonly task: PeriodicTask<number>;

  constructor(
    private readonly store: InboxStore,
    private readonly options: InboxPrunerOptions,
    private readonly logger: Logger,
  ) {
    this.task = new PeriodicTask({
      intervalMs: options.intervalMs,
      run: () => this.run(),
      onError: (error) => this.logger.warn(`inbox prune failed stage=prune: ${errorLabel(error)}`),
    });
  }

  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One pruning run now (or the one in progress); returns the rows deleted. */
  pruneOnce(): Promise<number> {
    return this.task.runNow();
  }

  private async run(): Promise<number> {
    const { retentionMs, batchSize, maxBatches = 100 } = this.options;
    let total = 0;
    for (let i = 0; i < maxBatches; i++) {
      const deleted = await this.store.pruneBatch(retentionMs, batchSize);
      total += deleted;
      if (deleted < batchSize) break;
    }
    if (total > 0) this.logger.log(`pruned ${total} inbox row(s) older than ${retentionMs} ms`);
    return total;
  }
}
