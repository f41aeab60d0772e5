import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { kafkaCompression } from './compression';

const codecs = CompressionCodecs as Record<number, () => unknown>;
const snappyPlaceholder = codecs[CompressionTypes.Snappy]!;

describe('kafkaCompression', () => {
  afterEach(() => (codecs[CompressionTypes.Snappy] = snappyPlaceholder));

  it('maps each offered codec to its kafkajs type, none and gzip without registering anything', () => {
    expect(kafkaCompression('none')).toBe(CompressionTypes.None);
    expect(kafkaCompression('gzip')).toBe(CompressionTypes.GZIP);
    expect(codecs[CompressionTypes.Snappy]).toBe(snappyPlaceholder);
  });

  it('registers a working snappy codec when kafkajs has none', async () => {
    expect(() => snappyPlaceholder()).toThrow(/Snappy compression not implemented/);
    expect(kafkaCompression('snappy')).toBe(CompressionTypes.Snappy);
    const codec = codecs[CompressionTypes.Snappy]!() as {
      compress(e: { buffer: Buffer }): Promise<Buffer>;
      decompress(b: Buffer): Promise<Buffer>;
    };
    const text = Buffer.from(JSON.stringify({ order: 'o-1', note: 'x'.repeat(500) }));
    const compressed = await codec.compress({ buffer: text });
    expect(compressed.length).toBeLessThan(text.length / 2);
    expect(await codec.decompress(compressed)).toEqual(text);
  });

  it('keeps a snappy codec the process registered already (process-wide table)', () => {
    const theirs = () => ({ compress: () => undefined, decompress: () => undefined });
    codecs[CompressionTypes.Snappy] = theirs;
    kafkaCompression('snappy');
    expect(codecs[CompressionTypes.Snappy]).toBe(theirs);
  });
});
