import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import type { EventEnvelope } from '@nest-outbox/core';
import { defer, lastValueFrom, type Observable } from 'rxjs';
import { ChunkOffsets } from '../../chunk/chunk-offsets';
import { InboxMisuseError } from '../../errors/inbox-misuse.error';
import { currentInboxBatch, type InboxBatch } from '../../chunk/inbox-batch.context';
import { RejectedRecordSettler } from '../failure/rejected-record.settler';
import {
  deliveryOf,
  entryDelivery,
  type AcceptedEntry,
  type ChunkDelivery,
  type InboxDelivery,
} from '../delivery/inbox-delivery';
import { InboxExecutor } from './inbox.executor';
import { kafkaContextOf } from './kafka-context';
import { traceInboxChunk, traceInboxHandler } from '../../tracing/inbox-trace';

/**
 * Settles every record the guard classified and tracks its offset: `offset + 1` becomes
 * committable after the commit, never past an earlier unfinished offset. @internal
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
    const handle = () => traceInboxHandler(delivery, event, untraced);
    const { session, position, offset } = delivery;
    const batch = currentInboxBatch();
    if (batch) {
      // InboxKafkaServer: the offset becomes committable when the batch's transaction commits.
      const offsets = ChunkOffsets.of(batch, session);
      const tracker = offsets.begin(position.topic, position.partition, offset);
      if (batch.aborted === undefined)
        await this.executor.runBatched(batch, { ...delivery, tracker }, event, handle);
      return;
    }
    const tracker = session.begin(position.topic, position.partition, offset);
    let final = false;
    try {
      final = (await this.executor.run({ ...delivery, tracker }, event, handle)) !== 'paused';
    } finally {
      if (final) session.finish(tracker, offset);
      else tracker.abandon(offset);
    }
  }

  /**
   * A chunk call: refused records settle one by one, the handler runs once with the new events,
   * and every offset becomes committable when the batch commits.
   */
  private async settleChunk(
    batch: InboxBatch,
    delivery: InboxDelivery,
    chunk: ChunkDelivery,
    untraced: () => Promise<unknown>,
  ): Promise<void> {
    const accepted: AcceptedEntry[] = [];
    const offsets = ChunkOffsets.of(batch, delivery.session);
    for (const entry of chunk.entries) {
      if (entry.rejection)
        await this.rejected.settle(entryDelivery(delivery, entry), entry.rejection);
      else if (entry.envelope) {
        const { topic, partition } = entry.position;
        offsets.begin(topic, partition, entry.offset);
        accepted.push({ entry, event: entry.envelope });
      }
      if (batch.aborted !== undefined) return;
    }
    const handle = () => traceInboxChunk(delivery, chunk.fresh, untraced);
    await this.executor.runChunk(batch, delivery, accepted, chunk.fresh, handle);
  }
}
