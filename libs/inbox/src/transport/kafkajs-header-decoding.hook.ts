/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs' protocol modules have no types */
import { isDeepStrictEqual } from 'node:util';
import {
  MAX_RECORD_HEADERS,
  readRecordHeaders,
  type HeaderBytesDecoder,
  type HeaderReader,
} from './header-decoding';

/** The kafkajs version whose record decoder the hook was written and checked against. */
const DECODED_KAFKAJS_VERSION = '2.2.4';

/** Whether the capped linear header decoding is installed in this process, and why not. @internal */
export type HeaderDecodingStatus =
  | { readonly installed: true; readonly maxHeaders: number }
  | { readonly installed: false; readonly reason: string };

interface DecoderClass {
  new (buffer: Buffer): HeaderBytesDecoder;
  prototype: { readVarIntArray: (this: HeaderBytesDecoder, reader: unknown) => unknown[] };
}

type RecordDecode = (decoder: HeaderBytesDecoder, context: object) => unknown;
type RecordEncode = (record: object) => { readonly buffer: Buffer };

interface KafkajsParts {
  readonly Decoder: DecoderClass;
  readonly readHeader: HeaderReader;
  readonly decodeRecord: RecordDecode;
  readonly encodeRecord: RecordEncode;
}

function kafkajsParts(): KafkajsParts | string {
  try {
    const version = (require('kafkajs/package.json') as { version?: string }).version;
    if (version !== DECODED_KAFKAJS_VERSION)
      return `kafkajs ${version ?? '(unknown version)'} is installed; the capped header decoding was checked against kafkajs ${DECODED_KAFKAJS_VERSION} only`;
    const base = 'kafkajs/src/protocol';
    const parts = {
      Decoder: require(`${base}/decoder`) as DecoderClass,
      readHeader: require(`${base}/recordBatch/header/v0/decoder`) as HeaderReader,
      decodeRecord: require(`${base}/recordBatch/record/v0/decoder`) as RecordDecode,
      encodeRecord: require(`${base}/recordBatch/record/v0`) as RecordEncode,
    };
    const shaped = Object.values(parts).every((part) => typeof part === 'function');
    if (!shaped || typeof parts.Decoder.prototype.readVarIntArray !== 'function')
      return "kafkajs' protocol modules are not where kafkajs 2.2.4 has them";
    return parts;
  } catch {
    return "kafkajs' protocol modules cannot be loaded";
  }
}

/** Synthetic records whose decoded headers must be the same with and without the hook. */
const CHECKED_HEADERS: readonly object[] = [
  {},
  { event_id: 'a', event_type: 'b', empty: '' },
  // Names the object's prototype chain already has: kafkajs' reducer sees them as present.
  JSON.parse(
    '{"dup":["1","2","3"],"other":"x","__proto__":"p","constructor":"c","toString":["t","u"]}',
  ) as object,
  { bin: Buffer.from([0, 1, 2, 255]), [`k${'é'.repeat(3)}`]: 'v' },
];

function decodeAll(parts: KafkajsParts): unknown[] {
  return CHECKED_HEADERS.map((headers) => {
    const record = parts.encodeRecord({
      offsetDelta: 0,
      timestampDelta: 0,
      key: 'k',
      value: 'v',
      headers,
    });
    const decoder = new parts.Decoder(record.buffer);
    decoder.readVarInt(); // the record's length
    return parts.decodeRecord(decoder, { firstOffset: '0', firstTimestamp: '0' });
  });
}

let status: HeaderDecodingStatus | undefined;

/**
 * Makes kafkajs decode record headers in linear time and decode none of a record that has
 * more than `MAX_RECORD_HEADERS` (it gets the single header `TOO_MANY_HEADERS_HEADER`,
 * which the inbox rejects as `too_many_headers`). kafkajs 2.2.4 folds headers with an object
 * spread per header: tens of thousands of them in one record of a few hundred KB block the
 * event loop for minutes (no heartbeat, no `/health`, no SIGTERM). Process-wide and once
 * (kafkajs' decoder is shared by its clients): any consumer in the process gets the same
 * headers as before for records within the cap. Fails safe: installs nothing unless kafkajs
 * is exactly 2.2.4 and synthetic records decode to the same result with and without it.
 * @internal
 */
export function installHeaderDecoding(): HeaderDecodingStatus {
  if (status) return status;
  const parts = kafkajsParts();
  if (typeof parts === 'string') return (status = { installed: false, reason: parts });
  const proto = parts.Decoder.prototype;
  const original = proto.readVarIntArray;
  const before = decodeAll(parts);
  proto.readVarIntArray = function readVarIntArray(this: HeaderBytesDecoder, reader: unknown) {
    if (reader !== parts.readHeader) return original.call(this, reader);
    return readRecordHeaders(this, parts.readHeader, MAX_RECORD_HEADERS);
  };
  if (!isDeepStrictEqual(decodeAll(parts), before)) {
    proto.readVarIntArray = original;
    return (status = {
      installed: false,
      reason: "the capped header decoding and kafkajs' disagree on synthetic records",
    });
  }
  return (status = { installed: true, maxHeaders: MAX_RECORD_HEADERS });
}
