import { Inject, Injectable, Logger } from '@nestjs/common';
import { NestOutboxError, type EventEnvelope } from '@nest-outbox/core';
import { backoffDelayMs, isDatabaseUnavailable, logLine } from '@nest-outbox/core/internal';
import { InboxPermanentError } from '../errors/inbox-permanent.error';
import { InboxRetryAbandoned } from '../errors/inbox-retry-abandoned.error';
import { INBOX_OPTIONS } from '../inbox.constants';
import { InboxMetrics } from '../metrics/inbox.metrics';
import type { ResolvedInboxOptions } from '../options/inbox-options.resolver';
import { deliveryFields } from '../chunk/delivery-log';
import type { InboxDelivery } from '../chunk/inbox-delivery';
import type { InboxOutcome } from '../chunk/inbox-outcome';
import { ExhaustedEventSettler } from './exhausted-event.settler';
import { describeFailure } from './failure-summary';
import { waitWithHeartbeat } from './heartbeat-wait';

/**
 * After a failed attempt: count and log, then retry after a backoff (heartbeating, giving up on
 * revoke) or apply the exhausted policy. PostgreSQL being unavailable is not the event's fault:
 * retried uncounted, never dead-lettered or paused for. @internal
 */
@Injectable()
export class HandlerFailures {
  private readonly logger = new Logger('InboxModule');

  constructor(
    @Inject(InboxMetrics) private readonly metrics: InboxMetrics,
    @Inject(ExhaustedEventSettler) private readonly exhausted: ExhaustedEventSettler,
    @Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions,
  ) {}

  /**
   * 'retry' once the backoff has passed ('retry-uncounted': the attempt does not count), or
   * the final outcome of the event.
   */
  async afterFailure(
    delivery: InboxDelivery,
    event: EventEnvelope,
    attempt: number,
    error: unknown,
  ): Promise<'retry' | 'retry-uncounted' | InboxOutcome> {
    const { policy } = delivery;
    const labels = { consumer: delivery.consumer, topic: delivery.position.topic };
    this.metrics.failed.inc(labels);
    const permanent = error instanceof InboxPermanentError || this.options.isPermanentError(error);
    const unavailable = !permanent && isDatabaseUnavailable(error);
    this.metrics.applyFailed(labels, error, permanent);
    const summary = describeFailure(error);
    this.logger.warn(
      logLine('handler failed', {
        ...deliveryFields(delivery, event),
        attempt,
        max_attempts: policy.maxAttempts,
        stage: 'handle',
        permanent,
        // A database outage is not the event's fault: retried, the attempt not counted.
        database_unavailable: unavailable,
        error,
        // The library's own errors say what is wrong without values; others only by class.
        reason: error instanceof NestOutboxError ? summary : undefined,
      }),
    );
    if (!unavailable && (permanent || attempt >= policy.maxAttempts))
      return this.exhausted.settle(delivery, event, attempt, summary);
    // An outage backs off at the delay of the last counted attempt (as the relay does).
    const delay = backoffDelayMs(unavailable ? policy.maxAttempts : attempt, {
      baseMs: policy.baseDelayMs,
      capMs: policy.maxDelayMs,
    });
    await this.heartbeat(delivery);
    await waitWithHeartbeat(delay, () => this.heartbeat(delivery));
    return unavailable ? 'retry-uncounted' : 'retry';
  }

  private async heartbeat(delivery: InboxDelivery): Promise<void> {
    await delivery.context.getHeartbeat()();
    if (delivery.tracker && !delivery.session.isAssigned(delivery.tracker)) {
      throw new InboxRetryAbandoned(
        `retry of event ${delivery.envelope?.eventId ?? '-'} abandoned: partition ${delivery.position.topic}/${delivery.position.partition} revoked or consumer stopping`,
      );
    }
  }
}
