import * as crypto from 'node:crypto';

/** One-shot `crypto.hash` (Node >= 20.12) is about 40% cheaper than `createHash`. */
const oneShot = (
  crypto as { hash?: (algorithm: string, data: string, encoding: 'buffer') => Buffer }
).hash;
const sha1 = (text: string): Buffer =>
  oneShot ? oneShot('sha1', text, 'buffer') : crypto.createHash('sha1').update(text).digest();

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
  return sha1(text).readBigInt64BE(0);
}
