/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs-snappy has no types; loaded only when chosen */
import { CompressionCodecs, CompressionTypes } from 'kafkajs';

/**
 * Compression of the record batches the relay publishes: `gzip` (built into kafkajs) or
 * `snappy` (pure JavaScript, `kafkajs-snappy`). LZ4 and ZSTD are not offered for publishing.
 * @publicApi
 */
export type RelayCompression = 'none' | 'gzip' | 'snappy';

/** How a `KafkaPublisher` encodes its record batches. @publicApi */
export interface PublisherEncoding {
  /** @default 'none' */
  readonly compression?: RelayCompression;
}

const TYPES: Readonly<Record<RelayCompression, CompressionTypes>> = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
};

const codecs = CompressionCodecs as Record<number, (() => unknown) | undefined>;

/** Whether kafkajs has a working codec for `type` (its placeholders throw when looked up). */
function hasCodec(type: CompressionTypes): boolean {
  try {
    return typeof codecs[type]?.() === 'object';
  } catch {
    return false;
  }
}

/**
 * kafkajs' compression type of `compression`, with its codec registered in kafkajs'
 * documented process-wide `CompressionCodecs` table when absent: a codec the application
 * registered already is kept, never overwritten.
 * @internal
 */
export function kafkaCompression(compression: RelayCompression): CompressionTypes {
  const type = TYPES[compression];
  if (compression === 'snappy' && !hasCodec(type))
    codecs[type] = require('kafkajs-snappy') as () => unknown;
  return type;
}
