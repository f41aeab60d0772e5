/** A header value as kafkajs takes it: bytes, text, or several of them (a repeated header). */
type ProduceHeaderValue = string | Buffer | (string | Buffer)[];

/** One message of a Produce request, as kafkajs hands it to the request encoder. @internal */
export interface ProduceMessage {
  readonly key?: string | Buffer | null;
  readonly value: string | Buffer | null;
  readonly headers?: Readonly<Record<string, ProduceHeaderValue | undefined>>;
  readonly timestamp?: string | number | null;
}

/** Bytes of a zigzag varint (Kafka's signed varint). */
export function varintSize(value: number): number {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  let bytes = 1;
  while (v >= 0x80) {
    v >>>= 7;
    bytes++;
  }
  return bytes;
}

function byteLength(value: string | Buffer): number {
  return typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : value.length;
}

export function headerEntries(headers: ProduceMessage['headers']): [string, string | Buffer][] {
  const entries: [string, string | Buffer][] = [];
  if (!headers) return entries;
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (Array.isArray(value)) for (const v of value) entries.push([name, checked(name, v)]);
    else entries.push([name, checked(name, value)]);
  }
  return entries;
}

function checked(name: string, value: unknown): string | Buffer {
  if (typeof value === 'string' || Buffer.isBuffer(value)) return value;
  // kafkajs fails on these too (Buffer.byteLength of a non-string): say which header.
  throw new TypeError(`Kafka header "${name}" must be a string or a Buffer (got ${typeof value})`);
}

/**
 * Lengths computed in the first pass and consumed in the same order by the second, so that
 * each string's UTF-8 length is measured once.
 */
export class Lengths {
  readonly items: number[] = [];
  private next = 0;
  push(n: number): number {
    this.items.push(n);
    return n;
  }
  shift(): number {
    return this.items[this.next++]!;
  }
}

/** Writes Kafka's primitive types into one preallocated buffer. */
export class Writer {
  offset = 0;
  constructor(readonly buf: Buffer) {}

  int8(v: number): void {
    this.buf[this.offset++] = v & 0xff;
  }
  int16(v: number): void {
    this.buf.writeInt16BE(v, this.offset);
    this.offset += 2;
  }
  int32(v: number): void {
    this.buf.writeInt32BE(v, this.offset);
    this.offset += 4;
  }
  int64(v: bigint): void {
    this.buf.writeBigInt64BE(v, this.offset);
    this.offset += 8;
  }
  varint(value: number): void {
    let v = ((value << 1) ^ (value >> 31)) >>> 0;
    while (v >= 0x80) {
      this.buf[this.offset++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.offset++] = v;
  }
  raw(value: string | Buffer, length: number): void {
    if (typeof value !== 'string') value.copy(this.buf, this.offset);
    else if (length === value.length && length < 48) {
      // Short ASCII (ids, header names): a loop beats the native write call.
      for (let i = 0; i < length; i++) this.buf[this.offset + i] = value.charCodeAt(i);
    } else this.buf.write(value, this.offset, length, 'utf8');
    this.offset += length;
  }
}

/** Size of one record's body (after its own length varint); pushes the string lengths. */
export function recordBodySize(
  message: ProduceMessage,
  offsetDelta: number,
  headers: [string, string | Buffer][],
  lengths: Lengths,
): number {
  let size = 1 + 1 + varintSize(offsetDelta); // attributes, timestamp delta 0, offset delta
  for (const field of [message.key, message.value]) {
    if (field == null) size += 1;
    else {
      const n = lengths.push(byteLength(field));
      size += varintSize(n) + n;
    }
  }
  size += varintSize(headers.length);
  for (const [name, value] of headers) {
    const k = lengths.push(Buffer.byteLength(name, 'utf8'));
    const v = lengths.push(byteLength(value));
    size += varintSize(k) + k + varintSize(v) + v;
  }
  return size;
}

export function writeRecord(
  w: Writer,
  message: ProduceMessage,
  offsetDelta: number,
  headers: [string, string | Buffer][],
  bodySize: number,
  lengths: Lengths,
): void {
  w.varint(bodySize);
  w.int8(0); // attributes
  w.varint(0); // timestamp delta: every record carries the batch's (publish) time
  w.varint(offsetDelta);
  for (const field of [message.key, message.value]) {
    if (field == null) w.varint(-1);
    else {
      const n = lengths.shift();
      w.varint(n);
      w.raw(field, n);
    }
  }
  w.varint(headers.length);
  for (const [name, value] of headers) {
    const k = lengths.shift();
    w.varint(k);
    w.raw(name, k);
    const v = lengths.shift();
    w.varint(v);
    w.raw(value, v);
  }
}

/**
 * The records of one batch (their bytes after the record count), for a codec to compress:
 * the same bytes the uncompressed batch holds.
 * @internal
 */
export function encodeRecords(messages: readonly ProduceMessage[]): Buffer {
  const lengths = new Lengths();
  const headers = messages.map((m) => headerEntries(m.headers));
  const bodies = messages.map((m, i) => recordBodySize(m, i, headers[i]!, lengths));
  const w = new Writer(Buffer.allocUnsafe(bodies.reduce((sum, b) => sum + varintSize(b) + b, 0)));
  messages.forEach((m, i) => writeRecord(w, m, i, headers[i]!, bodies[i]!, lengths));
  return w.buf;
}
