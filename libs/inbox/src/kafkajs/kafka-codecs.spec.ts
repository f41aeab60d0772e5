/* eslint-disable @typescript-eslint/no-require-imports -- lz4js and snappyjs have no types */
import fc from 'fast-check';
import { unlz4, unsnappy } from './kafka-codecs';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import {
  installInboxCodecs,
  undecodableBatch,
  undecodableFailure,
  UNDECODABLE_BATCH_HEADER,
} from './inbox-codecs';
import { inboxKafka } from './inbox-kafkajs';

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
          expect(unsnappy(Buffer.from(snappy.compress(all)))).toEqual(all);
          expect(unsnappy(xerial(blocks))).toEqual(all);
          expect(unlz4(Buffer.from(lz4.compress(all)))).toEqual(all);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses a xerial block that runs past the batch', () => {
    const framed = xerial([Buffer.from('hello hello hello')]);
    expect(() => unsnappy(framed.subarray(0, framed.length - 3))).toThrow(RangeError);
  });

  it("names the codec of an undecodable batch only in the transport's own form", () => {
    const reason = (value: string) => undecodableBatch({ [UNDECODABLE_BATCH_HEADER]: value });
    expect(reason('lz4 Error')).toBe(
      'record of a batch that could not be decompressed (lz4 Error)',
    );
    expect(reason('gzip Error Z_BUF_ERROR')).toContain('(gzip Error Z_BUF_ERROR)');
    expect(reason('snappy <script>\n')).toContain('(unknown codec)');
    expect(undecodableBatch({})).toBeUndefined();
  });
});

type TestCodec = { compress(e: unknown): Promise<Buffer>; decompress(b: Buffer): Promise<Buffer> };
type Table = Record<number, (() => TestCodec) | undefined>;
const appTable = CompressionCodecs as unknown as Table;

describe("the inbox's own codec table", () => {
  it('compresses snappy as well as decompressing it, as kafkajs-snappy reads it', async () => {
    const { Codecs } = installInboxCodecs({ Codecs: {} as Table });
    const codec = Codecs[CompressionTypes.Snappy]!();
    const kafkajsSnappy = (
      require('kafkajs-snappy') as () => { decompress(b: Buffer): Promise<Buffer> }
    )();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 5000 }), async (bytes) => {
        const data = Buffer.from(bytes);
        const compressed = Buffer.from(await codec.compress({ buffer: data }));
        expect(Buffer.from(await codec.decompress(compressed))).toEqual(data);
        expect(Buffer.from(await kafkajsSnappy.decompress(compressed))).toEqual(data);
      }),
      { numRuns: 50 },
    );
  });

  it('uses a codec the application registered, and turns a failed batch into a marker that names the codec', async () => {
    const { Codecs } = installInboxCodecs({ Codecs: {} as Table });
    const before = appTable[CompressionTypes.LZ4];
    appTable[CompressionTypes.LZ4] = () => ({
      compress: () => Promise.resolve(Buffer.alloc(0)),
      decompress: () => Promise.resolve(Buffer.from('from the app')),
    });
    try {
      const lz4Codec = Codecs[CompressionTypes.LZ4]!();
      expect((await lz4Codec.decompress(Buffer.from('x'))).toString()).toBe('from the app');
    } finally {
      appTable[CompressionTypes.LZ4] = before;
    }
    const marker = await Codecs[CompressionTypes.LZ4]!().decompress(Buffer.from('not lz4'));
    expect(marker).toHaveLength(0);
    expect(undecodableFailure(marker)).toMatch(/^lz4 \w+/);
    expect(undecodableFailure(Buffer.alloc(0))).toBeUndefined();
  });

  it("leaves the application's kafkajs table as kafkajs has it", () => {
    inboxKafka();
    expect(() => appTable[CompressionTypes.ZSTD]!()).toThrow(/not implemented/);
  });
});
