import { crc32c } from '@nest-outbox/core/internal';
import { CODEC_NAMES, decompress, MAX_BATCH_BYTES } from './kafka-codecs';
import { UNDECODABLE_BATCH_HEADER, UndecodableBatchError } from './undecodable-batch';

/** Marker records per undecodable batch at most (its header's offset span, capped). @internal */
export const MAX_BATCH_MARKERS = 100_000;

/** v2 batch header bytes after baseOffset and length; the CRC covers from byte 9 (attributes). */
const HEADER_BYTES = 49;
const CRC_FROM = 9;

/** kafkajs' `Decoder`, as the batch decoder uses it. @internal */
export interface BatchBytesDecoder {
  offset: number;
  readonly buffer: Buffer;
  readInt8(): number;
  readInt16(): number;
  readInt32(): number;
  readInt64(): { toString(): string };
  readVarInt(): number;
  slice(size: number): BatchBytesDecoder;
  forward(size: number): void;
}

/** What kafkajs 2.2.4's batch decoder needs from its other files. @internal */
export interface BatchDecoderParts {
  Decoder: new (buffer: Buffer) => BatchBytesDecoder;
  /** `recordBatch/record/v0/decoder` */
  readRecord(decoder: BatchBytesDecoder, context: object): { offset: string };
  /** kafkajs' `KafkaJSPartialMessageError`: a tail batch cut off by the fetch size. */
  partial(message: string): Error;
  /** kafkajs' `TimestampTypes` */
  timestampType(attributes: number): number;
}

/**
 * kafkajs' record batch decoder (`recordBatch/v0/decoder`) that settles every batch: CRC-32C,
 * codec id, bounded decompression, record framing, count and offset deltas are checked as
 * Kafka's Java consumer checks them, and a batch failing any becomes one marker record per
 * offset its header claims (at most `MAX_BATCH_MARKERS`), carrying `UNDECODABLE_BATCH_HEADER`.
 * Throws only kafkajs' partial message error. @internal
 */
export function recordBatchDecoder(parts: BatchDecoderParts) {
  return async (fetchDecoder: BatchBytesDecoder) => {
    const firstOffset = fetchDecoder.readInt64().toString();
    const length = fetchDecoder.readInt32();
    if (length < HEADER_BYTES) {
      // The framing is lost: nothing after it in this partition's fetch can be read.
      fetchDecoder.forward(fetchDecoder.buffer.length - fetchDecoder.offset);
      return { records: markers(firstOffset, 0, {}, 'batch length invalid'), garbled: true };
    }
    const decoder = fetchDecoder.slice(length);
    fetchDecoder.forward(length);
    if (decoder.buffer.length < length)
      throw parts.partial(
        `Tried to decode a partial record batch: remainingBytes(${decoder.buffer.length}) < recordBatchLength(${length})`,
      );
    const partitionLeaderEpoch = decoder.readInt32();
    const magicByte = decoder.readInt8();
    const crc = decoder.readInt32() >>> 0;
    const attributes = decoder.readInt16();
    const lastOffsetDelta = decoder.readInt32();
    const context = {
      firstOffset,
      firstTimestamp: decoder.readInt64().toString(),
      maxTimestamp: decoder.readInt64().toString(),
      producerId: decoder.readInt64().toString(),
      producerEpoch: decoder.readInt16(),
      firstSequence: decoder.readInt32(),
      partitionLeaderEpoch,
      inTransaction: (attributes & 0x10) > 0,
      isControlBatch: (attributes & 0x20) > 0,
      lastOffsetDelta,
      timestampType: parts.timestampType(attributes),
    };
    // A batch failing these has a header nobody wrote; what follows it is not read either.
    const garbled =
      magicByte !== 2
        ? `magic ${magicByte}`
        : crc32c(decoder.buffer, CRC_FROM) !== crc
          ? 'crc mismatch'
          : undefined;
    if (garbled !== undefined)
      return {
        ...context,
        records: markers(firstOffset, lastOffsetDelta, context, garbled),
        garbled: true,
      };
    try {
      const records = await readRecords(parts, decoder, attributes & 7, { ...context, magicByte });
      return { ...context, records };
    } catch (error) {
      const detail = error instanceof UndecodableBatchError ? error.detail : 'records malformed';
      return { ...context, records: markers(firstOffset, lastOffsetDelta, context, detail) };
    }
  };
}

async function readRecords(
  parts: BatchDecoderParts,
  decoder: BatchBytesDecoder,
  codec: number,
  context: { lastOffsetDelta: number; firstOffset: string; magicByte: number },
): Promise<unknown[]> {
  const codecName = CODEC_NAMES[codec];
  if (codecName === undefined) throw new UndecodableBatchError(`unknown codec ${codec}`);
  const count = decoder.readInt32();
  let bytes = decoder.buffer.subarray(decoder.offset);
  // A record takes 7 bytes at least, uncompressed.
  const plausible = codec === 0 ? bytes.length / 7 : MAX_BATCH_BYTES / 7;
  if (count < 0 || count > context.lastOffsetDelta + 1 || count > plausible)
    throw new UndecodableBatchError('record count mismatch');
  if (codec !== 0) bytes = await decompress(codec, bytes, MAX_BATCH_BYTES);
  const all = new parts.Decoder(bytes);
  const base = BigInt(context.firstOffset);
  const records = new Array<unknown>(count);
  let previous = -1n;
  for (let i = 0; i < count; i += 1) {
    const size = all.readVarInt();
    if (size < 0 || all.offset + size > bytes.length)
      throw new UndecodableBatchError('records truncated');
    const one = new parts.Decoder(bytes.subarray(all.offset, all.offset + size));
    all.forward(size);
    const record = parts.readRecord(one, context);
    const delta = BigInt(record.offset) - base;
    if (one.offset !== size) throw new UndecodableBatchError('record malformed');
    if (delta <= previous || delta > BigInt(context.lastOffsetDelta))
      throw new UndecodableBatchError('offset delta mismatch');
    previous = delta;
    records[i] = record;
  }
  if (all.offset !== bytes.length) throw new UndecodableBatchError('record count mismatch');
  return records;
}

/** One marker record per offset of `firstOffset..firstOffset + lastOffsetDelta`, capped. */
function markers(
  firstOffset: string,
  lastOffsetDelta: number,
  context: { firstTimestamp?: string },
  detail: string,
) {
  const span = Math.min(Math.max(lastOffsetDelta, 0) + 1, MAX_BATCH_MARKERS);
  const base = BigInt(firstOffset);
  return Array.from({ length: span }, (_, i) => ({
    magicByte: 2,
    attributes: 0,
    timestamp: context.firstTimestamp ?? '0',
    offset: (base + BigInt(i)).toString(),
    key: null,
    value: null,
    headers: { [UNDECODABLE_BATCH_HEADER]: Buffer.from(detail) },
    isControlRecord: false,
    batchContext: context,
  }));
}

type BatchDecoder = ReturnType<typeof recordBatchDecoder>;

/**
 * kafkajs' `fetch/v4/decodeMessages` (Fetch v4-v11) reading every batch with `decodeBatch`:
 * magic 2 only (Kafka 4 stores nothing older; an older batch is rejected like any other bad
 * one); a partial tail batch ends the partition's records, as in kafkajs. @internal
 */
export function fetchRecordsDecoder(parts: BatchDecoderParts, decodeBatch: BatchDecoder) {
  return async (decoder: BatchBytesDecoder & { readBytes(n: number): Buffer }) => {
    const size = decoder.readInt32();
    if (size <= 0 || decoder.buffer.length - decoder.offset < size) return [];
    const batches = new parts.Decoder(decoder.readBytes(size));
    const records: unknown[] = [];
    while (batches.buffer.length - batches.offset >= HEADER_BYTES) {
      let batch: { records: unknown[]; garbled?: boolean };
      try {
        batch = await decodeBatch(batches);
      } catch (error) {
        if ((error as { name?: string }).name === 'KafkaJSPartialMessageError') break;
        throw error;
      }
      for (const record of batch.records) records.push(record);
      if (batch.garbled) break; // the next fetch starts after its markers
    }
    return records;
  };
}
