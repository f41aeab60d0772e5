import type { Logger } from '@nestjs/common';
import type { InboxStore } from '../store/inbox.store';

/**
 * Deletes processed inbox rows older than the retention in small batches (one short
 * statement each, never one big transaction), at most `maxBatches` per run.
 * @internal
 */
export class InboxPruner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly store: InboxStore,
    private readonly retentionMs: number,
    private readonly batchSize: number,
    private readonly logger: Logger,
    private readonly maxBatches = 100,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(
      () =>
        void this.pruneOnce().catch((e: unknown) =>
          this.logger.warn(`inbox prune failed: ${(e as Error).message}`),
        ),
      intervalMs,
    );
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pruning run; returns the rows deleted. */
  pruneOnce(): Promise<number> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<number> {
    let total = 0;
    for (let i = 0; i < this.maxBatches; i++) {
      const deleted = await this.store.pruneBatch(this.retentionMs, this.batchSize);
      total += deleted;
      if (deleted < this.batchSize) break;
    }
    if (total > 0)
      this.logger.log(`pruned ${total} inbox row(s) older than ${this.retentionMs} ms`);
    return total;
  }
}
