import { NestOutboxError } from '@nest-outbox/core';

/**
 * A write did not touch the number of rows the handler expected (for example a projection
 * row whose version moved on). Thrown by `expectRowCount`; it rolls back the whole
 * transaction, the inbox row included, and is retried like any handler error. @publicApi
 */
export class UnexpectedRowCountError extends NestOutboxError {
  constructor(
    readonly expected: number,
    readonly actual: number,
    readonly what: string,
  ) {
    super(
      `${what}: expected ${expected} row(s) to change but ${actual} did; the transaction (inbox row ` +
        'included) is rolled back. Check the WHERE clause (version condition) of the statement.',
    );
  }
}
