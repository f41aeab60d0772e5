import { Inject, Injectable, Logger } from '@nestjs/common';
import { NestOutboxError, type EventEnvelope } from '@nest-outbox/core';
import {
  backoffDelayMs,
  errorLabel,
  isDatabaseUnavailable,
  logLine,
} from '@nest-outbox/core/internal';
import { deliveryFields, heartbeatOf, type InboxDelivery, type InboxOutcome } from '../chunk/chunk';
import { InboxHandlerSkippedError } from '../errors/inbox-handler-skipped.error';
import { InboxPermanentError } from '../errors/inbox-permanent.error';
import { InboxRetryAbandoned } from '../errors/inbox-retry-abandoned.error';
import { INBOX_OPTIONS } from '../inbox.constants';
import { InboxMetrics } from '../metrics/inbox.metrics';
import type { ResolvedInboxOptions } from '../options/inbox-options.resolver';
import { DeadLetterSink } from './dead-letter.sink';

/**
 * After a failed attempt: count and log, then retry after a backoff (heartbeating, giving up on
 * revoke) or apply the exhausted policy (dead-letter the event or pause its partition).
 * PostgreSQL being unavailable is not the event's fault: retried uncounted, never dead-lettered
 * or paused for. @internal
 */
@Injectable()
export class HandlerFailures {
  private readonly logger = new Logger('InboxModule');

  constructor(
    @Inject(InboxMetrics) private readonly metrics: InboxMetrics,
    @Inject(DeadLetterSink) private readonly deadLetters: DeadLetterSink,
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
        database_unavailable: unavailable,
        error,
        // The library's own errors say what is wrong without values; others only by class.
        reason: error instanceof NestOutboxError ? summary : undefined,
      }),
    );
    if (!unavailable && (permanent || attempt >= policy.maxAttempts))
      return this.exhausted(delivery, event, attempt, summary);
    // An outage backs off at the delay of the last counted attempt (as the relay does).
    const delay = backoffDelayMs(unavailable ? policy.maxAttempts : attempt, {
      baseMs: policy.baseDelayMs,
      capMs: policy.maxDelayMs,
    });
    await this.heartbeat(delivery);
    await waitWithHeartbeat(delay, () => this.heartbeat(delivery));
    return unavailable ? 'retry-uncounted' : 'retry';
  }

  /** The exhausted policy: dead-letter the event, or pause its partition at it. */
  private async exhausted(
    delivery: InboxDelivery,
    event: EventEnvelope,
    attempts: number,
    summary: string,
  ): Promise<'dead-lettered' | 'paused'> {
    const reason = `handler failed after ${attempts} attempt(s): ${summary}`;
    const fields = { ...deliveryFields(delivery, event), attempt: attempts };
    if (delivery.policy.onExhausted === 'pause') {
      const { consumer, position } = delivery;
      const since = new Date();
      delivery.session.pausePoisoned({
        ...position,
        consumer,
        eventId: event.eventId,
        reason,
        since,
      });
      const line = { ...fields, stage: 'pause', reason: summary };
      this.logger.error(logLine('partition paused by a poison event', line));
      return 'paused';
    }
    const recorded = await this.deadLetters.record(delivery, 'handler_failed', reason, attempts);
    // Unrecorded: the sink's last-resort line already says where the record was.
    if (recorded !== 'unrecorded')
      this.logger.error(
        logLine('event dead-lettered', { ...fields, stage: 'dead-letter', reason: summary }),
      );
    return 'dead-lettered';
  }

  private async heartbeat(delivery: InboxDelivery): Promise<void> {
    await heartbeatOf(delivery);
    if (delivery.tracker && !delivery.session.isAssigned(delivery.tracker)) {
      throw new InboxRetryAbandoned(
        `retry of event ${delivery.envelope?.eventId ?? '-'} abandoned: partition ${delivery.position.topic}/${delivery.position.partition} revoked or consumer stopping`,
      );
    }
  }
}

/**
 * A handler error as its class and code only (`QueryFailedError 22P02`): messages echo the
 * values refused; the inbox's own errors keep their (value-free) message. @internal
 */
export function describeFailure(error: unknown): string {
  const users =
    error instanceof InboxPermanentError && !(error instanceof InboxHandlerSkippedError);
  if (error instanceof NestOutboxError && !users)
    return `${error.name}: ${error.message}`.slice(0, 500);
  return errorLabel(error);
}

/** Waits `ms` in slices of `sliceMs`, calling `between()` (which throws to stop) after each. @internal */
export async function waitWithHeartbeat(
  ms: number,
  between: () => Promise<void>,
  sliceMs = 1000,
): Promise<void> {
  for (let left = ms; left > 0; left -= sliceMs) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, sliceMs)));
    await between();
  }
}
