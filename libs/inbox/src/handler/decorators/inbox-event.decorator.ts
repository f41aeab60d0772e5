import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { InboxMisuseError } from '../../errors/inbox-misuse.error';
import { deliveryOf } from '../delivery/inbox-delivery';

/**
 * Parameter decorator: the decoded `EventEnvelope` (event id, type, versions, aggregate,
 * occurred_at, payload, headers) of the record an `@InboxHandler` method handles.
 * @example
 * async onOrder(@InboxEvent() event: EventEnvelope<OrderConfirmed>, @Ctx() ctx: KafkaContext) {}
 * @publicApi
 */
export const InboxEvent = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const delivery = deliveryOf(context.switchToRpc().getContext<unknown>());
  if (delivery?.batch) {
    throw new InboxMisuseError(
      '@InboxEvent() in an @InboxBatchHandler method: read its events with @InboxEvents()',
    );
  }
  const envelope = delivery?.envelope;
  if (!envelope) {
    throw new InboxMisuseError(
      '@InboxEvent() is only available in a method decorated with @InboxHandler(consumer)',
    );
  }
  return envelope;
});
