import type { EventEnvelope } from '@nest-outbox/core';
import { KafkaContext } from '@nestjs/microservices';

/**
 * The `KafkaContext` an inbox handler is called with: the record's own context, plus the events
 * the inbox admitted for it (`@InboxEvent()` reads the one, `@InboxBatchHandler`'s
 * `@InboxEvents()` all of a chunk's, where `@Ctx()` is the chunk's last record's). @internal
 */
export class InboxKafkaContext extends KafkaContext {
  constructor(
    context: KafkaContext,
    /** The admitted events, in offset order. */
    readonly events: readonly EventEnvelope[],
    /** True for an `@InboxBatchHandler` call. */
    readonly batch: boolean,
  ) {
    super(context.getArgs());
  }
}
