/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs' protocol modules have no types */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Kafka, KafkaConfig } from 'kafkajs';
import {
  MAX_RECORD_HEADERS,
  readRecordHeaders,
  type HeaderBytesDecoder,
  type HeaderReader,
} from './header-decoding';
import { installInboxCodecs } from './inbox-codecs';
import { keepOffsetsOnRangeError, type ConsumerGroupClass } from './offset-out-of-range';
import {
  fetchRecordsDecoder,
  recordBatchDecoder,
  type BatchDecoderParts,
} from './record-batch.decoder';

/** The kafkajs version whose decoder the inbox's own instance was written and checked against. */
const CHECKED_KAFKAJS_VERSION = '2.2.4';

type Module = { exports: unknown };
/** Loads a file of the private kafkajs by its path under kafkajs' root. */
type Loader = (relative: string) => unknown;
type Replacement = (own: unknown, load: Loader) => unknown;

/** kafkajs' `Decoder` as the inbox's subclass uses it. */
interface StockDecoder extends HeaderBytesDecoder {
  readVarIntArray(reader: unknown): unknown[];
}
type DecoderClass = new (buffer: Buffer) => StockDecoder;

/**
 * Loads kafkajs' files into a module table of the inbox's own, so its changes reach no other
 * client; `replace` gives a file other exports.
 */
function privateLoader(root: string, replace: ReadonlyMap<string, Replacement>): Loader {
  const table = new Map<string, Module>();
  const files = new Map<string, string>();
  const fileOf = (path: string): string => {
    let file = files.get(path);
    if (file === undefined) {
      file = [path, `${path}.js`, join(path, 'index.js')].find(
        (p) => existsSync(p) && statSync(p).isFile(),
      );
      if (file === undefined) throw new Error(`kafkajs' file ${path} is missing`);
      files.set(path, file);
    }
    return file;
  };
  const loader: Loader = (relative) => load(fileOf(join(root, relative)));
  const load = (file: string): unknown => {
    const known = table.get(file);
    if (known) return known.exports;
    const source = readFileSync(file, 'utf8');
    const module: Module = { exports: {} };
    table.set(file, module);
    if (file.endsWith('.json')) module.exports = JSON.parse(source) as unknown;
    else {
      const dir = dirname(file);
      // Node's own modules from Node, kafkajs' files (it has no dependencies) from this table.
      const localRequire = (id: string) =>
        id.startsWith('.') ? load(fileOf(join(dir, id))) : (require(id) as unknown);
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- kafkajs' own source, unchanged
      const body = new Function(
        'exports',
        'require',
        'module',
        '__filename',
        '__dirname',
        `${source}\n//# sourceURL=${file}`,
      );
      body.call(module.exports, module.exports, localRequire, module, file, dir);
    }
    const own = replace.get(file.slice(root.length + 1));
    if (own) module.exports = own(module.exports, loader);
    return module.exports;
  };
  return loader;
}

/** kafkajs' `Decoder` with linear, capped header reading (`MAX_RECORD_HEADERS`). */
function inboxDecoder(Stock: DecoderClass, load: Loader): DecoderClass {
  // Loaded on first use, once kafkajs' modules are all loaded (they require the decoder first).
  let readHeader: unknown;
  class InboxDecoder extends Stock {
    slice(size: number) {
      return new InboxDecoder(this.buffer.slice(this.offset, this.offset + size));
    }

    override readVarIntArray(reader: unknown): unknown[] {
      readHeader ??= load('src/protocol/recordBatch/header/v0/decoder');
      if (reader !== readHeader) return super.readVarIntArray(reader);
      return readRecordHeaders(this, reader as HeaderReader, MAX_RECORD_HEADERS);
    }
  }
  return InboxDecoder;
}

/** The parts of the private kafkajs the inbox's record batch decoder uses. */
function batchParts(load: Loader): BatchDecoderParts {
  const { KafkaJSPartialMessageError } = load('src/errors') as {
    KafkaJSPartialMessageError: new (message: string) => Error;
  };
  const { LOG_APPEND_TIME, CREATE_TIME } = load('src/protocol/timestampTypes') as Record<
    string,
    number
  >;
  return {
    Decoder: load('src/protocol/decoder') as BatchDecoderParts['Decoder'],
    readRecord: load(
      'src/protocol/recordBatch/record/v0/decoder',
    ) as BatchDecoderParts['readRecord'],
    partial: (message) => new KafkaJSPartialMessageError(message),
    timestampType: (attributes) => (attributes & 0x8 ? LOG_APPEND_TIME! : CREATE_TIME!),
  };
}

type KafkaClass = new (config: KafkaConfig) => Kafka;
let kafkajs: KafkaClass | undefined;
let privateFiles: Loader | undefined;

/** A file of the inbox's own kafkajs, by its path under kafkajs' root (tests). @internal */
export function inboxKafkaFile(relative: string): unknown {
  inboxKafka();
  return privateFiles!(relative);
}

/**
 * kafkajs' `Kafka` for the inbox's own consumer, on a private module table with the inbox's
 * `Decoder`, codecs and OffsetOutOfRange recovery; other clients run as stock. Throws unless kafkajs is exactly the
 * version this was checked against. @internal
 */
export function inboxKafka(): KafkaClass {
  if (kafkajs) return kafkajs;
  const root = dirname(require.resolve('kafkajs/package.json'));
  const version = (require('kafkajs/package.json') as { version?: string }).version;
  if (version !== CHECKED_KAFKAJS_VERSION)
    throw new Error(
      `InboxKafkaServer runs on kafkajs ${CHECKED_KAFKAJS_VERSION}, whose decoder it was checked against; ` +
        `kafkajs ${version ?? '(unknown version)'} is installed: install kafkajs@${CHECKED_KAFKAJS_VERSION}`,
    );
  const replace = new Map<string, Replacement>([
    ['src/protocol/decoder.js', (own, load) => inboxDecoder(own as DecoderClass, load)],
    ['src/protocol/message/compression/index.js', (own) => installInboxCodecs(own as never)],
    ['src/consumer/consumerGroup.js', (own) => keepOffsetsOnRangeError(own as ConsumerGroupClass)],
    ['src/protocol/recordBatch/v0/decoder.js', (_, load) => recordBatchDecoder(batchParts(load))],
    [
      'src/protocol/requests/fetch/v4/decodeMessages.js',
      (_, load) =>
        fetchRecordsDecoder(
          batchParts(load),
          load('src/protocol/recordBatch/v0/decoder') as ReturnType<typeof recordBatchDecoder>,
        ),
    ],
  ]);
  const load = (privateFiles = privateLoader(root, replace));
  return (kafkajs = (load('index.js') as { Kafka: KafkaClass }).Kafka);
}
