import { Inject, Injectable } from '@nestjs/common';
import { InboxMetrics } from '../../metrics/inbox.metrics';
import type { RejectionCode } from '../../envelope/envelope.decoder';
import { valueBytes } from '../../envelope/envelope.decoder';
import { InboxStore } from '../../store/inbox.store';
import type { InboxDelivery } from '../pipeline/inbox-delivery';

/**
 * Records a record the inbox gives up on: first the dead-letter topic (when configured:
 * the value and headers as received, plus `x-inbox-*` headers with the reason), then the
 * rejected-messages table. Both are idempotent per record, so a crash in between only
 * repeats them.
 * @internal
 */
@Injectable()
export class DeadLetterSink {
  constructor(
    @Inject(InboxStore) private readonly store: InboxStore,
    @Inject(InboxMetrics) private readonly metrics: InboxMetrics,
  ) {}

  async record(
    delivery: InboxDelivery,
    code: RejectionCode,
    reason: string,
    attempts: number,
  ): Promise<void> {
    const topic = delivery.policy.deadLetterTopic;
    if (topic) await this.publish(delivery, topic, code, reason);
    await this.store.recordRejection({
      ...delivery.position,
      consumer: delivery.consumer,
      reasonCode: code,
      reason,
      eventId: delivery.headers.event_id,
      eventType: delivery.headers.event_type,
      aggregateId: delivery.headers.aggregate_id,
      attempts,
      headers: delivery.headers,
      deadLetterTopic: topic,
    });
    const labels = { consumer: delivery.consumer, topic: delivery.position.topic };
    if (code === 'handler_failed') this.metrics.deadLettered.inc(labels);
    else this.metrics.rejected.inc({ ...labels, reason: code });
  }

  private async publish(
    delivery: InboxDelivery,
    topic: string,
    code: string,
    reason: string,
  ): Promise<void> {
    const message = delivery.context.getMessage() as { key?: unknown; value?: unknown };
    const key =
      message.key === null || message.key === undefined ? null : String(message.key as string);
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
  }
}
