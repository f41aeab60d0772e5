import { crc32c } from '@nest-outbox/core/internal';
import {
  encodeRecords,
  headerEntries,
  Lengths,
  recordBodySize,
  varintSize,
  Writer,
  writeRecord,
  type ProduceMessage,
} from './records.writer';

export type { ProduceMessage } from './records.writer';

/** The arguments kafkajs passes to a Produce request (versions 3 to 7 share one layout). @internal */
export interface ProduceRequestArgs {
  readonly acks: number;
  readonly timeout: number;
  readonly transactionalId?: string | null;
  /** kafkajs' compression type (0: none); the batch attributes carry it. */
  readonly compression?: number;
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

function toBigInt(id: ProduceRequestArgs['producerId']): bigint {
  if (id === undefined) return -1n;
  if (typeof id === 'object') return id.value;
  return BigInt(id);
}

/** Compresses one batch's records: kafkajs' codec of the request's compression. @internal */
export type RecordsCompressor = (records: Buffer) => Promise<Buffer>;

/**
 * Encodes the body of a Produce request (v3 to v7, record batches of magic 2) in one buffer,
 * byte for byte what kafkajs 2.2.4 encodes, timestamp `now` included (messages carry none): it
 * sizes everything first and writes once. With `compressed` (per topic and partition), the
 * batches hold those bytes and carry the request's compression in their attributes.
 * @internal
 */
export function encodeProduceRequest(
  args: ProduceRequestArgs,
  now = Date.now(),
  compressed?: readonly (readonly Buffer[])[],
): Buffer {
  const lengths = new Lengths();
  const producerId = toBigInt(args.producerId);
  const topicLengths = args.topicData.map((t) => Buffer.byteLength(t.topic, 'utf8'));
  const txLength =
    args.transactionalId == null ? -1 : Buffer.byteLength(args.transactionalId, 'utf8');
  const plan = args.topicData.map((t, ti) =>
    t.partitions.map((p, pi) => {
      const records = compressed?.[ti]?.[pi];
      if (records)
        return { records, headers: [], bodies: [], batchLength: BATCH_HEADER + records.length };
      const headers = p.messages.map((m) => headerEntries(m.headers));
      const bodies = p.messages.map((m, i) => recordBodySize(m, i, headers[i]!, lengths));
      const recordBytes = bodies.reduce((sum, b) => sum + varintSize(b) + b, 0);
      return { records, headers, bodies, batchLength: BATCH_HEADER + recordBytes };
    }),
  );
  const codec = compressed ? (args.compression ?? 0) & 7 : 0;
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
      const { records, headers, bodies, batchLength } = plan[ti]![pi]!;
      w.int32(p.partition);
      w.int32(8 + 4 + batchLength); // record set size
      w.int64(0n); // base offset (the broker assigns it)
      w.int32(batchLength);
      w.int32(0); // partition leader epoch
      w.int8(MAGIC);
      const crcAt = w.offset;
      w.int32(0); // CRC, written below once the rest of the batch is there
      w.int16((args.transactionalId ? 16 : 0) | codec); // attributes: create time
      w.int32(p.messages.length - 1); // last offset delta
      w.int64(BigInt(now)); // first timestamp
      w.int64(BigInt(now)); // max timestamp
      w.int64(producerId);
      w.int16(args.producerEpoch ?? 0);
      w.int32(p.firstSequence ?? 0);
      w.int32(p.messages.length);
      if (records) w.raw(records, records.length);
      else p.messages.forEach((m, i) => writeRecord(w, m, i, headers[i]!, bodies[i]!, lengths));
      w.buf.writeUInt32BE(crc32c(w.buf, crcAt + 4, w.offset), crcAt);
    });
  });
  return w.buf;
}

/**
 * `encodeProduceRequest` with each batch's records compressed by `compress`: kafkajs' own
 * codec over the same record bytes, so the same request kafkajs builds.
 * @internal
 */
export async function encodeCompressedProduceRequest(
  args: ProduceRequestArgs,
  compress: RecordsCompressor,
  now = Date.now(),
): Promise<Buffer> {
  const compressed = await Promise.all(
    args.topicData.map((t) =>
      Promise.all(t.partitions.map((p) => compress(encodeRecords(p.messages)))),
    ),
  );
  return encodeProduceRequest(args, now, compressed);
}
