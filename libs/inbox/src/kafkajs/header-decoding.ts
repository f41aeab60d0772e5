/**
 * Linear decoding of a Kafka record's headers, with a cap on their count, as a drop-in for
 * the `readVarIntArray(HeaderDecoder).reduce(...)` step of kafkajs 2.2.x' record decoder.
 * @internal
 */

/**
 * The one header a record with more than the cap of headers is given instead of its own
 * (value: the record's header count, in decimal). The inbox rejects such a record with
 * reason code `too_many_headers`; a record carrying this header name itself is rejected
 * the same way.
 * @internal
 */
export const TOO_MANY_HEADERS_HEADER = 'x-nest-outbox-too-many-headers';

/**
 * Headers decoded per record at most: a record with more gets only
 * `TOO_MANY_HEADERS_HEADER`, without decoding any of its own. The event contract uses about
 * ten; 1,000 linear-decoded headers cost about a millisecond.
 * @internal
 */
export const MAX_RECORD_HEADERS = 1000;

/** What kafkajs' `Decoder` offers the header step. @internal */
export interface HeaderBytesDecoder {
  offset: number;
  readonly buffer: Buffer;
  readVarInt(): number;
}

/** kafkajs' one-header reader (`recordBatch/header/v0/decoder`). @internal */
export type HeaderReader = (decoder: HeaderBytesDecoder) => {
  readonly key: string | null;
  readonly value: Buffer | null;
};

/**
 * Folds one header into `headers` exactly as kafkajs' reducer does (first value as is, a
 * repeated name as an array of its values in order), in place: `{...obj, [key]: v}` per
 * header made kafkajs quadratic. The read goes through the prototype chain like kafkajs'
 * (`obj[key] === undefined`) and the write makes an own property like its computed key,
 * so names such as `__proto__` or `constructor` come out the same.
 */
function fold(headers: Record<string, unknown>, key: string | null, value: Buffer | null) {
  const name = String(key);
  const previous: unknown = headers[name];
  let next: unknown;
  if (previous === undefined) next = value;
  else if (!Array.isArray(previous)) next = [previous, value];
  else if (!Object.prototype.hasOwnProperty.call(headers, name)) next = previous.concat([value]);
  else {
    previous.push(value);
    next = previous;
  }
  // Plain assignment would call Object.prototype's `__proto__` setter instead.
  if (name === '__proto__')
    Object.defineProperty(headers, name, {
      value: next,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  else headers[name] = next;
}

/**
 * Reads the header array at the decoder's position (the last field of a record). Returns
 * the header entries like kafkajs' `readVarIntArray`, with a `reduce` of their own that
 * returns the already folded headers object (kafkajs only ever calls `reduce` on it), so the
 * record decoder's own reducer never runs. Past `max` headers nothing is decoded: the
 * decoder skips to the record's end and the result is the single `TOO_MANY_HEADERS_HEADER`.
 */
export function readRecordHeaders(
  decoder: HeaderBytesDecoder,
  readHeader: HeaderReader,
  max: number,
): unknown[] {
  const count = decoder.readVarInt();
  if (count === -1) return [];
  const headers: Record<string, unknown> = {};
  let entries: unknown[];
  if (count > max || count < 0) {
    decoder.offset = decoder.buffer.length;
    const value = Buffer.from(String(count));
    fold(headers, TOO_MANY_HEADERS_HEADER, value);
    entries = [{ key: TOO_MANY_HEADERS_HEADER, value }];
  } else {
    entries = new Array<unknown>(count);
    for (let i = 0; i < count; i += 1) {
      const header = readHeader(decoder);
      entries[i] = header;
      fold(headers, header.key, header.value);
    }
  }
  Object.defineProperty(entries, 'reduce', { value: () => headers, enumerable: false });
  return entries;
}
