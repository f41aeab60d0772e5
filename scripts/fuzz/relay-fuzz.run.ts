import { randomUUID } from 'node:crypto';
import { EVENT_HEADERS } from '@nest-outbox/core';
import { inTransaction } from '@nest-outbox/core/internal';
import type { LoggerService } from '@nestjs/common';
import fc from 'fast-check';
import type { Pool } from 'pg';
import {
  consumeUntil,
  createTopics,
  KAFKA_BROKERS,
  uniqueTopic,
  waitFor,
  type ConsumedRecord,
} from '../../test/support';
import { RelayScene } from '../../libs/relay/test/relay-test.fixture';
import { expectedFate, type Fate } from './relay-fuzz.oracle';
import { fuzzRow, type FuzzRow } from './relay-fuzz.arbitraries';

/** How to run one relay fuzz pass. */
export interface RelayFuzzOptions {
  readonly rows: number;
  readonly seed: number;
  /** Fuzz rows written between two control events. @default 50 */
  readonly controlEvery?: number;
  readonly log?: (line: string) => void;
}

/** What a relay fuzz pass found. `failures` empty: every property held. */
export interface RelayFuzzSummary {
  readonly seed: number;
  readonly rows: number;
  readonly published: number;
  /** Rows parked, by the column their reason names. */
  readonly parked: Record<string, number>;
  /** Rows waiting behind a parked row of their aggregate. */
  readonly held: number;
  readonly controls: number;
  readonly controlLatencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Relay log lines saying a batch or a claim failed (a stall). */
  readonly loopErrors: number;
  readonly recordsChecked: number;
  readonly seconds: number;
  readonly failures: readonly string[];
}

/** Counts the relay's "batch failed" and "claim failed" lines; prints nothing. */
class CountingLogger implements LoggerService {
  loopErrors = 0;
  log(): void {}
  warn(): void {}
  error(message: unknown): void {
    if (/batch failed|claim failed/.test(String(message))) this.loopErrors++;
  }
}

const INSERT = (schema: string) => `INSERT INTO "${schema}".outbox
  (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version,
   occurred_at, payload, headers, topic, created_at)
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::bigint[],
    $7::timestamptz[], $8::json[], $9::jsonb[], $10::text[], $11::timestamptz[])
  RETURNING id::text AS id, event_id`;

/** A control event: an ordinary row of the `control` aggregate. */
const control = (): FuzzRow => ({
  eventId: randomUUID(),
  eventType: 'control.ticked',
  schemaVersion: 1,
  aggregateType: 'control',
  aggregateId: 'control',
  aggregateVersion: '1',
  occurredAt: new Date().toISOString(),
  payload: '{"control":true}',
  headers: {},
  topic: null,
  createdAt: 'now',
});

async function insert(pool: Pool, schema: string, rows: readonly FuzzRow[]) {
  return inTransaction(pool, async (client) => {
    const { rows: ids } = await client.query<{ id: string; event_id: string }>(INSERT(schema), [
      rows.map((r) => r.eventId),
      rows.map((r) => r.eventType),
      rows.map((r) => r.schemaVersion),
      rows.map((r) => r.aggregateType),
      rows.map((r) => r.aggregateId),
      rows.map((r) => r.aggregateVersion),
      rows.map((r) => r.occurredAt),
      rows.map((r) => r.payload),
      rows.map((r) => JSON.stringify(r.headers)),
      rows.map((r) => r.topic),
      rows.map((r) => r.createdAt),
    ]);
    return ids;
  });
}

/**
 * `total` rows, block by block: block i is drawn from seed `seed + i` (a run of up to 1,000
 * rows is exactly `fc.sample(..., { seed, numRuns })`). Event ids are made unique (fast-check's
 * bias repeats small uuids).
 */
function* generated(seed: number, total: number, topic: string): Generator<FuzzRow> {
  const seen = new Set<string>();
  for (let block = 0; block * 1000 < total; block++) {
    const numRuns = Math.min(1000, total - block * 1000);
    for (const row of fc.sample(fuzzRow(topic), { seed: (seed + block) >>> 0, numRuns })) {
      const eventId = seen.has(row.eventId) ? randomUUID() : row.eventId;
      seen.add(eventId);
      yield { ...row, eventId };
    }
  }
}

interface Stored {
  id: string;
  event_id: string;
  aggregate_type: string;
  aggregate_id: string;
  published: boolean;
  parked: boolean;
  parked_reason: string | null;
  attempts: number;
  history: number;
  latency_ms: number | null;
}

/** Settled: no pending row is free to publish but those waiting behind a parked one. */
async function unsettled(pool: Pool, schema: string): Promise<number> {
  const { rows } = await pool.query<{ t: string; a: string; parked: boolean }>(
    `SELECT aggregate_type AS t, aggregate_id AS a, parked_at IS NOT NULL AS parked
       FROM "${schema}".outbox WHERE published_at IS NULL AND skipped_at IS NULL ORDER BY id`,
  );
  const blocked = new Set<string>();
  let free = 0;
  for (const r of rows) {
    const aggregate = `${r.t}\u0000${r.a}`; // text holds no NUL
    if (blocked.has(aggregate)) continue;
    if (r.parked) blocked.add(aggregate);
    else free++;
  }
  return free;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/**
 * Writes generated rows (every column from its type's whole domain) into a real outbox while
 * a control aggregate keeps writing, drains them with a real relay into the real broker, and
 * checks that each row ended as the oracle says: published (its record carrying exactly its
 * columns, occurred_at in its own era), parked alone with a reason naming its column, or
 * waiting behind its aggregate's parked row; that no row was charged for another's failure,
 * the control events flowed, and the relay's loop never failed a batch.
 */
export async function runRelayFuzz(options: RelayFuzzOptions): Promise<RelayFuzzSummary> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const topic = uniqueTopic('relay-fuzz');
  await createTopics([{ topic, numPartitions: 3 }]);
  const scene = await RelayScene.create('relay_fuzz', () => KAFKA_BROKERS);
  const { pool, name: schema } = scene.schema;
  const logger = new CountingLogger();
  try {
    const relay = await scene.start({
      routing: { defaultTopic: topic },
      tuning: { batchSize: 500, leaseMs: 30_000, publishTimeoutMs: 10_000 },
    });
    relay.useLogger(logger);
    const rows = new Map<string, FuzzRow>();
    const controls = new Set<string>();
    let block: FuzzRow[] = [];
    const flush = async () => {
      const c = control();
      controls.add(c.eventId);
      await insert(pool, schema, [...block, c]);
      block = [];
    };
    for (const row of generated(options.seed, options.rows, topic)) {
      rows.set(row.eventId, row);
      block.push(row);
      if (block.length >= (options.controlEvery ?? 50)) await flush();
      if (rows.size % 5000 === 0) log(`${rows.size} rows written`);
    }
    await flush();
    log(`${rows.size} rows and ${controls.size} control events written; draining`);
    await waitFor('every row settled', async () => (await unsettled(pool, schema)) === 0, {
      timeoutMs: 120_000 + 20 * options.rows,
      intervalMs: 500,
    });
    const { rows: stored } = await pool.query<Stored>(
      `SELECT id::text AS id, event_id, aggregate_type, aggregate_id, published_at IS NOT NULL AS published,
              parked_at IS NOT NULL AS parked, parked_reason, attempts,
              jsonb_array_length(error_history) AS history,
              CASE WHEN isfinite(created_at)
                THEN (extract(epoch FROM published_at - created_at) * 1000)::float8 END AS latency_ms
         FROM "${schema}".outbox o ORDER BY o.id`,
    );
    await scene.stop(relay);
    const fates = expectedFate(stored, rows);
    const failures: string[] = [];
    const parked: Record<string, number> = {};
    let published = 0;
    let held = 0;
    const latencies: number[] = [];
    for (const s of stored) {
      const fate = fates.get(s.event_id)!;
      const problem = check(s, fate);
      if (problem) failures.push(`${s.event_id}: ${problem}`);
      if (controls.has(s.event_id)) latencies.push(s.latency_ms ?? Infinity);
      else if (fate.kind === 'published') published++;
      else if (fate.kind === 'held') held++;
      else parked[fate.columns[0]!] = (parked[fate.columns[0]!] ?? 0) + 1;
    }
    const recordsChecked = await checkRecords(topic, stored, fates, rows, failures);
    latencies.sort((a, b) => a - b);
    if (logger.loopErrors > 0) failures.push(`${logger.loopErrors} batch or claim failures logged`);
    return {
      seed: options.seed,
      rows: rows.size,
      published,
      parked,
      held,
      controls: controls.size,
      controlLatencyMs: {
        p50: Math.round(percentile(latencies, 0.5)),
        p99: Math.round(percentile(latencies, 0.99)),
        max: Math.round(latencies.at(-1) ?? 0),
      },
      loopErrors: logger.loopErrors,
      recordsChecked,
      seconds: Math.round((Date.now() - started) / 1000),
      failures: failures
        .slice(0, 20)
        .concat(failures.length > 20 ? [`... ${failures.length} in all`] : []),
    };
  } finally {
    await scene.close();
  }
}

/** Whether a stored row ended as its fate says, charged only for its own failure. */
function check(s: Stored, fate: Fate): string | undefined {
  switch (fate.kind) {
    case 'published':
      return s.published && s.attempts === 1 && s.history === 0
        ? undefined
        : `expected published at its first attempt, got published=${s.published} attempts=${s.attempts} history=${s.history}`;
    case 'held':
      return !s.published && !s.parked && s.attempts === 0 && s.history === 0
        ? undefined
        : `expected waiting uncharged behind its parked row, got published=${s.published} parked=${s.parked} attempts=${s.attempts}`;
    case 'parked': {
      const named = fate.columns.some((c) => s.parked_reason?.includes(`unencodable: ${c}`));
      return s.parked && named && s.attempts === 1
        ? undefined
        : `expected parked for ${fate.columns.join('/')}, got parked=${s.parked} attempts=${s.attempts} reason=${String(s.parked_reason).slice(0, 120)}`;
    }
  }
}

/** Every published row's record on the topic carries exactly its columns. */
async function checkRecords(
  topic: string,
  stored: readonly Stored[],
  fates: ReadonlyMap<string, Fate>,
  rows: ReadonlyMap<string, FuzzRow>,
  failures: string[],
): Promise<number> {
  // What PostgreSQL says was published (whether it should have been is checked row by row).
  const expected = new Set(stored.filter((s) => s.published).map((s) => s.event_id));
  const seen = new Set<string>();
  const records = await consumeUntil(
    [topic],
    (all: ConsumedRecord[]) => {
      const last = all.at(-1)?.headers.event_id;
      if (last && expected.has(last)) seen.add(last);
      return seen.size === expected.size;
    },
    { timeoutMs: 120_000 + 10 * expected.size },
  );
  const contract = new Set<string>(Object.values(EVENT_HEADERS));
  let checked = 0;
  for (const record of records) {
    const id = record.headers.event_id!;
    const row = rows.get(id);
    const fate = fates.get(id);
    if (!row) continue; // a control event
    if (fate?.kind !== 'published') {
      failures.push(`${id}: published although ${fate?.kind ?? 'unknown'}`);
      continue;
    }
    const h = record.headers;
    const problems = [
      record.key !== row.aggregateId && 'key',
      record.value !== row.payload && 'value',
      h.occurred_at !== fate.occurredAt && `occurred_at ${h.occurred_at} != ${fate.occurredAt}`,
      h.aggregate_version !== row.aggregateVersion && 'aggregate_version',
      h.schema_version !== String(row.schemaVersion) && 'schema_version',
      h.event_type !== row.eventType && 'event_type',
      h.aggregate_type !== row.aggregateType && 'aggregate_type',
      ...Object.entries((row.headers ?? {}) as Record<string, string>)
        // kafkajs' consumer decodes a header named like an Object.prototype member
        // (`valueOf`) into a repeated header: not comparable here.
        .filter(([name, value]) => !contract.has(name) && !(name in {}) && h[name] !== value)
        .map(([name]) => `header ${JSON.stringify(name)}`),
    ].filter((p): p is string => typeof p === 'string');
    if (problems.length > 0) failures.push(`${id}: record differs in ${problems.join(', ')}`);
    checked++;
  }
  if (seen.size !== expected.size)
    failures.push(`${expected.size - seen.size} published rows not found on the topic`);
  return checked;
}
