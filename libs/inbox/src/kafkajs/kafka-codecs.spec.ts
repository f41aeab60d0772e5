/* eslint-disable @typescript-eslint/no-require-imports -- lz4js and snappyjs have no types */
import fc from 'fast-check';
import { zstdFrame } from '../../test/record-batch.fixtures';
import { MAX_BATCH_BYTES, unlz4, unsnappy } from './kafka-codecs';
import { undecodableBatch, UNDECODABLE_BATCH_HEADER } from './undecodable-batch';
import { unzstd } from './zstd-frames';

const lz4 = require('lz4js') as { compress(src: Uint8Array): Uint8Array };
const snappy = require('snappyjs') as { compress(src: Uint8Array): Uint8Array };

/** snappy-java's framing: magic, version 1, compatible 1, then [int32 size][raw block]... */
function xerial(blocks: Uint8Array[]): Buffer {
  const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
  const framed = blocks.map((block) => {
    const compressed = Buffer.from(snappy.compress(block));
    const size = Buffer.alloc(4);
    size.writeUInt32BE(compressed.length);
    return Buffer.concat([size, compressed]);
  });
  return Buffer.concat([header, ...framed]);
}

describe('kafka codecs', () => {
  it('decompress what snappy (raw and xerial-framed) and lz4 frames compressed, whatever the bytes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 3000 }), { minLength: 1, maxLength: 4 }),
        (blocks) => {
          const all = Buffer.concat(blocks);
          expect(unsnappy(Buffer.from(snappy.compress(all)), MAX_BATCH_BYTES)).toEqual(all);
          expect(unsnappy(xerial(blocks), MAX_BATCH_BYTES)).toEqual(all);
          expect(unlz4(Buffer.from(lz4.compress(all)), MAX_BATCH_BYTES)).toEqual(all);
          expect(unzstd(zstdFrame(blocks.map((b) => Buffer.from(b))), MAX_BATCH_BYTES)).toEqual(
            all,
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a xerial block that runs past the batch', () => {
    const framed = xerial([Buffer.from('hello hello hello')]);
    expect(() => unsnappy(framed.subarray(0, framed.length - 3), MAX_BATCH_BYTES)).toThrow(
      'snappy truncated',
    );
  });

  it('stops each codec at its limit, xerial blocks and zstd frames counted together', () => {
    const kib = Buffer.alloc(1024, 7);
    expect(() => unsnappy(xerial([kib, kib]), 2047)).toThrow('snappy exceeds 2047 bytes');
    expect(unsnappy(xerial([kib, kib]), 2048)).toHaveLength(2048);
    expect(() => unlz4(Buffer.from(lz4.compress(Buffer.concat([kib, kib]))), 2047)).toThrow(
      'lz4 exceeds 2047 bytes',
    );
    const frame = zstdFrame([{ byte: 1, times: 65_536 }, Buffer.alloc(65_536, 2)]); // window 128 KiB
    const frames = Buffer.concat([frame, frame]);
    expect(() => unzstd(frames, 262_143)).toThrow('zstd exceeds 262143 bytes');
    expect(unzstd(frames, 262_144)).toHaveLength(262_144);
    expect(() => unzstd(frame, 131_071)).toThrow('zstd exceeds 131071 bytes'); // its window
  });

  it("names why a batch is undecodable only in the batch decoder's own form", () => {
    const reason = (value: string) => undecodableBatch({ [UNDECODABLE_BATCH_HEADER]: value });
    expect(reason('crc mismatch')).toBe(
      'record of a batch that could not be decoded (crc mismatch)',
    );
    expect(reason('gzip exceeds 33554432 bytes')).toContain('(gzip exceeds 33554432 bytes)');
    expect(reason('unknown codec 5')).toContain('(unknown codec 5)');
    expect(reason('snappy <script>\n')).toContain('(unknown failure)');
    expect(undecodableBatch({})).toBeUndefined();
  });
});
