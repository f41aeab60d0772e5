import type { EventEnvelope } from '@nest-outbox/core';
import { RmqContext } from '@nestjs/microservices';

/**
 * The `RmqContext` an inbox handler is called with under `InboxRmqServer`: the message's own
 * context (message, channel, pattern), plus the event the inbox admitted for it (what
 * `@InboxEvent()` reads). @internal
 */
export class InboxRmqContext extends RmqContext {
  constructor(
    context: RmqContext,
    /** The admitted events (one: RabbitMQ messages are handled one by one). */
    readonly events: readonly EventEnvelope[],
    readonly batch: boolean,
  ) {
    super(context.getArgs());
  }
}
