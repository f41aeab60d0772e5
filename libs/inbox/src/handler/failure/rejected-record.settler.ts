import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_HEADERS, logText } from '@nest-outbox/core';
import { currentInboxBatch } from '../../transport/inbox-batch.context';
import type { InboxDelivery, Rejection } from '../pipeline/inbox-delivery';
import { DeadLetterSink } from './dead-letter.sink';

/**
 * Settles a record the guard refused: records it with its reason (rejected-messages table,
 * dead-letter topic if configured; see `DeadLetterSink` for what happens when even that is
 * refused), logs it without payload (outside strings escaped), and makes its offset
 * committable (at the chunk's commit inside an `InboxKafkaServer` batch). Inside a batch a
 * failed write aborts the chunk, which is replayed record by record (where the fallbacks
 * apply); outside, only an infrastructure error is thrown (the record is redelivered).
 * @internal
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
    this.logger.warn(
      `rejected record consumer=${delivery.consumer} topic=${position.topic} partition=${position.partition} ` +
        `offset=${position.offset} event_id=${logText(headers[EVENT_HEADERS.eventId], 64)} ` +
        `type=${logText(headers[EVENT_HEADERS.eventType], 100)} ` +
        `reason=${rejection.code}: ${logText(rejection.reason, 500)} stage=guard`,
    );
    if (batch) batch.onCommit(() => session.finish(tracker, offset));
    else session.finish(tracker, offset);
  }
}
