/**
 * Relay benchmark (issues 3 and 12): `npm run bench:relay` on the local stack.
 *
 * 1. raw SQL ceiling: a plain claim-then-mark loop with batches of BENCH_BATCH (1,000), no
 *    library code, no Kafka; the same drain by the relay into a publisher that does nothing
 *    (NullPublisher, in-process);
 * 2. Kafka, BENCH_ROUNDS (1) rounds of, in this order: the raw Kafka reference (a plain claim +
 *    kafkajs sendBatch + mark loop into the same broker, no ordering, in this process; its
 *    records carry the relay's headers, none with BENCH_RAW_HEADERS=bare), then the relay in
 *    one process, then in three processes, each draining BENCH_EVENTS (100,000) pre-filled
 *    events over BENCH_AGGREGATES (1,000); ratios are per round, the JSON gives medians. Each
 *    of these drains first moves BENCH_WARMUP (30,000) untimed events on aggregates of their
 *    own, with the same processes (or, for the raw loop, the same producer): the timed drain
 *    measures warm code, as a relay that runs for days is (BENCH_WARMUP=0: cold processes);
 * 3. steady load of BENCH_RATE (500) events/s for BENCH_LATENCY_SECONDS (30 s), written by
 *    @OutboxTransactional() commands, relay in the same app: commit-to-broker-ack latency;
 * 4. relay RSS while draining BENCH_RSS_ROWS (1,000,000) pending rows, one relay process of
 *    compiled JavaScript (tsc, plain Node, as users run it), null publisher unless
 *    BENCH_RSS_PUBLISHER=kafka; VmRSS sampled every 100 ms;
 * 5. scaling rows: the relay (one process) and the raw Kafka loop on payloads of 100 B, 1 KB
 *    and 10 KB over 1,000 aggregates, and 100 B over 10 and 100,000 aggregates
 *    (BENCH_SCALE_EVENTS, 50,000 a row, 100 MB of payload at most);
 * 6. compression rows: the relay (RelayModule in this process) with `compression` none, gzip
 *    and snappy, on JSON orders of 1 KiB and 16 KiB: events/s, bytes its sockets wrote per
 *    event, Node CPU per event (BENCH_COMPRESSION_EVENTS, 20,000 a row, 64 MB of payload at
 *    most, after an untimed fifth); the JSON's `compression` is codec -> payload bytes ->
 *    {events_per_s, wire_bytes_per_event, cpu_us_per_event}.
 * Relay processes run compiled JavaScript (BENCH_RUNTIME=compiled, default) or ts-node.
 * 7. per client (`platformatic` phase): the raw Kafka loop and one relay process on
 *    `@platformatic/kafka` (`client: 'platformatic'`), after the kafkajs drains of each round;
 *    the JSON's `relay_vs_raw` gives each client's relay against its own raw loop.
 * BENCH_PHASES: a comma-separated subset of raw,null,rawkafka,kafka1,kafka3,platformatic,latency,
 * rss,scale,compression (default all; BENCH_PHASES=compression runs the compression rows alone).
 * Every phase prints the 1-minute load average before and after it (the machine is shared).
 * Last line: one JSON object.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { Pool } from 'pg';
import type { Producer } from 'kafkajs';
import { OptionChecks } from '@nest-outbox/core/internal';
import { RelayLoop, type RelayModuleOptions } from '@nest-outbox/relay';
import { NullPublisher } from '../libs/relay/test/null.publisher';
import { createTopics, testKafka, uniqueTopic } from '@test/support';
import { BenchOutbox } from './support/bench-outbox';
import { CompiledBuild } from './support/compiled-build';
import { load1, loadNote, median } from './support/proc-stats';
import { steadyLatency } from './support/relay-latency';
import {
  drainWithProcesses,
  type ProcessDrain,
  type RelayProcesses,
} from './support/relay-process-drain';
import { drainRawKafka, drainRawSql, rawProducer, type RawDrain } from './support/relay-raw-drains';
import { warmUpShape } from './support/relay-fill';
import { scalingRows } from './support/relay-scaling';
import { compressionRows } from './support/relay-compression';
import { platformaticRawProducer } from './support/relay-platformatic';

process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const env = new OptionChecks('bench:relay');
const int = (name: string, fallback: number, min = 1) =>
  env.integerText(name, process.env[name], fallback, { min });
const EVENTS = int('BENCH_EVENTS', 100_000);
const AGGREGATES = int('BENCH_AGGREGATES', 1000);
const BATCH = int('BENCH_BATCH', 1000);
const ROUNDS = int('BENCH_ROUNDS', 1);
const RATE = int('BENCH_RATE', 500);
const LATENCY_SECONDS = int('BENCH_LATENCY_SECONDS', 30);
const RSS_ROWS = int('BENCH_RSS_ROWS', 1_000_000);
const SCALE_EVENTS = int('BENCH_SCALE_EVENTS', 50_000);
const COMPRESSION_EVENTS = int('BENCH_COMPRESSION_EVENTS', 20_000);
const WARM_UP = int('BENCH_WARMUP', 30_000, 0); // 0: cold processes
const oneOf = <T extends string>(name: string, values: readonly T[], fallback: T): T =>
  env.oneOf(name, process.env[name] || undefined, values, fallback);
const RAW_HEADERS = oneOf('BENCH_RAW_HEADERS', ['contract', 'bare'], 'contract');
const RUNTIME = oneOf('BENCH_RUNTIME', ['compiled', 'ts-node'], 'compiled');
const RSS_PUBLISHER = oneOf('BENCH_RSS_PUBLISHER', ['null', 'kafka'], 'null');
const PHASES = new Set(
  (
    process.env.BENCH_PHASES ??
    'raw,null,rawkafka,kafka1,kafka3,platformatic,latency,rss,scale,compression'
  )
    .split(',')
    .map((p) => p.trim()),
);
const SCHEMA = `bench_relay_${randomBytes(3).toString('hex')}`;
const pool = new Pool({ connectionString: DATABASE_URL, max: 8 });
const outbox = new BenchOutbox(pool, SCHEMA);
const shape = { events: EVENTS, aggregates: AGGREGATES };

const log = (line: string) => console.log(line);

/** Runs `phase` when selected, printing the load average before and after it. */
async function phase<T>(name: string, run: () => Promise<T>): Promise<T | undefined> {
  if (!PHASES.has(name)) return undefined;
  const before = load1();
  const result = await run();
  log(`  [${name}: ${loadNote(before)}]`);
  return result;
}

/** Options of a relay child process. */
function relayOptions(topic: string, relayId: string): RelayModuleOptions {
  return {
    connection: DATABASE_URL,
    kafka: { clientId: relayId, brokers: BROKERS },
    routing: { defaultTopic: topic },
    retention: false,
    schema: SCHEMA,
    tuning: {
      table: 'outbox',
      batchSize: BATCH,
      polling: { minMs: 10, maxMs: 50 },
      relayId,
    },
  };
}

async function drainNullInProcess(): Promise<number> {
  await outbox.reset();
  const { RelayModule } = await import('@nest-outbox/relay');
  const app = await NestFactory.createApplicationContext(
    RelayModule.forRoot({
      connection: DATABASE_URL,
      routing: { defaultTopic: 'null' },
      retention: false,
      schema: SCHEMA,
      tuning: {
        publisher: new NullPublisher(),
        batchSize: BATCH,
        polling: { minMs: 10, maxMs: 50 },
        autoStart: false,
      },
    }),
    { logger: ['error'] },
  );
  await app.init();
  try {
    await outbox.fill(shape);
    const startedAt = Date.now();
    await app.get(RelayLoop).start();
    return EVENTS / (((await outbox.drainedAt()) - startedAt) / 1000);
  } finally {
    await app.close();
  }
}

async function rawKafka(producer: Pick<Producer, 'sendBatch'>, topic: string): Promise<RawDrain> {
  await outbox.reset();
  const target = { table: outbox.table, batch: BATCH, headers: RAW_HEADERS };
  if (WARM_UP > 0) {
    // Untimed, on aggregates of its own: the timed loop runs warm, as the relay processes do.
    await outbox.fill(warmUpShape(shape, WARM_UP), false);
    await drainRawKafka(target, DATABASE_URL, producer, topic, WARM_UP, () => Promise.resolve());
  }
  await outbox.fill(shape, false);
  return drainRawKafka(target, DATABASE_URL, producer, topic, EVENTS, () => outbox.vacuum());
}

interface KafkaRound {
  raw?: RawDrain;
  one?: ProcessDrain;
  three?: ProcessDrain;
  /** The raw loop and one relay process on `@platformatic/kafka`. */
  platformatic?: { raw: RawDrain; one: ProcessDrain };
}

/** The raw loop, then one relay process, on `@platformatic/kafka`. */
async function platformaticDrains(topic: string, processes: (count: number) => RelayProcesses) {
  const producer = platformaticRawProducer(BROKERS);
  try {
    const raw = await rawKafka(producer, topic);
    const base = processes(1);
    const options = (id: string): RelayModuleOptions => {
      const o = base.options(id);
      return { ...o, client: 'platformatic' };
    };
    const one = await drainWithProcesses(
      outbox,
      { ...base, options, warmUpEvents: WARM_UP },
      shape,
    );
    return { raw, one };
  } finally {
    await producer.close();
  }
}

async function kafkaRounds(
  producer: Producer,
  topic: string,
  processes: (count: number) => RelayProcesses,
) {
  const rounds: KafkaRound[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const round: KafkaRound = {};
    round.raw = await phase('rawkafka', () => rawKafka(producer, topic));
    if (round.raw)
      log(
        `round ${i + 1}: raw Kafka reference (claim + kafkajs sendBatch + mark, ${RAW_HEADERS === 'bare' ? 'no headers' : "the relay's headers"}, no ordering): ${round.raw.rate.toFixed(0)} events/s, Node CPU ${round.raw.cpuUsPerEvent.toFixed(1)} us/event`,
      );
    round.one = await phase('kafka1', () =>
      drainWithProcesses(outbox, { ...processes(1), warmUpEvents: WARM_UP }, shape),
    );
    if (round.one)
      log(
        `round ${i + 1}: Kafka, 1 relay process: ${round.one.rate.toFixed(0)} events/s${round.raw ? ` (${(round.one.rate / round.raw.rate).toFixed(2)} of raw Kafka ${round.raw.rate.toFixed(0)})` : ''}, Node CPU ${round.one.cpuUsPerEvent.toFixed(1)} us/event, peak RSS ${round.one.rssMb.toFixed(0)} MB, ${round.one.claims} claims of ${round.one.eventsPerClaim.toFixed(0)} events on average (fill took ${round.one.fillMs} ms before the timed drain)`,
      );
    round.three = await phase('kafka3', () =>
      drainWithProcesses(outbox, { ...processes(3), warmUpEvents: WARM_UP }, shape),
    );
    if (round.three)
      log(
        `round ${i + 1}: Kafka, 3 relay processes: ${round.three.rate.toFixed(0)} events/s${round.one ? ` (${(round.three.rate / round.one.rate).toFixed(2)}x one relay ${round.one.rate.toFixed(0)})` : ''}, Node CPU ${round.three.cpuUsPerEvent.toFixed(1)} us/event, peak RSS ${round.three.rssMb.toFixed(0)} MB, ${round.three.claims} claims of ${round.three.eventsPerClaim.toFixed(0)} events on average`,
      );
    round.platformatic = await phase('platformatic', () => platformaticDrains(topic, processes));
    if (round.platformatic) {
      const { raw, one } = round.platformatic;
      log(
        `round ${i + 1}: @platformatic/kafka: raw loop ${raw.rate.toFixed(0)} events/s (Node CPU ${raw.cpuUsPerEvent.toFixed(1)} us/event), 1 relay process ${one.rate.toFixed(0)} events/s (${(one.rate / raw.rate).toFixed(2)} of its raw loop), Node CPU ${one.cpuUsPerEvent.toFixed(1)} us/event, peak RSS ${one.rssMb.toFixed(0)} MB`,
      );
    }
    rounds.push(round);
  }
  return rounds;
}

/** Median of a figure over the rounds that have it. */
function medianOf(rounds: KafkaRound[], figure: (r: KafkaRound) => number | undefined) {
  const values = rounds.map(figure).filter((v): v is number => v !== undefined);
  return values.length > 0 ? median(values) : undefined;
}

async function main(): Promise<void> {
  const loadAtStart = load1();
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${SCHEMA}"`);
  const topic = uniqueTopic('bench-relay');
  const latencyTopic = uniqueTopic('bench-relay-latency');
  const scaleTopic = uniqueTopic('bench-relay-scale');
  const compressionTopic = uniqueTopic('bench-relay-compression');
  const topics = [topic, latencyTopic, scaleTopic, compressionTopic];
  await createTopics(
    topics.map((t) => ({ topic: t, numPartitions: 6 })),
    BROKERS,
  );
  const usesProcesses = ['kafka1', 'kafka3', 'rss', 'scale'].some((p) => PHASES.has(p));
  const compiled =
    usesProcesses && (RUNTIME === 'compiled' || PHASES.has('rss')) ? compileRelay() : undefined;
  const producer = await rawProducer(BROKERS);
  const processes = (count: number, t = topic): RelayProcesses => ({
    count,
    options: (id) => relayOptions(t, id),
    compiled: RUNTIME === 'compiled' ? compiled : undefined,
  });
  try {
    log(
      `relay benchmark: ${EVENTS} events over ${AGGREGATES} aggregates, batches of ${BATCH}, relay processes on ${RUNTIME === 'compiled' ? 'compiled JavaScript' : 'ts-node'}, Kafka drains warmed by ${WARM_UP} untimed events each, schema ${SCHEMA}, load ${loadAtStart.toFixed(2)}`,
    );
    const raw = await phase('raw', async () => {
      await outbox.reset();
      await outbox.fill(shape);
      return drainRawSql({ pool, table: outbox.table, batch: BATCH }, EVENTS);
    });
    if (raw !== undefined) log(`raw SQL claim+mark ceiling: ${raw.toFixed(0)} events/s`);
    const nul = await phase('null', drainNullInProcess);
    if (nul !== undefined)
      log(
        `null publisher (RelayModule, in-process): ${nul.toFixed(0)} events/s${raw ? ` (${(nul / raw).toFixed(2)} of raw SQL ${raw.toFixed(0)})` : ''}`,
      );
    const rounds = await kafkaRounds(producer, topic, processes);
    const one = medianOf(rounds, (r) => r.one?.rate);
    const three = medianOf(rounds, (r) => r.three?.rate);
    const rawK = medianOf(rounds, (r) => r.raw?.rate);
    const vsRaw = medianOf(rounds, (r) => (r.one && r.raw ? r.one.rate / r.raw.rate : undefined));
    const plt = {
      one: medianOf(rounds, (r) => r.platformatic?.one.rate),
      raw: medianOf(rounds, (r) => r.platformatic?.raw.rate),
      vsRaw: medianOf(rounds, (r) =>
        r.platformatic ? r.platformatic.one.rate / r.platformatic.raw.rate : undefined,
      ),
      cpu: medianOf(rounds, (r) => r.platformatic?.one.cpuUsPerEvent),
    };
    const threeVsOne = medianOf(rounds, (r) =>
      r.one && r.three ? r.three.rate / r.one.rate : undefined,
    );
    if (ROUNDS > 1) {
      const parts = [
        rawK !== undefined ? `raw Kafka ${rawK.toFixed(0)}` : '',
        one !== undefined ? `1 relay ${one.toFixed(0)}` : '',
        vsRaw !== undefined ? `per-round ratio to raw Kafka ${vsRaw.toFixed(2)}` : '',
        three !== undefined ? `3 relays ${three.toFixed(0)}` : '',
        threeVsOne !== undefined ? `per-round 3 relays vs 1 ${threeVsOne.toFixed(2)}x` : '',
      ];
      log(`medians over ${ROUNDS} rounds: ${parts.filter(Boolean).join(', ')}`);
    }
    const latency = await phase('latency', () =>
      steadyLatency(outbox, {
        databaseUrl: DATABASE_URL,
        brokers: BROKERS,
        topic: latencyTopic,
        rate: RATE,
        seconds: LATENCY_SECONDS,
        aggregates: AGGREGATES,
        relay: { batchSize: BATCH },
      }),
    );
    if (latency)
      log(
        `steady ${RATE} events/s for ${LATENCY_SECONDS} s by @OutboxTransactional commands: commit-to-ack p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms; transaction-start (created_at) to ack p50 ${latency.createdP50.toFixed(1)} ms, p99 ${latency.createdP99.toFixed(1)} ms (${latency.n} events; this process, writer app + embedded relay + harness, peaked at ${latency.appRssMb.toFixed(0)} MB RSS)`,
      );
    const rss = await phase('rss', () =>
      drainWithProcesses(
        outbox,
        { ...processes(1), compiled, nullPublisher: RSS_PUBLISHER === 'null' },
        { events: RSS_ROWS, aggregates: AGGREGATES },
      ),
    );
    if (rss)
      log(
        `RSS: ${RSS_ROWS} pending rows drained by one relay process of compiled JavaScript (${RSS_PUBLISHER} publisher) at ${rss.rate.toFixed(0)} events/s, peak RSS ${rss.rssMb.toFixed(0)} MB`,
      );
    const scaling = await phase('scale', () =>
      scalingRows(
        {
          outbox,
          relays: processes(1, scaleTopic),
          databaseUrl: DATABASE_URL,
          producer,
          topic: scaleTopic,
          batch: BATCH,
          events: SCALE_EVENTS,
          maxBytes: 100_000_000,
        },
        log,
      ),
    );
    const compression = await phase('compression', () =>
      compressionRows(
        {
          outbox,
          databaseUrl: DATABASE_URL,
          brokers: BROKERS,
          topic: compressionTopic,
          batch: BATCH,
          events: COMPRESSION_EVENTS,
          maxBytes: 64_000_000,
        },
        log,
      ),
    );
    const drains = rounds.flatMap((r) => [r.one, r.three]).filter((d) => d !== undefined);
    const peakRss = Math.max(0, ...drains.map((d) => d.rssMb));
    const round = (v: number | undefined, digits = 0) =>
      v === undefined ? null : Number(v.toFixed(digits));
    console.log(
      JSON.stringify({
        bench: 'relay',
        relay_runtime: RUNTIME,
        rounds: ROUNDS,
        warm_up_events: WARM_UP,
        kafka_events_per_s: round(one),
        kafka_events_per_s_3_relays: round(three),
        kafka3_vs_kafka1: round(threeVsOne, 3),
        raw_kafka_events_per_s: round(rawK),
        raw_headers: RAW_HEADERS,
        kafka_vs_raw_kafka: round(vsRaw, 3),
        relay_vs_raw: { kafkajs: round(vsRaw, 3), platformatic: round(plt.vsRaw, 3) },
        clients: {
          kafkajs: {
            relay_events_per_s: round(one),
            raw_events_per_s: round(rawK),
            relay_cpu_us_per_event: round(
              medianOf(rounds, (r) => r.one?.cpuUsPerEvent),
              1,
            ),
          },
          platformatic: {
            relay_events_per_s: round(plt.one),
            raw_events_per_s: round(plt.raw),
            relay_cpu_us_per_event: round(plt.cpu, 1),
          },
        },
        relay_cpu_us_per_event: round(
          medianOf(rounds, (r) => r.one?.cpuUsPerEvent),
          1,
        ),
        raw_kafka_cpu_us_per_event: round(
          medianOf(rounds, (r) => r.raw?.cpuUsPerEvent),
          1,
        ),
        null_events_per_s: round(nul),
        raw_sql_events_per_s: round(raw),
        null_vs_raw: nul !== undefined && raw ? round(nul / raw, 3) : null,
        latency_p50_ms: round(latency?.p50, 1),
        latency_p99_ms: round(latency?.p99, 1),
        peak_rss_mb: peakRss > 0 ? Math.round(peakRss) : null,
        rss_compiled_mb: round(rss?.rssMb),
        scaling: scaling ?? null,
        compression: compression ?? null,
        load_start: round(loadAtStart, 2),
        load_end: round(load1(), 2),
      }),
    );
  } finally {
    await producer.disconnect();
    compiled?.remove();
    await pool.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await pool.end();
    const admin = testKafka().admin();
    await admin.connect();
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
  }
}

function compileRelay(): CompiledBuild {
  const startedAt = Date.now();
  const build = CompiledBuild.compile(['libs/relay/test/relay-child.ts']);
  log(`compiled the relay child and the libraries with tsc in ${Date.now() - startedAt} ms`);
  return build;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
