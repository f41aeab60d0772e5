import type { DecodedBatch, FetchedPartition } from './guarded-fetch';

/** One record as fetched (control records and aborted transactions left out). @internal */
export interface FetchedRecord {
  readonly offset: bigint;
  readonly timestamp: bigint;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly [Buffer | null, Buffer | null][];
}

/** What one fetch returned for one partition, handed to the server as kafkajs' `eachBatch` is. @internal */
export interface FetchedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly highWatermark: bigint;
  readonly records: readonly FetchedRecord[];
  /** The last offset the fetch covered, control records included. */
  readonly last: bigint;
  /** False once the partition was revoked, seeked (a poison pause) or the loop stopped. */
  readonly live: () => boolean;
}

const IS_TRANSACTIONAL = 1 << 4;
const IS_CONTROL = 1 << 5;
const ABORT_MARKER = 0;

/**
 * The records of one partition's fetch from offset `from` on (a batch may start before it),
 * without control records nor the records of transactions the fetch names as aborted (as
 * `read_committed` consumers skip them). Undefined when the fetch returned no whole batch.
 * @internal
 */
export function fetchedBatch(
  at: { topic: string; partition: number; live: () => boolean },
  fetched: FetchedPartition,
  from: bigint,
): FetchedBatch | undefined {
  const { batches } = fetched;
  if (batches.length === 0) return undefined;
  const pending = [...fetched.abortedTransactions].sort((a, b) =>
    a.firstOffset < b.firstOffset ? -1 : 1,
  );
  const aborting = new Set<bigint>();
  const records: FetchedRecord[] = [];
  for (const batch of batches) {
    while (pending.length > 0 && pending[0]!.firstOffset <= lastOf(batch))
      aborting.add(pending.shift()!.producerId);
    const transactional = (batch.attributes & IS_TRANSACTIONAL) !== 0;
    if (batch.attributes & IS_CONTROL) {
      const marker = batch.records[0]?.key;
      if (marker && marker.length >= 4 && marker.readInt16BE(2) === ABORT_MARKER)
        aborting.delete(batch.producerId);
      continue;
    }
    if (transactional && aborting.has(batch.producerId)) continue;
    for (const r of batch.records) {
      const offset = batch.firstOffset + BigInt(r.offsetDelta);
      if (offset < from) continue;
      const timestamp = batch.firstTimestamp + r.timestampDelta;
      records.push({ offset, timestamp, key: r.key, value: r.value, headers: r.headers });
    }
  }
  const last = lastOf(batches[batches.length - 1]!);
  return { ...at, highWatermark: fetched.highWatermark, records, last };
}

const lastOf = (batch: DecodedBatch) => batch.firstOffset + BigInt(batch.lastOffsetDelta);
