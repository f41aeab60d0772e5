/** Linear, capped decoding of a record's headers for kafkajs 2.2.x' record decoder. @internal */

/**
 * The one header a record with too many headers gets instead (value: its header count); such
 * records, and records carrying it, are rejected as `too_many_headers`. @internal
 */
export const TOO_MANY_HEADERS_HEADER = 'x-nest-outbox-too-many-headers';

/** Headers decoded per record at most; the event contract uses about ten. @internal */
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
 * Folds one header in place as kafkajs' reducer does (kafkajs' spread per header is quadratic);
 * read through the prototype chain, write an own property, so `__proto__` comes out the same.
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
 * Reads a record's header array like kafkajs' `readVarIntArray`, whose `reduce` returns the
 * folded headers; past `max` it skips to the record's end and gives `TOO_MANY_HEADERS_HEADER`.
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
