import { Kafka, logLevel, type Consumer, type EachBatchPayload, type KafkaMessage } from 'kafkajs';
import { Pool, type PoolClient } from 'pg';
import { inTransaction } from '@nest-outbox/core/internal';

/** What the raw consumer needs: where to read, where to write, how it chunks. */
export interface RawInboxSetup {
  readonly brokers: string[];
  readonly topic: string;
  readonly databaseUrl: string;
  readonly schema: string;
  /** The inbox's consumer name (its rows are keyed by it). */
  readonly consumer: string;
  readonly chunkSize: number;
  readonly partitionsConsumedConcurrently: number;
}

/** Counts as the raw consumer commits its chunks. */
export interface RawInboxProgress {
  /** process.hrtime.bigint() when the first record reached the loop. */
  firstAt: bigint | undefined;
  applied: number;
  duplicates: number;
}

/** One accepted record: the envelope headers the inbox reads, and the projection's input. */
export interface RawEvent {
  readonly offset: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly schemaVersion: number;
  readonly aggregateType: string;
  readonly aggregateId: string;
  readonly aggregateVersion: string;
  readonly total: number;
}

/** A record's event from its offset, value and a header lookup (each client has its shape). */
export function rawEvent(
  offset: string,
  value: Buffer | null,
  header: (name: string) => string,
): RawEvent {
  const { total } = JSON.parse(value?.toString() ?? '{}') as { total: number };
  return {
    offset,
    eventId: header('event_id'),
    eventType: header('event_type'),
    schemaVersion: Number(header('schema_version')),
    aggregateType: header('aggregate_type'),
    aggregateId: header('aggregate_id'),
    aggregateVersion: header('aggregate_version'),
    total,
  };
}

const toEvent = (m: KafkaMessage): RawEvent =>
  rawEvent(m.offset, m.value, (name) => m.headers?.[name]?.toString() ?? '');

/**
 * The inbox's registration statement (`InboxStore.registerMany`, as the inbox sends it when
 * this bench was written): the chunk's first occurrences, in event-id order, one INSERT ...
 * SELECT FROM unnest ... ON CONFLICT DO NOTHING RETURNING the new ones.
 */
const registerSql = (
  schema: string,
) => `INSERT INTO "${schema}".inbox (consumer, event_id, event_type, schema_version, aggregate_type,
  aggregate_id, aggregate_version, topic, kafka_partition, kafka_offset)
SELECT $1, r.event_id, r.event_type, r.schema_version, r.aggregate_type, r.aggregate_id,
  r.aggregate_version, $2, $3, r.kafka_offset
FROM unnest($4::uuid[], $5::text[], $6::integer[], $7::text[], $8::text[], $9::bigint[], $10::bigint[])
  WITH ORDINALITY AS r(event_id, event_type, schema_version, aggregate_type, aggregate_id,
    aggregate_version, kafka_offset, ord)
ORDER BY r.ord
ON CONFLICT (consumer, event_id) DO NOTHING
RETURNING event_id::text AS event_id`;

/** The bench handler's projection UPSERT (bench/inbox-bench.app.ts), one per new event. */
const projectSql = (schema: string) =>
  `INSERT INTO "${schema}".projection (aggregate_id, events, total) VALUES ($1, 1, $2)
   ON CONFLICT (aggregate_id) DO UPDATE SET events = projection.events + 1, total = projection.total + EXCLUDED.total`;

/**
 * One chunk of one partition in ONE PostgreSQL transaction: the inbox's registration statement
 * and the projection UPSERT of every new event (what both raw loops do with a chunk).
 */
export class RawChunkApplier {
  readonly progress: RawInboxProgress = { firstAt: undefined, applied: 0, duplicates: 0 };
  private readonly pool: Pool;
  private readonly register: string;
  private readonly project: string;

  constructor(private readonly setup: RawInboxSetup) {
    this.pool = new Pool({
      connectionString: setup.databaseUrl,
      max: setup.partitionsConsumedConcurrently,
    });
    this.register = registerSql(setup.schema);
    this.project = projectSql(setup.schema);
  }

  /** Applies `events` (one partition's, in offset order) and counts them once committed. */
  async apply(partition: number, events: readonly RawEvent[]): Promise<void> {
    const counts = await inTransaction(this.pool, (client) =>
      this.chunk(client, partition, events),
    );
    this.progress.applied += counts.applied;
    this.progress.duplicates += counts.duplicates;
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private async chunk(client: PoolClient, partition: number, events: readonly RawEvent[]) {
    const firsts = new Map<string, RawEvent>();
    for (const e of events) if (!firsts.has(e.eventId)) firsts.set(e.eventId, e);
    const sorted = [...firsts.values()].sort((a, b) =>
      a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0,
    );
    const column = <T>(pick: (e: RawEvent) => T) => sorted.map(pick);
    const { rows } = await client.query<{ event_id: string }>(this.register, [
      this.setup.consumer,
      this.setup.topic,
      partition,
      column((e) => e.eventId),
      column((e) => e.eventType),
      column((e) => e.schemaVersion),
      column((e) => e.aggregateType),
      column((e) => e.aggregateId),
      column((e) => e.aggregateVersion),
      column((e) => e.offset),
    ]);
    const fresh = new Set(rows.map((r) => r.event_id));
    let applied = 0;
    for (const e of events) {
      // New at its first offset only (a record repeated in the chunk is a duplicate after it).
      if (firsts.get(e.eventId) !== e || !fresh.has(e.eventId)) continue;
      await client.query(this.project, [e.aggregateId, e.total]);
      applied++;
    }
    return { applied, duplicates: events.length - applied };
  }
}

/**
 * The inbox bench's reference on kafkajs: plain `eachBatch`, chunks of `chunkSize` records of
 * one partition, each applied by `RawChunkApplier`; offsets resolved after the commit and
 * committed by kafkajs (so never ahead of the effect). No Nest, no guard or interceptor, no
 * per-record pipeline.
 */
export class RawInboxConsumer {
  private readonly chunks: RawChunkApplier;
  private readonly consumer: Consumer;

  constructor(
    private readonly setup: RawInboxSetup,
    groupId: string,
  ) {
    this.chunks = new RawChunkApplier(setup);
    const kafka = new Kafka({
      clientId: 'bench-inbox-raw',
      brokers: setup.brokers,
      logLevel: logLevel.ERROR,
    });
    this.consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
  }

  get progress(): RawInboxProgress {
    return this.chunks.progress;
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [this.setup.topic], fromBeginning: true });
    await this.consumer.run({
      autoCommit: true,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.setup.partitionsConsumedConcurrently,
      eachBatch: (payload) => this.eachBatch(payload),
    });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
    await this.chunks.close();
  }

  private async eachBatch({
    batch,
    resolveOffset,
    heartbeat,
    isRunning,
    isStale,
  }: EachBatchPayload) {
    this.progress.firstAt ??= process.hrtime.bigint();
    const { chunkSize } = this.setup;
    for (let i = 0; i < batch.messages.length; i += chunkSize) {
      if (!isRunning() || isStale()) return;
      const chunk = batch.messages.slice(i, i + chunkSize);
      await this.chunks.apply(batch.partition, chunk.map(toEvent));
      resolveOffset(chunk[chunk.length - 1]!.offset);
      await heartbeat();
    }
  }
}
