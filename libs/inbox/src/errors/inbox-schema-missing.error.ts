import { NestOutboxError } from '@nest-outbox/core';

/**
 * The inbox tables are not there at start-up (`verifySchema`). Thrown before any record is
 * consumed, so none is acknowledged without its inbox row. @publicApi
 */
export class InboxSchemaMissingError extends NestOutboxError {
  constructor(readonly tables: readonly string[]) {
    super(
      `InboxModule: table(s) ${tables.join(', ')} not found. Run \`npx nest-outbox migrate --url <postgres url> ` +
        '--schema <schema>` (default table names), or apply the SQL of `npx nest-outbox-inbox-sql ' +
        '--schema <schema> [--table <name>]`, ' +
        'or set installSchema: true (development); verifySchema: false skips this check.',
    );
  }
}
