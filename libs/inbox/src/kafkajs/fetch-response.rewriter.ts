import { FetchGuardError } from './fetch-guard.error';
import { WireReader } from './fetch-wire.reader';
import { guardRecords } from './record-batch.guard';

/** Kafka's Fetch API key and the versions read here: kafkajs 2.2.x' record batch Fetches. @internal */
export const FETCH = { apiKey: 1, minVersion: 4, maxVersion: 11 } as const;

/** Kafka's OFFSET_OUT_OF_RANGE error code. */
const OFFSET_OUT_OF_RANGE = 1;

/** A partition a Fetch answered with OffsetOutOfRange, and the offset it was fetched from. @internal */
export interface OutOfRangeFetch {
  readonly topic: string;
  readonly partition: number;
  readonly fetchOffset: bigint;
}

/**
 * Decides, per partition, whether its OffsetOutOfRange is answered as an empty partition
 * instead (`true`: the handler moved the consumer itself) or left to kafkajs. @internal
 */
export type OutOfRangeHandler = (fetches: readonly OutOfRangeFetch[]) => Promise<boolean[]>;

/**
 * A Fetch response frame (v4-v11, size prefix included) with every partition's records guarded
 * (`guardRecords`), and each OffsetOutOfRange that `onOutOfRange` takes over cleared. Returns
 * `frame` itself when nothing changed. @internal
 */
export async function rewriteFetchResponse(
  frame: Buffer,
  version: number,
  request: Buffer,
  onOutOfRange?: OutOfRangeHandler,
): Promise<Buffer> {
  const r = new WireReader(frame, 8); // size, correlation id
  r.skip(4 + (version >= 7 ? 6 : 0)); // throttle time; error code, session id
  const parts: Buffer[] = [];
  const outOfRange: { errorAt: number; topic: string; partition: number }[] = [];
  let copied = 0;
  for (let topics = r.int32(); topics > 0; topics -= 1) {
    const topic = r.string() ?? '';
    for (let partitions = r.int32(); partitions > 0; partitions -= 1) {
      const partition = r.int32();
      const errorAt = r.at;
      if (r.int16() === OFFSET_OUT_OF_RANGE) outOfRange.push({ errorAt, topic, partition });
      r.skip(16 + (version >= 5 ? 8 : 0)); // high watermark, last stable, log start offsets
      const aborted = r.int32();
      r.skip(Math.max(aborted, 0) * 16 + (version >= 11 ? 4 : 0)); // preferred read replica
      const size = r.int32();
      if (size <= 0) continue;
      const start = r.at;
      r.skip(size);
      const records = frame.subarray(start, r.at);
      const guarded = await guardRecords(records);
      if (guarded === records) continue;
      const length = Buffer.alloc(4);
      length.writeInt32BE(guarded.length);
      parts.push(frame.subarray(copied, start - 4), length, guarded);
      copied = r.at;
    }
  }
  if (r.at !== frame.length)
    throw new FetchGuardError(
      `a Fetch v${version} response has bytes past its last partition: the connection is closed and kafkajs reconnects`,
    );
  if (outOfRange.length > 0 && onOutOfRange) {
    const offsets = fetchOffsets(request, version);
    const taken = await onOutOfRange(
      outOfRange.map(({ topic, partition }) => ({
        topic,
        partition,
        fetchOffset: offsets.get(`${topic}:${partition}`) ?? -1n,
      })),
    );
    for (const [i, { errorAt }] of outOfRange.entries())
      if (taken[i]) frame.writeInt16BE(0, errorAt);
  }
  if (parts.length === 0) return frame;
  parts.push(frame.subarray(copied));
  const out = Buffer.concat(parts);
  out.writeInt32BE(out.length - 4, 0);
  return out;
}

/** The offset each partition of a Fetch request (v4-v11 frame) is fetched from, by `topic:partition`. */
function fetchOffsets(request: Buffer, version: number): Map<string, bigint> {
  const r = new WireReader(request, 12); // size, api key, version, correlation id
  r.string(); // client id
  r.skip(17 + (version >= 7 ? 8 : 0)); // replica, wait, min and max bytes, isolation; session
  const offsets = new Map<string, bigint>();
  for (let topics = r.int32(); topics > 0; topics -= 1) {
    const topic = r.string() ?? '';
    for (let partitions = r.int32(); partitions > 0; partitions -= 1) {
      const partition = r.int32();
      if (version >= 9) r.skip(4); // current leader epoch
      offsets.set(`${topic}:${partition}`, r.int64());
      r.skip((version >= 5 ? 8 : 0) + 4); // log start offset, partition max bytes
    }
  }
  return offsets;
}
