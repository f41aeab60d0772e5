import { Inject, Injectable, Logger } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { EventEnvelope } from '@nest-outbox/core';
import { InboxPermanentError, InboxVersionGapError } from '../errors/inbox.errors';
import { INBOX_FAULT_ENV, INBOX_OPTIONS } from '../inbox.constants';
import type { ResolvedInboxOptions } from '../inbox-options.resolver';
import { InboxMetrics } from '../metrics/inbox.metrics';
import { InboxStore } from '../store/inbox.store';
import { DeadLetterSink } from './dead-letter.sink';
import { currentInboxBatch, type InboxBatch } from './inbox-batch.context';
import type { InboxDelivery } from './inbox-delivery';
import { backoffDelay, waitWithHeartbeat } from './retry-backoff';

/**
 * The final result of one record. `paused` is the only one that is not final: its offset
 * is not committed and the partition waits at it.
 * @publicApi
 */
export type InboxOutcome = 'applied' | 'duplicate' | 'stale' | 'dead-lettered' | 'paused';

/** Outcomes of a record handled inside an `InboxKafkaServer` batch (settled at its commit). @internal */
export type BatchedOutcome = 'applied' | 'duplicate' | 'stale' | 'aborted';

/** Why a retry stopped before an outcome: the partition was revoked or the consumer stops. @internal */
export class InboxRetryAbandoned extends Error {
  override name = 'InboxRetryAbandoned';
}

/**
 * Runs one accepted record: in one transaction, registers (consumer, event_id) and, when
 * the row is new, checks the aggregate version and runs the handler; any error rolls back
 * everything, the inbox row included. Failed attempts are retried with backoff, heartbeating
 * and without committing, until `maxAttempts` or a permanent error; then the exhausted
 * policy applies (dead-letter and move on, or pause the partition).
 * @internal
 */
@Injectable()
export class InboxExecutor {
  private readonly logger = new Logger('InboxModule');
  /** Test-only fault seam, read once: SIGKILL after the PostgreSQL commit, before the offset commit. */
  private readonly killAfterCommit = process.env[INBOX_FAULT_ENV] === 'kill-after-pg-commit';

  constructor(
    @Inject(TransactionHost) private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    @Inject(InboxStore) private readonly store: InboxStore,
    @Inject(InboxMetrics) private readonly metrics: InboxMetrics,
    @Inject(DeadLetterSink) private readonly deadLetters: DeadLetterSink,
    @Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions,
  ) {}

  /**
   * Inside an `InboxKafkaServer` batch: one attempt in the batch's transaction; its metrics
   * count when the batch commits. An error aborts the batch (replayed record by record).
   */
  async runBatched(
    batch: InboxBatch,
    delivery: InboxDelivery,
    event: EventEnvelope,
    handle: () => Promise<unknown>,
  ): Promise<BatchedOutcome> {
    batch.noteHandler({ consumer: delivery.consumer, policy: delivery.policy, store: this.store });
    let outcome: Exclude<BatchedOutcome, 'aborted'>;
    try {
      outcome = await this.attempt(delivery, event, handle, batch);
    } catch (error) {
      batch.abort(error);
      return 'aborted';
    }
    const labels = { consumer: delivery.consumer, topic: delivery.position.topic };
    if (outcome === 'applied') batch.applied += 1;
    batch.onCommit(() => this.count(outcome, labels));
    return outcome;
  }

  /** The ambient `InboxKafkaServer` batch, if any. */
  batch(): InboxBatch | undefined {
    return currentInboxBatch();
  }

  private count(
    outcome: 'applied' | 'duplicate' | 'stale',
    labels: { consumer: string; topic: string },
  ): void {
    if (outcome === 'applied') this.metrics.applied.inc(labels);
    else if (outcome === 'duplicate') this.metrics.duplicates.inc(labels);
    else this.metrics.stale.inc(labels);
  }

  async run(
    delivery: InboxDelivery,
    event: EventEnvelope,
    handle: () => Promise<unknown>,
  ): Promise<InboxOutcome> {
    const labels = { consumer: delivery.consumer, topic: delivery.position.topic };
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await this.txHost.withTransaction(() =>
          this.attempt(delivery, event, handle),
        );
        if (outcome === 'applied' && this.killAfterCommit) process.kill(process.pid, 'SIGKILL');
        this.count(outcome, labels);
        return outcome;
      } catch (error) {
        this.metrics.failed.inc(labels);
        const permanent =
          error instanceof InboxPermanentError || this.options.isPermanentError(error);
        const summary = describe(error);
        const exhausted = permanent || attempt >= delivery.policy.maxAttempts;
        this.logger.warn(
          `handler failed ${this.where(delivery, event)} attempt=${attempt}/${delivery.policy.maxAttempts} ` +
            `stage=handle${permanent ? ' permanent' : ''}: ${summary}`,
        );
        if (exhausted) return this.giveUp(delivery, event, attempt, summary);
        const delay = backoffDelay(
          attempt,
          delivery.policy.initialDelayMs,
          delivery.policy.maxDelayMs,
        );
        await this.heartbeat(delivery);
        await waitWithHeartbeat(delay, () => this.heartbeat(delivery));
      }
    }
  }

  private async attempt(
    delivery: InboxDelivery,
    event: EventEnvelope,
    handle: () => Promise<unknown>,
    batch?: InboxBatch,
  ) {
    // Inside a chunk the row may have been registered ahead (one INSERT for the chunk).
    const fresh =
      batch?.claimAhead(delivery.consumer, delivery.position.offset, event.eventId) ??
      (await this.store.register(delivery.consumer, event, delivery.position));
    if (!fresh) return 'duplicate';
    if (delivery.policy.versionCheck !== 'off') {
      const check = await this.store.checkVersion(delivery.consumer, event);
      if (check.kind === 'stale') return 'stale';
      if (check.kind === 'gap') {
        this.metrics.versionGaps.inc({
          consumer: delivery.consumer,
          topic: delivery.position.topic,
        });
        this.logger.warn(
          `aggregate version gap ${this.where(delivery, event)} last=${check.last} stage=version`,
        );
        if (delivery.policy.versionCheck === 'hold') {
          throw new InboxVersionGapError(event.aggregateId, check.last + 1, event.aggregateVersion);
        }
      }
    }
    await handle();
    return 'applied';
  }

  private async giveUp(
    delivery: InboxDelivery,
    event: EventEnvelope,
    attempts: number,
    summary: string,
  ): Promise<InboxOutcome> {
    const reason = `handler failed after ${attempts} attempt(s): ${summary}`;
    if (delivery.policy.onExhausted === 'pause') {
      delivery.session.pausePoisoned({
        ...delivery.position,
        consumer: delivery.consumer,
        eventId: event.eventId,
        reason,
        since: new Date(),
      });
      this.logger.error(
        `partition paused by a poison event ${this.where(delivery, event)} stage=pause: ${reason}`,
      );
      return 'paused';
    }
    await this.deadLetters.record(delivery, 'handler_failed', reason, attempts);
    this.logger.error(
      `event dead-lettered ${this.where(delivery, event)} stage=dead-letter: ${reason}`,
    );
    return 'dead-lettered';
  }

  private async heartbeat(delivery: InboxDelivery): Promise<void> {
    await delivery.context.getHeartbeat()();
    if (delivery.tracker && !delivery.session.isAssigned(delivery.tracker)) {
      throw new InboxRetryAbandoned(
        `retry of event ${delivery.envelope?.eventId ?? '-'} abandoned: partition ${delivery.position.topic}/${delivery.position.partition} revoked or consumer stopping`,
      );
    }
  }

  private where(delivery: InboxDelivery, event: EventEnvelope): string {
    return (
      `consumer=${delivery.consumer} event_id=${event.eventId} aggregate_id=${event.aggregateId} ` +
      `type=${event.eventType} topic=${delivery.position.topic} partition=${delivery.position.partition} offset=${delivery.position.offset}`
    );
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 500);
  return String(error).slice(0, 500);
}
