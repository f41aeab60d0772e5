import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { decompress, MAX_BATCH_BYTES, snappyCompress } from './kafka-codecs';

interface Codec {
  compress(encoder: unknown): Promise<Buffer>;
  decompress(data: Buffer): Promise<Buffer>;
}
type CodecFactory = () => Codec;
type Registry = Record<number, CodecFactory | undefined>;

/** type, name, the inbox's compressor when kafkajs has none */
const CODECS: readonly (readonly [number, string, ((data: Buffer) => Buffer)?])[] = [
  [CompressionTypes.GZIP, 'gzip'],
  [CompressionTypes.Snappy, 'snappy', snappyCompress],
  [CompressionTypes.LZ4, 'lz4'],
  [CompressionTypes.ZSTD, 'zstd'],
];

/**
 * Fills the codec table of the inbox's own kafkajs. Decompression is always the inbox's bounded
 * one (at most `MAX_BATCH_BYTES`); compression (the server's reply producer) is the codec the
 * application registered in kafkajs' `CompressionCodecs`, else kafkajs' gzip or the inbox's
 * snappy. @internal
 */
export function installInboxCodecs<T extends { Codecs: Registry }>(own: T): T {
  const app = CompressionCodecs as unknown as Registry;
  for (const [type, name, inboxCompress] of CODECS) {
    const stock = own.Codecs[type];
    const compressor = (): Codec | undefined => {
      try {
        return app[type]?.() ?? stock?.();
      } catch {
        return undefined; // kafkajs' placeholder: "... compression not implemented"
      }
    };
    const compress = (encoder: unknown): Promise<Buffer> => {
      const codec = compressor();
      if (codec) return codec.compress(encoder);
      if (inboxCompress)
        return Promise.resolve().then(() => inboxCompress((encoder as { buffer: Buffer }).buffer));
      return Promise.reject(
        new Error(
          `the inbox has a decompress-only ${name} codec: register a compressing one in kafkajs' CompressionCodecs to produce ${name}`,
        ),
      );
    };
    const codec: Codec = {
      compress,
      decompress: (data) => decompress(type, data, MAX_BATCH_BYTES),
    };
    own.Codecs[type] = () => codec;
  }
  return own;
}
