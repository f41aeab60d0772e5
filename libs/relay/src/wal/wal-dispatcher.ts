import type { Logger } from '@nestjs/common';
import { backoffDelayMs, logLine } from '@nest-outbox/core/internal';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClaimedRow } from '../claim/claimed-batch';
import { describeError } from '../errors/error-classifier';
import { publishFailureReason } from '../errors/failure-reason';
import type { RelayMetrics } from '../metrics/relay.metrics';
import type { ResolvedRelayOptions } from '../options/relay-options.resolver';
import { classifyFailure, decideFailure, isOneEventsFault } from '../outcome/failure.policy';
import { byAggregate, chunkByBytes, planBatch, type PlannedItem } from '../publish/batch-plan';
import { TimedPublish } from '../publish/timed-publish';
import type { PublishAck, RelayPublisher } from '../publisher/relay-publisher.interface';

/** An aggregate's key in the sets of held aggregates. @internal */
export const aggregateOf = (row: Pick<ClaimedRow, 'aggregateType' | 'aggregateId'>) =>
  `${row.aggregateType}\u0000${row.aggregateId}`;

/** Why an event was parked, as the outbox row keeps it. @internal */
export interface ParkEntry {
  readonly attempt: number;
  readonly kind: string;
  readonly error: string;
}

/** Where the outcome of each event goes: the WAL stream's, or the released rows'. @internal */
export interface DispatchSink {
  /** True while events of `aggregate` wait behind an event set aside. */
  isHeld(aggregate: string): boolean;
  acked(items: readonly PlannedItem[], acks: readonly PublishAck[]): void;
  /** The event is parked: its aggregate is held from now on. */
  parked(row: ClaimedRow, entry: ParkEntry): void;
  /** Events held behind a parked event of their aggregate, in order. */
  holding(rows: readonly ClaimedRow[]): void;
}

/**
 * Publishes events in order, through the relay's publisher port, until each is acknowledged,
 * parked or held: transient failures back off and retry; a permanent failure (or one that
 * exhausts its attempts while the broker takes other sends) is isolated, by aggregate then
 * event, and parks that event alone; the later events of its aggregate are held.
 * @internal
 */
export class WalDispatcher {
  private readonly timed: TimedPublish;
  /** Records acknowledged so far (an exhausted event parks only when others got through). */
  private ackCount = 0;

  constructor(
    private readonly options: ResolvedRelayOptions,
    publisher: RelayPublisher,
    private readonly metrics: RelayMetrics,
    private readonly logger: Logger,
  ) {
    this.timed = new TimedPublish(publisher, options, metrics);
  }

  /** Settles every row; rejects only when `signal` aborts (nothing is then settled for sure). */
  async dispatch(rows: readonly ClaimedRow[], sink: DispatchSink, signal: AbortSignal) {
    const free: ClaimedRow[] = [];
    for (const row of rows)
      if (sink.isHeld(aggregateOf(row))) sink.holding([row]);
      else free.push(row);
    const plan = planBatch(free, this.options.router);
    for (const chunk of chunkByBytes(plan.clean, this.options.maxRequestBytes))
      await this.settle(chunk, sink, signal);
    for (const { run, topic, error } of plan.refused) {
      const [head, ...rest] = run;
      if (sink.isHeld(aggregateOf(head!))) sink.holding(run);
      else {
        this.park(sink, head!, topic, error, { attempt: 1, reason: 'permanent' });
        sink.holding(rest);
      }
    }
  }

  /** One request's events, retried until acknowledged, or split to isolate a faulty one. */
  private async settle(
    items: readonly PlannedItem[],
    sink: DispatchSink,
    signal: AbortSignal,
  ): Promise<void> {
    const sendable = items.filter((i) => !sink.isHeld(aggregateOf(i.row)));
    const waiting = items.filter((i) => sink.isHeld(aggregateOf(i.row)));
    if (waiting.length > 0) sink.holding(waiting.map((i) => i.row));
    if (sendable.length === 0) return;
    const head = sendable[0]!;
    const acksBefore = this.ackCount;
    for (let failures = 0; ; ) {
      let error: unknown;
      try {
        const acks = await this.timed.send(sendable, signal);
        this.ackCount += acks.length;
        sink.acked(sendable, acks);
        this.observe(sendable);
        return;
      } catch (e) {
        error = e;
      }
      signal.throwIfAborted();
      const kind = classifyFailure(
        error,
        head.row,
        head.record.topic,
        this.options.raw.tuning?.classifyError,
      );
      this.metrics.failures.inc({ kind, reason: publishFailureReason(error) });
      if (kind !== 'throttled') failures += 1;
      const isolate = isOneEventsFault(error, kind) || failures >= this.options.maxAttempts;
      if (sendable.length > 1 && isolate) {
        const groups = byAggregate(sendable);
        for (const unit of groups.length > 1 ? groups : sendable.map((i) => [i]))
          await this.settle(unit, sink, signal);
        return;
      }
      const others = this.ackCount > acksBefore;
      const decision =
        sendable.length === 1
          ? decideFailure(head.row.attempts + failures - 1, kind, this.options, undefined, others)
          : undefined;
      if (decision?.action === 'park') {
        this.park(sink, head.row, head.record.topic, error, decision);
        return;
      }
      const delayMs = decision?.delayMs ?? backoffDelayMs(failures, this.options.backoff);
      this.metrics.retried.inc({ kind });
      this.logger.warn(logLine('retry scheduled', { ...this.fields(head.row), kind, error }));
      await sleep(delayMs, undefined, { signal });
    }
  }

  private park(
    sink: DispatchSink,
    row: ClaimedRow,
    topic: string,
    error: unknown,
    decision: { readonly attempt: number; readonly reason: 'permanent' | 'exhausted' },
  ): void {
    sink.parked(row, {
      attempt: decision.attempt,
      kind: decision.reason,
      error: describeError(error),
    });
    this.metrics.parked.inc({ kind: decision.reason });
    const reason = publishFailureReason(error);
    this.logger.error(logLine('parked', { ...this.fields(row), topic, reason, error }));
  }

  private observe(items: readonly PlannedItem[]): void {
    const now = Date.now();
    this.metrics.published.inc(items.length);
    for (const { row } of items) {
      const delaySeconds = (now - row.createdAtMs) / 1000;
      if (Number.isFinite(delaySeconds)) this.metrics.delaySeconds.observe(delaySeconds);
    }
  }

  private fields(row: ClaimedRow) {
    return { event_id: row.eventId, aggregate_id: row.aggregateId, type: row.eventType };
  }
}
