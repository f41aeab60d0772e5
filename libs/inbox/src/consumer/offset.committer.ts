import type { Logger } from '@nestjs/common';
import { Backoff, errorLabel } from '@nest-outbox/core/internal';
import type { InboxConsumerPort } from './inbox-consumer.port';
import type { PartitionOffsetTracker } from './partition-offset.tracker';

/** Failed OffsetCommit requests in a row after which the committer pauses (`IDLE_RETRY_MS`). */
const MAX_COMMIT_FAILURES = 5;
/** After that many failures, the next try comes with the next result or after this long. */
const IDLE_RETRY_MS = 10_000;

/**
 * Commits one consumer's committable offsets asynchronously, coalesced (one request in flight)
 * and retried with backoff; a failing commit is retried with the next result or join, or after
 * `IDLE_RETRY_MS`. A commit counts only when the port says the broker accepted it. @internal
 */
export class OffsetCommitter {
  private committing: Promise<void> | undefined;
  private dirty = false;
  private idleRetry: NodeJS.Timeout | undefined;

  constructor(
    private readonly consumer: InboxConsumerPort,
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
    this.dirty = false;
    clearTimeout(this.idleRetry);
    this.committing = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.commitLoop())
      .finally(() => {
        this.committing = undefined;
        if (this.dirty) this.schedule(); // a result or a join that came in after the last try
      });
  }

  /** Commits what is committable now and waits for it (at most `MAX_COMMIT_FAILURES` tries). */
  async flush(): Promise<void> {
    this.schedule();
    await this.committing;
  }

  close(): void {
    clearTimeout(this.idleRetry);
  }

  private async commitLoop(): Promise<void> {
    const backoff = new Backoff({ baseMs: 200, capMs: 2000 });
    for (;;) {
      this.dirty = false;
      if (!this.mayCommit()) return;
      const batch = [...this.trackers()]
        .map((tracker) => ({ tracker, next: tracker.committable() }))
        .filter(
          (c): c is { tracker: PartitionOffsetTracker; next: bigint } => c.next !== undefined,
        );
      if (batch.length === 0) return;
      const offsets = batch.map(({ tracker, next }) => ({
        topic: tracker.topic,
        partition: tracker.partition,
        offset: next.toString(),
      }));
      let failure: string | undefined;
      try {
        if (!(await this.consumer.commit(offsets)))
          failure = 'not sent: the consumer is stopping or restarting';
      } catch (error) {
        failure = errorLabel(error);
      }
      if (failure === undefined) {
        for (const { tracker, next } of batch) tracker.committedUpTo(next);
        this.onCommitted(batch.map((c) => c.tracker));
        backoff.reset();
        if (!this.dirty) return;
        continue;
      }
      const delay = backoff.next();
      this.logger.warn(
        `offset commit failed (attempt ${backoff.attempts}) stage=commit: ${failure}`,
      );
      if (backoff.attempts >= MAX_COMMIT_FAILURES) {
        this.idleRetry = setTimeout(() => this.schedule(), IDLE_RETRY_MS).unref();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
