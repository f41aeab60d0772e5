import type { Logger } from '@nestjs/common';
import type { Consumer } from 'kafkajs';
import { Backoff, errorLabel } from '@nest-outbox/core';
import type { PartitionOffsetTracker } from './partition-offset.tracker';

/** Failed OffsetCommit requests in a row after which the committer waits for the next result. */
const MAX_COMMIT_FAILURES = 5;

/**
 * Commits the committable offsets of one consumer's partitions: asynchronously (the record's
 * handler does not wait), coalesced (results arriving while a request is in flight go into
 * the next one; at most one request in flight), retried with backoff a few times. A commit
 * that keeps failing is left to the next result: redelivery is absorbed by the inbox.
 * @internal
 */
export class OffsetCommitter {
  private committing: Promise<void> | undefined;
  private dirty = false;

  constructor(
    private readonly consumer: Consumer,
    private readonly logger: Logger,
    /** The trackers whose committable offsets to commit now. */
    private readonly trackers: () => Iterable<PartitionOffsetTracker>,
    /** False while nothing may be committed (rebalancing, closed). */
    private readonly mayCommit: () => boolean,
    /** Told which trackers a commit moved (the applied-to-committed distance gauge). */
    private readonly onCommitted: (trackers: PartitionOffsetTracker[]) => void = () => undefined,
  ) {}

  /** Commits what became committable, soon (coalesced with other results). */
  schedule(): void {
    if (this.committing) {
      this.dirty = true;
      return;
    }
    this.committing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.commitLoop())
      .finally(() => (this.committing = undefined));
  }

  /** Commits what is committable now and waits for it. */
  async flush(): Promise<void> {
    this.schedule();
    await this.committing;
  }

  private async commitLoop(): Promise<void> {
    const backoff = new Backoff({ baseMs: 200, capMs: 2000 });
    do {
      this.dirty = false;
      if (!this.mayCommit()) return;
      const batch = [...this.trackers()]
        .map((tracker) => ({ tracker, next: tracker.committable() }))
        .filter(
          (c): c is { tracker: PartitionOffsetTracker; next: bigint } => c.next !== undefined,
        );
      if (batch.length === 0) return;
      try {
        await this.consumer.commitOffsets(
          batch.map(({ tracker, next }) => ({
            topic: tracker.topic,
            partition: tracker.partition,
            offset: next.toString(),
          })),
        );
        for (const { tracker, next } of batch) tracker.committedUpTo(next);
        this.onCommitted(batch.map((c) => c.tracker));
        backoff.reset();
      } catch (error) {
        const delay = backoff.next();
        this.logger.warn(
          `offset commit failed (attempt ${backoff.attempts}) stage=commit: ${errorLabel(error)}`,
        );
        if (backoff.attempts >= MAX_COMMIT_FAILURES) return; // the next result retries
        this.dirty = true;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    } while (this.dirty);
  }
}
