import { createHash } from 'node:crypto';

/**
 * A stable idempotency key for a remote call made by an inbox handler: a retry or redelivery
 * makes the call again, so the receiver must deduplicate. Depends only on `event_id`, the
 * consumer and the purpose; UUID format (version 8, RFC 9562).
 * @example
 * await http.post(url, body, { headers: { 'Idempotency-Key': idempotencyKey(event.eventId, 'shipping', 'create-label') } });
 * @publicApi
 */
export function idempotencyKey(eventId: string, consumer: string, purpose = 'default'): string {
  const hash = createHash('sha256')
    .update(`nest-outbox:v1\u0000${consumer}\u0000${purpose}\u0000${eventId.toLowerCase()}`)
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x80;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
