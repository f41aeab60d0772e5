/* eslint-disable @typescript-eslint/no-require-imports -- lz4js and snappyjs have no types */
import { decompress as zstdDecompress } from 'fzstd';

/**
 * Pure-JS decompressors of the codecs kafkajs lacks (no native build). Snappy compresses too,
 * as kafkajs-snappy's raw block, for a relay in the same process. @internal
 */

const lz4 = require('lz4js') as { decompress(src: Uint8Array): Uint8Array };
const snappy = require('snappyjs') as {
  compress(src: Uint8Array): Uint8Array;
  uncompress(src: Uint8Array): Uint8Array;
};

/** kafka-clients (snappy-java) frames snappy blocks: this header, then [int32 size][block]... */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = 16;

const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);

/** Snappy, xerial-framed (Java producers) or a raw block (librdkafka, kafkajs-snappy). */
export function unsnappy(data: Buffer): Buffer {
  if (data.length < XERIAL_HEADER_BYTES || !data.subarray(0, 8).equals(XERIAL_MAGIC))
    return buffer(snappy.uncompress(data));
  const blocks: Buffer[] = [];
  for (let at = XERIAL_HEADER_BYTES; at < data.length; ) {
    const size = data.readUInt32BE(at);
    at += 4;
    if (at + size > data.length) throw new RangeError('snappy block runs past the batch');
    blocks.push(buffer(snappy.uncompress(data.subarray(at, at + size))));
    at += size;
  }
  return Buffer.concat(blocks);
}

/** Snappy, one raw block (what kafkajs-snappy writes and every Kafka client reads). */
export const snappyBlock = (data: Buffer): Buffer => buffer(snappy.compress(data));

/** LZ4 frame format (Kafka's record batches since magic 1). */
export const unlz4 = (data: Buffer): Buffer => buffer(lz4.decompress(data));

/** Zstandard frames. */
export const unzstd = (data: Buffer): Buffer => buffer(zstdDecompress(data));
