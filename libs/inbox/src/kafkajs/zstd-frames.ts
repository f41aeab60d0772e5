import { Decompress } from 'fzstd';
import { UndecodableBatchError } from './undecodable-batch';

const ZSTD_MAGIC = 0xfd2fb528;
const DICT_ID_BYTES = [0, 1, 2, 4];

/**
 * Zstandard frames, each refused before decoding when its window or declared content size
 * exceeds `limit` (fzstd allocates the window up front), then decoded block by block until
 * `limit` output bytes. @internal
 */
export function unzstd(data: Buffer, limit: number): Buffer {
  const out: Buffer[] = [];
  let total = 0;
  const exceeds = () => new UndecodableBatchError(`zstd exceeds ${limit} bytes`);
  for (let at = 0; at < data.length; ) {
    const end = frameEnd(data, at);
    if (data.readUInt32LE(at) >>> 4 === 0x184d2a5) {
      at = end; // a skippable frame
      continue;
    }
    if (frameWindow(data, at) > limit) throw exceeds();
    const stream = new Decompress((chunk) => {
      total += chunk.length;
      if (total > limit) throw exceeds();
      out.push(Buffer.from(chunk));
    });
    try {
      stream.push(data.subarray(at, end), true);
    } catch (error) {
      throw error instanceof UndecodableBatchError
        ? error
        : new UndecodableBatchError('zstd corrupt');
    }
    at = end;
  }
  return Buffer.concat(out);
}

const truncated = () => new UndecodableBatchError('zstd truncated');

/** The larger of a frame's window and declared content size. */
function frameWindow(data: Buffer, at: number): number {
  const descriptor = data[at + 4]!;
  const single = (descriptor >> 5) & 1;
  const sizeFlag = descriptor >> 6;
  const sizeAt = at + 5 + (single ? 0 : 1) + DICT_ID_BYTES[descriptor & 3]!;
  const sizeBytes = sizeFlag === 0 ? single : 1 << sizeFlag;
  let size = sizeFlag === 1 ? 256 : 0;
  for (let i = 0; i < sizeBytes; i += 1) size += data[sizeAt + i]! * 2 ** (8 * i);
  if (single) return size;
  const windowByte = data[at + 5]!;
  const base = 2 ** (10 + (windowByte >> 3));
  return Math.max(size, base + (base / 8) * (windowByte & 7));
}

/** Where the frame at `at` ends, walking its block headers (nothing is decoded). */
function frameEnd(data: Buffer, at: number): number {
  if (at + 8 > data.length) throw truncated();
  const magic = data.readUInt32LE(at);
  if (magic >>> 4 === 0x184d2a5) {
    const end = at + 8 + data.readUInt32LE(at + 4);
    if (end > data.length) throw truncated();
    return end;
  }
  const descriptor = data[at + 4]!;
  if (magic !== ZSTD_MAGIC || descriptor & 0x08) throw new UndecodableBatchError('zstd corrupt');
  const single = (descriptor >> 5) & 1;
  const sizeFlag = descriptor >> 6;
  let cursor = at + 5 + (single ? 0 : 1) + DICT_ID_BYTES[descriptor & 3]!;
  cursor += sizeFlag === 0 ? single : 1 << sizeFlag;
  for (let last = 0; !last; ) {
    if (cursor + 3 > data.length) throw truncated();
    const header = data.readUIntLE(cursor, 3);
    const type = (header >> 1) & 3;
    if (type === 3) throw new UndecodableBatchError('zstd corrupt');
    last = header & 1;
    cursor += 3 + (type === 1 ? 1 : header >> 3);
  }
  cursor += descriptor & 0x04 ? 4 : 0;
  if (cursor > data.length) throw truncated();
  return cursor;
}
