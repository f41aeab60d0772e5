/**
 * The relay under a busy database (issue 39): `npm run bench:held -- [options]`.
 *
 * A private PostgreSQL (initdb on a free port, autovacuum on at its default thresholds,
 * pg_stat_statements loaded), the real Kafka broker, one standalone relay (apps/relay, compiled
 * JavaScript, /health and /metrics on a free port, its own login whose statements of 1 s or
 * more auto_explain logs) and a writer app that records events through @OutboxTransactional()
 * + record() at a steady rate over 1,000 aggregates: `--writers` command loops (a connection
 * each) in `--writer-processes` processes (one would starve on a busy machine) share the rate
 * (a token bucket per process), each command records `--events-per-command` events of one
 * aggregate. Three phases per rate: `before`, `held` (a second session holds BEGIN ISOLATION
 * LEVEL REPEATABLE READ idle, as a report, a pg_dump or an idle-in-transaction session does),
 * `after`.
 *
 * Options: --rates 800,2000 --before-s 60 --hold-s 360 --after-s 60 --aggregates 1000
 * --writers 64 --writer-processes 2 --events-per-command 10.
 * The writers warm up for 20 s first. Per phase: the events and commands the writer committed
 * per second (a phase under 95% of the rate is reported as WRITER SHORT) and its event loop
 * delay p99 (its commit times are late by as much), published/s, commit -> ack (the command
 * resolved -> published_at) p50/p99/max of the events committed in it, claim p50/p99 (the
 * relay's claim histogram), the claim
 * statements' buffers per call (pg_stat_statements), dead tuples, HOT share of the updates,
 * table and index sizes, what /health and the backlog gauges said against count(*) pending and
 * the oldest pending age. Per rate: the relay's slowest statements (pg_stat_statements), the
 * plans of those that ran 1 s or more and those its statement timeout cancelled. Load averages
 * before and after each rate. Last line: one JSON object `{"held_snapshot": {"<rate>":
 * {"before": {...}, "held": {...}, "after": {...}, "relay_statements": {...}}}}`.
 */
import 'reflect-metadata';
import { loadavg } from 'node:os';
import { Pool, type PoolClient } from 'pg';
import { outboxSchemaSql } from '@nest-outbox/outbox';
import { relaySchemaSql } from '@nest-outbox/relay';
import {
  createTopics,
  freePort,
  KAFKA_BROKERS,
  startPrivatePostgres,
  uniqueTopic,
  waitFor,
  type PrivatePostgres,
  type TsChild,
} from '@test/support';
import { CompiledBuild } from './support/compiled-build';
import { claimQuantileMs, sample, type HeldSample } from './support/held-probes';
import {
  RELAY_STATEMENT_SETTINGS,
  watchRelayStatements,
  type RelayStatementsWatch,
} from './support/relay-statements';
import { writeInProcesses } from './support/held-writers';
import { achieved } from './support/steady-writer';

const PHASES = ['before', 'held', 'after'] as const;
const WARM_UP_MS = 20_000;
type Phase = (typeof PHASES)[number];

function args() {
  const argv = process.argv.slice(2);
  const value = (name: string, fallback: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
  };
  const int = (name: string, fallback: number) => {
    const n = Number(value(name, String(fallback)));
    if (!Number.isSafeInteger(n) || n < 1)
      throw new TypeError(`--${name} must be a positive integer (got ${value(name, '')})`);
    return n;
  };
  return {
    rates: value('rates', '800,2000').split(',').map(Number),
    seconds: { before: int('before-s', 60), held: int('hold-s', 360), after: int('after-s', 60) },
    aggregates: int('aggregates', 1000),
    eventsPerCommand: int('events-per-command', 10),
    workers: int('writers', 64),
    processes: int('writer-processes', 2),
  };
}
const ARGS = args();
const log = (line: string) => console.log(line);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const round = (n: number) => (Number.isFinite(n) ? Math.round(n) : n === Infinity ? '>1000' : null);

async function setUp(pool: Pool, schema: string): Promise<void> {
  for (const s of [
    ...outboxSchemaSql({ schema, table: 'outbox' }),
    ...relaySchemaSql({ schema, table: 'outbox' }),
  ])
    await pool.query(s);
  await pool.query(`CREATE TABLE "${schema}".items (id int PRIMARY KEY, version bigint NOT NULL)`);
  await pool.query(
    `INSERT INTO "${schema}".items SELECT g, 0 FROM generate_series(0, ${ARGS.aggregates - 1}) g`,
  );
}

function startRelay(
  build: CompiledBuild,
  databaseUrl: string,
  schema: string,
  topic: string,
  port: number,
) {
  return build.spawn('apps/relay/src/main.ts', {
    DATABASE_URL: databaseUrl,
    KAFKA_BROKERS: KAFKA_BROKERS.join(','),
    OUTBOX_SCHEMA: schema,
    RELAY_DEFAULT_TOPIC: topic,
    RELAY_HTTP_PORT: String(port),
    RELAY_CONSOLE: 'off',
    RELAY_ID: `held-${schema}`,
  });
}

/** Phase figures from the samples at its edges and the events committed in it. */
function phaseFigures(
  first: HeldSample,
  last: HeldSample,
  latencies: number[],
  published: number,
  seconds: number,
  written: number,
  writerLagP99Ms: number,
) {
  const sorted = latencies.sort((a, b) => a - b);
  const statements = {
    calls: last.claimStatements.calls - first.claimStatements.calls,
    ms: last.claimStatements.ms - first.claimStatements.ms,
    blocks: last.claimStatements.blocks - first.claimStatements.blocks,
  };
  const updates = last.table.updates - first.table.updates;
  return {
    written_per_s: Math.round(written),
    commands_per_s: Math.round(written / ARGS.eventsPerCommand),
    writer_lag_p99_ms: writerLagP99Ms,
    published_per_s: Math.round(published / seconds),
    ack_p50_ms: round(percentile(sorted, 0.5)),
    ack_p99_ms: round(percentile(sorted, 0.99)),
    ack_max_ms: round(sorted[sorted.length - 1] ?? NaN),
    claim_p50_ms: round(claimQuantileMs(first, last, 0.5)),
    claim_p99_ms: round(claimQuantileMs(first, last, 0.99)),
    claim_statement_mean_ms: statements.calls
      ? +(statements.ms / statements.calls).toFixed(2)
      : null,
    buffers_per_claim_statement: statements.calls
      ? Math.round(statements.blocks / statements.calls)
      : null,
    dead_tuples: last.table.deadTuples,
    hot_share:
      updates > 0 ? +((last.table.hotUpdates - first.table.hotUpdates) / updates).toFixed(2) : null,
    autovacuums: last.table.autovacuums - first.table.autovacuums,
    table_mb: +(last.table.tableBytes / 2 ** 20).toFixed(1),
    index_mb: Object.fromEntries(
      Object.entries(last.table.indexBytes).map(([k, v]) => [k, +(v / 2 ** 20).toFixed(1)]),
    ),
    reported_at_end: last.reported,
    truth_at_end: { pending: last.truth.pending, oldest_ms: Math.round(last.truth.oldestMs) },
  };
}

async function runRate(
  build: CompiledBuild,
  pg: PrivatePostgres,
  pool: Pool,
  relayStatements: RelayStatementsWatch,
  rate: number,
) {
  const schema = `held_${rate}`;
  await setUp(pool, schema);
  const port = await freePort();
  const topic = uniqueTopic('held');
  await createTopics([topic]);
  await relayStatements.mark();
  const relay: TsChild = startRelay(build, relayStatements.url, schema, topic, port);
  let holder: PoolClient | undefined;
  try {
    await waitFor(
      'the relay /health',
      () => fetch(`http://127.0.0.1:${port}/health`).then(() => true),
      {
        timeoutMs: 120_000,
        intervalMs: 500,
      },
    );
    log(`rate ${rate}/s: load ${load()} (1/5/15 min) at start`);
    // The writer processes start and warm up before the first phase starts.
    const t0 = Date.now() + WARM_UP_MS;
    const s = ARGS.seconds;
    const edges = [
      t0,
      t0 + s.before * 1000,
      t0 + (s.before + s.held) * 1000,
      t0 + (s.before + s.held + s.after) * 1000,
    ];
    const take = () => sample(pool, schema, port);
    const edgeSamples: HeldSample[] = [];
    const phaseTimer = (async () => {
      for (const [i, edge] of edges.entries()) {
        await new Promise((resolve) => setTimeout(resolve, edge - Date.now()));
        edgeSamples.push(await take());
        if (i === 1) {
          holder = await pool.connect();
          await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
          await holder.query(`SELECT count(*) FROM "${schema}".items`);
          log(`  held snapshot taken at ${Math.round((Date.now() - t0) / 1000)} s`);
        } else if (i === 2) {
          const held = holder!;
          holder = undefined;
          await held.query('COMMIT');
          held.release();
          log(`  held snapshot released at ${Math.round((Date.now() - t0) / 1000)} s`);
        }
      }
    })();
    const { committedAt, lagP99Ms } = await writeInProcesses(pg.url, schema, edges, {
      ...ARGS,
      rate,
    });
    await phaseTimer;
    await waitFor('the drain', async () => (await sample(pool, schema, port)).truth.pending === 0, {
      timeoutMs: 600_000,
      intervalMs: 1000,
    });
    const { rows } = await pool.query<{ event_id: string; published: number }>(
      `SELECT event_id, (extract(epoch FROM published_at) * 1000)::float8 AS published FROM "${schema}".outbox`,
    );
    log(`  ${committedAt.size} events committed, ${rows.length} rows published`);
    const latencies: number[][] = PHASES.map(() => []);
    const published = PHASES.map(() => 0);
    const phaseOf = (at: number) =>
      at < edges[0]! ? -1 : at < edges[1]! ? 0 : at < edges[2]! ? 1 : at < edges[3]! ? 2 : -1;
    for (const r of rows) {
      const committed = committedAt.get(r.event_id);
      if (committed !== undefined && phaseOf(committed) >= 0)
        latencies[phaseOf(committed)]!.push(r.published - committed);
      const p = phaseOf(r.published);
      if (p >= 0) published[p]!++;
    }
    const figures = Object.fromEntries(
      PHASES.map((phase: Phase, i) => [
        phase,
        phaseFigures(
          edgeSamples[i]!,
          edgeSamples[i + 1]!,
          latencies[i]!,
          published[i]!,
          (edges[i + 1]! - edges[i]!) / 1000,
          achieved(committedAt, edges[i]!, edges[i + 1]!),
          lagP99Ms[i]!,
        ),
      ]),
    );
    log(`rate ${rate}/s: load ${load()} (1/5/15 min) at end`);
    for (const phase of PHASES) {
      const { written_per_s: written } = figures[phase]!;
      if (written < 0.95 * rate)
        log(`  WRITER SHORT in ${phase}: ${written} of ${rate} events/s, not the asked load`);
      log(`  ${phase}: ${JSON.stringify(figures[phase])}`);
    }
    const statements = await relayStatements.read();
    for (const plan of statements.slowPlans) log(`  relay statement of 1 s or more:\n${plan}`);
    for (const t of statements.timeouts) log(`  relay statement timed out: ${t}`);
    log(`  relay statements, slowest: ${JSON.stringify(statements.slowest)}`);
    return {
      ...figures,
      relay_statements: {
        max_ms: statements.slowest[0]?.max_ms ?? null,
        over_1s: statements.slowPlans.length,
        timeouts: statements.timeouts.length,
      },
    };
  } catch (error) {
    log(`relay output:\n${relay.output().slice(-3000)}`);
    throw error;
  } finally {
    if (holder) {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
    await relay.stop(30_000);
  }
}

async function main(): Promise<void> {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  log(`bench:held ${JSON.stringify(ARGS)}; load ${load()} (1/5/15 min)`);
  const pg = await startPrivatePostgres({
    settings: {
      shared_buffers: '128MB',
      max_connections: '100',
      ...RELAY_STATEMENT_SETTINGS,
    },
  });
  const pool = new Pool({ connectionString: pg.url, max: 4 });
  const build = CompiledBuild.compile(['apps/relay/src/main.ts']);
  const result: Record<string, unknown> = {};
  try {
    const watch = await watchRelayStatements(pool, pg);
    for (const rate of ARGS.rates)
      result[String(rate)] = await runRate(build, pg, pool, watch, rate);
  } finally {
    await pool.end();
    pg.destroy();
    build.remove();
  }
  log(JSON.stringify({ held_snapshot: result }));
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
