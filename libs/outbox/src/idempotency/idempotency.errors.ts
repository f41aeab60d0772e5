import { BadRequestException, UnprocessableEntityException } from '@nestjs/common';

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
