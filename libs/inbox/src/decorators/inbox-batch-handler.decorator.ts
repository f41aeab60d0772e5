import type { InboxHandlerOptions } from '../options/inbox-options.interface';
import { markInboxHandler } from './inbox-handler.decorator';

/**
 * `@InboxHandler` for throughput: the method receives `@InboxEvents()` and runs once per chunk.
 * The list holds the chunk's new events for this consumer in offset order, and Nest's pipeline
 * runs once per chunk; on a replay record by record it holds one event. Otherwise `@InboxHandler`'s contract; an error rolls
 * the whole chunk back. `@Ctx()` and `@Payload()` are the chunk's last record's.
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
