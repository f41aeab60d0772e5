import { NestOutboxError } from '@nest-outbox/core';

/** The configured outbox table does not exist (checked at start-up). @publicApi */
export class OutboxTableNotFoundError extends NestOutboxError {
  constructor(readonly qualifiedName: string) {
    super(
      `Outbox table ${qualifiedName} does not exist: run \`npx nest-outbox migrate --url <postgres url> ` +
        '--schema <s> --table <t>`, or print the SQL with `npx nest-outbox sql --schema <s> --table <t>`; ' +
        'or set installSchema: true to create it at start-up, or verifySchema: false if the table is created later',
    );
  }
}
