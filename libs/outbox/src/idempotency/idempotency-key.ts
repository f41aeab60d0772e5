import { createHash } from 'node:crypto';
import { IdempotencyKeyInvalidError, MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency.errors';

/** The draft's value is a Structured Field string (`"8e03978e-..."`); a bare token is accepted too. */
const QUOTED = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;
const BARE = /^[\x21\x23-\x7e]+$/;

/**
 * The key of an `Idempotency-Key` header value (draft-ietf-httpapi-idempotency-key-header).
 * @throws IdempotencyKeyInvalidError (400) when it is not 1-255 visible ASCII characters
 * @internal
 */
export function parseIdempotencyKey(header: string | string[]): string {
  const value = Array.isArray(header) ? '' : header.trim();
  const key =
    QUOTED.exec(value)?.[1]?.replace(/\\(["\\])/g, '$1') ?? (BARE.test(value) ? value : '');
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new IdempotencyKeyInvalidError();
  }
  return key;
}

/** JSON with object keys sorted: the same body sent with its fields in another order is the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
}

/** SHA-256 (hex) of `parts` as canonical JSON: a request's fingerprint, or a scope as stored. @internal */
export function sha256Of(...parts: unknown[]): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(parts)) ?? '')
    .digest('hex');
}
