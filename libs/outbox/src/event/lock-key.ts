import { hash } from 'node:crypto';

/**
 * Key of the transaction-scoped advisory lock that serialises writers of one aggregate in
 * one outbox table: the first 8 bytes of SHA-1 over the JSON text of
 * `[qualifiedTable, aggregateType, aggregateId]` (unambiguous whatever the ids contain),
 * read as a signed 64-bit integer. A collision only makes
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
  const text = JSON.stringify([qualifiedName, aggregateType, aggregateId]);
  return hash('sha1', text, 'buffer').readBigInt64BE(0);
}
