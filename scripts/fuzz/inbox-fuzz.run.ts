import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaParser } from '@nestjs/microservices';
import fc from 'fast-check';
import { Kafka, logLevel } from 'kafkajs';
import type { Pool } from 'pg';
import {
  createTestSchema,
  createTopics,
  freePort,
  KAFKA_BROKERS,
  REPO_ROOT,
  spawnTs,
  testKafka,
  uniqueTopic,
  waitFor,
} from '../../test/support';
import { watchHealthOffThread } from '../../test/support/health-watch.thread';
import { valueBytes } from '../../libs/inbox/src/envelope/record-parts';
import { fetchGuard } from '../../libs/inbox/src/kafkajs/fetch-guard.socket';
import { effectsDdl } from '../../libs/inbox/test/inbox-test.app';
import { canaryRecord, fuzzRecords, type FuzzRecord } from './inbox-fuzz.arbitraries';

/** How to run one fuzz pass. */
export interface InboxFuzzOptions {
  readonly records: number;
  readonly seed: number;
  /** Bound of each `/health` probe. @default 1000 */
  readonly healthLimitMs?: number;
  /** `batch`: the consumer's handler is an `@InboxBatchHandler`. @default 'record' */
  readonly handler?: 'record' | 'batch';
  readonly partitions?: number;
  /** Longest wait for lag 0 after the last record was produced. @default 120000 + 5 ms a record */
  readonly drainTimeoutMs?: number;
  readonly log?: (line: string) => void;
}

/** What a fuzz pass found. `failures` empty: every property held. */
export interface InboxFuzzSummary {
  readonly seed: number;
  readonly records: number;
  readonly canaries: number;
  readonly canariesApplied: number;
  readonly stuckPartitions: number;
  readonly escapedErrors: number;
  /** Events whose effect was applied more than once (escaped errors count their redeliveries). */
  readonly redeliveries: number;
  readonly markerLines: number;
  /** Rejected rows whose key and value evidence was checked against their own record. */
  readonly evidenceChecked: number;
  readonly health: { probes: number; slowestMs: number; failures: number };
  readonly shapes: Record<string, number>;
  readonly seconds: number;
  readonly failures: readonly string[];
}

/** Planted in hostile strings; it must reach no log line. */
export const FUZZ_MARKER = 'InboxFuzzMark9Z';
/** Log lines that say an error reached kafkajs (it then redelivers or crashes the consumer). */
const ESCAPED =
  /Error when calling eachMessage|Error when calling eachBatch|\[Consumer\] Crash|KafkaJSNonRetriableError|Maximum call stack/g;

/**
 * Generates `records` Kafka records from `seed` (hostile ones with arbitrary bytes in key,
 * value, header names and values, any header count and nesting, between valid canaries),
 * runs them through a REAL inbox consumer (a child process: the test app, real broker, real
 * PostgreSQL), and checks: every canary applied, lag back to 0, no offset recorded twice,
 * /health answered within the limit throughout, the planted marker in no log line.
 */
export async function runInboxFuzz(options: InboxFuzzOptions): Promise<InboxFuzzSummary> {
  const started = performance.now();
  const log = options.log ?? (() => undefined);
  const partitions = options.partitions ?? 3;
  const db = await createTestSchema('inbox_fuzz');
  const kafka = testKafka();
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  const admin = kafka.admin();
  const topic = uniqueTopic('inbox-fuzz');
  const groupId = uniqueTopic('fuzz-g');
  await db.pool.query(effectsDdl(db.name));
  await Promise.all([producer.connect(), admin.connect()]);
  await createTopics([
    {
      topic,
      numPartitions: partitions,
      configEntries: [{ name: 'max.message.bytes', value: '2097152' }],
    },
  ]);
  const port = await freePort();
  const child = spawnTs('libs/inbox/test/inbox-consumer.entry.ts', {
    INBOX_SCHEMA: db.name,
    INBOX_TOPIC: topic,
    INBOX_GROUP: groupId,
    INBOX_HTTP_PORT: String(port),
    INBOX_HANDLER: options.handler ?? 'record',
  });
  const failures: string[] = [];
  const shapes: Record<string, number> = {};
  const canaries: string[] = [];
  let health = { probes: 0, slowestMs: 0, failures: [] as readonly string[] };
  let stuck = partitions;
  let ends = new Map<number, string>();
  try {
    await child.waitForOutput('INBOX_READY', 120_000);
    const url = `http://127.0.0.1:${port}/health`;
    // The inbox reports up once its consumer handled a record: a first canary.
    const first = canaryRecord();
    canaries.push(first.eventId!);
    await producer.send({ topic, messages: [message(first)], acks: -1 });
    await waitFor('/health 200 after the first canary', async () => (await fetch(url)).ok, {
      timeoutMs: 90_000,
      intervalMs: 250,
    });
    const watch = watchHealthOffThread([url], { limitMs: options.healthLimitMs ?? 1000 });
    const stream = generated(options.seed, options.records);
    let produced = 0;
    for (const slice of slices(stream)) {
      for (const record of slice) {
        shapes[record.shape] = (shapes[record.shape] ?? 0) + 1;
        if (record.eventId) canaries.push(record.eventId);
      }
      await producer.send({ topic, messages: slice.map(message), acks: -1 });
      const before = produced;
      produced += slice.length;
      if (Math.floor(produced / 5000) > Math.floor(before / 5000))
        log(`produced ${produced}/${options.records}`);
    }
    ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p.high]));
    const lagging = async () => {
      const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
      const committed = new Map((entry?.partitions ?? []).map((p) => [p.partition, p.offset]));
      return [...ends].filter(([p, high]) => committed.get(p) !== high).length;
    };
    const drainMs = options.drainTimeoutMs ?? 120_000 + 5 * options.records;
    await waitFor('lag 0 on every partition', async () => (stuck = await lagging()) === 0, {
      timeoutMs: drainMs,
      intervalMs: 1000,
    }).catch(() => failures.push(`${stuck} partition(s) still lagging after ${drainMs} ms`));
    const report = await watch.stop();
    health = report;
    if (report.failures.length > 0)
      failures.push(
        `/health: ${report.failures.length} failed probe(s), e.g. ${report.failures[0]}`,
      );
  } finally {
    await child.stop(30_000).catch(() => undefined);
    await Promise.all([producer.disconnect(), admin.disconnect()]).catch(() => undefined);
  }
  const applied = await count(
    db.pool,
    `SELECT count(DISTINCT event_id)::int AS n FROM "${db.name}".effects WHERE event_id = ANY($1::uuid[])`,
    [canaries],
  );
  // inbox_rejected is unique per offset: a redelivered rejection shows as an escaped error.
  // Effects by event (a batch handler's effect rows carry its chunk's last offset).
  const twice = await count(
    db.pool,
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM "${db.name}".effects GROUP BY event_id HAVING count(*) > 1) AS t`,
  );
  const evidence = await checkEvidence(topic, ends, db).catch((error: unknown) => ({
    checked: 0,
    wrong: [`evidence check failed: ${(error as Error).message}`],
  }));
  if (evidence.wrong.length > 0)
    failures.push(
      `${evidence.wrong.length} rejected row(s) whose evidence is not their own record's, e.g. ${evidence.wrong[0]}`,
    );
  await db.drop();
  const output = child.output();
  // The consumer's whole log, for the failure's classes (`*.log` is git-ignored).
  mkdirSync(join(REPO_ROOT, '.fuzz-logs'), { recursive: true });
  writeFileSync(
    join(REPO_ROOT, '.fuzz-logs', `inbox-${options.seed}-${options.records}.log`),
    output,
  );
  const escaped = output.match(ESCAPED)?.length ?? 0;
  const markerLines = output.split('\n').filter((line) => line.includes(FUZZ_MARKER)).length;
  if (applied !== canaries.length)
    failures.push(`${canaries.length - applied} canar(ies) not applied`);
  if (twice > 0) failures.push(`${twice} event(s) applied more than once`);
  if (escaped > 0) failures.push(`${escaped} error(s) escaped to kafkajs`);
  if (markerLines > 0) failures.push(`${markerLines} log line(s) with the planted marker`);
  return {
    seed: options.seed,
    records: options.records,
    canaries: canaries.length,
    canariesApplied: applied,
    stuckPartitions: stuck,
    escapedErrors: escaped,
    redeliveries: twice,
    markerLines,
    evidenceChecked: evidence.checked,
    health: {
      probes: health.probes,
      slowestMs: health.slowestMs,
      failures: health.failures.length,
    },
    shapes,
    seconds: Math.round((performance.now() - started) / 1000),
    failures,
  };
}

const MAX_KEY_BYTES = 1024;

/**
 * Each rejected row against its own record, read back from the topic: its key bytes (up to
 * 1 KiB) and its value's length and SHA-256, as the inbox derives them from what Nest's
 * KafkaParser makes of the record (`valueBytes`). Catches evidence taken from another record
 * (e.g. the last of a chunk). Streams the topic; holds only the rejected rows.
 */
async function checkEvidence(
  topic: string,
  ends: ReadonlyMap<number, string>,
  db: { pool: Pool; name: string },
): Promise<{ checked: number; wrong: string[] }> {
  const { rows } = await db.pool.query<{
    at: string;
    key_bytes: Buffer | null;
    value_length: number | null;
    value_sha256: Buffer | null;
  }>(
    `SELECT kafka_partition || '/' || kafka_offset AS at, key_bytes, value_length, value_sha256
     FROM "${db.name}".inbox_rejected WHERE topic = $1`,
    [topic],
  );
  const rejected = new Map(rows.map((r) => [r.at, r]));
  const wrong: string[] = [];
  let checked = 0;
  const remaining = new Map([...ends].filter(([, high]) => Number(high) > 0));
  if (rejected.size === 0 || remaining.size === 0) return { checked, wrong };
  const parser = new KafkaParser();
  // kafkajs on the inbox's guarded sockets, as its consumer: stock kafkajs stalls on hostile header counts.
  const kafka = new Kafka({
    brokers: KAFKA_BROKERS,
    logLevel: logLevel.NOTHING,
    socketFactory: fetchGuard(),
  });
  const consumer = kafka.consumer({ groupId: uniqueTopic('fuzz-evidence'), maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    await consumer.run({
      eachMessage: ({ partition, message }) => {
        const row = rejected.get(`${partition}/${message.offset}`);
        if (row) {
          checked += 1;
          const parsed = parser.parse<{ key: unknown; value: unknown }>({ ...message });
          const key =
            Buffer.isBuffer(parsed.key) || typeof parsed.key === 'string'
              ? Buffer.from(parsed.key)
              : undefined;
          const value = valueBytes(parsed.value);
          const expected = {
            key: key && key.length <= MAX_KEY_BYTES ? key.toString('hex') : null,
            length: value?.length ?? null,
            sha256: value ? createHash('sha256').update(value).digest('hex') : null,
          };
          const actual = {
            key: row.key_bytes?.toString('hex') ?? null,
            length: row.value_length,
            sha256: row.value_sha256?.toString('hex') ?? null,
          };
          if (JSON.stringify(actual) !== JSON.stringify(expected))
            wrong.push(`partition/offset ${partition}/${message.offset}`);
        }
        if (Number(message.offset) + 1 >= Number(remaining.get(partition) ?? 0)) {
          remaining.delete(partition);
          if (remaining.size === 0) done();
        }
        return Promise.resolve();
      },
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      finished,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('topic not read back within 60 s')), 60_000);
      }),
    ]).finally(() => clearTimeout(timer));
  } finally {
    await consumer.disconnect();
  }
  return { checked, wrong };
}

/** Bytes a record takes, roughly (names, values, key). */
function roughSize(record: FuzzRecord): number {
  let size = 64 + (record.key?.length ?? 0) * 3 + (record.value?.length ?? 0) * 3;
  for (const [name, value] of Object.entries(record.headers))
    size += name.length * 3 + 8 + (value === undefined ? 0 : String(value).length * 3);
  return size;
}

/** Records generated per block: a long run never holds more than one block in memory. */
const BLOCK = 1000;

/**
 * `total` generated records, block by block: block i is drawn from seed `seed + i`, so a run of
 * up to 1,000 records is exactly `fc.sample(..., { seed, numRuns })` (regression seeds replay)
 * and a 100,000-record run needs the memory of one block, not of the whole run.
 */
function* generated(seed: number, total: number): Generator<FuzzRecord> {
  for (let block = 0; block * BLOCK < total; block += 1) {
    const numRuns = Math.min(BLOCK, total - block * BLOCK);
    yield* fc.sample(fuzzRecords(FUZZ_MARKER), { seed: (seed + block) >>> 0, numRuns });
  }
}

/** The records in produce requests of at most 200 records and about 600 KB each. */
function* slices(stream: Iterable<FuzzRecord>): Generator<FuzzRecord[]> {
  let slice: FuzzRecord[] = [];
  let size = 0;
  for (const record of stream) {
    const bytes = roughSize(record);
    if (slice.length > 0 && (slice.length >= 200 || size + bytes > 600_000)) {
      yield slice;
      slice = [];
      size = 0;
    }
    slice.push(record);
    size += bytes;
  }
  if (slice.length > 0) yield slice;
}

function message(record: FuzzRecord) {
  return { key: record.key, value: record.value, headers: record.headers };
}

async function count(pool: Pool, sql: string, params: unknown[] = []): Promise<number> {
  return (await pool.query<{ n: number }>(sql, params)).rows[0]?.n ?? 0;
}
