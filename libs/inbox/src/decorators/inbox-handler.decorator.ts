import { SetMetadata } from '@nestjs/common';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import { INBOX_HANDLER_METADATA } from '../inbox.constants';
import type { InboxHandlerOptions } from '../options/inbox-options.interface';
import type { InboxHandlerMetadata } from '../options/inbox-handler.policies';

/**
 * Makes an `@EventPattern` Kafka handler idempotent: bad records are recorded and skipped, and
 * the handler runs at most once per (`consumer`, `event_id`), in one transaction with the inbox
 * row, before the offset is committed. Write through `TransactionHost.tx`. Needs
 * `InboxModule.forRoot()` and the `InboxKafkaServer` transport (any other Kafka server serving
 * the topic is refused at start-up).
 * @param consumer the name of this projection / effect; the dedup key is (consumer, event_id)
 * @example
 * ```ts
 * @EventPattern('orders')
 * @InboxHandler('shipping-projection', { eventTypes: ['order.confirmed'] })
 * async onOrder(@InboxEvent() event: EventEnvelope<OrderConfirmed>) {
 *   await this.txHost.tx.query('INSERT INTO shipments ...', [event.aggregateId]);
 * }
 * ```
 * @publicApi
 */
export function InboxHandler(consumer: string, options: InboxHandlerOptions = {}): MethodDecorator {
  return markInboxHandler('InboxHandler', { consumer, options });
}

/** Validates the consumer name and marks the method for the inbox. @internal */
export function markInboxHandler(
  decorator: string,
  metadata: InboxHandlerMetadata,
): MethodDecorator {
  const { consumer } = metadata;
  if (typeof consumer !== 'string' || consumer.trim() === '' || consumer.length > 200) {
    throw new InboxMisuseError(
      `@${decorator}(consumer): consumer must be a non-empty name of at most 200 characters (got ${JSON.stringify(consumer)}), for example 'shipping-projection'`,
    );
  }
  return SetMetadata(INBOX_HANDLER_METADATA, metadata);
}
