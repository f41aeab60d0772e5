import { Inject, Injectable, Logger } from '@nestjs/common';
import { isDatabaseUnavailable, logLine } from '@nest-outbox/core/internal';
import type { RelayMetrics } from '../metrics/relay.metrics';
import { RELAY_METRICS } from '../relay.constants';
import { RelayFigures } from '../store/relay-stats';
import { RelayStore } from '../store/relay.store';
import type { FailureUpdate } from '../store/relay.store';
import type { ClaimedBatch } from '../claim/claimed-batch';
import type { FailedEntry, LedgerEntries } from './batch-ledger';
import { emptyOutcome, type BatchOutcome } from './batch-outcome';
import { PendingMarks, type KeptMark, type PendingGroup } from './pending-marks';

function failureUpdate({ row, kind, decision, error }: FailedEntry): FailureUpdate {
  if (decision.action === 'retry') {
    const { counted, delayMs } = decision;
    return { id: row.id, counted, park: false, delayMs, kind, error };
  }
  const label =
    decision.reason === 'exhausted' ? `attempts exhausted (${decision.attempt})` : 'permanent';
  return { id: row.id, counted: true, park: true, delayMs: 0, kind: label, error };
}

/**
 * Records a batch's outcome: marks the acknowledged rows (refused marks are "lease lost"),
 * backs off or parks the failed heads, hands the rest back, and counts each in metrics and
 * logs. Marks that fail with the database unavailable are kept (bounded) until it answers.
 * @internal
 */
@Injectable()
export class OutcomeRecorder {
  private readonly logger = new Logger('RelayBatch');
  private readonly pending: PendingMarks;
  /** The group `flushPending` is marking (out of `pending`). */
  private flushing: PendingGroup | undefined;

  constructor(
    private readonly store: RelayStore,
    @Inject(RELAY_METRICS) private readonly metrics: RelayMetrics,
    private readonly stats: RelayFigures,
  ) {
    this.pending = new PendingMarks(metrics);
  }

  get pendingMarks(): number {
    return this.pending.size;
  }

  /** Marks the kept marks, oldest claim first; throws when the database still fails (they stay kept if it is an outage). */
  async flushPending(outcome = emptyOutcome()): Promise<BatchOutcome> {
    for (let group = this.pending.next(); group; group = this.pending.next()) {
      let notMarked: ReadonlySet<string>;
      try {
        this.flushing = group;
        notMarked = await this.store.mark(group.leaseToken, group.marks, true);
      } catch (error) {
        this.pending.putBack(group);
        if (!isDatabaseUnavailable(error)) this.pending.dropAll();
        throw error;
      } finally {
        this.flushing = undefined;
      }
      this.metrics.marksRecovered.inc(group.marks.length - notMarked.size);
      this.account(group.marks, notMarked, outcome);
    }
    return outcome;
  }

  /** `flushPending` until `deadline` (epoch ms), at shutdown: what is left is given up. */
  async flushPendingBy(deadline: number): Promise<BatchOutcome> {
    const outcome = emptyOutcome();
    if (this.pending.size === 0) return outcome;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>(
      (resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))),
    );
    await Promise.race([this.flushPending(outcome).catch(() => undefined), late]);
    clearTimeout(timer);
    // A mark still unanswered may yet commit: counted as given up all the same.
    const dropped = this.pending.dropAll(this.flushing?.marks.length);
    if (dropped > 0)
      this.logger.warn(logLine('kept marks given up at shutdown', { count: dropped }));
    return outcome;
  }

  async record(batch: ClaimedBatch, entries: LedgerEntries, outcome: BatchOutcome): Promise<void> {
    if (entries.acked.length > 0) await this.mark(batch, entries.acked, outcome);
    for (const failed of entries.failed) this.report(failed);
    await this.store.fail(batch.leaseToken, entries.failed.map(failureUpdate));
    outcome.failed += entries.failed.length;
    await this.store.release(batch.leaseToken, entries.released);
    outcome.released += entries.released.length;
    if (entries.released.length) this.metrics.released.inc(entries.released.length);
  }

  private async mark(
    batch: ClaimedBatch,
    acked: readonly KeptMark[],
    outcome: BatchOutcome,
  ): Promise<void> {
    const stopTimer = this.metrics.markSeconds.startTimer();
    let notMarked: ReadonlySet<string>;
    try {
      notMarked = await this.store.mark(batch.leaseToken, acked).finally(() => stopTimer());
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      // Acknowledged: marked when the database answers again, never published again for this.
      this.pending.keep(batch.leaseToken, acked);
      const fields = { count: acked.length, stage: 'mark', error };
      this.logger.warn(logLine('database unavailable: marks kept until it answers', fields));
      return;
    }
    this.account(acked, notMarked, outcome);
  }

  private account(
    acked: readonly KeptMark[],
    notMarked: ReadonlySet<string>,
    outcome: BatchOutcome,
  ): void {
    const marked = acked.length - notMarked.size;
    outcome.published += marked;
    this.metrics.published.inc(marked);
    this.stats.countPublished(marked);
    const lost = this.observeMarked(acked, notMarked);
    if (lost.length === 0) return;
    outcome.leaseLost += lost.length;
    this.metrics.leaseLost.inc(lost.length);
    this.metrics.publishedAgain.inc({ cause: 'lease_lost' }, lost.length);
    const ids = lost.slice(0, 10).map((a) => a.row.eventId);
    this.logger.warn(
      logLine('lease lost: published event(s) not marked (another relay may publish them again)', {
        count: lost.length,
        stage: 'mark',
        event_ids: ids.join(','),
      }),
    );
  }

  /** Returns the events whose lease was lost. */
  private observeMarked(acked: readonly KeptMark[], notMarked: ReadonlySet<string>): KeptMark[] {
    const now = Date.now();
    const lost: KeptMark[] = [];
    let again = 0;
    for (const a of acked) {
      if (notMarked.has(a.id)) {
        lost.push(a);
        continue;
      }
      // created_at may be infinite.
      const delaySeconds = (now - a.row.createdAtMs) / 1000;
      if (Number.isFinite(delaySeconds)) this.metrics.delaySeconds.observe(delaySeconds);
      this.metrics.attempts.observe(a.row.attempts + 1);
      if (a.row.suspect) again += 1;
    }
    // An earlier publish of a suspect started and never finished: it may have reached Kafka.
    if (again > 0) this.metrics.publishedAgain.inc({ cause: 'kill_after_ack' }, again);
    return lost;
  }

  private report({ row, topic, kind, decision, reason, cause }: FailedEntry): void {
    this.metrics.failures.inc({ kind, reason });
    const fields = {
      event_id: row.eventId,
      aggregate_id: row.aggregateId,
      type: row.eventType,
      attempt: decision.attempt,
      stage: 'publish',
      topic,
      kind,
      reason,
      error: cause,
    };
    if (decision.action === 'park') {
      this.logger.error(logLine('parked', fields));
      this.metrics.parked.inc({ kind: decision.reason });
    } else {
      this.logger.warn(logLine('retry scheduled', fields));
      this.metrics.retried.inc({ kind });
    }
  }
}
