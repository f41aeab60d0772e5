import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { InboxKafkaContext } from '../chunk/chunk';
import { InboxMisuseError } from '../errors/inbox-misuse.error';

/**
 * Parameter decorator: the decoded `EventEnvelope` (event id, type, versions, aggregate,
 * occurred_at, payload, headers) of the record an `@InboxHandler` method handles.
 * @example
 * async onOrder(@InboxEvent() event: EventEnvelope<OrderConfirmed>, @Ctx() ctx: KafkaContext) {}
 * @publicApi
 */
export const InboxEvent = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const inbox = context.switchToRpc().getContext<unknown>();
  if (!(inbox instanceof InboxKafkaContext)) {
    throw new InboxMisuseError(
      '@InboxEvent() is only available in a method decorated with @InboxHandler(consumer)',
    );
  }
  if (inbox.batch) {
    throw new InboxMisuseError(
      '@InboxEvent() in an @InboxBatchHandler method: read its events with @InboxEvents()',
    );
  }
  return inbox.events[0];
});
