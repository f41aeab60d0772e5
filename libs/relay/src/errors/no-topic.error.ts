import { NestOutboxError } from '@nest-outbox/core';

/** An event has no topic: no `topic` column, no route for its aggregate type, no default. @publicApi */
export class NoTopicError extends NestOutboxError {
  constructor(aggregateType: string) {
    super(
      `RelayModule: no topic for aggregate type "${aggregateType}": set the event's topic, add routing.routes.${aggregateType}, or set routing.defaultTopic, then retry the parked event`,
    );
  }
}
