import { crc32c } from '@nest-outbox/core/internal';
import type { FetchResponsePartition } from './undecodable-probe';

/** One record batch as `@platformatic/kafka` decoded it. @internal */
export type DecodedBatch = NonNullable<FetchResponsePartition['records']>[number];

const COMPRESSION = 0b111;

/**
 * True when the batch's CRC-32C covers what was decoded. `@platformatic/kafka` does not check it:
 * an uncompressed batch is encoded again (its varints are canonical, so the bytes are the same)
 * and checked here. A compressed batch's bytes are gone once decompressed: its codec's own
 * checksum is all there is (gzip has one; snappy has none). @internal
 */
export function crcHolds(batch: DecodedBatch): boolean {
  if (batch.attributes & COMPRESSION) return true;
  const head = Buffer.alloc(40);
  head.writeInt16BE(batch.attributes, 0);
  head.writeInt32BE(batch.lastOffsetDelta, 2);
  head.writeBigInt64BE(batch.firstTimestamp, 6);
  head.writeBigInt64BE(batch.maxTimestamp, 14);
  head.writeBigInt64BE(batch.producerId, 22);
  head.writeInt16BE(batch.producerEpoch, 30);
  head.writeInt32BE(batch.firstSequence, 32);
  head.writeInt32BE(batch.records.length, 36);
  const parts: Buffer[] = [head];
  for (const r of batch.records) {
    parts.push(varint(BigInt(r.length)), Buffer.of(r.attributes & 0xff));
    parts.push(varint(r.timestampDelta), varint(BigInt(r.offsetDelta)));
    parts.push(...bytes(r.key), ...bytes(r.value), varint(BigInt(r.headers.length)));
    for (const [key, value] of r.headers) parts.push(...bytes(key), ...bytes(value));
  }
  return crc32c(Buffer.concat(parts)) >>> 0 === batch.crc >>> 0;
}

const bytes = (b: Buffer | null): Buffer[] =>
  b === null ? [varint(-1n)] : [varint(BigInt(b.length)), b];

/** A zig-zag varint (Kafka's signed varint and varlong). */
function varint(value: bigint): Buffer {
  let n = BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
  const out: number[] = [];
  for (; n >= 0x80n; n >>= 7n) out.push(Number(n & 0x7fn) | 0x80);
  out.push(Number(n));
  return Buffer.from(out);
}
