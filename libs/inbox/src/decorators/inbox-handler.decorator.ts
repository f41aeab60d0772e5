import { SetMetadata } from '@nestjs/common';
import { InboxMisuseError } from '../errors/inbox-misuse.error';
import { INBOX_HANDLER_METADATA } from '../inbox.constants';
import type { InboxHandlerOptions } from '../options/inbox-options.interface';

/** What `@InboxHandler` / `@InboxBatchHandler` store on the method. @internal */
export interface InboxHandlerMetadata {
  readonly consumer: string;
  readonly options: InboxHandlerOptions;
  readonly batch?: boolean;
}

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

/**
 * `@InboxHandler` for throughput: the method receives `@InboxEvents()` and runs once per chunk.
 * The list holds the chunk's new events for this consumer in offset order, and Nest's pipeline
 * runs once per chunk; on a replay record by record it holds one event. Otherwise
 * `@InboxHandler`'s contract; an error rolls the whole chunk back. `@Ctx()` and `@Payload()` are
 * the chunk's last record's.
 * @example
 * ```ts
 * @EventPattern('orders')
 * @InboxBatchHandler('order-totals', { eventTypes: ['order.confirmed'] })
 * async onOrders(@InboxEvents() events: readonly EventEnvelope<OrderConfirmed>[]) {
 *   for (const e of events) await this.txHost.tx.query('UPDATE totals ...', [e.aggregateId]);
 * }
 * ```
 * @publicApi
 */
export function InboxBatchHandler(
  consumer: string,
  options: InboxHandlerOptions = {},
): MethodDecorator {
  return markInboxHandler('InboxBatchHandler', { consumer, options, batch: true });
}

function markInboxHandler(decorator: string, metadata: InboxHandlerMetadata): MethodDecorator {
  const { consumer } = metadata;
  if (typeof consumer !== 'string' || consumer.trim() === '' || consumer.length > 200) {
    throw new InboxMisuseError(
      `@${decorator}(consumer): consumer must be a non-empty name of at most 200 characters (got ${JSON.stringify(consumer)}), for example 'shipping-projection'`,
    );
  }
  return SetMetadata(INBOX_HANDLER_METADATA, metadata);
}
