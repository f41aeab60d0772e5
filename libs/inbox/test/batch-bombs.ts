/* eslint-disable @typescript-eslint/no-require-imports -- lz4js and snappyjs have no types */
import { createGzip } from 'node:zlib';
import { zstdFrame } from './record-batch.fixtures';

/**
 * Compressed records of `count` records whose values are `valueBytes` zero bytes each: valid
 * Kafka records (the broker accepts them), built without holding the expanded bytes (tests only).
 */

const lz4 = require('lz4js') as { compress(src: Uint8Array): Uint8Array };
const snappy = require('snappyjs') as { compress(src: Uint8Array): Uint8Array };

const MIB = 1024 * 1024;

/** Kafka's zigzag varint. */
function varint(value: number): Buffer {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  const bytes: number[] = [];
  while (v >= 0x80) {
    bytes.push(v % 0x80 | 0x80);
    v = Math.floor(v / 0x80);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

/** Record `delta`'s bytes before its value (length, attributes, deltas, null key, value length). */
function recordHead(delta: number, valueBytes: number): Buffer {
  const body = [Buffer.from([0]), varint(0), varint(delta), varint(-1), varint(valueBytes)];
  const size = body.reduce((n, b) => n + b.length, 0) + valueBytes + 1; // + header count
  return Buffer.concat([varint(size), ...body]);
}
const NO_HEADERS = varint(0);

/** gzip, streamed through zlib one MiB of zeros at a time. */
export async function gzipBomb(count: number, valueBytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  const zeros = Buffer.alloc(MIB);
  const write = (b: Buffer) =>
    gzip.write(b) ? Promise.resolve() : new Promise((r) => gzip.once('drain', r));
  for (let i = 0; i < count; i += 1) {
    await write(recordHead(i, valueBytes));
    for (let left = valueBytes; left > 0; left -= MIB)
      await write(zeros.subarray(0, Math.min(left, MIB)));
    await write(NO_HEADERS);
  }
  gzip.end();
  await done;
  return Buffer.concat(out);
}

/** zstd: raw blocks for each record's framing, RLE blocks of 128 KiB for its zeros. */
export function zstdBomb(count: number, valueBytes: number): Buffer {
  const blocks: (Buffer | { byte: number; times: number })[] = [];
  for (let i = 0; i < count; i += 1) {
    blocks.push(Buffer.concat([i > 0 ? NO_HEADERS : Buffer.alloc(0), recordHead(i, valueBytes)]));
    for (let left = valueBytes; left > 0; left -= 131_072)
      blocks.push({ byte: 0, times: Math.min(left, 131_072) });
  }
  blocks.push(NO_HEADERS);
  return zstdFrame(blocks);
}

/** lz4 frame of independent 4 MiB blocks (Kafka reads no other kind). `valueBytes`: a multiple of 4 MiB. */
export function lz4Bomb(count: number, valueBytes: number): Buffer {
  const zeroFrame = Buffer.from(lz4.compress(Buffer.alloc(4 * MIB)));
  const zeroBlock = zeroFrame.subarray(7, zeroFrame.length - 4); // size word and block
  const raw = (b: Buffer) => {
    const size = Buffer.alloc(4);
    size.writeUInt32LE((b.length | 0x80000000) >>> 0);
    return Buffer.concat([size, b]);
  };
  const parts = [Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x70, 0x73])];
  for (let i = 0; i < count; i += 1) {
    parts.push(
      raw(Buffer.concat([i > 0 ? NO_HEADERS : Buffer.alloc(0), recordHead(i, valueBytes)])),
    );
    for (let left = valueBytes; left > 0; left -= 4 * MIB) parts.push(zeroBlock);
  }
  parts.push(raw(NO_HEADERS), Buffer.alloc(4));
  return Buffer.concat(parts);
}

/** snappy, xerial-framed as Java producers write it: one block per record framing, per MiB of zeros. */
export function snappyBomb(count: number, valueBytes: number): Buffer {
  const block = (b: Uint8Array) => {
    const size = Buffer.alloc(4);
    size.writeUInt32BE(b.length);
    return Buffer.concat([size, b]);
  };
  const zeros = block(snappy.compress(Buffer.alloc(MIB)));
  const parts = [
    Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0, 0, 0, 0, 1, 0, 0, 0, 1]),
  ];
  for (let i = 0; i < count; i += 1) {
    const head = Buffer.concat([i > 0 ? NO_HEADERS : Buffer.alloc(0), recordHead(i, valueBytes)]);
    parts.push(block(snappy.compress(head)));
    for (let left = valueBytes; left > 0; left -= MIB) parts.push(zeros);
  }
  parts.push(block(snappy.compress(NO_HEADERS)));
  return Buffer.concat(parts);
}
