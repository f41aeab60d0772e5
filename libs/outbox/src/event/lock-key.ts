import { hash } from 'node:crypto';

/**
 * The advisory lock key serialising writers of one aggregate: the first 8 bytes of SHA-1 over
 * the JSON of `[qualifiedTable, aggregateType, aggregateId]`, a signed 64-bit integer (a
 * collision only makes two aggregates wait). Other writers must take it before their INSERT.
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
