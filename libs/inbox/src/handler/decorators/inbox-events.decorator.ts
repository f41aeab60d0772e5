import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { InboxMisuseError } from '../../errors/inbox-misuse.error';
import { deliveryOf } from '../delivery/inbox-delivery';

/**
 * Parameter decorator of an `@InboxBatchHandler` method: the decoded `EventEnvelope`s it
 * applies, in offset order (one under plain `ServerKafka` or on a record-by-record replay).
 * @example
 * async onOrders(@InboxEvents() events: readonly EventEnvelope<OrderConfirmed>[]) {}
 * @publicApi
 */
export const InboxEvents = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const delivery = deliveryOf(context.switchToRpc().getContext<unknown>());
  if (!delivery?.batch) {
    throw new InboxMisuseError(
      '@InboxEvents() is only available in a method decorated with @InboxBatchHandler(consumer); ' +
        'an @InboxHandler method reads its one event with @InboxEvent()',
    );
  }
  if (delivery.chunk) return delivery.chunk.fresh;
  if (!delivery.envelope) {
    throw new InboxMisuseError('@InboxEvents() read before the inbox accepted the record');
  }
  return [delivery.envelope];
});
