import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { errorLabel } from '@nest-outbox/core/internal';
import { snappyBlock, unlz4, unsnappy, unzstd } from './kafka-codecs';

/**
 * The one header each record of a batch that could not be decompressed gets instead (value:
 * codec and error class); rejected as `undecodable_batch`. @internal
 */
export const UNDECODABLE_BATCH_HEADER = 'x-nest-outbox-undecodable-batch';

/**
 * The rejection reason of a record carrying `UNDECODABLE_BATCH_HEADER` in the transport's own
 * form (a producer could send that header too). @internal
 */
export function undecodableBatch(headers: Record<string, string>): string | undefined {
  const failure = headers[UNDECODABLE_BATCH_HEADER];
  if (failure === undefined) return undefined;
  const named = /^(gzip|snappy|lz4|zstd) \w{1,60}( \w{1,20})?$/.test(failure);
  return `record of a batch that could not be decompressed (${named ? failure : 'unknown codec'})`;
}

interface Codec {
  compress(encoder: unknown): Promise<Buffer>;
  decompress(data: Buffer): Promise<Buffer>;
}
type CodecFactory = () => Codec;
type Registry = Record<number, CodecFactory | undefined>;
type Transform = (data: Buffer) => Buffer;

/** type, name, decompress (none: kafkajs' own), compress (none: decompress only) */
const CODECS: readonly (readonly [number, string, Transform?, Transform?])[] = [
  [CompressionTypes.GZIP, 'gzip'], // kafkajs' own
  [CompressionTypes.Snappy, 'snappy', unsnappy, snappyBlock],
  [CompressionTypes.LZ4, 'lz4', unlz4],
  [CompressionTypes.ZSTD, 'zstd', unzstd],
];

/** Empty buffers standing for the batches the inbox's codecs could not decompress. */
const failures = new WeakMap<Buffer, string>();

/** Why the batch `marker` stands for could not be decompressed (codec and error class), if it does. @internal */
export const undecodableFailure = (marker: Buffer): string | undefined => failures.get(marker);

const pureJs = (name: string, decompress: Transform, compress?: Transform): CodecFactory => {
  const codec: Codec = {
    compress: (encoder) =>
      compress
        ? Promise.resolve().then(() => compress((encoder as { buffer: Buffer }).buffer))
        : Promise.reject(
            new Error(
              `the inbox has a decompress-only ${name} codec: register a compressing one in kafkajs' CompressionCodecs to produce ${name}`,
            ),
          ),
    decompress: (data) => Promise.resolve().then(() => decompress(data)),
  };
  return () => codec;
};

/**
 * Fills the codec table of the inbox's own kafkajs: the application's registered codec, else a
 * pure-JS snappy, lz4 or zstd. An undecompressable batch becomes records carrying
 * `UNDECODABLE_BATCH_HEADER` instead of crashing the consumer on every fetch. @internal
 */
export function installInboxCodecs<T extends { Codecs: Registry }>(own: T): T {
  const app = CompressionCodecs as unknown as Registry;
  for (const [type, name, decompress, compress] of CODECS) {
    const inbox = decompress ? pureJs(name, decompress, compress) : own.Codecs[type]!;
    // kafkajs' placeholder throws "... compression not implemented": the inbox's codec then.
    const current = () => {
      try {
        return app[type]?.() ?? inbox();
      } catch {
        return inbox();
      }
    };
    const settling = async (data: Buffer) => {
      try {
        return await current().decompress(data);
      } catch (error) {
        const marker = Buffer.alloc(0);
        failures.set(marker, `${name} ${errorLabel(error)}`);
        return marker;
      }
    };
    own.Codecs[type] = () => ({ compress: (e) => current().compress(e), decompress: settling });
  }
  return own;
}
