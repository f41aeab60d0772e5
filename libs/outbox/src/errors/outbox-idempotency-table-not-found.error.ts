import { NestOutboxError } from '@nest-outbox/core';

/**
 * The idempotency keys' table of `@Idempotent()` does not exist: the database was migrated
 * before the table was added to the outbox's schema. Thrown at start-up by an application with
 * `@Idempotent()` handlers (unless `tuning.verifySchema: false`), else at the first keyed
 * request.
 * @publicApi
 */
export class OutboxIdempotencyTableNotFoundError extends NestOutboxError {
  constructor(readonly qualifiedName: string) {
    super(
      `OutboxModule: @Idempotent() stores its keys in ${qualifiedName}, which does not exist ` +
        '(the database was migrated before that table existed): run `npx nest-outbox migrate ' +
        '--url <postgres url> --schema <s> --table <t>` again (it only adds what is missing), or ' +
        'print the SQL with `npx nest-outbox sql --schema <s> --table <t>`; or set ' +
        'tuning.installSchema: true to create it at start-up',
    );
  }
}
