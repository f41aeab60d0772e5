import { Inject, Injectable, Logger } from '@nestjs/common';
import { errorLabel, logLine } from '@nest-outbox/core/internal';
import { InboxMetrics } from '../metrics/inbox.metrics';
import type { RejectionCode } from '../envelope/envelope.decoder';
import { valueBytes } from '../envelope/envelope.decoder';
import { InboxStore, type RejectionRow } from '../store/inbox.store';
import type { InboxDelivery } from '../chunk/inbox-delivery';
import { waitWithHeartbeat } from './heartbeat-wait';
import { rejectionEvidence } from './rejection-evidence';
import { writeRejection, type RecordedAs } from './rejection-write';

/**
 * Records a record the inbox gives up on: dead-letter topic (if configured), then the rejected
 * table, both idempotent per record. Always ends (a refused row becomes a minimal row, then a
 * metric and a log line); only infrastructure errors are thrown. @internal
 */
@Injectable()
export class DeadLetterSink {
  private readonly logger = new Logger('InboxModule');

  constructor(
    @Inject(InboxStore) private readonly store: InboxStore,
    @Inject(InboxMetrics) private readonly metrics: InboxMetrics,
  ) {}

  /** A record on its own: its row, whatever its content; counted and logged at once. */
  async record(
    delivery: InboxDelivery,
    code: RejectionCode,
    reason: string,
    attempts: number,
  ): Promise<RecordedAs> {
    const row = await this.row(delivery, code, reason, attempts);
    const written = await writeRejection(this.store, row, (ms) =>
      waitWithHeartbeat(ms, () => delivery.context.getHeartbeat()(), ms),
    );
    this.report(delivery, code, written);
    return written.as;
  }

  /**
   * A record of a chunk: its row in the chunk's transaction (no fallback there: a failed
   * statement aborts it, and the record-by-record replay has them); returns what counts and logs
   * it, to run once the chunk commits.
   */
  async recordInChunk(
    delivery: InboxDelivery,
    code: RejectionCode,
    reason: string,
  ): Promise<() => void> {
    await this.store.recordRejection(await this.row(delivery, code, reason, 0));
    return () => this.report(delivery, code, { as: 'recorded' });
  }

  /** The rejected row, after the dead-letter send (whose failure the row says). */
  private async row(
    delivery: InboxDelivery,
    code: RejectionCode,
    reason: string,
    attempts: number,
  ): Promise<RejectionRow> {
    const topic = delivery.policy.deadLetterTopic;
    const sendFailure = topic ? await this.publish(delivery, topic, code, reason) : undefined;
    const { headers, position } = delivery;
    return {
      ...position,
      consumer: delivery.consumer,
      reasonCode: code,
      reason: sendFailure ? `${reason}; dead-letter send failed: ${sendFailure}` : reason,
      eventId: headers.event_id,
      eventType: headers.event_type,
      aggregateId: headers.aggregate_id,
      attempts,
      headers,
      deadLetterTopic: sendFailure ? undefined : topic,
      evidence: rejectionEvidence(delivery),
    };
  }

  private report(
    { consumer, position }: InboxDelivery,
    code: RejectionCode,
    written: { as: RecordedAs; error?: unknown },
  ): void {
    const labels = { consumer, topic: position.topic };
    const where = { consumer, ...position, code };
    if (written.as === 'unrecorded') {
      this.metrics.unrecorded.inc({ ...labels, reason: code });
      this.logger.error(
        logLine('record settled without a rejected row', {
          ...where,
          stage: 'last-resort',
          error: written.error,
        }),
      );
    } else if (code === 'handler_failed') this.metrics.deadLettered.inc(labels);
    else this.metrics.rejected.inc({ ...labels, reason: code });
    if (written.as === 'minimal')
      this.logger.warn(
        logLine('rejected row stored without its headers', {
          ...where,
          stage: 'record',
          error: written.error,
        }),
      );
  }

  /** Sends the record to the dead-letter topic; the class of the error when it could not. */
  private async publish(
    delivery: InboxDelivery,
    topic: string,
    code: string,
    reason: string,
  ): Promise<string | undefined> {
    try {
      const { message } = delivery;
      const key =
        Buffer.isBuffer(message.key) || typeof message.key === 'string' ? message.key : null;
      await delivery.context.getProducer().send({
        topic,
        messages: [
          {
            key,
            value: valueBytes(message.value) ?? null,
            headers: {
              ...delivery.headers,
              'x-inbox-consumer': delivery.consumer,
              'x-inbox-reason-code': code,
              'x-inbox-reason': reason.slice(0, 1000),
              'x-inbox-source': `${delivery.position.topic}/${delivery.position.partition}/${delivery.position.offset}`,
            },
          },
        ],
      });
      return undefined;
    } catch (error) {
      return errorLabel(error);
    }
  }
}
