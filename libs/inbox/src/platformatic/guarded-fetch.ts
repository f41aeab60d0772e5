import type { Consumer, Reader } from '@platformatic/kafka';
import { guardRecords } from '../kafkajs/record-batch.guard';
import type { PlatformaticKafka } from './platformatic-kafka';

/** One record batch, decoded from guarded (checked, uncompressed) bytes. @internal */
export type DecodedBatch = ReturnType<PlatformaticKafka['readRecordsBatch']>;

/** One partition of a guarded Fetch response. @internal */
export interface FetchedPartition {
  readonly partitionIndex: number;
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly abortedTransactions: readonly { producerId: bigint; firstOffset: bigint }[];
  readonly batches: DecodedBatch[];
}

/** The partitions of one Fetch request, per topic id. @internal */
export interface FetchTopic {
  readonly topicId: string;
  readonly partitions: readonly { partition: number; fetchOffset: bigint; maxBytes: number }[];
}

/** The Fetch settings of the consumer. @internal */
export interface FetchSettings {
  readonly maxWaitTime: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly isolationLevel: number;
}

/** Fetch versions whose request and response the inbox reads (topic ids, same layout). */
const VERSIONS = [17, 16, 15, 14, 13] as const;
const FETCH = 1;

/** What a partition's records become before `@platformatic/kafka` reads them. */
interface RawPartition extends Omit<FetchedPartition, 'batches'> {
  readonly records: Buffer | undefined;
}

/**
 * Fetch on `@platformatic/kafka`'s public low-level API (`createAPI`, its `fetchV13`-`fetchV17`
 * requests, `Reader`, the consumer's own connections from `connectToBrokers`), whose response
 * keeps each partition's record bytes as they came: they pass the inbox's record-batch guard
 * (magic, CRC-32C, codec, counts, framing, decompression capped at `MAX_BATCH_BYTES`, xerial
 * snappy and zstd in pure JS, header counts) before the client's `readRecordsBatches` reads
 * them. A batch failing the guard comes out as one marker record per offset. @internal
 */
export class GuardedFetch {
  private api: ((connection: unknown, ...args: unknown[]) => Promise<RawPartitions>) | undefined;

  constructor(
    private readonly kafka: PlatformaticKafka,
    private readonly consumer: Consumer,
    private readonly settings: FetchSettings,
  ) {}

  async fetch(
    node: number,
    topics: readonly FetchTopic[],
  ): Promise<Map<string, FetchedPartition[]>> {
    const api = (this.api ??= await this.createApi());
    const connection = (await this.consumer.connectToBrokers([node])).get(node);
    const { maxWaitTime, minBytes, maxBytes, isolationLevel } = this.settings;
    const request = topics.map((t) => ({
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        fetchOffset: p.fetchOffset,
        partitionMaxBytes: p.maxBytes,
        currentLeaderEpoch: -1,
        lastFetchedEpoch: -1,
      })),
    }));
    const raw = await api(
      connection,
      maxWaitTime,
      minBytes,
      maxBytes,
      isolationLevel,
      0,
      0,
      request,
      [],
      '',
    );
    const out = new Map<string, FetchedPartition[]>();
    for (const [topicId, partitions] of raw)
      out.set(
        topicId,
        await Promise.all(
          partitions.map(async ({ records, ...p }) => ({
            ...p,
            batches: records
              ? this.kafka.readRecordsBatches(this.kafka.Reader.from(await guardRecords(records)))
              : [],
          })),
        ),
      );
    return out;
  }

  /** The highest Fetch version both the broker and the inbox read. */
  private async createApi() {
    const { kafka } = this;
    const apis = await this.consumer.listApis();
    const broker = apis.find((a) => a.apiKey === FETCH);
    const version = VERSIONS.find(
      (v) => broker && v >= broker.minVersion && v <= broker.maxVersion,
    );
    if (version === undefined)
      throw new Error('the broker serves no Fetch version 13-17: Kafka 3.1 or later is required');
    const { createRequest } = kafka[`fetchV${version}`];
    return kafka.createAPI(FETCH, version, createRequest, parseFetch).async as (
      connection: unknown,
      ...args: unknown[]
    ) => Promise<RawPartitions>;
  }
}

type RawPartitions = Map<string, RawPartition[]>;

/** Fetch v13-v17's response, each partition's record bytes left as they are. */
function parseFetch(_: number, apiKey: number, apiVersion: number, reader: Reader): RawPartitions {
  reader.readInt32(); // throttle time
  const errorCode = reader.readInt16();
  reader.readInt32(); // session id
  const topics = reader.readArray((r) => {
    const topicId = r.readUUID();
    const partitions = r.readArray((p): RawPartition => {
      const partitionIndex = p.readInt32();
      const partitionError = p.readInt16();
      const highWatermark = p.readInt64();
      p.readInt64(); // last stable offset
      p.readInt64(); // log start offset
      const abortedTransactions = p.readArray((a) => ({
        producerId: a.readInt64(),
        firstOffset: a.readInt64(),
      }));
      p.readInt32(); // preferred read replica
      const size = p.readUnsignedVarInt() - 1;
      const records = size > 0 ? p.buffer.slice(p.position, p.position + size) : undefined;
      if (size > 0) p.skip(size);
      const partition = { partitionIndex, errorCode: partitionError, highWatermark };
      return { ...partition, abortedTransactions, records };
    });
    return [topicId, partitions] as const;
  });
  if (errorCode !== 0) throw new FetchFailedError(apiKey, apiVersion, errorCode);
  return new Map(topics);
}

/** A Fetch the broker refused as a whole (its error code). @internal */
export class FetchFailedError extends Error {
  constructor(
    readonly apiKey: number,
    readonly apiVersion: number,
    readonly errorCode: number,
  ) {
    super(`Fetch v${apiVersion} refused by the broker (error code ${errorCode})`);
  }
}
