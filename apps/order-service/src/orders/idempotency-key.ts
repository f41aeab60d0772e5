import { createHash } from 'node:crypto';
import { InvalidRequestException } from '../../../common/src';
import type { CreateOrderDto } from './create-order.dto';

/**
 * A client's `Idempotency-Key` for `POST /orders` (draft-ietf-httpapi-idempotency-key-header):
 * the key, and a fingerprint of the request it came with, so that a key reused for another
 * request is told apart from a retry.
 */
export interface IdempotencyKey {
  readonly key: string;
  readonly fingerprint: string;
}

/** The draft's value is a Structured Field string (`"8e03978e-..."`); a bare token is accepted too. */
const QUOTED = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;
const BARE = /^[\x21\x23-\x7e]+$/;
const MAX_LENGTH = 255;

/**
 * The key of the `Idempotency-Key` header, or undefined without one; 400 naming the header
 * when its value is not 1-255 visible ASCII characters (the value is never echoed).
 */
export function idempotencyKeyOf(
  header: string | undefined,
  body: CreateOrderDto,
): IdempotencyKey | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const key =
    QUOTED.exec(value)?.[1]?.replace(/\\(["\\])/g, '$1') ?? (BARE.test(value) ? value : '');
  if (key.length === 0 || key.length > MAX_LENGTH) {
    throw new InvalidRequestException([
      {
        field: 'Idempotency-Key',
        message: `Idempotency-Key must be a string of 1 to ${MAX_LENGTH} visible ASCII characters, such as "8e03978e-40d5-43e8-bc93-6894a57f9324"`,
      },
    ]);
  }
  const request = [body.customerId, body.amountCents, body.currency, body.shippingAddress];
  const fingerprint = createHash('sha256').update(JSON.stringify(request)).digest('hex');
  return { key, fingerprint };
}
