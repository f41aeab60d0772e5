import { NestOutboxError } from '@nest-outbox/core';

/**
 * The inbox tables are not there at start-up (`verifySchema`). Thrown before any record is
 * consumed, so none is acknowledged without its inbox row.
 * @publicApi
 */
export class InboxSchemaMissingError extends NestOutboxError {
  constructor(readonly tables: readonly string[]) {
    super(
      `InboxModule: table(s) ${tables.join(', ')} not found. Add createInboxMigration({ schema, ... }) ` +
        'to your TypeORM migrations, run the DDL of `npm run -s inbox:sql -- --schema <schema>`, ' +
        'or set installSchema: true (development); verifySchema: false skips this check.',
    );
  }
}
