import type { InboxHandlerOptions } from '../../options/inbox-options.interface';
import { markInboxHandler } from './inbox-handler.decorator';

/**
 * `@InboxHandler` for throughput: the method receives `@InboxEvents()`, a list of events,
 * and runs once per chunk instead of once per record. Under `InboxKafkaServer` the list holds
 * the chunk's new events for this consumer, in offset order (duplicates, stale versions and
 * rejected records already settled), and Nest's guard / interceptor / pipe pipeline runs once
 * for the chunk. Under plain `ServerKafka`, and when a chunk is replayed record by record
 * after a failure, the list holds one event: per-record retries, dead-lettering and pausing
 * apply as for `@InboxHandler`. Everything else is `@InboxHandler`'s contract: at most one
 * effect per (`consumer`, `event_id`), written only through `TransactionHost.tx`, in the
 * transaction that registers the inbox rows; an error rolls the whole chunk back.
 *
 * The method's `KafkaContext` (`@Ctx()`) and `@Payload()` are those of the chunk's last
 * record: read the events from `@InboxEvents()`.
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
