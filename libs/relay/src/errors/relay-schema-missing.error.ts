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
