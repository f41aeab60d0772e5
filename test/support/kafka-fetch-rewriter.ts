import { connect, createServer, type Server, type Socket } from 'node:net';
import { crc32c } from '@nest-outbox/core/internal';
import { flexibleFetch, flexibleFindCoordinator, flexibleMetadata } from './kafka-flexible-answers';

/** Where a Fetch response's record bytes come from. */
export interface FetchedPartition {
  readonly topic: string;
  readonly partition: number;
}

/** Gives one partition's record bytes of a Fetch response as the client should see them. */
export type RecordsRewrite = (records: Buffer, at: FetchedPartition) => Buffer;

const API_FETCH = 1;
const API_METADATA = 3;
const API_FIND_COORDINATOR = 10;

/**
 * A loopback proxy in front of ONE Kafka broker that rewrites the record bytes of Fetch
 * responses, so a real consumer reads bytes the broker would never accept from a producer
 * (a wrong CRC, a corrupt compressed block). Clients bootstrap at `brokers`; Metadata and
 * FindCoordinator answers are rewritten in place to name the proxy's port, so every
 * connection of the client runs through it. Handles the versions kafkajs speaks (Fetch v4-v11,
 * Metadata v1-v8, FindCoordinator v0-v2) and the flexible ones @platformatic/kafka speaks
 * (Fetch v12-v17, Metadata v9-v12, FindCoordinator v4-v6); other APIs pass unchanged.
 */
export class KafkaFetchRewriter {
  /** Rewrites each fetched partition's records; the identity until a test sets it. */
  rewrite: RecordsRewrite = (records) => records;
  private readonly sockets = new Set<Socket>();
  /** Topic names by id (Fetch v13+ names topics by id), learnt from Metadata answers. */
  private readonly topicIds = new Map<string, string>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on a free loopback port, forwarding to the broker at 127.0.0.1:`brokerPort`. */
  static async start(brokerPort: number): Promise<KafkaFetchRewriter> {
    const proxies: KafkaFetchRewriter[] = [];
    const server = createServer((client) => proxies[0]?.accept(client, brokerPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    proxies.push(new KafkaFetchRewriter(server, port));
    return proxies[0]!;
  }

  /** The bootstrap list for clients that should read through the proxy. */
  get brokers(): string[] {
    return [`127.0.0.1:${this.port}`];
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, brokerPort: number): void {
    const upstream = connect(brokerPort, '127.0.0.1');
    this.sockets.add(client).add(upstream);
    const drop = () => {
      for (const s of [client, upstream]) {
        s.destroy();
        this.sockets.delete(s);
      }
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    const asked = new Map<number, [api: number, version: number]>();
    client.on(
      'data',
      frames((frame) => {
        asked.set(frame.readInt32BE(8), [frame.readInt16BE(4), frame.readInt16BE(6)]);
        upstream.write(frame);
      }),
    );
    upstream.on(
      'data',
      frames((frame) => {
        const correlationId = frame.readInt32BE(4);
        const [api, version] = asked.get(correlationId) ?? [-1, -1];
        asked.delete(correlationId);
        try {
          client.write(this.answer(api, version, frame));
        } catch (error) {
          console.error('kafka-fetch-rewriter: cannot rewrite', api, version, error);
          drop();
        }
      }),
    );
  }

  /** The response frame (size prefix included) as the client gets it. */
  private answer(api: number, version: number, frame: Buffer): Buffer {
    if (api === API_METADATA && version >= 1 && version <= 8) return this.metadata(frame, version);
    if (api === API_FIND_COORDINATOR && version <= 2) {
      const r = new Reader(frame, 8);
      r.skip(version >= 1 ? 6 : 2); // throttle time, error code
      if (version >= 1) r.string(); // error message
      r.skip(4); // node id
      r.string(); // host
      frame.writeInt32BE(this.port, r.at);
      return frame;
    }
    if (api === API_FETCH && version >= 4 && version <= 11) return this.fetch(frame, version);
    if (api === API_METADATA && version >= 9 && version <= 12)
      return flexibleMetadata(frame, version, this.port, this.topicIds);
    if (api === API_FIND_COORDINATOR && version >= 4 && version <= 6)
      return flexibleFindCoordinator(frame, this.port);
    if (api === API_FETCH && version >= 12 && version <= 17)
      return flexibleFetch(frame, version, this.topicIds, (records, at) =>
        this.rewrite(records, at),
      );
    return frame;
  }

  private metadata(frame: Buffer, version: number): Buffer {
    const r = new Reader(frame, 8);
    if (version >= 3) r.skip(4);
    for (let n = r.int32(); n > 0; n -= 1) {
      r.skip(4); // node id
      r.string(); // host
      frame.writeInt32BE(this.port, r.at);
      r.skip(4); // port
      r.string(); // rack
    }
    return frame;
  }

  private fetch(frame: Buffer, version: number): Buffer {
    const r = new Reader(frame, 4);
    const parts: Buffer[] = [];
    let copied = r.at;
    r.skip(8 + (version >= 7 ? 6 : 0)); // correlation id, throttle time, error code + session
    for (let topics = r.int32(); topics > 0; topics -= 1) {
      const topic = r.string() ?? '';
      for (let partitions = r.int32(); partitions > 0; partitions -= 1) {
        const partition = r.int32();
        r.skip(2 + 8 + 8 + (version >= 5 ? 8 : 0)); // error, high watermark, lso, log start
        const aborted = r.int32();
        r.skip(Math.max(aborted, 0) * 16 + (version >= 11 ? 4 : 0));
        const size = r.int32();
        if (size < 0) continue;
        const records = frame.subarray(r.at, r.at + size);
        const rewritten = this.rewrite(records, { topic, partition });
        const length = Buffer.alloc(4);
        length.writeInt32BE(rewritten.length);
        parts.push(frame.subarray(copied, r.at - 4), length, rewritten);
        r.skip(size);
        copied = r.at;
      }
    }
    if (r.at !== frame.length) throw new Error(`Fetch v${version} response not parsed to its end`);
    parts.push(frame.subarray(copied));
    const body = Buffer.concat(parts);
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(body.length);
    return Buffer.concat([prefix, body]);
  }
}

/** Splits a byte stream into Kafka frames (int32 size prefix included). */
function frames(each: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
      const end = 4 + pending.readInt32BE(0);
      each(Buffer.from(pending.subarray(0, end)));
      pending = pending.subarray(end);
    }
  };
}

class Reader {
  constructor(
    private readonly buf: Buffer,
    public at: number,
  ) {}
  skip(n: number) {
    this.at += n;
  }
  int32(): number {
    this.at += 4;
    return this.buf.readInt32BE(this.at - 4);
  }
  string(): string | null {
    const length = this.buf.readInt16BE(this.at);
    this.at += 2 + Math.max(length, 0);
    return length < 0 ? null : this.buf.toString('utf8', this.at - length, this.at);
  }
}

/** One v2 record batch inside a partition's record bytes. */
export interface RecordBatchBytes {
  readonly baseOffset: bigint;
  /** The batch's bytes (baseOffset through its last record), a view of the records. */
  readonly bytes: Buffer;
}

/** The whole record batches in a partition's record bytes (a partial tail batch is left out). */
export function recordBatches(records: Buffer): RecordBatchBytes[] {
  const batches: RecordBatchBytes[] = [];
  for (let at = 0; at + 12 <= records.length; ) {
    const end = at + 12 + records.readInt32BE(at + 8);
    if (end > records.length) break;
    batches.push({ baseOffset: records.readBigInt64BE(at), bytes: records.subarray(at, end) });
    at = end;
  }
  return batches;
}

/**
 * `records` with the batch starting at `baseOffset` replaced by `change(a copy of its bytes)`;
 * every other byte (a partial tail batch too) unchanged.
 */
export function replaceBatch(
  records: Buffer,
  baseOffset: bigint,
  change: (batch: Buffer) => Buffer,
): Buffer {
  const batches = recordBatches(records);
  const whole = batches.reduce((n, b) => n + b.bytes.length, 0);
  return Buffer.concat([
    ...batches.map((b) => (b.baseOffset === baseOffset ? change(Buffer.from(b.bytes)) : b.bytes)),
    records.subarray(whole),
  ]);
}

/** Offset of the attributes in a v2 batch (where its CRC-32C coverage starts). */
export const BATCH_ATTRIBUTES_AT = 21;
/** Offset of the first byte after the v2 batch header (the records, or their int32 count). */
export const BATCH_RECORD_COUNT_AT = 57;

/** `batch` with its length field and CRC-32C recomputed, as a producer would have written it. */
export function sealBatch(batch: Buffer): Buffer {
  batch.writeInt32BE(batch.length - 12, 8);
  batch.writeUInt32BE(crc32c(batch, BATCH_ATTRIBUTES_AT), 17);
  return batch;
}
