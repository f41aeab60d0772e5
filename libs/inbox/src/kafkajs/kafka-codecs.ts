/* eslint-disable @typescript-eslint/no-require-imports -- lz4js and snappyjs have no types */
import { unzip } from 'node:zlib';
import { UndecodableBatchError } from './undecodable-batch';
import { unzstd } from './zstd-frames';

/**
 * Bounded decompressors of Kafka's codecs, pure JS (no native build): each stops at `limit`
 * output bytes. @internal
 */

const lz4 = require('lz4js') as {
  decompressBlock(src: Uint8Array, dst: Uint8Array, at: number, size: number, to: number): number;
};
const snappy = require('snappyjs') as {
  uncompress(src: Uint8Array, maxLength?: number): Uint8Array;
};

/** Decompressed records per batch at most: a larger batch is rejected undecoded. @internal */
export const MAX_BATCH_BYTES = 32 * 1024 * 1024;

/** Kafka's codec ids, in order. @internal */
export const CODEC_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);

const gunzip = (data: Buffer, limit: number) =>
  new Promise<Buffer>((resolve, reject) =>
    unzip(data, { maxOutputLength: limit }, (error, out) => {
      if (!error) return resolve(out);
      const { code } = error as { code?: string };
      if (code === 'ERR_BUFFER_TOO_LARGE')
        reject(new UndecodableBatchError(`gzip exceeds ${limit} bytes`));
      else
        reject(
          new UndecodableBatchError(`gzip ${code === 'Z_BUF_ERROR' ? 'truncated' : 'corrupt'}`),
        );
    }),
  );

/** kafka-clients (snappy-java) frames snappy blocks: this header, then [int32 size][block]... */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = 16;

/** One raw snappy block, refused before allocating when its length preamble exceeds `room`. */
function snappyBlock(data: Buffer, room: number, limit: number): Buffer {
  let length = 0;
  for (let i = 0, shift = 1; i < Math.min(data.length, 5); i += 1, shift *= 128) {
    length += (data[i]! & 0x7f) * shift;
    if (data[i]! < 0x80) break;
  }
  if (length > room) throw new UndecodableBatchError(`snappy exceeds ${limit} bytes`);
  try {
    return buffer(snappy.uncompress(data, room));
  } catch {
    throw new UndecodableBatchError('snappy corrupt');
  }
}

/** Snappy, xerial-framed (Java producers) or a raw block (librdkafka, kafkajs-snappy). */
export function unsnappy(data: Buffer, limit: number): Buffer {
  if (data.length < XERIAL_HEADER_BYTES || !data.subarray(0, 8).equals(XERIAL_MAGIC))
    return snappyBlock(data, limit, limit);
  const blocks: Buffer[] = [];
  let total = 0;
  for (let at = XERIAL_HEADER_BYTES; at < data.length; ) {
    if (at + 4 > data.length) throw new UndecodableBatchError('snappy truncated');
    const size = data.readUInt32BE(at);
    at += 4;
    if (at + size > data.length) throw new UndecodableBatchError('snappy truncated');
    const block = snappyBlock(data.subarray(at, at + size), limit - total, limit);
    blocks.push(block);
    total += block.length;
    at += size;
  }
  return Buffer.concat(blocks);
}

const LZ4_MAGIC = 0x184d2204;
const LZ4_BLOCK_SIZES = [0, 0, 0, 0, 65_536, 262_144, 1_048_576, 4_194_304];

/** LZ4 frame format (Kafka's record batches since magic 1), block by block up to `limit`. */
export function unlz4(data: Buffer, limit: number): Buffer {
  const truncated = () => new UndecodableBatchError('lz4 truncated');
  if (data.length < 7) throw truncated();
  const flags = data[4]!;
  const blockMax = LZ4_BLOCK_SIZES[(data[5]! >> 4) & 7]!;
  if (data.readUInt32LE(0) !== LZ4_MAGIC || flags >> 6 !== 1 || blockMax === 0)
    throw new UndecodableBatchError('lz4 corrupt');
  const checksum = flags & 0x10 ? 4 : 0;
  let at = 6 + (flags & 0x08 ? 8 : 0) + (flags & 0x01 ? 4 : 0) + 1;
  const scratch = Buffer.allocUnsafe(blockMax);
  const blocks: Buffer[] = [];
  for (let total = 0; ; ) {
    if (at + 4 > data.length) throw truncated();
    const word = data.readUInt32LE(at);
    at += 4;
    if (word === 0) break;
    const size = word & 0x7fffffff;
    if (size > blockMax) throw new UndecodableBatchError('lz4 corrupt');
    if (at + size + checksum > data.length) throw truncated();
    const out = word & 0x80000000 ? size : lz4.decompressBlock(data, scratch, at, size, 0);
    if (!Number.isInteger(out) || out > blockMax) throw new UndecodableBatchError('lz4 corrupt');
    total += out;
    if (total > limit) throw new UndecodableBatchError(`lz4 exceeds ${limit} bytes`);
    blocks.push(
      word & 0x80000000 ? data.subarray(at, at + size) : Buffer.from(scratch.subarray(0, out)),
    );
    at += size + checksum;
  }
  return Buffer.concat(blocks);
}

/** Decompresses a batch's records with codec `type` (1-4) into at most `limit` bytes. */
export async function decompress(type: number, data: Buffer, limit: number): Promise<Buffer> {
  try {
    if (type === 1) return await gunzip(data, limit);
    if (type === 2) return unsnappy(data, limit);
    if (type === 3) return unlz4(data, limit);
    return unzstd(data, limit);
  } catch (error) {
    if (error instanceof UndecodableBatchError) throw error;
    throw new UndecodableBatchError(`${CODEC_NAMES[type] ?? 'codec'} corrupt`);
  }
}
