import { BadRequestException, UnprocessableEntityException } from '@nestjs/common';
import { NestOutboxError } from '@nest-outbox/core';

/** Longest key accepted, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * 400: the `Idempotency-Key` header is not 1-255 visible ASCII characters (bare or as a quoted
 * Structured Field string). The value is never echoed. Nothing ran.
 * @publicApi
 */
export class IdempotencyKeyInvalidError extends BadRequestException {
  constructor() {
    super({
      statusCode: 400,
      error: 'idempotency_key_invalid',
      message: `Idempotency-Key must be a string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters, such as "8e03978e-40d5-43e8-bc93-6894a57f9324"`,
      fields: ['Idempotency-Key'],
    });
  }
}

/**
 * 422: the key came with another request before (another method, path or body) in the same
 * caller scope. Nothing ran; the first request's answer is not revealed.
 * @publicApi
 */
export class IdempotencyKeyReusedError extends UnprocessableEntityException {
  constructor() {
    super({
      statusCode: 422,
      error: 'idempotency_key_reused',
      message:
        'this Idempotency-Key came with a different request before: send a new key for a new request',
    });
  }
}

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
