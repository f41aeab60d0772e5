import { NestOutboxError } from '@nest-outbox/core';

/** The outbox table or the relay's own schema objects are missing. @publicApi */
export class RelaySchemaMissingError extends NestOutboxError {
  constructor(what: string) {
    super(
      `RelayModule: ${what} does not exist. Run "npx nest-outbox migrate --url <postgres url> --schema <s> --table <t>" (it creates the outbox table and the relay's objects), or set installSchema: true`,
    );
  }
}
