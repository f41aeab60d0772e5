import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_HEADERS, logLine } from '@nest-outbox/core';
import { currentInboxBatch } from '../../transport/inbox-batch.context';
import type { InboxDelivery, Rejection } from '../pipeline/inbox-delivery';
import { DeadLetterSink } from './dead-letter.sink';

/**
 * Settles a record the guard refused: records it with its reason (rejected-messages table,
 * dead-letter topic if configured), logs it without payload, and makes its offset
 * committable (at the chunk's commit inside an `InboxKafkaServer` batch).
 * @internal
 */
@Injectable()
export class RejectedRecordSettler {
  private readonly logger = new Logger('InboxModule');

  constructor(@Inject(DeadLetterSink) private readonly deadLetters: DeadLetterSink) {}

  async settle(delivery: InboxDelivery, rejection: Rejection): Promise<void> {
    const { session, position, offset, headers } = delivery;
    const tracker = session.begin(position.topic, position.partition, offset);
    try {
      await this.deadLetters.record(delivery, rejection.code, rejection.reason, 0);
    } catch (error) {
      tracker.abandon(offset);
      throw error;
    }
    this.logger.warn(
      logLine('rejected record', {
        consumer: delivery.consumer,
        topic: position.topic,
        partition: position.partition,
        offset: position.offset,
        event_id: headers[EVENT_HEADERS.eventId] ?? '-',
        type: headers[EVENT_HEADERS.eventType] ?? '-',
        stage: 'guard',
        code: rejection.code,
        reason: rejection.reason,
      }),
    );
    const batch = currentInboxBatch();
    if (batch) {
      batch.onCommit(() => session.finish(tracker, offset));
      batch.onRollback(() => tracker.abandon(offset));
    } else session.finish(tracker, offset);
  }
}
