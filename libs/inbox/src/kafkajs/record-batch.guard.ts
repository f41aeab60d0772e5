import { crc32c } from '@nest-outbox/core/internal';
import {
  MAX_RECORD_HEADERS,
  PACK_HEADERS_ABOVE,
  PACKED_HEADERS_HEADER,
  TOO_MANY_HEADERS_HEADER,
} from './header-decoding';
import { decompress, MAX_BATCH_BYTES } from './kafka-codecs';
import { fieldBytes, headerBytes, RecordCursor, varint } from './record-bytes';
import { UNDECODABLE_BATCH_HEADER, UndecodableBatchError } from './undecodable-batch';

/** Marker records per undecodable batch at most (its header's offset span, capped). @internal */
export const MAX_BATCH_MARKERS = 100_000;

/** Where the fields of a v2 record batch are (Kafka's wire format). */
const LENGTH_AT = 8;
const MAGIC_AT = 16;
const CRC_AT = 17;
/** The CRC-32C covers the batch from its attributes to its end. */
const ATTRIBUTES_AT = 21;
const LAST_OFFSET_DELTA_AT = 23;
const FIRST_TIMESTAMP_AT = 27;
const COUNT_AT = 57;
const RECORDS_AT = 61;
/** Batch bytes after base offset and length, its record count included. */
const MIN_LENGTH = 49;
const CODECS = 5;
/** A marker record's attributes and timestamp delta; its null key, null value, one header. */
const NO_TIME = Buffer.from([0, 0]);
const NO_KEY_VALUE = Buffer.from([1, 1, 2]);
/** The packed header's name as a record's header key holds it. */
const PACKED_KEY = fieldBytes(Buffer.from(PACKED_HEADERS_HEADER));

/**
 * One partition's record bytes of a Fetch response as kafkajs may read them: every whole v2
 * batch is checked as Kafka's Java consumer checks it (magic, CRC-32C, codec id, counts,
 * framing, offset deltas) and handed on uncompressed (decompressed here, at most
 * `MAX_BATCH_BYTES`), a record with more than `MAX_RECORD_HEADERS` headers gets only
 * `TOO_MANY_HEADERS_HEADER`, one with more than `PACK_HEADERS_ABOVE` (or naming
 * `PACKED_HEADERS_HEADER`) gets them packed into that one header, and a batch failing any
 * check becomes one marker record per offset it claims (at most `MAX_BATCH_MARKERS`),
 * carrying `UNDECODABLE_BATCH_HEADER`. After a batch whose framing or CRC is wrong nothing
 * more is read: the next fetch starts after its markers.
 * Unchanged bytes are returned as they came (a partial tail batch, which kafkajs skips, too).
 * @internal
 */
export async function guardRecords(records: Buffer): Promise<Buffer> {
  const out: Buffer[] = [];
  let changed = false;
  let at = 0;
  while (records.length - at >= MIN_LENGTH) {
    const length = records.readInt32BE(at + LENGTH_AT);
    if (length < MIN_LENGTH) {
      out.push(markerBatch(records.subarray(at, at + 12), 0, 'batch length invalid'));
      changed = true;
      break;
    }
    const end = at + 12 + length;
    if (end > records.length) break; // cut by the fetch size: read whole by the next fetch
    const batch = records.subarray(at, end);
    const { bytes, garbled } = await guardBatch(batch);
    out.push(bytes);
    changed ||= bytes !== batch;
    at = end;
    if (garbled) break;
  }
  if (out.length === 0) return records.subarray(0, 0);
  return changed ? Buffer.concat(out) : records;
}

async function guardBatch(batch: Buffer): Promise<{ bytes: Buffer; garbled?: boolean }> {
  const lastOffsetDelta = batch.readInt32BE(LAST_OFFSET_DELTA_AT);
  const magic = batch.readInt8(MAGIC_AT);
  // A batch failing these has a header nobody wrote; what follows it is not read either.
  const garbled =
    magic !== 2
      ? `magic ${magic}`
      : crc32c(batch, ATTRIBUTES_AT) !== batch.readUInt32BE(CRC_AT)
        ? 'crc mismatch'
        : undefined;
  if (garbled !== undefined)
    return { bytes: markerBatch(batch, lastOffsetDelta, garbled), garbled: true };
  try {
    const codec = batch.readInt16BE(ATTRIBUTES_AT) & 7;
    if (codec >= CODECS) throw new UndecodableBatchError(`unknown codec ${codec}`);
    const count = batch.readInt32BE(COUNT_AT);
    const stored = batch.subarray(RECORDS_AT);
    // A record takes 7 bytes at least, uncompressed.
    const plausible = (codec === 0 ? stored.length : MAX_BATCH_BYTES) / 7;
    if (count < 0 || count > lastOffsetDelta + 1 || count > plausible)
      throw new UndecodableBatchError('record count mismatch');
    const plain = codec === 0 ? stored : await decompress(codec, stored, MAX_BATCH_BYTES);
    const records = checkRecords(plain, count, lastOffsetDelta);
    return { bytes: records === stored ? batch : reframe(batch, records) };
  } catch (error) {
    const detail = error instanceof UndecodableBatchError ? error.detail : 'records malformed';
    return { bytes: markerBatch(batch, lastOffsetDelta, detail) };
  }
}

/**
 * Walks `count` records: framing, offset deltas increasing within `lastOffsetDelta`, header
 * counts. Returns `bytes`, or a copy in which each record with too many headers to hand kafkajs
 * keeps its attributes, timestamp, offset, key and value but one header instead (see above).
 */
function checkRecords(bytes: Buffer, count: number, lastOffsetDelta: number): Buffer {
  const cursor = new RecordCursor(bytes, 0, bytes.length);
  const parts: Buffer[] = [];
  let copied = 0;
  let previous = -1;
  for (let i = 0; i < count; i += 1) {
    const from = cursor.at;
    cursor.end = bytes.length;
    const size = cursor.varint();
    if (size < 0 || cursor.at + size > bytes.length)
      throw new UndecodableBatchError('records truncated');
    const start = cursor.at;
    cursor.end = start + size;
    cursor.skip(1); // attributes
    cursor.varint(10); // timestamp delta
    const delta = cursor.varint();
    cursor.skipField(); // key
    cursor.skipField(); // value
    const head = cursor.at;
    const headers = cursor.varint();
    let one: Buffer | undefined;
    if (headers > MAX_RECORD_HEADERS || headers < -1) {
      one = headerBytes(TOO_MANY_HEADERS_HEADER, String(headers));
      cursor.at = cursor.end;
    } else {
      let named = false;
      for (let h = 0; h < headers; h += 1) {
        const key = cursor.at;
        if (cursor.skipField() === PACKED_HEADERS_HEADER.length)
          named ||= bytes.subarray(key, cursor.at).equals(PACKED_KEY);
        cursor.skipField();
      }
      if (headers > PACK_HEADERS_ABOVE || named)
        one = Buffer.concat([PACKED_KEY, fieldBytes(bytes.subarray(head, cursor.end))]);
    }
    if (cursor.at !== cursor.end) throw new UndecodableBatchError('record malformed');
    if (one) {
      parts.push(bytes.subarray(copied, from), withOneHeader(bytes.subarray(start, head), one));
      copied = cursor.end;
    }
    if (delta <= previous || delta > lastOffsetDelta)
      throw new UndecodableBatchError('offset delta mismatch');
    previous = delta;
  }
  if (cursor.at !== bytes.length) throw new UndecodableBatchError('record count mismatch');
  return parts.length === 0 ? bytes : Buffer.concat([...parts, bytes.subarray(copied)]);
}

/** A record whose fields up to its value are `head`, with `header` as its one header. */
function withOneHeader(head: Buffer, header: Buffer): Buffer {
  const body = Buffer.concat([head, varint(1), header]);
  return Buffer.concat([varint(body.length), body]);
}

/** `batch`'s header (codec: none) around `records`, with its length and CRC-32C recomputed. */
function reframe(batch: Buffer, records: Buffer): Buffer {
  const bytes = Buffer.concat([batch.subarray(0, RECORDS_AT), records]);
  bytes.writeInt16BE(bytes.readInt16BE(ATTRIBUTES_AT) & ~7, ATTRIBUTES_AT);
  return seal(bytes);
}

function seal(bytes: Buffer): Buffer {
  bytes.writeInt32BE(bytes.length - 12, LENGTH_AT);
  bytes.writeUInt32BE(crc32c(bytes, ATTRIBUTES_AT), CRC_AT);
  return bytes;
}

/**
 * A valid uncompressed batch of one marker record per offset of `batch`'s base offset ..
 * + `lastOffsetDelta` (capped), each with no key, no value and `UNDECODABLE_BATCH_HEADER`.
 */
function markerBatch(batch: Buffer, lastOffsetDelta: number, detail: string): Buffer {
  const span = Math.min(Math.max(lastOffsetDelta, 0) + 1, MAX_BATCH_MARKERS);
  const header = Buffer.alloc(RECORDS_AT);
  batch.copy(header, 0, 0, 8); // base offset
  header.writeInt32BE(-1, 12); // partition leader epoch
  header.writeInt8(2, MAGIC_AT);
  header.writeInt32BE(span - 1, LAST_OFFSET_DELTA_AT);
  if (batch.length >= RECORDS_AT) {
    batch.copy(header, FIRST_TIMESTAMP_AT, FIRST_TIMESTAMP_AT, FIRST_TIMESTAMP_AT + 8);
    batch.copy(header, FIRST_TIMESTAMP_AT + 8, FIRST_TIMESTAMP_AT, FIRST_TIMESTAMP_AT + 8);
  }
  header.fill(0xff, 43, COUNT_AT); // no producer id, epoch nor sequence
  header.writeInt32BE(span, COUNT_AT);
  // attributes, timestamp delta 0, [offset delta], no key, no value, one header
  const marker = headerBytes(UNDECODABLE_BATCH_HEADER, detail);
  const records: Buffer[] = [header];
  for (let i = 0; i < span; i += 1) {
    const delta = varint(i);
    records.push(varint(5 + delta.length + marker.length), NO_TIME, delta, NO_KEY_VALUE, marker);
  }
  return seal(Buffer.concat(records));
}
