import { Inject, Injectable, Logger } from '@nestjs/common';
import type { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { type EventEnvelope } from '@nest-outbox/core';
import { logLine } from '@nest-outbox/core/internal';
import { InboxMisuseError } from '../../errors/inbox-misuse.error';
import { InboxVersionGapError } from '../../errors/inbox-version-gap.error';
import { INBOX_TRANSACTION_HOST } from '../../inbox.constants';
import { InboxMetrics } from '../../metrics/inbox.metrics';
import { InboxStore } from '../../store/inbox.store';
import type { InboxBatch } from '../../chunk/inbox-batch.context';
import { registerOnce } from '../dedup/inbox-registration';
import { HandlerFailures } from '../failure/handler-failures';
import { deliveryFields } from '../delivery/delivery-log';
import { entryDelivery, type AcceptedEntry, type InboxDelivery } from '../delivery/inbox-delivery';
import type { AttemptOutcome, BatchedOutcome, InboxOutcome } from '../delivery/inbox-outcome';

type Labels = { consumer: string; topic: string };
type OutcomeTally = { applied: number; duplicate: number; stale: number };

/**
 * Runs one accepted record in one transaction: registration, version check, handler; any error
 * rolls it all back and goes to `HandlerFailures`. @internal
 */
@Injectable()
export class InboxExecutor {
  private readonly logger = new Logger('InboxModule');
  private warnedForeign = false;

  constructor(
    @Inject(INBOX_TRANSACTION_HOST)
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    @Inject(InboxStore) private readonly store: InboxStore,
    @Inject(InboxMetrics) private readonly metrics: InboxMetrics,
    @Inject(HandlerFailures) private readonly failures: HandlerFailures,
  ) {}

  /** Outside a batch: attempts in transactions of their own until a final outcome. */
  async run(
    delivery: InboxDelivery,
    event: EventEnvelope,
    handle: () => Promise<unknown>,
  ): Promise<InboxOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await this.txHost.withTransaction(() =>
          this.attempt(delivery, event, handle),
        );
        this.count(outcome, labelsOf(delivery));
        return outcome;
      } catch (error) {
        const next = await this.failures.afterFailure(delivery, event, attempt, error);
        if (next === 'retry-uncounted') attempt -= 1;
        else if (next !== 'retry') return next;
      }
    }
  }

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
    if (!this.joinBatch(batch, delivery)) return 'aborted';
    let outcome: AttemptOutcome;
    try {
      outcome = await this.attempt(delivery, event, handle, batch);
    } catch (error) {
      batch.abort(error);
      return 'aborted';
    }
    this.outcomesOf(batch, delivery)[outcome] += 1;
    return outcome;
  }

  /**
   * A chunk for an `@InboxBatchHandler`, in the batch's transaction: admits each event, then runs
   * the handler ONCE with the new ones; an error aborts the batch.
   */
  async runChunk(
    batch: InboxBatch,
    delivery: InboxDelivery,
    accepted: readonly AcceptedEntry[],
    fresh: EventEnvelope[],
    handle: () => Promise<unknown>,
  ): Promise<void> {
    if (!this.joinBatch(batch, delivery)) return;
    // Counted only if the chunk commits: an error below aborts (and rolls back) all of it.
    const counted = this.outcomesOf(batch, delivery);
    try {
      for (const { entry, event } of accepted) {
        // The record's own delivery is built only when a statement must decide.
        const admitted =
          this.admitRegisteredAhead(delivery, entry.position.offset, event, batch) ??
          (await this.admit(entryDelivery(delivery, entry), event, batch));
        if (admitted === 'new') {
          counted.applied += 1;
          fresh.push(event);
        } else counted[admitted] += 1;
      }
      if (fresh.length > 0) {
        const done = this.metrics.handlerSeconds.startTimer({ consumer: delivery.consumer });
        try {
          await handle();
        } finally {
          done();
        }
      }
    } catch (error) {
      batch.abort(error);
    }
  }

  /**
   * The admission decided without a statement or an await: the row was registered ahead and
   * no version check applies. Undefined: `admit` decides.
   */
  private admitRegisteredAhead(
    { policy, consumer }: InboxDelivery,
    offset: string,
    event: EventEnvelope,
    batch: InboxBatch,
  ): 'new' | 'duplicate' | undefined {
    if (policy.versionCheck !== 'off') return undefined;
    const fresh = batch.ahead.claim(consumer, offset, event.eventId);
    return fresh === undefined ? undefined : fresh ? 'new' : 'duplicate';
  }

  /** The batch runs on this inbox's transaction host: note the handler; else abort it. */
  private joinBatch(batch: InboxBatch, delivery: InboxDelivery): boolean {
    if (batch.transactionHost !== undefined && batch.transactionHost !== this.txHost) {
      batch.abort(this.foreignTransaction());
      return false;
    }
    const { consumer, policy } = delivery;
    batch.noteHandler({ consumer, policy, store: this.store, batch: delivery.batch });
    return true;
  }

  /** The chunk's outcomes for the delivery's consumer and topic, counted when it commits. */
  private outcomesOf(batch: InboxBatch, delivery: InboxDelivery): OutcomeTally {
    const byLabels = batch.keep(this, () => {
      const tallies = new Map<string, { labels: Labels; tally: OutcomeTally }>();
      batch.onCommit(() => {
        for (const { labels, tally } of tallies.values()) this.metrics.settledMany(tally, labels);
      });
      return tallies;
    });
    const labels = labelsOf(delivery);
    const key = `${labels.consumer}\u0000${labels.topic}`;
    let entry = byLabels.get(key);
    if (!entry)
      byLabels.set(key, (entry = { labels, tally: { applied: 0, duplicate: 0, stale: 0 } }));
    return entry.tally;
  }

  /** A chunk in another connection's transaction: replayed record by record, said once. */
  private foreignTransaction(): InboxMisuseError {
    const error = new InboxMisuseError(
      "InboxKafkaServer runs its chunks on another connection than InboxModule's: give both the " +
        'same connectionName. Until then every chunk is replayed record by record.',
    );
    if (!this.warnedForeign) this.logger.error(error.message);
    this.warnedForeign = true;
    return error;
  }

  private async attempt(
    delivery: InboxDelivery,
    event: EventEnvelope,
    handle: () => Promise<unknown>,
    batch?: InboxBatch,
  ): Promise<AttemptOutcome> {
    const done = this.metrics.handlerSeconds.startTimer({ consumer: delivery.consumer });
    try {
      return await this.attemptOnce(delivery, event, handle, batch);
    } finally {
      done();
    }
  }

  private async attemptOnce(
    delivery: InboxDelivery,
    event: EventEnvelope,
    handle: () => Promise<unknown>,
    batch?: InboxBatch,
  ): Promise<AttemptOutcome> {
    const admitted = await this.admit(delivery, event, batch);
    if (admitted !== 'new') return admitted;
    await handle();
    return 'applied';
  }

  /** Registers (consumer, event_id) and checks the aggregate version: may the effect run? */
  private async admit(
    delivery: InboxDelivery,
    event: EventEnvelope,
    batch?: InboxBatch,
  ): Promise<'new' | 'duplicate' | 'stale'> {
    if (!(await registerOnce(this.store, delivery, event, batch))) return 'duplicate';
    if (delivery.policy.versionCheck !== 'off') {
      const check = await this.store.checkVersion(delivery.consumer, event);
      if (check.kind === 'stale') return 'stale';
      if (check.kind === 'gap') {
        this.metrics.versionGaps.inc(labelsOf(delivery));
        this.logger.warn(
          logLine('aggregate version gap', {
            ...deliveryFields(delivery, event),
            last: check.last,
            stage: 'version',
          }),
        );
        if (delivery.policy.versionCheck === 'hold') {
          throw new InboxVersionGapError(event.aggregateId, check.last + 1, event.aggregateVersion);
        }
      }
    }
    return 'new';
  }

  private count(outcome: AttemptOutcome, labels: Labels): void {
    this.metrics.settled(outcome, labels);
  }
}

function labelsOf(delivery: InboxDelivery): Labels {
  return { consumer: delivery.consumer, topic: delivery.position.topic };
}
