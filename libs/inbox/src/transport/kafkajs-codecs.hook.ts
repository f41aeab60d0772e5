/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs' protocol modules have no types */
import { AsyncLocalStorage } from 'node:async_hooks';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { errorLabel } from '@nest-outbox/core/internal';
import { snappyBlock, unlz4, unsnappy, unzstd } from './kafka-codecs';

/**
 * The one header each record of a batch the inbox's consumer could not decompress is given
 * instead of its own (value: the codec and the error class, e.g. `lz4 Error`). The inbox
 * rejects such a record with reason code `undecodable_batch`.
 * @internal
 */
export const UNDECODABLE_BATCH_HEADER = 'x-nest-outbox-undecodable-batch';

/**
 * The rejection reason of a record carrying `UNDECODABLE_BATCH_HEADER`, if it does. Its value
 * is named only in the transport's own form: a producer could send that header too.
 * @internal
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
type Registry = Record<number, CodecFactory>;

interface DecoderProto {
  buffer: Buffer;
  offset: number;
  readVarIntBytes: (this: DecoderProto) => Buffer | null;
}

type Transform = (data: Buffer) => Buffer;

/** type, name, decompress (none: kafkajs' own), compress (none: decompress only) */
const CODECS: readonly (readonly [number, string, Transform?, Transform?])[] = [
  [CompressionTypes.GZIP, 'gzip'], // kafkajs' own
  [CompressionTypes.Snappy, 'snappy', unsnappy, snappyBlock],
  [CompressionTypes.LZ4, 'lz4', unlz4],
  [CompressionTypes.ZSTD, 'zstd', unzstd],
];

const inboxFetches = new AsyncLocalStorage<true>();
/** Records standing for the batches the inbox's fetches could not decompress, by marker. */
const failures = new WeakMap<Buffer, string>();

/**
 * Runs `start` (a consumer's `run`) so that the fetches it starts turn a batch they cannot
 * decompress into records carrying `UNDECODABLE_BATCH_HEADER`, which the inbox settles as
 * rejected, instead of failing the fetch (kafkajs then crashes the consumer on every fetch,
 * all its partitions stopped). Consumers started outside it are not affected.
 * @internal
 */
export const settlingUndecodable = <T>(start: () => T): T => inboxFetches.run(true, start);

const pureJs = (name: string, decompress: Transform, compress?: Transform): CodecFactory => {
  const codec: Codec = {
    compress: (encoder) =>
      compress
        ? Promise.resolve().then(() => compress((encoder as { buffer: Buffer }).buffer))
        : Promise.reject(
            new Error(
              `the inbox registered a decompress-only ${name} codec: register a compressing one in kafkajs' CompressionCodecs to produce ${name}`,
            ),
          ),
    decompress: (data) => Promise.resolve().then(() => decompress(data)),
  };
  return () => codec;
};

/** Whether `factory` is kafkajs' placeholder ("... compression not implemented"). */
function isPlaceholder(factory: CodecFactory | undefined): boolean {
  try {
    factory?.();
    return factory === undefined;
  } catch (error) {
    return (error as { name?: unknown }).name === 'KafkaJSNotImplemented';
  }
}

/** A factory that defers to whatever is registered now, and settles failures in the inbox's fetches. */
function settling(name: string, current: () => CodecFactory): CodecFactory {
  const decompress = async (data: Buffer) => {
    try {
      return await current()().decompress(data);
    } catch (error) {
      if (!recordReadsPatched || inboxFetches.getStore() !== true) throw error;
      const marker = Buffer.alloc(0);
      failures.set(marker, `${name} ${errorLabel(error)}`);
      return marker;
    }
  };
  return () => ({ compress: (encoder) => current()().compress(encoder), decompress });
}

/**
 * kafkajs decodes a decompressed batch record by record with `readVarIntBytes`; on a marker
 * each read gives the next record (offset delta 0, 1, ...) that carries only the header.
 */
function patchRecordReads(): boolean {
  const version = (require('kafkajs/package.json') as { version?: string }).version;
  if (version !== '2.2.4') return false; // the decoder this was written and checked against
  const base = 'kafkajs/src/protocol';
  const Decoder = require(`${base}/decoder`) as { new (b: Buffer): DecoderProto } & {
    prototype: DecoderProto;
  };
  const encodeRecord = require(`${base}/recordBatch/record/v0`) as (r: object) => {
    buffer: Buffer;
  };
  const original = Decoder.prototype.readVarIntBytes;
  Decoder.prototype.readVarIntBytes = function readVarIntBytes(this: DecoderProto) {
    const failure = failures.get(this.buffer);
    if (failure === undefined) return original.call(this);
    const headers = { [UNDECODABLE_BATCH_HEADER]: failure };
    const record = encodeRecord({ offsetDelta: this.offset++, key: null, value: null, headers });
    return original.call(new Decoder(record.buffer));
  };
  return true;
}

let installed = false;
let recordReadsPatched = false;

/**
 * Registers the inbox's pure-JS snappy, lz4 and zstd decompressors in kafkajs'
 * process-wide `CompressionCodecs` where nothing but kafkajs' placeholder is registered (a
 * codec the application registered, before or after, is kept and used), and makes batches
 * that the inbox's own fetches cannot decompress settle (see `settlingUndecodable`; kafkajs
 * 2.2.4 only, whose batch decoder this was checked against). Other
 * consumers in the process decode the same codecs from now on and fail as before on a
 * batch they cannot decompress. Once per process.
 * @internal
 */
export function installCodecs(): void {
  if (installed) return;
  installed = true;
  const registry = CompressionCodecs as unknown as Registry;
  for (const [type, name, decompress, compress] of CODECS) {
    let factory = registry[type]!;
    if (decompress && isPlaceholder(factory)) factory = pureJs(name, decompress, compress);
    const wrapper = settling(name, () => factory);
    Object.defineProperty(registry, type, {
      enumerable: true,
      configurable: true,
      get: () => wrapper,
      // Putting back what was read from the registry (this wrapper) keeps the current codec.
      set: (next: CodecFactory) => void (next !== wrapper && (factory = next)),
    });
  }
  try {
    recordReadsPatched = patchRecordReads();
  } catch {
    recordReadsPatched = false; // kafkajs' internals moved: such a batch fails the fetch as before
  }
}
