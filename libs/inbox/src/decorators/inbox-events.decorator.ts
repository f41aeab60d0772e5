import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { InboxKafkaContext } from '../chunk/chunk';
import { InboxMisuseError } from '../errors/inbox-misuse.error';

/**
 * Parameter decorator of an `@InboxBatchHandler` method: the decoded `EventEnvelope`s it
 * applies, in offset order (one on a record-by-record replay).
 * @example
 * async onOrders(@InboxEvents() events: readonly EventEnvelope<OrderConfirmed>[]) {}
 * @publicApi
 */
export const InboxEvents = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const inbox = context.switchToRpc().getContext<unknown>();
  if (!(inbox instanceof InboxKafkaContext) || !inbox.batch) {
    throw new InboxMisuseError(
      '@InboxEvents() is only available in a method decorated with @InboxBatchHandler(consumer); ' +
        'an @InboxHandler method reads its one event with @InboxEvent()',
    );
  }
  return inbox.events;
});
