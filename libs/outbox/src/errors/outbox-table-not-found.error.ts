import { NestOutboxError } from '@nest-outbox/core';

/**
 * The configured outbox table does not exist (checked at start-up).
 * @publicApi
 */
export class OutboxTableNotFoundError extends NestOutboxError {
  constructor(readonly qualifiedName: string) {
    super(
      `Outbox table ${qualifiedName} does not exist: add createOutboxMigration({ schema, table }) ` +
        'to your TypeORM migrations, or print the SQL with `npm run outbox:sql -- --schema <s> ' +
        '--table <t>` and apply it; or set installSchema: true to create it at start-up, or verifySchema: false if the table is created later',
    );
  }
}
