/**
 * Inbox benchmark (not a timed test): 50,000 records (10% duplicates) on a 6-partition topic,
 * consumed by one consumer process (this one) applying a simple projection through the
 * inbox (one UPSERT per event, see inbox-bench.app.ts), per Kafka client (BENCH_CLIENTS,
 * default `kafkajs,platformatic`: `InboxKafkaServer` and `PlatformaticInboxServer`). Runs
 * BENCH_ROUNDS times (default 3) on fresh topics/schemas, the clients interleaved within each
 * round, and reports medians. Each round also runs, per client, the raw reference right after
 * its inbox variants, on the same records and the same client (bench/support/inbox-raw-*.ts:
 * kafkajs `eachBatch`, or `@platformatic/kafka`'s `consume()` stream with manual commits; one
 * transaction per chunk of BENCH_BATCH_SIZE with the inbox's registration statement and the
 * same projection UPSERTs, no Nest): `inbox_vs_raw.<client>.<variant>` is the median of the
 * per-round ratios; Node CPU per record (this process, from the consumer's start to the
 * last commit, user + system, the system part apart) is reported for every variant.
 * BENCH_PROFILE=<dir> writes a .cpuprofile per variant and round (summarise with
 * bench/write/cpu-profile-summary.ts); BENCH_COUNT=on counts the statements per record each
 * variant sends to PostgreSQL; BENCH_PERF_CTL=<fifo> drives `perf record --control=fifo:<fifo>
 * -D -1 -- node --perf-basic-prof ...` (Linux perf: kernel, GC and JIT threads included, which
 * V8's own profiler does not see): sampling is enabled only during the measured phases after
 * the first one of the process (run one variant per process for a per-variant profile).
 *
 *   npm run bench:inbox   (BENCH_ROUNDS=3 BENCH_EVENTS=50000 BENCH_WARMUP=0
 *                          BENCH_BATCH_SIZE=100 BENCH_CONCURRENCY=6
 *                          BENCH_CLIENTS=kafkajs,platformatic
 *                          BENCH_VARIANTS=record,batch,raw[,batch-pg])
 *
 * BENCH_VARIANTS runs a subset (e.g. `batch,raw` for an A/B of the batch handler), or adds
 * `batch-pg` (the batch handler sending its UPSERTs on the transaction's own pg client, not
 * through TypeORM's query: how much of the distance to raw is the handler's data access);
 * the JSON line carries only the keys of the variants that ran (default record,batch,raw).
 *
 * With BENCH_WARMUP=N every variant's fresh consumer first handles N records (the same mix)
 * untimed. Three figures per round, all counting a record once its PostgreSQL transaction
 * committed (the inbox's applied + duplicate counters are incremented after the commit):
 * - events_per_s (the headline): the measured records over the time from the warm-up's last
 *   commit (with BENCH_WARMUP=0: from the first record reaching the handler) to the last
 *   record's transaction committed; Node CPU per record over the same span;
 * - total_events_per_s: from startAllMicroservices() (consumer connect and group join
 *   included) to the last commit;
 * - steady_events_per_s: between 10% and 90% of the records committed.
 * The 1-minute load average before and after each phase is printed (the machine is shared).
 * Exits 1 if any round's effects differ from the expected effects.
 * Then, per client, the cost goals (batch >= 0.85 and record >= 0.60 of raw, batch CPU/record
 * <= 1.5x raw).
 * Last line: {"bench":"inbox","inbox_vs_raw":{"kafkajs":{"record":..,"batch":..},"platformatic":{..}},
 *   "clients":{"kafkajs":{"record_events_per_s":..,..},..},"effects":..,"expected_effects":..,...}
 */
import 'reflect-metadata';
import { appendFileSync } from 'node:fs';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { toKafkaHeaders, uuidv7 } from '@nest-outbox/core';
import {
  InboxKafkaServer,
  INBOX_METRICS_REGISTRY,
  inboxSchemaSql,
  PlatformaticInboxServer,
} from '@nest-outbox/inbox';
import {
  createTestSchema,
  createTopics,
  DATABASE_URL,
  KAFKA_BROKERS,
  testKafka,
  uniqueTopic,
  waitFor,
} from '@test/support';
import type { Message } from 'kafkajs';
import type { Pool } from 'pg';
import type { Registry } from 'prom-client';
import {
  inboxBenchModule,
  projectionDdl,
  type BenchHandlerKind,
  type FirstRecordClock,
} from './inbox-bench.app';
import { RawInboxConsumer } from './support/inbox-raw-consumer';
import { RawPlatformaticInboxConsumer } from './support/inbox-raw-platformatic';
import { load1, loadNote, median, ownCpuSplit } from './support/proc-stats';
import { PhaseProfiler } from './write/profiler';
import { formatPerOp, installQueryCounter, takeQueryCounts } from './write/query-counter';

const PROFILE_DIR = process.env.BENCH_PROFILE;
/** BENCH_COUNT=on: statements per record sent to PostgreSQL by each variant (client-side). */
const COUNT = process.env.BENCH_COUNT === 'on';
if (COUNT) installQueryCounter();
const profiler = PROFILE_DIR ? new PhaseProfiler(PROFILE_DIR) : undefined;
/**
 * BENCH_PERF_CTL=<fifo>: `perf record --control=fifo:<fifo> -D -1` is told to sample only
 * the measured phases after the first round (no set-up, no JIT warm-up). @see measure
 */
const PERF_CTL = process.env.BENCH_PERF_CTL;
let measuredPhases = 0;
const perfControl = (command: 'enable' | 'disable') => {
  if (PERF_CTL && measuredPhases > 1) appendFileSync(PERF_CTL, `${command}\n`);
};

const TOTAL = Number(process.env.BENCH_EVENTS ?? 50_000);
const DUPLICATES = Math.round(TOTAL * 0.1);
const UNIQUE = TOTAL - DUPLICATES;
/**
 * Records each variant's fresh consumer handles first, untimed (BENCH_WARMUP, default 0: cold
 * rounds, as the published figures): the same mix (10% duplicates) before the measured ones in
 * every partition, so the measured records run on JIT-compiled code, as in a consumer that has
 * been up for a while (each round starts a new application).
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 0);
const WARMUP_DUPLICATES = Math.round(WARMUP * 0.1);
const WARMUP_UNIQUE = WARMUP - WARMUP_DUPLICATES;
const EXPECTED_EFFECTS = UNIQUE + WARMUP_UNIQUE;
const EXPECTED_DUPLICATES = DUPLICATES + WARMUP_DUPLICATES;
if (!Number.isSafeInteger(WARMUP) || WARMUP < 0) {
  console.error(`BENCH_WARMUP: a whole number of records >= 0 (got ${process.env.BENCH_WARMUP})`);
  process.exit(2);
}
const PARTITIONS = 6;
const AGGREGATES = 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BATCH_SIZE = Number(process.env.BENCH_BATCH_SIZE ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? PARTITIONS);
const VARIANT_NAMES = ['record', 'batch', 'batch-pg', 'raw'] as const;
const VARIANTS = new Set(
  (process.env.BENCH_VARIANTS ?? 'record,batch,raw').split(',').map((v) => v.trim()),
);
const unknownVariant = [...VARIANTS].find((v) => !(VARIANT_NAMES as readonly string[]).includes(v));
if (unknownVariant !== undefined || VARIANTS.size === 0) {
  console.error(
    `BENCH_VARIANTS: unknown variant "${unknownVariant}"; use a comma-separated subset of ${VARIANT_NAMES.join(',')}`,
  );
  process.exit(2);
}

const CLIENT_NAMES = ['kafkajs', 'platformatic'] as const;
type Client = (typeof CLIENT_NAMES)[number];
const CLIENTS = [
  ...new Set((process.env.BENCH_CLIENTS ?? CLIENT_NAMES.join(',')).split(',').map((c) => c.trim())),
] as Client[];
const unknownClient = CLIENTS.find((c) => !(CLIENT_NAMES as readonly string[]).includes(c));
if (unknownClient !== undefined || CLIENTS.length === 0) {
  console.error(
    `BENCH_CLIENTS: unknown client "${unknownClient}"; use a comma-separated subset of ${CLIENT_NAMES.join(',')}`,
  );
  process.exit(2);
}

interface RoundResult {
  eps: number;
  totalEps: number;
  steadyEps: number;
  duplicates: number;
  effects: number;
  /** Node CPU of this process per record, from the consumer's start to the last commit. */
  cpuUs: number;
  /** The system (kernel) part of cpuUs: socket writes and reads, polling, page faults. */
  systemUs: number;
}

/** `total` records of which 10% repeat earlier ones; aggregate versions continue `versions`. */
function records(total: number, versions: Map<string, number>): Message[] {
  const duplicates = Math.round(total * 0.1);
  const uniques = total - duplicates;
  const unique = Array.from({ length: uniques }, (_, i) => {
    const aggregateId = `order-${i % AGGREGATES}`;
    const version = (versions.get(aggregateId) ?? 0) + 1;
    versions.set(aggregateId, version);
    return {
      key: aggregateId,
      value: JSON.stringify({ orderId: aggregateId, total: i % 97 }),
      headers: toKafkaHeaders({
        eventId: uuidv7(),
        eventType: 'order.confirmed',
        schemaVersion: 1,
        aggregateType: 'order',
        aggregateId,
        aggregateVersion: version,
        occurredAt: new Date(),
        headers: {},
      }),
    };
  });
  // Every 10th record repeats an earlier one (a relay republishing after a crash).
  const out: Message[] = [];
  let dup = 0;
  for (let i = 0; i < uniques; i++) {
    out.push(unique[i]!);
    if (dup < duplicates && i % 9 === 8) {
      out.push(unique[i - ((i * 7) % 9)]!);
      dup++;
    }
  }
  while (dup < duplicates) out.push(unique[dup++ % uniques]!);
  return out;
}

async function produce(topic: string, messages: Message[]): Promise<void> {
  // A busy broker may answer UNKNOWN_TOPIC_OR_PARTITION while the leaders settle: retry a few times.
  await waitFor(
    'the bench topic',
    () => createTopics([{ topic, numPartitions: PARTITIONS }]).then(() => true),
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  const producer = testKafka().producer();
  await producer.connect();
  for (let i = 0; i < messages.length; i += 2000) {
    await producer.send({ topic, acks: -1, messages: messages.slice(i, i + 2000) });
  }
  await producer.disconnect();
}

function connect(app: INestApplication, client: Client): void {
  const kafkaOptions = {
    client: { clientId: 'bench-inbox', brokers: KAFKA_BROKERS, logLevel: 1 },
    consumer: { groupId: uniqueTopic('bench-g'), maxWaitTimeInMs: 100 },
    subscribe: { fromBeginning: true },
    run: { autoCommit: false, partitionsConsumedConcurrently: CONCURRENCY },
    postfixId: '',
  };
  const options = { ...kafkaOptions, inboxBatchSize: BATCH_SIZE };
  app.connectMicroservice<MicroserviceOptions>({
    strategy:
      client === 'platformatic'
        ? new PlatformaticInboxServer(options)
        : new InboxKafkaServer(options),
  });
}

type Mark = { at: bigint; n: number; cpu: ReturnType<typeof ownCpuSplit> };

/**
 * Polls the committed count, every 20 ms and every 2 ms once the next mark is within 3% of the
 * records (the observer's own CPU stays small and alike for every variant: the inbox's count is
 * read from prom-client, raw's from a field); returns when the warm-up's records and 10%, 90%
 * and 100% of the measured ones were first seen committed (with this process's CPU then).
 */
async function watch(committed: () => Promise<number>) {
  const marks: Mark[] = [];
  const thresholds = [WARMUP, WARMUP + 0.1 * TOTAL, WARMUP + 0.9 * TOTAL, WARMUP + TOTAL];
  const near = 0.03 * (WARMUP + TOTAL);
  const deadline = Date.now() + 600_000;
  while (marks.length < thresholds.length) {
    if (Date.now() > deadline)
      throw new Error(`timed out: ${await committed()}/${WARMUP + TOTAL} handled`);
    const n = await committed();
    if (n >= thresholds[marks.length]!) {
      const at = process.hrtime.bigint();
      const cpu = ownCpuSplit();
      while (marks.length < thresholds.length && n >= thresholds[marks.length]!)
        marks.push({ at, n, cpu });
    }
    const next = thresholds[marks.length];
    if (next !== undefined) await new Promise((r) => setTimeout(r, next - n <= near ? 2 : 20));
  }
  return { warm: marks[0]!, p10: marks[1]!, p90: marks[2]!, end: marks[3]! };
}

/** A fresh schema (inbox tables, projection) and topic holding `messages`, dropped after `run`. */
async function withFixture<T>(
  messages: Message[],
  run: (schema: string, topic: string, pool: Pool) => Promise<T>,
): Promise<T> {
  const db = await createTestSchema('bench_inbox');
  await db.pool.query(projectionDdl(db.name));
  const topic = uniqueTopic('bench-inbox');
  await produce(topic, messages);
  try {
    return await run(db.name, topic, db.pool);
  } finally {
    await db.drop();
    const admin = testKafka().admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
}

/** How one variant's consumption went: its counters, read until every record committed. */
interface Consumption {
  readonly committed: () => Promise<number> | number;
  readonly duplicates: () => Promise<number> | number;
  readonly firstAt: () => bigint | undefined;
}

/** Starts a variant (`start`), watches it to the last commit and computes its figures. */
async function measure(
  label: string,
  { schema, pool }: { schema: string; pool: Pool },
  start: () => Promise<Consumption>,
): Promise<RoundResult> {
  const before = load1();
  const cpuBefore = ownCpuSplit();
  const started = process.hrtime.bigint();
  await profiler?.start();
  measuredPhases += 1;
  perfControl('enable');
  if (COUNT) takeQueryCounts();
  const consumption = await start();
  const { warm, p10, p90, end } = await watch(async () => consumption.committed());
  perfControl('disable');
  // Without a warm-up: from the consumer's start; with one: from the warm-up's last commit.
  const cpuFrom = WARMUP > 0 ? warm.cpu : cpuBefore;
  const measured = end.n - (WARMUP > 0 ? warm.n : 0);
  const systemUs = ((end.cpu.system - cpuFrom.system) * 1e6) / measured;
  const cpuUs = ((end.cpu.user - cpuFrom.user) * 1e6) / measured + systemUs;
  await profiler?.stop(label.replace(/\W+/g, '-'));
  if (COUNT)
    console.log(`  ${label} statements per record: ${formatPerOp(takeQueryCounts(), end.n)}`);
  const seconds = (from: bigint, to: bigint) => Number(to - from) / 1e9;
  const first = consumption.firstAt() ?? started;
  const from = WARMUP > 0 ? warm.at : first;
  const run = seconds(from, end.at);
  const { rows } = await pool.query<{ n: string }>(
    `SELECT coalesce(sum(events), 0) AS n FROM "${schema}".projection`,
  );
  const result: RoundResult = {
    eps: measured / run,
    totalEps: end.n / seconds(started, end.at),
    steadyEps: (p90.n - p10.n) / seconds(p10.at, p90.at),
    duplicates: await consumption.duplicates(),
    effects: Number(rows[0]!.n),
    cpuUs,
    systemUs,
  };
  console.log(
    `${label}: ${measured} records, ${WARMUP > 0 ? `warm-up's last commit (${warm.n} records)` : 'first record'} -> last commit ${run.toFixed(2)} s = ` +
      `${Math.round(result.eps)} events/s; total (incl. start-up ${seconds(started, first).toFixed(2)} s) ` +
      `${Math.round(result.totalEps)} events/s; steady (10%-90%) ${Math.round(result.steadyEps)} events/s; ` +
      `Node CPU ${cpuUs.toFixed(0)} us/record (system ${systemUs.toFixed(0)}); duplicates absorbed ${result.duplicates}; ` +
      `effects ${result.effects}/${EXPECTED_EFFECTS}; ${loadNote(before)}`,
  );
  return result;
}

/** The inbox: the Nest app with `client`'s inbox server and the projection. */
function inboxRound(
  index: number,
  messages: Message[],
  kind: BenchHandlerKind,
  client: Client,
): Promise<RoundResult> {
  return withFixture(messages, async (schema, topic, pool) => {
    const clock: FirstRecordClock = { at: undefined };
    const app = await NestFactory.create(inboxBenchModule(schema, topic, clock, kind), {
      logger: ['error'],
    });
    try {
      connect(app, client);
      await app.init();
      const registry = app.get<Registry>(INBOX_METRICS_REGISTRY);
      const sum = async (name: string) =>
        ((await registry.getSingleMetric(name)?.get())?.values ?? []).reduce(
          (s, v) => s + v.value,
          0,
        );
      const label = { record: 'inbox      ', batch: 'inbox batch', 'batch-pg': 'batch pg   ' }[
        kind
      ];
      const name = `round ${index + 1} ${client.padEnd(12)} ${label}`;
      return await measure(name, { schema, pool }, async () => {
        await app.startAllMicroservices();
        return {
          committed: async () =>
            (await sum('nest_outbox_inbox_events_applied_total')) +
            (await sum('nest_outbox_inbox_events_duplicate_total')),
          duplicates: () => sum('nest_outbox_inbox_events_duplicate_total'),
          firstAt: () => clock.at,
        };
      });
    } finally {
      await app.close();
    }
  });
}

/** The raw reference on the same records and client (bench/support/inbox-raw-*.ts). */
function rawRound(index: number, messages: Message[], client: Client): Promise<RoundResult> {
  return withFixture(messages, async (schema, topic, pool) => {
    for (const sql of inboxSchemaSql({ schema })) await pool.query(sql);
    const setup = {
      brokers: KAFKA_BROKERS,
      topic,
      databaseUrl: DATABASE_URL,
      schema,
      consumer: 'bench-projection',
      chunkSize: BATCH_SIZE,
      partitionsConsumedConcurrently: CONCURRENCY,
    };
    const group = uniqueTopic('bench-raw-g');
    const raw =
      client === 'platformatic'
        ? new RawPlatformaticInboxConsumer(setup, group)
        : new RawInboxConsumer(setup, group);
    const name = `round ${index + 1} ${client.padEnd(12)} raw        `;
    try {
      return await measure(name, { schema, pool }, async () => {
        await raw.start();
        const { progress } = raw;
        return {
          committed: () => progress.applied + progress.duplicates,
          duplicates: () => progress.duplicates,
          firstAt: () => progress.firstAt,
        };
      });
    } finally {
      await raw.stop();
    }
  });
}

/** One client's rounds, by variant. */
type ClientRounds = Record<(typeof VARIANT_NAMES)[number], RoundResult[]>;

async function main(): Promise<void> {
  const versions = new Map<string, number>();
  const messages = [...records(WARMUP, versions), ...records(TOTAL, versions)];
  console.log(
    `inbox bench: ${TOTAL} records (${UNIQUE} unique + ${DUPLICATES} duplicates) after ${WARMUP} untimed, ${PARTITIONS} partitions, ` +
      `${AGGREGATES} aggregates, ${ROUNDS} round(s), clients ${CLIENTS.join(', ')} (interleaved), ` +
      `partitionsConsumedConcurrently=${CONCURRENCY}, inboxBatchSize=${BATCH_SIZE}`,
  );
  const rounds = new Map<Client, ClientRounds>(
    CLIENTS.map((c) => [c, { record: [], batch: [], 'batch-pg': [], raw: [] }]),
  );
  for (let i = 0; i < ROUNDS; i++)
    for (const client of CLIENTS) {
      const r = rounds.get(client)!;
      for (const kind of ['record', 'batch', 'batch-pg'] as const)
        if (VARIANTS.has(kind)) r[kind].push(await inboxRound(i, messages, kind, client));
      if (VARIANTS.has('raw')) r.raw.push(await rawRound(i, messages, client));
    }
  const all = [...rounds.values()].flatMap((r) => Object.values(r).flat());
  const wrong = all.filter(
    (r) => r.effects !== EXPECTED_EFFECTS || r.duplicates !== EXPECTED_DUPLICATES,
  );
  const clients: Record<string, Record<string, number>> = {};
  const inboxVsRaw: Record<string, Record<string, number>> = {};
  for (const [client, r] of rounds) {
    const { summary, ratios } = clientSummary(client, r);
    clients[client] = summary;
    if (Object.keys(ratios).length > 0) inboxVsRaw[client] = ratios;
  }
  const middle = all.find((r) => r.eps === median(all.map((x) => x.eps))) ?? all[0]!;
  if (wrong.length > 0) console.log(`${wrong.length} round(s) with WRONG effects`);
  console.log(
    JSON.stringify({
      bench: 'inbox',
      inbox_vs_raw: inboxVsRaw,
      clients,
      measured:
        WARMUP > 0
          ? `${WARMUP} untimed records committed -> last PostgreSQL commit, median of rounds`
          : 'first record at the handler -> last PostgreSQL commit, median of rounds',
      duplicates_absorbed: middle.duplicates,
      effects: middle.effects,
      expected_effects: EXPECTED_EFFECTS,
      warmup_records: WARMUP,
      rounds: ROUNDS,
      variants: [...VARIANTS].join(','),
    }),
  );
  if (wrong.length > 0) process.exitCode = 1;
}

/**
 * One client's figures (medians over the rounds; each ratio the median of the per-round ratios
 * to the same round's raw loop on that client), printed with its goals.
 */
function clientSummary(client: Client, r: ClientRounds) {
  const cpu = (rs: RoundResult[]) => Math.round(median(rs.map((x) => x.cpuUs)));
  const eps = (rs: RoundResult[]) => Math.round(median(rs.map((x) => x.eps)));
  const vs = (rs: RoundResult[]) =>
    Number(median(rs.map((x, i) => x.eps / r.raw[i]!.eps)).toFixed(3));
  const summary: Record<string, number> = {};
  const ratios: Record<string, number> = {};
  const line: string[] = [];
  const variants = [
    ['record', 'record', '@InboxHandler'],
    ['batch', 'batch', '@InboxBatchHandler'],
    ['batch-pg', 'batch_pg', '@InboxBatchHandler, UPSERTs on the pg client'],
    ['raw', 'raw', 'raw loop'],
  ] as const;
  for (const [kind, key, what] of variants) {
    const rs = r[kind];
    if (rs.length === 0) continue;
    summary[`${key}_events_per_s`] = eps(rs);
    summary[`${key}_cpu_us_per_record`] = cpu(rs);
    summary[`${key}_total_events_per_s`] = Math.round(median(rs.map((x) => x.totalEps)));
    const ratio = kind !== 'raw' && r.raw.length > 0 ? vs(rs) : undefined;
    if (ratio !== undefined) ratios[key] = ratio;
    line.push(
      `${what} ${eps(rs)} events/s (${rs.map((x) => Math.round(x.eps)).join(', ')})` +
        (ratio !== undefined ? ` = ${ratio.toFixed(2)} of raw` : '') +
        `, Node CPU ${cpu(rs)} us/record (system ${Math.round(median(rs.map((x) => x.systemUs)))})`,
    );
  }
  console.log(`${client}: ${line.join('; ')}`);
  const goals: string[] = [];
  const goal = (what: string, value: number | undefined, met: boolean) => {
    if (value !== undefined) goals.push(`${what} ${value}: ${met ? 'met' : 'NOT met'}`);
  };
  goal('batch_vs_raw >= 0.85', ratios.batch, (ratios.batch ?? 0) >= 0.85);
  goal('record_vs_raw >= 0.60', ratios.record, (ratios.record ?? 0) >= 0.6);
  if (r.batch.length > 0 && r.raw.length > 0) {
    const x = Number((cpu(r.batch) / cpu(r.raw)).toFixed(2));
    goal('batch CPU/record <= 1.5x raw', x, x <= 1.5);
  }
  console.log(
    `${client} goals: ${goals.length > 0 ? goals.join('; ') : 'none measured (raw did not run)'}`,
  );
  return { summary, ratios };
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
