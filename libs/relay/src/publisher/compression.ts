/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs-snappy has no types; loaded only when chosen */
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import type { KafkaRecordEncoder } from './encoding';

/**
 * Compression of the record batches the relay publishes: `gzip` (built into kafkajs) or
 * `snappy` (pure JavaScript, `kafkajs-snappy`). LZ4 and ZSTD are not offered for publishing.
 * @publicApi
 */
export type RelayCompression = 'none' | 'gzip' | 'snappy';

/** How a `KafkaPublisher` encodes its Produce requests. @publicApi */
export interface PublisherEncoding {
  /** `relay` (default): the relay's own encoder (kafkajs' bytes, less CPU, safe fallback). */
  readonly recordEncoder?: KafkaRecordEncoder;
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
 * process-wide table (a snappy codec registered already is kept).
 * @internal
 */
export function kafkaCompression(compression: RelayCompression): CompressionTypes {
  const type = TYPES[compression];
  if (compression === 'snappy' && !hasCodec(type))
    codecs[type] = require('kafkajs-snappy') as () => unknown;
  return type;
}
