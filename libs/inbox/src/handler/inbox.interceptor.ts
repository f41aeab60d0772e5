import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { defer, lastValueFrom, of, type Observable } from 'rxjs';
import { InboxMisuseError } from '../errors/inbox.errors';
import { deliveryOf } from './inbox-delivery';
import { InboxExecutor } from './inbox.executor';
import { kafkaContextOf } from './inbox.guard';
import { traceInboxHandler } from '../tracing/inbox-trace';

/**
 * Runs the handler of an accepted record through the inbox (see `InboxExecutor`) and
 * tracks its offset: the record's final result makes `offset + 1` committable, after the
 * PostgreSQL commit and never past an earlier offset without a final result. A record
 * the guard settled (rejected) skips the handler. The handler's return value is ignored.
 * @internal
 */
@Injectable()
export class InboxInterceptor implements NestInterceptor {
  constructor(@Inject(InboxExecutor) private readonly executor: InboxExecutor) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const delivery = deliveryOf(kafkaContextOf(context));
    if (!delivery)
      throw new InboxMisuseError(
        'InboxInterceptor applied without @InboxHandler; use @InboxHandler(consumer) instead',
      );
    const event = delivery.envelope;
    if (delivery.settled || !event) return of(undefined);
    // Each attempt runs in a span continuing the producing trace (a no-op without OpenTelemetry).
    const handle = () =>
      traceInboxHandler(delivery, event, () =>
        lastValueFrom(next.handle(), { defaultValue: undefined }),
      );
    return defer(async () => {
      const { session, position, offset } = delivery;
      const tracker = session.begin(position.topic, position.partition, offset);
      const batch = this.executor.batch();
      if (batch) {
        // InboxKafkaServer: the offset becomes committable when the batch's transaction commits.
        batch.onCommit(() => session.finish(tracker, offset));
        batch.onRollback(() => tracker.abandon(offset));
        if (batch.aborted === undefined) {
          await this.executor.runBatched(batch, { ...delivery, tracker }, event, handle);
        }
        return undefined;
      }
      let final = false;
      try {
        // next.handle() is called inside the transaction so the handler runs in its CLS context.
        const outcome = await this.executor.run({ ...delivery, tracker }, event, handle);
        final = outcome !== 'paused';
      } finally {
        if (final) session.finish(tracker, offset);
        else tracker.abandon(offset);
      }
      return undefined;
    });
  }
}
