import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { InboxKafkaContext } from '../chunk/chunk';
import { InboxRmqContext } from '../chunk/inbox-rmq.context';
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
  if (!(inbox instanceof InboxKafkaContext || inbox instanceof InboxRmqContext)) {
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

/**
 * Parameter decorator of an `@InboxBatchHandler` method: the decoded `EventEnvelope`s it
 * applies, in offset order (one on a record-by-record replay).
 * @example
 * async onOrders(@InboxEvents() events: readonly EventEnvelope<OrderConfirmed>[]) {}
 * @publicApi
 */
export const InboxEvents = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const inbox = context.switchToRpc().getContext<unknown>();
  if (!(inbox instanceof InboxKafkaContext || inbox instanceof InboxRmqContext) || !inbox.batch) {
    throw new InboxMisuseError(
      '@InboxEvents() is only available in a method decorated with @InboxBatchHandler(consumer); ' +
        'an @InboxHandler method reads its one event with @InboxEvent()',
    );
  }
  return inbox.events;
});
