import { createHash } from 'node:crypto';

/**
 * Key of the transaction-scoped advisory lock that serialises writers of one aggregate in
 * one outbox table: the first 8 bytes of SHA-1 over `schema.table`, `aggregateType` and
 * `aggregateId` (NUL-separated), read as a signed 64-bit integer. A collision only makes
 * two aggregates wait for each other; it never breaks ordering.
 * Other writers of the same table (in any language) must use the same key:
 * `SELECT pg_advisory_xact_lock(<key>)` before their INSERT.
 * @publicApi
 */
export function outboxLockKey(
  qualifiedName: string,
  aggregateType: string,
  aggregateId: string,
): bigint {
  return createHash('sha1')
    .update(`${qualifiedName}\u0000${aggregateType}\u0000${aggregateId}`)
    .digest()
    .readBigInt64BE(0);
}
