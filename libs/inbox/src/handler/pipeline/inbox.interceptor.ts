import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import type { EventEnvelope } from '@nest-outbox/core';
import { defer, lastValueFrom, type Observable } from 'rxjs';
import type { PartitionOffsetTracker } from '../../consumer/partition-offset.tracker';
import { InboxMisuseError } from '../../errors/inbox-misuse.error';
import { currentInboxBatch, type InboxBatch } from '../../transport/inbox-batch.context';
import { RejectedRecordSettler } from '../failure/rejected-record.settler';
import { deliveryOf, type ChunkDelivery, type InboxDelivery } from './inbox-delivery';
import { InboxExecutor } from './inbox.executor';
import { kafkaContextOf } from './kafka-context';
import { traceInboxChunk, traceInboxHandler } from '../../tracing/inbox-trace';

/**
 * Settles every record the guard classified, and tracks its offset: a refused record is
 * recorded and skipped; an accepted one runs its handler through the inbox (see
 * `InboxExecutor`). The record's final result makes `offset + 1` committable, after the
 * PostgreSQL commit and never past an earlier offset without a final result. The handler's
 * return value is ignored.
 * @internal
 */
@Injectable()
export class InboxInterceptor implements NestInterceptor {
  constructor(
    @Inject(InboxExecutor) private readonly executor: InboxExecutor,
    @Inject(RejectedRecordSettler) private readonly rejected: RejectedRecordSettler,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const delivery = deliveryOf(kafkaContextOf(context));
    if (!delivery)
      throw new InboxMisuseError(
        'InboxInterceptor applied without @InboxHandler; use @InboxHandler(consumer) instead',
      );
    // next.handle() is called inside the transaction so the handler runs in its CLS context.
    const handle = () => lastValueFrom(next.handle(), { defaultValue: undefined });
    return defer(async () => {
      const event = delivery.envelope;
      const batch = currentInboxBatch();
      if (delivery.chunk && batch) await this.settleChunk(batch, delivery, delivery.chunk, handle);
      else if (delivery.rejection) await this.rejected.settle(delivery, delivery.rejection);
      else if (event) await this.settleAccepted(delivery, event, handle);
      return undefined;
    });
  }

  private async settleAccepted(
    delivery: InboxDelivery,
    event: EventEnvelope,
    untraced: () => Promise<unknown>,
  ): Promise<void> {
    // Each attempt runs in a span continuing the producing trace (a no-op without OpenTelemetry).
    const handle = () => traceInboxHandler(delivery, event, untraced);
    const { session, position, offset } = delivery;
    const tracker = session.begin(position.topic, position.partition, offset);
    const batch = currentInboxBatch();
    if (batch) return this.settleInBatch(batch, { ...delivery, tracker }, event, handle);
    let final = false;
    try {
      final = (await this.executor.run({ ...delivery, tracker }, event, handle)) !== 'paused';
    } finally {
      if (final) session.finish(tracker, offset);
      else tracker.abandon(offset);
    }
  }

  /** InboxKafkaServer: the offset becomes committable when the batch's transaction commits. */
  private async settleInBatch(
    batch: InboxBatch,
    delivery: InboxDelivery & { tracker: NonNullable<InboxDelivery['tracker']> },
    event: EventEnvelope,
    handle: () => Promise<unknown>,
  ): Promise<void> {
    const { session, tracker, offset } = delivery;
    batch.onCommit(() => session.finish(tracker, offset));
    batch.onRollback(() => tracker.abandon(offset));
    if (batch.aborted === undefined) await this.executor.runBatched(batch, delivery, event, handle);
  }

  /**
   * InboxKafkaServer handed a whole chunk to an `@InboxBatchHandler`: refused records are
   * settled one by one, accepted ones begin their offsets in order, and the handler runs once
   * with the new events; every offset becomes committable when the batch's transaction commits.
   */
  private async settleChunk(
    batch: InboxBatch,
    delivery: InboxDelivery,
    chunk: ChunkDelivery,
    untraced: () => Promise<unknown>,
  ): Promise<void> {
    const { session } = delivery;
    const accepted: { delivery: InboxDelivery; event: EventEnvelope }[] = [];
    // The accepted offsets, by tracker (one, unless the assignment changed mid-chunk).
    const begun = new Map<PartitionOffsetTracker, bigint[]>();
    batch.onCommit(() => {
      for (const [tracker, offsets] of begun) session.finishAll(tracker, offsets);
    });
    batch.onRollback(() => {
      for (const [tracker, offsets] of begun) for (const offset of offsets) tracker.abandon(offset);
    });
    for (const entry of chunk.entries) {
      if (entry.rejection)
        await this.rejected.settle({ ...delivery, ...entry, chunk: undefined }, entry.rejection);
      else if (entry.envelope) {
        const { topic, partition } = entry.position;
        const tracker = session.begin(topic, partition, entry.offset);
        const offsets = begun.get(tracker);
        if (offsets) offsets.push(entry.offset);
        else begun.set(tracker, [entry.offset]);
        accepted.push({
          delivery: { ...delivery, ...entry, chunk: undefined, tracker },
          event: entry.envelope,
        });
      }
      if (batch.aborted !== undefined) return;
    }
    const handle = () => traceInboxChunk(delivery, chunk.fresh, untraced);
    await this.executor.runChunk(batch, delivery, accepted, chunk.fresh, handle);
  }
}
