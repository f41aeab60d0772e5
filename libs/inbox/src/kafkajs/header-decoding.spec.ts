/* eslint-disable @typescript-eslint/no-require-imports -- kafkajs' protocol modules have no types */
import fc from 'fast-check';
import {
  MAX_RECORD_HEADERS,
  readRecordHeaders,
  TOO_MANY_HEADERS_HEADER,
  type HeaderBytesDecoder,
  type HeaderReader,
} from './header-decoding';

type Header = { key: string; value: Buffer | null };
interface Encoder {
  writeVarIntArray(items: unknown[]): Encoder;
  readonly buffer: Buffer;
}
const Encoder = require('kafkajs/src/protocol/encoder') as new () => Encoder;
const Decoder = require('kafkajs/src/protocol/decoder') as new (b: Buffer) => HeaderBytesDecoder & {
  readVarIntArray(reader: HeaderReader): Header[];
};
const encodeHeader = require('kafkajs/src/protocol/recordBatch/header/v0') as (
  h: Header,
) => unknown;
const readHeader = require('kafkajs/src/protocol/recordBatch/header/v0/decoder') as HeaderReader;

/** kafkajs 2.2.4's reducer, verbatim (record/v0/decoder.js): the oracle. */
const kafkajsFold = (obj: Record<string, unknown>, { key, value }: Header) => ({
  ...obj,
  [key]:
    obj[key] === undefined
      ? value
      : Array.isArray(obj[key])
        ? (obj[key] as unknown[]).concat([value])
        : [obj[key], value],
});

/**
 * Inherited values (`Object` for `constructor`) by name: Jest's module sandbox can give the
 * spec's and the module's object literals different `Object`s, which kafkajs never sees.
 */
const byName = (headers: Record<string, unknown>) =>
  Object.entries(headers).map(([k, v]) => [
    k,
    (Array.isArray(v) ? (v as unknown[]) : [v]).map((x) =>
      typeof x === 'function' ? `fn:${x.name}` : x,
    ),
    Array.isArray(v),
  ]);

function headerBytes(headers: Header[]): Buffer {
  return new Encoder().writeVarIntArray(headers.map(encodeHeader)).buffer;
}

const names = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'event_id', ''),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const headerLists = fc.array(
  fc.record({
    key: names,
    value: fc.option(
      fc.uint8Array({ maxLength: 6 }).map((a) => Buffer.from(a)),
      { nil: null },
    ),
  }),
  { maxLength: 40 },
);

describe('readRecordHeaders (linear, capped header decoding)', () => {
  it('Given any header list within the cap, then the headers are exactly what kafkajs 2.2.4 makes of them', () => {
    fc.assert(
      fc.property(headerLists, (headers) => {
        const bytes = headerBytes(headers);
        const expected = new Decoder(bytes).readVarIntArray(readHeader).reduce(kafkajsFold, {});
        const entries = readRecordHeaders(new Decoder(bytes), readHeader, MAX_RECORD_HEADERS);
        const actual = (entries as Header[]).reduce(kafkajsFold, {});
        expect(byName(actual)).toStrictEqual(byName(expected));
        expect(entries).toHaveLength(headers.length);
      }),
      { seed: 20_261_203, numRuns: 500 },
    );
  });

  it('Given more headers than the cap, then none is decoded and the record gets only the count marker', () => {
    const headers = Array.from({ length: 50_000 }, (_, i) => ({
      key: `h${i}`,
      value: Buffer.from('v'),
    }));
    const decoder = new Decoder(headerBytes(headers));
    const started = performance.now();
    const entries = readRecordHeaders(decoder, readHeader, MAX_RECORD_HEADERS);
    const ms = performance.now() - started;
    const folded = (entries as Header[]).reduce(kafkajsFold, {});
    expect(folded).toEqual({ [TOO_MANY_HEADERS_HEADER]: Buffer.from('50000') });
    expect(decoder.offset).toBe(decoder.buffer.length);
    expect(ms).toBeLessThan(50); // decodes nothing: microseconds, with a margin for a loaded machine
  });
});
