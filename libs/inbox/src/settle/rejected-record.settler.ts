import { Inject, Injectable, Logger } from '@nestjs/common';
import { EVENT_HEADERS } from '@nest-outbox/core';
import { isUuid, logLine } from '@nest-outbox/core/internal';
import type { Rejection } from '../chunk/chunk';
import type { InboxDelivery } from '../chunk/inbox-delivery';
import { DeadLetterSink } from './dead-letter.sink';

/**
 * Settles a refused record: records it (see `DeadLetterSink`) and logs it without values. On
 * its own, its offset becomes committable once recorded; inside a chunk, the row is written in
 * the chunk's transaction and the returned function runs after its commit. @internal
 */
@Injectable()
export class RejectedRecordSettler {
  private readonly logger = new Logger('InboxModule');

  constructor(@Inject(DeadLetterSink) private readonly deadLetters: DeadLetterSink) {}

  /** A record on its own: only infrastructure errors are thrown (it is then redelivered). */
  async settle(delivery: InboxDelivery, rejection: Rejection): Promise<void> {
    const { session, position, offset } = delivery;
    const tracker = session.begin(position.topic, position.partition, offset);
    try {
      await this.deadLetters.record(delivery, rejection.code, rejection.reason, 0);
    } catch (error) {
      tracker.abandon(offset);
      throw error;
    }
    this.settled(delivery, rejection);
    session.finish(tracker, offset);
  }

  /** A record of a chunk: its row in the chunk's transaction; what to do once it commits. */
  async recordInChunk(delivery: InboxDelivery, rejection: Rejection): Promise<() => void> {
    const counted = await this.deadLetters.recordInChunk(
      delivery,
      rejection.code,
      rejection.reason,
    );
    return () => {
      counted();
      this.settled(delivery, rejection);
    };
  }

  private settled({ session, position, headers, consumer }: InboxDelivery, rejection: Rejection) {
    // Its headers are untrusted: only a valid event id is logged (the row keeps the rest).
    const eventId = headers[EVENT_HEADERS.eventId];
    this.logger.warn(
      logLine('rejected record', {
        consumer,
        topic: position.topic,
        partition: position.partition,
        offset: position.offset,
        event_id: eventId && isUuid(eventId) ? eventId : 'invalid',
        stage: 'decode',
        code: rejection.code,
        reason: rejection.reason,
      }),
    );
    if (rejection.code === 'undecodable_batch')
      session.noteUndecodable({ ...position, reason: rejection.reason, since: new Date() });
  }
}
