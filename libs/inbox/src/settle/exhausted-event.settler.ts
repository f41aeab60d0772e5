import { Inject, Injectable, Logger } from '@nestjs/common';
import { type EventEnvelope } from '@nest-outbox/core';
import { logLine } from '@nest-outbox/core/internal';
import type { InboxOutcome } from '../chunk/inbox-outcome';
import { deliveryFields } from '../chunk/delivery-log';
import type { InboxDelivery } from '../chunk/inbox-delivery';
import { DeadLetterSink } from './dead-letter.sink';

/**
 * Applies the exhausted policy to an event that failed for good: dead-letter it or pause its partition. @internal
 */
@Injectable()
export class ExhaustedEventSettler {
  private readonly logger = new Logger('InboxModule');

  constructor(@Inject(DeadLetterSink) private readonly deadLetters: DeadLetterSink) {}

  async settle(
    delivery: InboxDelivery,
    event: EventEnvelope,
    attempts: number,
    summary: string,
  ): Promise<Extract<InboxOutcome, 'dead-lettered' | 'paused'>> {
    const reason = `handler failed after ${attempts} attempt(s): ${summary}`;
    if (delivery.policy.onExhausted === 'pause') {
      delivery.session.pausePoisoned({
        ...delivery.position,
        consumer: delivery.consumer,
        eventId: event.eventId,
        reason,
        since: new Date(),
      });
      this.logger.error(
        logLine('partition paused by a poison event', {
          ...deliveryFields(delivery, event),
          attempt: attempts,
          stage: 'pause',
          reason: summary,
        }),
      );
      return 'paused';
    }
    const recorded = await this.deadLetters.record(delivery, 'handler_failed', reason, attempts);
    // Unrecorded: the sink's last-resort line already says where the record was.
    if (recorded !== 'unrecorded')
      this.logger.error(
        logLine('event dead-lettered', {
          ...deliveryFields(delivery, event),
          attempt: attempts,
          stage: 'dead-letter',
          reason: summary,
        }),
      );
    return 'dead-lettered';
  }
}
