import { Kafka, logLevel, type Producer } from 'kafkajs';
import { Pool } from 'pg';
import { inTransaction } from '@nest-outbox/core/internal';
import { ownCpuSeconds } from './proc-stats';

/** What a raw drain moves: a qualified outbox table (validated by the caller) in batches. */
export interface RawDrainTarget {
  readonly pool: Pool;
  readonly table: string;
  readonly batch: number;
  /**
   * The raw Kafka loop's records: `contract` (default) carries the headers the relay sends (the
   * event's own headers and the contract fields, as plain code would build them); `bare`, none.
   */
  readonly headers?: 'contract' | 'bare';
}

/** A claimed row as the raw Kafka loop reads it. */
interface RawRow {
  readonly id: string;
  readonly aggregate_id: string;
  readonly payload: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly schema_version: number;
  readonly aggregate_type: string;
  readonly aggregate_version: string;
  readonly occurred_at: string;
  readonly headers: Record<string, string>;
}

const RAW_COLUMNS = `id, aggregate_id, payload::text AS payload, event_id, event_type, schema_version,
  aggregate_type, aggregate_version::text AS aggregate_version,
  to_json(occurred_at) #>> '{}' AS occurred_at, headers`;

/**
 * The headers the relay sends for `row`: its own, then the contract fields. Plain assignments,
 * as the relay builds them: V8 runs an object spread of the row's headers far slower.
 */
function contractHeaders(row: RawRow): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in row.headers) out[name] = row.headers[name]!;
  out.event_id = row.event_id;
  out.event_type = row.event_type;
  out.schema_version = String(row.schema_version);
  out.aggregate_type = row.aggregate_type;
  out.aggregate_id = row.aggregate_id;
  out.aggregate_version = row.aggregate_version;
  out.occurred_at = row.occurred_at;
  out['content-type'] = 'application/json';
  return out;
}

/** A raw drain's figures. */
export interface RawDrain {
  readonly rate: number;
  /** Node CPU (user + system) of the loop's process per event, in microseconds. */
  readonly cpuUsPerEvent: number;
}

/** Leases the next `$1` pending rows, oldest first, rows of other claimers skipped. */
const claimSql = (table: string, columns: string) =>
  `UPDATE ${table} SET lease_owner = 'raw', lease_expires_at = now() + interval '30 seconds'
    WHERE id IN (SELECT id FROM ${table} WHERE published_at IS NULL AND skipped_at IS NULL
                  AND (lease_expires_at IS NULL OR lease_expires_at < now())
                  ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
    RETURNING ${columns}`;

const markSql = (table: string) =>
  `UPDATE ${table} SET published_at = now(), lease_expires_at = NULL WHERE id = ANY($1::bigint[]) AND lease_owner = 'raw'`;

/**
 * The SQL ceiling: plain claim-then-mark with batches of `batch`, no library code, no Kafka
 * (the claim in a transaction of its own, synchronous commit as the server has it).
 */
export async function drainRawSql({ pool, table, batch }: RawDrainTarget, events: number) {
  const startedAt = Date.now();
  for (;;) {
    const rows = await inTransaction(
      pool,
      async (client) =>
        (await client.query<{ id: string }>(claimSql(table, 'id, payload::text'), [batch])).rows,
    );
    if (rows.length === 0) break;
    await pool.query(markSql(table), [rows.map((r) => r.id)]);
  }
  return events / ((Date.now() - startedAt) / 1000);
}

/** Below the broker's default record batch limit (1 MB), as the relay's `maxRequestBytes`. */
const MAX_REQUEST_BYTES = 900_000;

/** Consecutive runs of rows whose payloads add up to at most `max` bytes (one row at least). */
function byBytes<T extends { payload: string }>(rows: readonly T[], max: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (current.length > 0 && bytes + row.payload.length > max) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += row.payload.length;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** A kafkajs producer as plain code makes one (no idempotence, default partitioner). */
export async function rawProducer(brokers: string[]): Promise<Producer> {
  const kafka = new Kafka({ clientId: 'bench-raw', brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  return producer;
}

/**
 * The Kafka reference: a plain claim + kafkajs `sendBatch` + mark loop, one batch at a time,
 * key = aggregate id, value = the payload text, the relay's headers (unless `bare`), no
 * per-aggregate ordering, no pipelining. Each statement autocommits on a pool whose sessions commit asynchronously, as
 * the relay's bookkeeping does by default. `before` runs once the clock started (the caller's
 * VACUUM ANALYZE, as in the relay's drain).
 */
export async function drainRawKafka(
  { table, batch, headers = 'contract' }: Omit<RawDrainTarget, 'pool'>,
  connectionString: string,
  producer: Pick<Producer, 'sendBatch'>,
  topic: string,
  events: number,
  before: () => Promise<unknown>,
): Promise<RawDrain> {
  const pool = new Pool({ connectionString, max: 2, options: '-c synchronous_commit=off' });
  const withHeaders = headers === 'contract';
  const claim = claimSql(
    table,
    withHeaders ? RAW_COLUMNS : 'id, aggregate_id, payload::text AS payload',
  );
  const mark = markSql(table);
  try {
    await pool.query('SELECT 1');
    const cpuBefore = ownCpuSeconds();
    const startedAt = Date.now();
    const side = before();
    for (;;) {
      const { rows } = await pool.query<RawRow>(claim, [batch]);
      if (rows.length === 0) break;
      for (const chunk of byBytes(rows, MAX_REQUEST_BYTES))
        await producer.sendBatch({
          acks: -1,
          topicMessages: [
            {
              topic,
              messages: chunk.map((r) => ({
                key: r.aggregate_id,
                value: r.payload,
                ...(withHeaders ? { headers: contractHeaders(r) } : {}),
              })),
            },
          ],
        });
      await pool.query(mark, [rows.map((r) => r.id)]);
    }
    const seconds = (Date.now() - startedAt) / 1000;
    const cpu = ownCpuSeconds() - cpuBefore;
    await side;
    return { rate: events / seconds, cpuUsPerEvent: (cpu * 1e6) / events };
  } finally {
    await pool.end();
  }
}
