import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_HEADERS } from '@nest-outbox/core';
import { isUuid, logLine } from '@nest-outbox/core/internal';
import { currentInboxBatch } from '../../chunk/inbox-batch.context';
import type { InboxDelivery, Rejection } from '../delivery/inbox-delivery';
import { DeadLetterSink } from './dead-letter.sink';

/**
 * Settles a record the guard refused: records it (see `DeadLetterSink`), logs it without
 * values, and makes its offset committable. Inside a batch a failed write aborts the chunk
 * (replayed record by record); outside, only infrastructure errors are thrown. @internal
 */
@Injectable()
export class RejectedRecordSettler {
  private readonly logger = new Logger('InboxModule');

  constructor(@Inject(DeadLetterSink) private readonly deadLetters: DeadLetterSink) {}

  async settle(delivery: InboxDelivery, rejection: Rejection): Promise<void> {
    const { session, position, offset, headers } = delivery;
    const tracker = session.begin(position.topic, position.partition, offset);
    const batch = currentInboxBatch();
    if (batch) batch.onRollback(() => tracker.abandon(offset));
    try {
      await this.deadLetters.record(delivery, rejection.code, rejection.reason, 0);
    } catch (error) {
      if (batch) return batch.abort(error);
      tracker.abandon(offset);
      throw error;
    }
    // Its headers are untrusted: only a valid event id is logged (the row keeps the rest).
    const eventId = headers[EVENT_HEADERS.eventId];
    const settled = () => {
      this.logger.warn(
        logLine('rejected record', {
          consumer: delivery.consumer,
          topic: position.topic,
          partition: position.partition,
          offset: position.offset,
          event_id: eventId && isUuid(eventId) ? eventId : 'invalid',
          stage: 'guard',
          code: rejection.code,
          reason: rejection.reason,
        }),
      );
      session.finish(tracker, offset);
      if (rejection.code === 'undecodable_batch')
        session.noteUndecodable({ ...position, reason: rejection.reason, since: new Date() });
    };
    if (batch) batch.onCommit(settled);
    else settled();
  }
}
