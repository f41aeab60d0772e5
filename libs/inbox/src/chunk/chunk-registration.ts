import { decodeEnvelope, headerStrings } from '../envelope/envelope.decoder';
import type { PendingRegistration } from '../store/inbox.store';
import type { ChunkHandler, ChunkRecord, InboxBatch } from './inbox-batch.context';

/**
 * Registers ahead, in ONE `INSERT ... SELECT FROM unnest(...) ON CONFLICT DO NOTHING
 * RETURNING`, the inbox rows of the chunk's records that `handler`'s guard will accept
 * (same decoder, same rules, same parsed record), in the chunk's transaction. The executor
 * then claims each record's registration instead of inserting its row. A record repeated
 * inside the chunk is new at its first offset only and a duplicate at the later ones, as it
 * would be record by record. @internal
 */
export async function registerAhead(
  batch: InboxBatch,
  handler: ChunkHandler,
  at: { readonly topic: string; readonly partition: number },
  records: readonly ChunkRecord[],
): Promise<void> {
  const firsts = new Map<string, PendingRegistration>();
  const accepted: { offset: string; eventId: string }[] = [];
  for (const { offset, record } of records) {
    const headers = batch.ahead.headersOf(record) ?? headerStrings(record.headers);
    const result = decodeEnvelope(record, handler.policy, headers);
    batch.ahead.keepDecoded(record, handler.policy, headers, result); // the guard uses this very result
    if (!result.ok) continue; // the guard rejects it: no inbox row
    const { eventId } = result.envelope;
    accepted.push({ offset, eventId });
    if (!firsts.has(eventId)) firsts.set(eventId, { event: result.envelope, offset });
  }
  if (accepted.length === 0) return;
  const fresh = await handler.store.registerMany(handler.consumer, at, [...firsts.values()]);
  for (const { offset, eventId } of accepted) {
    const isFirst = firsts.get(eventId)?.offset === offset;
    batch.ahead.add(handler.consumer, offset, eventId, isFirst && fresh.has(eventId));
  }
}
