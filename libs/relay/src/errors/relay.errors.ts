import { NestOutboxError } from '@nest-outbox/core';

/**
 * The outbox table or the relay's own schema objects are missing.
 * @publicApi
 */
export class RelaySchemaMissingError extends NestOutboxError {
  constructor(what: string) {
    super(
      `RelayModule: ${what} does not exist. Create the outbox table with "npm run outbox:sql" and the relay's objects with "npm run relay:cli -- sql | psql", or set installSchema: true`,
    );
  }
}

/**
 * A publish did not finish within `publishTimeoutMs` and was cancelled (the producer was
 * disconnected, so nothing keeps retrying in the background). Transient.
 * @publicApi
 */
export class PublishTimeoutError extends NestOutboxError {
  constructor(readonly timeoutMs: number) {
    super(
      `RelayModule: publish cancelled after ${timeoutMs} ms (publishTimeoutMs); it will be retried with backoff`,
    );
  }
}

/** An event has no topic: no `topic` column, no route for its aggregate type, no default. @publicApi */
export class NoTopicError extends NestOutboxError {
  constructor(aggregateType: string) {
    super(
      `RelayModule: no topic for aggregate type "${aggregateType}": set the event's topic, add routing.routes.${aggregateType}, or set routing.defaultTopic, then retry the parked event`,
    );
  }
}
