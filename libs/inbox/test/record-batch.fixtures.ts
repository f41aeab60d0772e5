/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs' protocol files, lz4js and snappyjs have no types */
import { gzipSync } from 'node:zlib';
import { crc32c } from '@nest-outbox/core/internal';
import { unpackHeaders } from '../src/kafkajs/header-decoding';
import { guardRecords } from '../src/kafkajs/record-batch.guard';

/** Hand-built v2 record batches, and stock kafkajs reading them once guarded (tests only). */

const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (record: object) => {
  buffer: Buffer;
};
const lz4 = require('lz4js') as { compress(src: Uint8Array): Uint8Array };
const snappy = require('snappyjs') as { compress(src: Uint8Array): Uint8Array };

/** A zstd frame of raw and RLE blocks (what a zstd encoder emits for incompressible or repeated bytes). */
export function zstdFrame(blocks: readonly (Buffer | { byte: number; times: number })[]): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38])]; // window 128 KiB
  blocks.forEach((block, i) => {
    const last = i === blocks.length - 1 ? 1 : 0;
    const header = Buffer.alloc(3);
    if (Buffer.isBuffer(block)) {
      header.writeUIntLE(last | (block.length << 3), 0, 3);
      parts.push(header, block);
    } else {
      header.writeUIntLE(last | (1 << 1) | (block.times << 3), 0, 3);
      parts.push(header, Buffer.from([block.byte]));
    }
  });
  return Buffer.concat(parts);
}

/** zstd of `data` as raw blocks of at most 128 KiB. */
const zstdRaw = (data: Buffer) => {
  const blocks: Buffer[] = [];
  for (let at = 0; at < data.length || blocks.length === 0; at += 131_072)
    blocks.push(data.subarray(at, at + 131_072));
  return zstdFrame(blocks);
};

export const COMPRESS: Record<number, (data: Buffer) => Buffer> = {
  0: (data) => data,
  1: (data) => gzipSync(data),
  2: (data) => Buffer.from(snappy.compress(data)),
  3: (data) => Buffer.from(lz4.compress(data)),
  4: zstdRaw,
};

export interface TestRecord {
  readonly key: string | null;
  readonly value: string | null;
  readonly headers?: Record<string, string>;
}

/** The records' bytes as a batch holds them, offset deltas 0..n-1 unless given. */
export const recordBytes = (records: readonly TestRecord[], deltas?: readonly number[]): Buffer =>
  Buffer.concat(
    records.map((r, i) => encodeRecord({ ...r, offsetDelta: deltas?.[i] ?? i }).buffer),
  );

/** A v2 batch with a correct CRC-32C around `payload` (records, compressed or not). */
export function batch(
  baseOffset: bigint,
  options: { codec: number; count: number; lastOffsetDelta: number; payload: Buffer },
): Buffer {
  const header = Buffer.alloc(61);
  header.writeBigInt64BE(baseOffset, 0);
  header.writeInt32BE(49 + options.payload.length, 8);
  header.writeInt8(2, 16);
  header.writeInt16BE(options.codec, 21);
  header.writeInt32BE(options.lastOffsetDelta, 23);
  header.writeBigInt64BE(1_700_000_000_000n, 27);
  header.writeBigInt64BE(1_700_000_000_000n, 35);
  header.writeBigInt64BE(-1n, 43);
  header.writeInt16BE(-1, 51);
  header.writeInt32BE(-1, 53);
  header.writeInt32BE(options.count, 57);
  const bytes = Buffer.concat([header, options.payload]);
  return reseal(bytes);
}

/** A batch of `records` compressed with `codec`. */
export const recordBatch = (baseOffset: bigint, codec: number, records: readonly TestRecord[]) =>
  batch(baseOffset, {
    codec,
    count: records.length,
    lastOffsetDelta: records.length - 1,
    payload: COMPRESS[codec]!(recordBytes(records)),
  });

/** `bytes` with its length and CRC-32C recomputed, as if a producer had written them. */
export function reseal(bytes: Buffer): Buffer {
  bytes.writeInt32BE(bytes.length - 12, 8);
  bytes.writeUInt32BE(crc32c(bytes, 21), 17);
  return bytes;
}

export interface DecodedRecord {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer>;
}

const Decoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => unknown;
const decodeMessages = require('kafkajs/src/protocol/requests/fetch/v4/decodeMessages') as (
  decoder: unknown,
) => Promise<DecodedRecord[]>;

/** What stock kafkajs' Fetch v4-v11 decoder reads from one partition's record bytes. */
export function decodeStock(records: Buffer): Promise<DecodedRecord[]> {
  const size = Buffer.alloc(4);
  size.writeInt32BE(records.length);
  return decodeMessages(new Decoder(Buffer.concat([size, records])));
}

/**
 * What the inbox reads from one partition's record bytes: guarded by its socket, decoded by
 * kafkajs, headers unpacked by `InboxKafkaServer`.
 */
export async function decodeFetched(batches: readonly Buffer[]): Promise<DecodedRecord[]> {
  const records = await decodeStock(await guardRecords(Buffer.concat(batches)));
  return records.map((r) => ({
    ...r,
    headers: unpackHeaders(r.headers) as DecodedRecord['headers'],
  }));
}
