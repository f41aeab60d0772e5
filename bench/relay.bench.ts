/**
 * Relay benchmark (issue 3): `npm run bench:relay` on the local stack.
 *
 * 1. drain BENCH_EVENTS (default 100,000) pre-filled events over BENCH_AGGREGATES (1,000)
 *    into real Kafka with one relay process, then with three relay processes;
 * 2. the same drain into a publisher that does nothing (NullPublisher, in-process), and the
 *    raw SQL ceiling: a plain claim-then-mark loop with batches of 1,000 and no library code;
 * 3. steady load of BENCH_RATE (500) events/s for BENCH_LATENCY_SECONDS (30 s), written by
 *    @OutboxTransactional() commands, relay in the same app (in-memory wake-up):
 *    commit-to-broker-ack latency p50/p99, from the command's resolution (after COMMIT) to
 *    published_at (set right after the ack); transaction start (created_at) to ack is
 *    printed too;
 * 4. relay RSS while draining BENCH_RSS_ROWS (default 1,000,000) pending rows (null publisher,
 *    child process, VmRSS sampled every 100 ms); the peak over every relay process of the
 *    run (the drains' children) is reported; the latency phase's own process (writer app,
 *    embedded relay and this harness) is printed apart.
 * BENCH_ENCODER=relay|kafkajs (default relay): who encodes the Produce requests of every relay
 * of the run (the relay's own encoder, or kafkajs').
 * Last line: one JSON object.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { Pool } from 'pg';
import { logLevel } from 'kafkajs';
import { inTransaction, OptionChecks } from '@nest-outbox/core';
import { outboxSchemaSql } from '@nest-outbox/outbox';
import {
  RelayLoop,
  relaySchemaSql,
  type KafkaRecordEncoder,
  type RelayModuleOptions,
} from '@nest-outbox/relay';
import { NullPublisher } from '../libs/relay/src/publisher/null.publisher';
import { createTopics, spawnTs, uniqueTopic, waitFor, type TsChild } from '@test/support';
import { BenchCommands, RelayBenchAppModule } from './relay-bench.app';

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const env = new OptionChecks('bench:relay');
const int = (name: string, fallback: number) => env.integerText(name, process.env[name], fallback);
const EVENTS = int('BENCH_EVENTS', 100_000);
const AGGREGATES = int('BENCH_AGGREGATES', 1000);
const BATCH = int('BENCH_BATCH', 1000);
const RATE = int('BENCH_RATE', 500);
const LATENCY_SECONDS = int('BENCH_LATENCY_SECONDS', 30);
const RSS_ROWS = int('BENCH_RSS_ROWS', 1_000_000);
const ENCODER: KafkaRecordEncoder = env.oneOf(
  'BENCH_ENCODER',
  process.env.BENCH_ENCODER || undefined,
  ['relay', 'kafkajs'],
  'relay',
);
/** Comma-separated subset of raw,null,kafka1,kafka3,latency,rss (default: all, in that order). */
const PHASES = new Set(
  (process.env.BENCH_PHASES ?? 'raw,null,kafka1,kafka3,latency,rss')
    .split(',')
    .map((p) => p.trim()),
);
const SCHEMA = `bench_relay_${randomBytes(3).toString('hex')}`;
const pool = new Pool({ connectionString: DATABASE_URL, max: 8 });
/** Peak RSS of the relay processes (the drains' children), the figure the JSON reports. */
let peakRssMb = 0;
/** Peak RSS of this process while it ran the writer app with its embedded relay (latency phase). */
let latencyAppRssMb = 0;

const log = (line: string) => console.log(line);

async function resetTable(): Promise<void> {
  await pool.query(`DROP TABLE IF EXISTS "${SCHEMA}".outbox CASCADE`);
  await pool.query(
    `DROP TABLE IF EXISTS "${SCHEMA}".outbox_relay_audit, "${SCHEMA}".outbox_archive`,
  );
  for (const s of [
    ...outboxSchemaSql({ schema: SCHEMA, table: 'outbox' }),
    ...relaySchemaSql({ schema: SCHEMA, table: 'outbox' }),
  ]) {
    await pool.query(s);
  }
}

/**
 * One INSERT ... SELECT: `n` events over AGGREGATES keys, versions increasing with id; then
 * VACUUM ANALYZE unless `vacuum` is false. Resolves with the INSERT's duration.
 */
async function fill(n: number, vacuum = true): Promise<number> {
  const startedAt = Date.now();
  await pool.query(
    `INSERT INTO "${SCHEMA}".outbox (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload, headers)
     SELECT gen_random_uuid(), 'bench.event', 1, 'bench', 'a' || (g % $2), g / $2 + 1, now(),
            json_build_object('n', g, 'note', repeat('x', 64)), '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}'::jsonb
       FROM generate_series(0, $1 - 1) g`,
    [n, AGGREGATES],
  );
  const insertMs = Date.now() - startedAt;
  if (vacuum) await pool.query(`VACUUM ANALYZE "${SCHEMA}".outbox`);
  return insertMs;
}

async function pending(): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM "${SCHEMA}".outbox WHERE published_at IS NULL AND skipped_at IS NULL`,
  );
  return rows[0]!.n;
}

async function drained(startedAt: number, n: number, timeoutMs = 600_000): Promise<number> {
  await waitFor('drain', async () => (await pending()) === 0, { timeoutMs, intervalMs: 50 });
  return n / ((Date.now() - startedAt) / 1000);
}

function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples VmRSS of `pids`; `relays`: the peak counts towards the reported relay peak. */
function sampleRss(pids: () => number[], relays = true): () => number {
  let peak = 0;
  const timer = setInterval(() => {
    for (const pid of pids()) peak = Math.max(peak, rssMb(pid));
  }, 100);
  return () => {
    clearInterval(timer);
    if (relays) peakRssMb = Math.max(peakRssMb, peak);
    return peak;
  };
}

/** Options of a relay child process (libs/relay/test/relay-child.ts takes them as JSON). */
function relayOptions(topic: string, relayId: string): RelayModuleOptions {
  return {
    connection: DATABASE_URL,
    schema: SCHEMA,
    table: 'outbox',
    kafka: { clientId: relayId, brokers: BROKERS },
    routing: { defaultTopic: topic },
    batchSize: BATCH,
    polling: { minMs: 10, maxMs: 50 },
    retention: false,
    recordEncoder: ENCODER,
    relayId,
  };
}

/** Relay processes started on an empty table, then one committed fill, timed from its commit to drained. */
async function drainWithProcesses(
  count: number,
  topic: string,
  { rows = EVENTS, nullPublisher = false }: { rows?: number; nullPublisher?: boolean } = {},
): Promise<{ rate: number; rss: number }> {
  await resetTable();
  const children: TsChild[] = [];
  for (let i = 0; i < count; i++) {
    children.push(
      spawnTs('libs/relay/test/relay-child.ts', {
        RELAY_TEST_OPTIONS: JSON.stringify(relayOptions(topic, `bench-${i}`)),
        ...(nullPublisher ? { RELAY_PUBLISHER: 'null' } : {}),
      }),
    );
  }
  try {
    for (const child of children) await child.waitForOutput('RELAY READY', 120_000);
    const stopRss = sampleRss(() => children.map((c) => c.process.pid ?? 0));
    const n = rows;
    // Timed from the fill's commit (the events are there, pre-filled), not from its start:
    // the relays cannot see rows of a statement that has not committed yet. The VACUUM
    // ANALYZE that the other variants run before their start runs here during the drain.
    const insertMs = await fill(n, false);
    const startedAt = Date.now();
    await pool.query(`VACUUM ANALYZE "${SCHEMA}".outbox`);
    const rate = await drained(startedAt, n);
    log(
      `  (${count} relay process(es): fill of ${n} rows took ${insertMs} ms before the timed drain; including it: ${(n / ((Date.now() - startedAt + insertMs) / 1000)).toFixed(0)} events/s)`,
    );
    return { rate, rss: stopRss() };
  } finally {
    for (const child of children) await child.stop(20_000);
  }
}

async function drainNullInProcess(): Promise<number> {
  await resetTable();
  const { RelayModule } = await import('@nest-outbox/relay');
  const app = await NestFactory.createApplicationContext(
    RelayModule.forRoot({
      connection: DATABASE_URL,
      schema: SCHEMA,
      routing: { defaultTopic: 'null' },
      publisher: new NullPublisher(),
      batchSize: BATCH,
      polling: { minMs: 10, maxMs: 50 },
      retention: false,
      autoStart: false,
    }),
    { logger: ['error'] },
  );
  await app.init();
  try {
    await fill(EVENTS);
    const startedAt = Date.now();
    await app.get(RelayLoop).start();
    return await drained(startedAt, EVENTS);
  } finally {
    await app.close();
  }
}

/** The ceiling: plain claim-then-mark with batches of BATCH, no library code. */
async function drainRawSql(): Promise<number> {
  await resetTable();
  await fill(EVENTS);
  const T = `"${SCHEMA}".outbox`;
  const startedAt = Date.now();
  for (;;) {
    const rows = await inTransaction(
      pool,
      async (client) =>
        (
          await client.query<{ id: string }>(
            `UPDATE ${T} SET lease_owner = 'raw', lease_expires_at = now() + interval '30 seconds'
              WHERE id IN (SELECT id FROM ${T} WHERE published_at IS NULL AND skipped_at IS NULL
                            AND (lease_expires_at IS NULL OR lease_expires_at < now())
                            ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
              RETURNING id, payload::text`,
            [BATCH],
          )
        ).rows,
    );
    if (rows.length === 0) break;
    await pool.query(
      `UPDATE ${T} SET published_at = now(), lease_expires_at = NULL WHERE id = ANY($1::bigint[]) AND lease_owner = 'raw'`,
      [rows.map((r) => r.id)],
    );
  }
  return EVENTS / ((Date.now() - startedAt) / 1000);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Latency {
  /** Commit (the decorated command resolved) to published_at (set right after the ack). */
  p50: number;
  p99: number;
  /** created_at (the writer's transaction start) to published_at, for comparison. */
  createdP50: number;
  createdP99: number;
  n: number;
}

async function steadyLatency(topic: string): Promise<Latency> {
  await resetTable();
  await pool.query(`DROP TABLE IF EXISTS "${SCHEMA}".items`);
  await pool.query(
    `CREATE TABLE "${SCHEMA}".items (id int PRIMARY KEY, version bigint NOT NULL DEFAULT 0)`,
  );
  await pool.query(
    `INSERT INTO "${SCHEMA}".items (id) SELECT g FROM generate_series(0, ${AGGREGATES - 1}) g`,
  );
  const relay: RelayModuleOptions = {
    connection: DATABASE_URL,
    schema: SCHEMA,
    kafka: { clientId: 'bench-latency', brokers: BROKERS, logLevel: logLevel.NOTHING },
    routing: { defaultTopic: topic },
    batchSize: BATCH,
    polling: { minMs: 10, maxMs: 200 },
    listen: false,
    retention: false,
    recordEncoder: ENCODER,
  };
  const app = await NestFactory.createApplicationContext(
    RelayBenchAppModule.register(DATABASE_URL, SCHEMA, relay),
    { logger: ['error'] },
  );
  await app.init();
  const commands = app.get(BenchCommands);
  const stopRss = sampleRss(() => [process.pid], false);
  try {
    const total = RATE * LATENCY_SECONDS;
    const startedAt = Date.now();
    const inflight = new Set<Promise<void>>();
    const committedAt = new Map<string, number>();
    for (let i = 0; i < total; i++) {
      const due = startedAt + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const p: Promise<void> = commands
        .touch(SCHEMA, i % AGGREGATES)
        .then((eventId) => void committedAt.set(eventId, Date.now()))
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await Promise.all(inflight);
    await drained(startedAt, total, 60_000);
    const { rows } = await pool.query<{ event_id: string; published: number; created: number }>(
      `SELECT event_id, extract(epoch FROM published_at) * 1000 AS published,
              extract(epoch FROM published_at - created_at) * 1000 AS created
         FROM "${SCHEMA}".outbox`,
    );
    const fromCommit = rows
      .map((r) => Number(r.published) - committedAt.get(r.event_id)!)
      .sort((a, b) => a - b);
    const fromCreated = rows.map((r) => Number(r.created)).sort((a, b) => a - b);
    return {
      p50: percentile(fromCommit, 50),
      p99: percentile(fromCommit, 99),
      createdP50: percentile(fromCreated, 50),
      createdP99: percentile(fromCreated, 99),
      n: rows.length,
    };
  } finally {
    latencyAppRssMb = stopRss();
    await app.close();
  }
}

async function main(): Promise<void> {
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${SCHEMA}"`);
  const topic = uniqueTopic('bench-relay');
  const latencyTopic = uniqueTopic('bench-relay-latency');
  await createTopics(
    [
      { topic, numPartitions: 6 },
      { topic: latencyTopic, numPartitions: 6 },
    ],
    BROKERS,
  );
  try {
    log(
      `relay benchmark: ${EVENTS} events over ${AGGREGATES} aggregates, batches of ${BATCH}, ${ENCODER} encoder, schema ${SCHEMA}`,
    );
    const ran = <T>(phase: string, run: () => Promise<T>): Promise<T | undefined> =>
      PHASES.has(phase) ? run() : Promise.resolve(undefined);
    const raw = await ran('raw', drainRawSql);
    if (raw !== undefined) log(`raw SQL claim+mark ceiling: ${raw.toFixed(0)} events/s`);
    const nul = await ran('null', drainNullInProcess);
    if (nul !== undefined)
      log(
        `null publisher (RelayModule, in-process): ${nul.toFixed(0)} events/s${raw ? ` (${(nul / raw).toFixed(2)} of raw)` : ''}`,
      );
    const one = await ran('kafka1', () => drainWithProcesses(1, topic));
    if (one)
      log(
        `Kafka, 1 relay process: ${one.rate.toFixed(0)} events/s (peak RSS ${one.rss.toFixed(0)} MB)`,
      );
    const three = await ran('kafka3', () => drainWithProcesses(3, topic));
    if (three)
      log(
        `Kafka, 3 relay processes: ${three.rate.toFixed(0)} events/s${one ? ` (${(three.rate / one.rate).toFixed(2)}x one` : ' ('}; peak RSS ${three.rss.toFixed(0)} MB)`,
      );
    const latency = await ran('latency', () => steadyLatency(latencyTopic));
    if (latency)
      log(
        `steady ${RATE} events/s for ${LATENCY_SECONDS} s by @OutboxTransactional commands: commit-to-ack p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms; transaction-start (created_at) to ack p50 ${latency.createdP50.toFixed(1)} ms, p99 ${latency.createdP99.toFixed(1)} ms (${latency.n} events; this process, writer app + embedded relay + harness, peaked at ${latencyAppRssMb.toFixed(0)} MB RSS)`,
      );
    const rss = await ran('rss', () =>
      drainWithProcesses(1, topic, { rows: RSS_ROWS, nullPublisher: true }),
    );
    if (rss)
      log(
        `RSS: ${RSS_ROWS} pending rows drained by one relay process (null publisher) at ${rss.rate.toFixed(0)} events/s, peak RSS ${rss.rss.toFixed(0)} MB`,
      );
    const round = (v: number | undefined, digits = 0) =>
      v === undefined ? null : Number(v.toFixed(digits));
    console.log(
      JSON.stringify({
        bench: 'relay',
        encoder: ENCODER,
        kafka_events_per_s: round(one?.rate),
        kafka_events_per_s_3_relays: round(three?.rate),
        null_events_per_s: round(nul),
        raw_sql_events_per_s: round(raw),
        null_vs_raw: nul !== undefined && raw ? round(nul / raw, 3) : null,
        latency_p50_ms: round(latency?.p50, 1),
        latency_p99_ms: round(latency?.p99, 1),
        peak_rss_mb: peakRssMb > 0 ? Math.round(peakRssMb) : null,
      }),
    );
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await pool.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
