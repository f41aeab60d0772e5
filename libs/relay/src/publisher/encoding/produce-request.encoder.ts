import { crc32c } from './crc32c';

/** A header value as kafkajs takes it: bytes, text, or several of them (a repeated header). */
export type ProduceHeaderValue = string | Buffer | (string | Buffer)[];

/** One message of a Produce request, as kafkajs hands it to the request encoder. @internal */
export interface ProduceMessage {
  readonly key?: string | Buffer | null;
  readonly value: string | Buffer | null;
  readonly headers?: Readonly<Record<string, ProduceHeaderValue | undefined>>;
  readonly timestamp?: string | number | null;
}

/** The arguments kafkajs passes to a Produce request (versions 3 to 7 share one layout). @internal */
export interface ProduceRequestArgs {
  readonly acks: number;
  readonly timeout: number;
  readonly transactionalId?: string | null;
  /** kafkajs passes its `Long` (a wrapper of a bigint). */
  readonly producerId?: bigint | number | string | { readonly value: bigint };
  readonly producerEpoch?: number;
  readonly topicData: readonly {
    readonly topic: string;
    readonly partitions: readonly {
      readonly partition: number;
      readonly firstSequence?: number;
      readonly messages: readonly ProduceMessage[];
    }[];
  }[];
}

/** Record batch bytes before the records: from partition leader epoch to the record count. */
const BATCH_HEADER = 4 + 1 + 4 + 2 + 4 + 8 + 8 + 8 + 2 + 4 + 4;
const MAGIC = 2;

/** Bytes of a zigzag varint (Kafka's signed varint). */
function varintSize(value: number): number {
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

function toBigInt(id: ProduceRequestArgs['producerId']): bigint {
  if (id === undefined) return -1n;
  if (typeof id === 'object') return id.value;
  return BigInt(id);
}

function headerEntries(headers: ProduceMessage['headers']): [string, string | Buffer][] {
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
class Lengths {
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
class Writer {
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
function recordBodySize(
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

function writeRecord(
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
 * Encodes the body of a Produce request (versions 3 to 7) with uncompressed, non-transactional
 * record batches (magic 2) in one buffer, byte for byte what kafkajs 2.2.4 encodes for the
 * same arguments, timestamp included (`now`; messages must carry none). kafkajs builds a
 * buffer per record, per header and per varint; this sizes everything first and writes once.
 * @internal
 */
export function encodeProduceRequest(args: ProduceRequestArgs, now = Date.now()): Buffer {
  const lengths = new Lengths();
  const producerId = toBigInt(args.producerId);
  const topicLengths = args.topicData.map((t) => Buffer.byteLength(t.topic, 'utf8'));
  const txLength =
    args.transactionalId == null ? -1 : Buffer.byteLength(args.transactionalId, 'utf8');
  const plan = args.topicData.map((t) =>
    t.partitions.map((p) => {
      const headers = p.messages.map((m) => headerEntries(m.headers));
      const bodies = p.messages.map((m, i) => recordBodySize(m, i, headers[i]!, lengths));
      const recordBytes = bodies.reduce((sum, b) => sum + varintSize(b) + b, 0);
      return { headers, bodies, batchLength: BATCH_HEADER + recordBytes };
    }),
  );
  let total = 2 + Math.max(0, txLength) + 2 + 4 + 4;
  args.topicData.forEach((t, ti) => {
    total += 2 + topicLengths[ti]! + 4;
    for (const p of plan[ti]!) total += 4 + 4 + 8 + 4 + p.batchLength;
  });

  const w = new Writer(Buffer.allocUnsafe(total));
  w.int16(txLength);
  if (args.transactionalId != null) w.raw(args.transactionalId, txLength);
  w.int16(args.acks);
  w.int32(args.timeout);
  w.int32(args.topicData.length);
  args.topicData.forEach((t, ti) => {
    w.int16(topicLengths[ti]!);
    w.raw(t.topic, topicLengths[ti]!);
    w.int32(t.partitions.length);
    t.partitions.forEach((p, pi) => {
      const { headers, bodies, batchLength } = plan[ti]![pi]!;
      w.int32(p.partition);
      w.int32(8 + 4 + batchLength); // record set size
      w.int64(0n); // base offset (the broker assigns it)
      w.int32(batchLength);
      w.int32(0); // partition leader epoch
      w.int8(MAGIC);
      const crcAt = w.offset;
      w.int32(0); // CRC, written below once the rest of the batch is there
      w.int16(args.transactionalId ? 16 : 0); // attributes: no compression, create time
      w.int32(p.messages.length - 1); // last offset delta
      w.int64(BigInt(now)); // first timestamp
      w.int64(BigInt(now)); // max timestamp
      w.int64(producerId);
      w.int16(args.producerEpoch ?? 0);
      w.int32(p.firstSequence ?? 0);
      w.int32(p.messages.length);
      p.messages.forEach((m, i) => writeRecord(w, m, i, headers[i]!, bodies[i]!, lengths));
      w.buf.writeUInt32BE(crc32c(w.buf, crcAt + 4, w.offset), crcAt);
    });
  });
  return w.buf;
}
