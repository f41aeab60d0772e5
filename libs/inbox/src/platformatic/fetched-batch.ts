import { crcHolds } from './batch-crc';
import type { FetchResponsePartition, UndecodableOffsets } from './undecodable-probe';

/** One record as fetched (control records left out). @internal */
export interface FetchedRecord {
  readonly offset: bigint;
  readonly timestamp: bigint;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly [Buffer | null, Buffer | null][];
  /** Set when the record is an offset of a batch that could not be decoded (why). */
  readonly undecodable?: string;
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

const IS_CONTROL = 1 << 5;

/**
 * The records of one partition's fetch from offset `from` on (a batch may start before it), or
 * of its undecodable offsets; a batch whose CRC-32C does not hold gives its offsets as
 * undecodable records. Undefined when the fetch returned nothing. @internal
 */
export function fetchedBatch(
  at: { topic: string; partition: number; live: () => boolean },
  fetched: FetchResponsePartition | UndecodableOffsets,
  from: bigint,
): FetchedBatch | undefined {
  if ('undecodable' in fetched) {
    const { offsets, undecodable, hwm } = fetched;
    const records = offsets.map((offset) => marker(offset, undecodable));
    return { ...at, highWatermark: hwm, records, last: offsets.at(-1)! };
  }
  const batches = fetched.records ?? [];
  if (batches.length === 0) return undefined;
  const records: FetchedRecord[] = [];
  for (const batch of batches) {
    if (batch.attributes & IS_CONTROL) continue;
    if (!crcHolds(batch)) {
      for (let delta = 0; delta <= batch.lastOffsetDelta; delta += 1) {
        const offset = batch.firstOffset + BigInt(delta);
        if (offset >= from) records.push(marker(offset, 'crc mismatch'));
      }
      continue;
    }
    for (const r of batch.records) {
      const offset = batch.firstOffset + BigInt(r.offsetDelta);
      if (offset < from) continue;
      const timestamp = batch.firstTimestamp + r.timestampDelta;
      records.push({ offset, timestamp, key: r.key, value: r.value, headers: r.headers });
    }
  }
  const lastBatch = batches[batches.length - 1]!;
  const last = lastBatch.firstOffset + BigInt(lastBatch.lastOffsetDelta);
  return { ...at, highWatermark: fetched.highWatermark, records, last };
}

const marker = (offset: bigint, undecodable: string): FetchedRecord => ({
  offset,
  timestamp: 0n,
  key: null,
  value: null,
  headers: [],
  undecodable,
});
