import { Inject, Injectable } from '@nestjs/common';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { BatchLedger } from '../outcome/batch-ledger';
import { BrokerAckWatch, sendPlace } from '../outcome/broker-ack.watch';
import { emptyOutcome, type BatchOutcome } from '../outcome/batch-outcome';
import { classifyFailure, isOneEventsFault } from '../outcome/failure.policy';
import { OutcomeRecorder } from '../outcome/outcome.recorder';
import type { RelayPublisher } from '../publisher/relay-publisher.interface';
import { RELAY_METRICS, RELAY_OPTIONS, RELAY_PUBLISHER } from '../relay.constants';
import { RelayStore } from '../store/relay.store';
import type { ClaimedBatch } from '../claim/claimed-batch';
import { byAggregate, chunkByBytes, planBatch, type PlannedItem } from './batch-plan';
import { SendGate } from './send-gate';
import { TimedPublish } from './timed-publish';

/** How one send attempt ended: acknowledged, handed back unsent, or failed with `error`. */
type Sent = 'acked' | 'released' | { readonly error: unknown };
const rowsOf = (items: readonly PlannedItem[]) => items.map((i) => i.row);

/**
 * Publishes one claimed batch and records its outcome: marks acknowledged rows (fenced by
 * the lease), backs off or parks the head of each failed aggregate, releases the rest.
 * No transaction is open while Kafka is called.
 * @internal
 */
@Injectable()
export class BatchProcessor {
  private readonly gate = new SendGate();
  private readonly acks = new BrokerAckWatch();
  private readonly timed: TimedPublish;

  constructor(
    @Inject(RELAY_OPTIONS) private readonly options: ResolvedRelayOptions,
    @Inject(RELAY_PUBLISHER) private readonly publisher: RelayPublisher,
    private readonly store: RelayStore,
    private readonly recorder: OutcomeRecorder,
    @Inject(RELAY_METRICS) metrics: RelayMetrics,
  ) {
    this.timed = new TimedPublish(publisher, options, metrics);
  }

  /**
   * Publishes one batch and records its outcome. Sends take turns on the send gate, in claim
   * order; one batch's marks run while the next is sent. Batches in flight together never share
   * an aggregate, since a claim only takes aggregates whose head is free.
   * @param stopping true once the relay stops claiming: a batch not yet sending is released
   */
  async process(
    batch: ClaimedBatch,
    shutdown: AbortSignal,
    stopping: () => boolean = () => false,
  ): Promise<BatchOutcome> {
    const plan = planBatch(batch.rows, this.options.router);
    const ledger = new BatchLedger(this.options);
    for (const { run, topic, error } of plan.refused) ledger.fail(run, topic, error, 'permanent');
    const stopped = await this.gate.run(async () => {
      if (!stopping() && !shutdown.aborted) {
        await this.sendClean(batch, plan.clean, shutdown, ledger);
        return false;
      }
      for (const items of [...plan.clean, ...plan.suspects]) ledger.release(rowsOf(items));
      return true;
    });
    const outcome = emptyOutcome();
    await this.recorder.record(batch, ledger.take(), outcome);
    if (stopped || plan.suspects.length === 0) return outcome;
    await this.gate.run(async () => {
      for (const items of plan.suspects) await this.sendSuspect(batch, items, shutdown, outcome);
    });
    return outcome;
  }

  /** Clean aggregates go together, in requests of bounded size; a failure stops the rest. */
  private async sendClean(
    batch: ClaimedBatch,
    groups: readonly PlannedItem[][],
    shutdown: AbortSignal,
    ledger: BatchLedger,
  ): Promise<void> {
    const chunks = chunkByBytes(groups, this.options.maxRequestBytes);
    for (const [i, chunk] of chunks.entries()) {
      const sent = await this.sendOrRelease(batch, chunk, shutdown, ledger);
      if (sent === 'acked') continue;
      if (sent !== 'released') {
        if (shutdown.aborted) ledger.release(rowsOf(chunk));
        else await this.isolate(batch, chunk, sent.error, shutdown, ledger);
      }
      ledger.release(rowsOf(chunks.slice(i + 1).flat()));
      return;
    }
  }

  /**
   * A failed request. A transient error fails every aggregate's head. A permanent one (or a
   * TypeError or RangeError from building the request) is one event's fault: each aggregate is
   * retried alone, then a failing run row by row, so the culprit alone carries the failure.
   */
  private async isolate(
    batch: ClaimedBatch,
    chunk: readonly PlannedItem[],
    error: unknown,
    shutdown: AbortSignal,
    ledger: BatchLedger,
  ): Promise<void> {
    const groups = byAggregate(chunk);
    if (!this.oneEventsFault(error, chunk[0]!)) {
      for (const items of groups) this.fail(ledger, items, error);
      return;
    }
    for (const items of groups) {
      const sent: Sent =
        groups.length === 1 ? { error } : await this.sendOrRelease(batch, items, shutdown, ledger);
      if (typeof sent === 'object')
        await this.isolateRun(batch, items, sent.error, shutdown, ledger);
    }
  }

  /** One aggregate's run whose request failed: row by row, up to the row that fails. */
  private async isolateRun(
    batch: ClaimedBatch,
    items: readonly PlannedItem[],
    error: unknown,
    shutdown: AbortSignal,
    ledger: BatchLedger,
  ): Promise<void> {
    if (items.length === 1 || !this.oneEventsFault(error, items[0]!)) {
      this.fail(ledger, items, error);
      return;
    }
    for (const [i, item] of items.entries()) {
      const sent = await this.sendOrRelease(batch, [item], shutdown, ledger);
      if (sent === 'acked') continue;
      if (sent === 'released') ledger.release(rowsOf(items.slice(i + 1)));
      else this.fail(ledger, items.slice(i), sent.error);
      return;
    }
  }

  /** Suspects (an earlier publish started and never finished) go alone, one row at a time. */
  private async sendSuspect(
    batch: ClaimedBatch,
    items: readonly PlannedItem[],
    shutdown: AbortSignal,
    outcome: BatchOutcome,
  ): Promise<void> {
    const ledger = new BatchLedger(this.options);
    for (const [i, item] of items.entries()) {
      const { row } = item;
      const later = rowsOf(items.slice(i + 1));
      if (shutdown.aborted || !this.leaseLeft(batch)) {
        ledger.release([row, ...later]);
        break;
      }
      if (row.suspect && !(await this.store.start(batch.leaseToken, row.id))) {
        ledger.release(later); // lease lost before the start: someone else has the rest
        break;
      }
      const failed = await this.trySend([item], shutdown, ledger);
      if (!failed) {
        // Marked one by one: an event that kills the relay must not take its neighbours with it.
        await this.recorder.record(batch, ledger.take(), outcome);
        continue;
      }
      if (shutdown.aborted) ledger.release([row], true);
      else this.fail(ledger, [item], failed.error);
      ledger.release(later);
      break;
    }
    await this.recorder.record(batch, ledger.take(), outcome);
  }

  /**
   * Sends `items` unless the lease has less left than a publish may take or the relay is
   * shutting down: then they are handed back unsent.
   */
  private async sendOrRelease(
    batch: ClaimedBatch,
    items: readonly PlannedItem[],
    shutdown: AbortSignal,
    ledger: BatchLedger,
  ): Promise<Sent> {
    if (shutdown.aborted || !this.leaseLeft(batch)) {
      ledger.release(rowsOf(items));
      return 'released';
    }
    return (await this.trySend(items, shutdown, ledger)) ?? 'acked';
  }

  /** Sends `items` and enters their acks; the error when the publish failed. */
  private async trySend(
    items: readonly PlannedItem[],
    shutdown: AbortSignal,
    ledger: BatchLedger,
  ): Promise<{ readonly error: unknown } | undefined> {
    try {
      const acks = await this.timed.send(items, shutdown);
      ledger.ack(rowsOf(items), acks);
      this.acks.acked(items, acks);
      return undefined;
    } catch (error) {
      return { error };
    }
  }

  private leaseLeft(batch: ClaimedBatch): boolean {
    return batch.leaseDeadline - Date.now() > this.options.publishTimeoutMs;
  }

  /** Whether a failed request's error may be one event's fault (then it is isolated). */
  private oneEventsFault(error: unknown, item: PlannedItem): boolean {
    return isOneEventsFault(error, this.kindOf(error, item));
  }

  private kindOf(error: unknown, { row, record }: PlannedItem) {
    return classifyFailure(error, row, record.topic, this.options.raw.tuning?.classifyError);
  }

  private fail(ledger: BatchLedger, items: readonly PlannedItem[], error: unknown): void {
    const head = items[0]!;
    const acking = this.acks.failed(head.row.eventId, sendPlace(this.publisher, head.record));
    ledger.fail(rowsOf(items), head.record.topic, error, this.kindOf(error, head), acking);
  }
}
