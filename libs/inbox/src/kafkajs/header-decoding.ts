import type { IHeaders } from 'kafkajs';
import { RecordCursor } from './record-bytes';

/**
 * The inbox's record header limits. kafkajs folds a record's headers with an object spread per
 * header, quadratic in their count (seconds for a few hundred), so `record-batch.guard.ts` hands
 * it at most `PACK_HEADERS_ABOVE` per record: more are packed, unread, into one header that
 * `unpackHeaders` folds in linear time; past `MAX_RECORD_HEADERS` none is kept. @internal
 */

/**
 * The one header a record with too many headers gets instead (value: its header count); such
 * records, and records carrying it, are rejected as `too_many_headers`. @internal
 */
export const TOO_MANY_HEADERS_HEADER = 'x-nest-outbox-too-many-headers';

/** Headers decoded per record at most; the event contract uses about ten. @internal */
export const MAX_RECORD_HEADERS = 1000;

/** Headers per record kafkajs decodes itself at most. @internal */
export const PACK_HEADERS_ABOVE = 16;

/** The one header of a packed record: its header array's bytes, as the record held them. @internal */
export const PACKED_HEADERS_HEADER = 'x-nest-outbox-packed-headers';

/**
 * Folds one header in place as kafkajs' reducer does; read through the prototype chain, write
 * an own property, so `__proto__` comes out the same.
 */
function fold(headers: Record<string, unknown>, name: string, value: Buffer | null) {
  const previous: unknown = headers[name];
  let next: unknown;
  if (previous === undefined) next = value;
  else if (!Array.isArray(previous)) next = [previous, value];
  else if (!Object.hasOwn(headers, name)) next = previous.concat([value]);
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
 * A record's headers as kafkajs would have folded them: `headers` itself, or, when the guard
 * packed them, the packed header array read and folded in linear time. @internal
 */
export function unpackHeaders(headers: IHeaders | undefined): IHeaders | undefined {
  const packed = headers?.[PACKED_HEADERS_HEADER];
  if (!Buffer.isBuffer(packed)) return headers;
  const cursor = new RecordCursor(packed, 0, packed.length);
  const folded: Record<string, unknown> = {};
  for (let count = cursor.varint(); count > 0; count -= 1) {
    const key = cursor.field();
    fold(folded, key === null ? 'null' : key.toString('utf8'), cursor.field());
  }
  return folded as IHeaders;
}
