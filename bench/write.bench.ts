/**
 * Write-path benchmark (issues 2 and 12): what the outbox costs a command, compared with
 * what PostgreSQL charges for the same statements sent by hand.
 *
 *   npm run bench:write        (about 15 minutes; BENCH_SWEEP=off: about 7)
 *
 * Variants (alternated: the order rotates each run; each run of each variant starts its own
 * application or pool, warms up, then is measured):
 * - lib_without:    a Nest service method under nestjs-cls's @Transactional() running the
 *                   conditional UPDATE ... RETURNING version through TransactionHost.tx;
 * - lib_with:       the same method under @OutboxTransactional(), same UPDATE, plus
 *                   outbox.record() of one event (written at the end, same transaction);
 * - lib_with_quiet: lib_with without the cross-process notification (notifyChannel: false);
 * - lib_single:     @OutboxTransactional() + outbox.transitionAndRecord(): the transition
 *                   and its event in one statement (one round trip less than the others);
 * - raw_without:    plain `pg`: BEGIN; the same UPDATE; COMMIT;
 * - raw_with:       plain `pg`: BEGIN; the same UPDATE; the library's own INSERT statement
 *                   (per-aggregate advisory lock included, same named prepared statement);
 *                   COMMIT. Exactly the statements lib_with sends (BENCH_COUNT=on shows it).
 * - raw_plain:      (only when named in BENCH_VARIANTS) the reference of issue 12's figures:
 *                   `INSERT ... VALUES`, no advisory lock, unnamed; raw_plain vs raw_with
 *                   is what the lock and the library's statement cost.
 * Ratios are with/without within one run (lib_* over lib_without, raw_with over
 * raw_without), medians over runs. CPU per command is measured for this Node process
 * (process.cpuUsage) and for the variant's PostgreSQL backends (/proc/<pid>/schedstat,
 * found by application_name): both are far less sensitive to a loaded machine than tx/s.
 *
 * Environment knobs:
 *   DATABASE_URL          postgres://postgres@127.0.0.1:5432/postgres
 *   BENCH_SECONDS         20     measured seconds per variant and run, headline callers
 *   BENCH_SWEEP_SECONDS   10     the same for the other caller counts of the sweep
 *   BENCH_WARMUP_SECONDS  2      before each measured phase, and once per variant at start
 *   BENCH_RUNS            3      runs per caller count (medians over them)
 *   BENCH_CALLERS         32     concurrent callers of the headline figures (the JSON's
 *                                historical keys)
 *   BENCH_SWEEP           8,32,128  caller counts (the headline count is always run);
 *                                `off`: the headline count only
 *   BENCH_POOL_MAX        32     connections per variant = min(callers, BENCH_POOL_MAX).
 *                                PostgreSQL allows 100 connections for everyone on the
 *                                machine: 128 callers share 32 connections (and wait for
 *                                one in the pool, in every variant alike)
 *   BENCH_VARIANTS        all    comma-separated subset of the variants above
 *   BENCH_NOTIFY          on     `off`: no notifications in any lib variant
 *   BENCH_NOTIFY_MS       5      notifyCoalesceMs of the outbox (the module's default)
 *   BENCH_COUNT           off    `on`: count statements and pool checkouts per command
 *   BENCH_PROFILE         -      a directory: one .cpuprofile per measured phase
 *   BENCH_STACKS          on     per data stack (TypeORM, Prisma, Drizzle, Kysely, MikroORM,
 *                                pg), at the headline callers: `<stack>_lib` (outbox.transaction
 *                                + record, the UPDATE through the stack's tx) vs `<stack>_raw`
 *                                (the stack's own transaction, same UPDATE and the library's
 *                                INSERT by hand); JSON key `stack_ratios` (lib over raw, medians
 *                                of per-run ratios). `off`: skip; `only`: skip everything else
 *   BENCH_INTERLEAVE      0      N > 0: instead of the phases above, N commands per variant
 *                                with the variants interleaved command by command, one
 *                                caller, notifications off: Node CPU per command under the
 *                                same machine conditions for all (the steadiest figure on a
 *                                busy machine); last line {"bench":"write_cpu",...}
 * Output: one line per run and variant, medians per caller count, and as the last line one
 * JSON object (headline ratios under their historical keys, then the new figures).
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Pool } from 'pg';
import { outboxSchemaSql } from '@nest-outbox/outbox';
import { backendCpuSince } from './write/backend-cpu';
import { drive, median, type Result } from './write/drive';
import { PhaseProfiler } from './write/profiler';
import { interleavedCpu } from './write/interleaved-cpu';
import { formatPerOp, installQueryCounter, takeQueryCounts } from './write/query-counter';
import { rawVariant, type Command, type RawEvent } from './write/raw-commands';
import { WriteBenchAppModule, WriteBenchCommands } from './write/write-bench.app';
import { benchSql, ROWS_PER_CALLER } from './write/write-bench.sql';
import { summarise, type CallerFigures } from './write/write-bench.summary';
import { STACK_NAMES, startStack } from './write/stack-variants';

const env = process.env;
const DATABASE_URL = env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(env.BENCH_SECONDS ?? 20);
const SWEEP_SECONDS = Number(env.BENCH_SWEEP_SECONDS ?? 10);
const WARMUP_SECONDS = Number(env.BENCH_WARMUP_SECONDS ?? 2);
const RUNS = Number(env.BENCH_RUNS ?? 3);
const CALLERS = Number(env.BENCH_CALLERS ?? 32);
const POOL_MAX = Number(env.BENCH_POOL_MAX ?? 32);
const SWEEP =
  env.BENCH_SWEEP === 'off' ? [] : (env.BENCH_SWEEP ?? '8,32,128').split(',').map(Number);
const COUNTS = [...new Set([...SWEEP, CALLERS])].sort((a, b) => a - b);
const COUNT = env.BENCH_COUNT === 'on';
const INTERLEAVE = Number(env.BENCH_INTERLEAVE ?? 0);
const SCHEMA = `bench_write_${randomBytes(3).toString('hex')}`;
const SQL = benchSql(SCHEMA);

type LibMethod = 'withoutOutbox' | 'withOutbox' | 'singleStatement';
type Variant = { lib: LibMethod; notify: boolean } | { raw: RawEvent };
const VARIANTS: Record<string, Variant> = {
  lib_without: { lib: 'withoutOutbox', notify: true },
  lib_with: { lib: 'withOutbox', notify: true },
  lib_with_quiet: { lib: 'withOutbox', notify: false },
  lib_single: { lib: 'singleStatement', notify: true },
  raw_without: { raw: 'none' },
  raw_with: { raw: 'library' },
  raw_plain: { raw: 'plain' },
};
const NAMES = Object.keys(VARIANTS).filter((n) =>
  env.BENCH_VARIANTS ? env.BENCH_VARIANTS.split(',').includes(n) : n !== 'raw_plain',
);

let admin: Pool;
const profiler = env.BENCH_PROFILE ? new PhaseProfiler(env.BENCH_PROFILE) : undefined;

/** Starts a variant with a pool of `poolMax`; returns its command and how to stop it. */
async function start(variant: Variant, poolMax: number, applicationName: string) {
  if ('raw' in variant) {
    return rawVariant({ databaseUrl: DATABASE_URL, poolMax, applicationName }, SQL, variant.raw);
  }
  const notify = variant.notify && env.BENCH_NOTIFY !== 'off';
  const { commands, close } = await startLibApp(poolMax, applicationName, notify);
  const command: Command = (...args) => commands[variant.lib](...args);
  return { command, close };
}

/** The Nest application of the lib variants, with a pool of `poolMax`. */
async function startLibApp(poolMax: number, applicationName: string, notify: boolean) {
  const app = await NestFactory.createApplicationContext(
    WriteBenchAppModule.register({
      databaseUrl: DATABASE_URL,
      schema: SCHEMA,
      poolMax,
      applicationName,
      // A channel of its own: relays of other runs listening on the default channel would
      // otherwise wake up on every notification and load the database during the run.
      notifyChannel: notify ? SCHEMA : false,
      notifyCoalesceMs: env.BENCH_NOTIFY_MS ? Number(env.BENCH_NOTIFY_MS) : undefined,
    }),
    { logger: ['error', 'warn'] },
  );
  return { commands: app.get(WriteBenchCommands), close: () => app.close() };
}

/** Runs `fn` with the command of variant `name` (its own application or pool), then stops it. */
async function withVariant<T>(
  name: string,
  callers: number,
  applicationName: string,
  fn: (command: Command) => Promise<T>,
): Promise<T> {
  const pool = Math.min(callers, POOL_MAX);
  const { command, close } = await start(VARIANTS[name]!, pool, applicationName);
  try {
    return await fn(command);
  } finally {
    await close();
  }
}

async function runOnce(name: string, callers: number, seconds: number, run: number) {
  await admin.query(`TRUNCATE "${SCHEMA}".outbox`);
  await admin.query(`VACUUM ANALYZE "${SCHEMA}".orders`);
  const applicationName = `${SCHEMA}_${name}`;
  return withVariant(name, callers, applicationName, async (command) => {
    await drive(command, WARMUP_SECONDS, states, callers);
    const backendCpu = await backendCpuSince(admin, applicationName);
    takeQueryCounts();
    await profiler?.start();
    const result = await drive(command, seconds, states, callers, backendCpu);
    const profile = await profiler?.stop(`c${callers}-${name}-run${run + 1}`);
    printRun(name, callers, run, result);
    if (COUNT) console.log(`  per command: ${formatPerOp(takeQueryCounts(), result.ops)}`);
    if (profile) console.log(`  profile: ${profile} (${result.ops} ops)`);
    return result;
  });
}

function printRun(name: string, callers: number, run: number, result: Result): void {
  const fmt = (n: number, digits = 2) => n.toFixed(digits);
  console.log(
    `c${callers} run ${run + 1} ${name.padEnd(14)} ${fmt(result.throughput, 0).padStart(6)} tx/s  p50 ${fmt(result.p50)} ms  p99 ${fmt(result.p99)} ms  CPU/op node ${fmt(result.cpuUs, 0)} us, pg ${fmt(result.pgCpuUs, 0)} us  (${result.ops} ops, load ${fmt(result.loadBefore)} -> ${fmt(result.loadAfter)})`,
  );
}

/**
 * One unmeasured pass over every variant before the first measured run: the code every
 * variant shares (pg, TypeORM, nestjs-cls) is then compiled by the JIT already, so the first
 * variant of the first run is not charged for it.
 */
async function warmUpAll(callers: number): Promise<void> {
  for (const name of NAMES) {
    await withVariant(name, callers, `${SCHEMA}_warmup`, (command) =>
      drive(command, WARMUP_SECONDS, states, callers),
    );
  }
}

/** Current state of every order (true = confirmed), kept in memory between variants. */
let states: boolean[] = [];

async function setUp(rows: number): Promise<void> {
  await admin.query(`CREATE SCHEMA "${SCHEMA}"`);
  for (const statement of outboxSchemaSql({ schema: SCHEMA, table: 'outbox' })) {
    await admin.query(statement);
  }
  await admin.query(
    `CREATE TABLE "${SCHEMA}".orders (id integer PRIMARY KEY, status text NOT NULL, version bigint NOT NULL DEFAULT 0)`,
  );
  await admin.query(
    `INSERT INTO "${SCHEMA}".orders (id, status) SELECT g, 'pending' FROM generate_series(0, $1) g`,
    [rows - 1],
  );
  states = new Array<boolean>(rows).fill(false);
}

/**
 * BENCH_INTERLEAVE=<commands>: Node CPU per command with the variants interleaved command
 * by command, one caller (see interleaved-cpu.ts). Notifications are off: a notification
 * is sent after its command returned, so its CPU would land in another variant's window.
 */
async function interleavedMode(commands: number): Promise<void> {
  const lib = await startLibApp(1, `${SCHEMA}_cpu`, false);
  const options = { databaseUrl: DATABASE_URL, poolMax: 1, applicationName: `${SCHEMA}_cpu` };
  const raw = [rawVariant(options, SQL, 'none'), rawVariant(options, SQL, 'library')] as const;
  const loadBefore = loadavg()[0]!;
  try {
    const c = lib.commands;
    const cpu = await interleavedCpu(
      [
        ['lib_without', (...a) => c.withoutOutbox(...a)],
        ['lib_with', (...a) => c.withOutbox(...a)],
        ['lib_single', (...a) => c.singleStatement(...a)],
        ['raw_without', raw[0].command],
        ['raw_with', raw[1].command],
      ],
      commands,
      states,
    );
    const added = (a: string, b: string) => Math.round(cpu[a]! - cpu[b]!);
    for (const [name, us] of Object.entries(cpu))
      console.log(`${name.padEnd(12)} ${us.toFixed(0)} us/command`);
    console.log(
      JSON.stringify({
        bench: 'write_cpu',
        commands,
        node_cpu_us: Object.fromEntries(Object.entries(cpu).map(([n, us]) => [n, Math.round(us)])),
        lib_added_cpu_us: added('lib_with', 'lib_without'),
        single_added_cpu_us: added('lib_single', 'lib_without'),
        raw_added_cpu_us: added('raw_with', 'raw_without'),
        load_before: Number(loadBefore.toFixed(2)),
        load_after: Number(loadavg()[0]!.toFixed(2)),
      }),
    );
  } finally {
    await lib.close();
    await Promise.all(raw.map((r) => r.close()));
  }
}

/**
 * BENCH_STACKS: each data stack's lib and raw commands at the headline callers, RUNS runs
 * (stacks rotate, lib and raw alternate first); returns lib over raw per stack, medians of
 * the per-run ratios.
 */
async function stackPhases(): Promise<Record<string, { throughput: number; p50: number }>> {
  const ratios: Record<string, { throughput: number[]; p50: number[] }> = {};
  const options = { databaseUrl: DATABASE_URL, poolMax: Math.min(CALLERS, POOL_MAX) };
  for (let run = 0; run < RUNS; run++) {
    for (let i = 0; i < STACK_NAMES.length; i++) {
      const stack = STACK_NAMES[(i + run) % STACK_NAMES.length]!;
      const commands = await startStack(stack, options, SQL);
      try {
        const measured: Record<string, Result> = {};
        for (const variant of run % 2 === 0 ? ['lib', 'raw'] : ['raw', 'lib']) {
          await admin.query(`TRUNCATE "${SCHEMA}".outbox`);
          const command = commands[variant as 'lib' | 'raw'];
          await drive(command, WARMUP_SECONDS, states, CALLERS);
          measured[variant] = await drive(command, SECONDS, states, CALLERS);
          printRun(`${stack}_${variant}`, CALLERS, run, measured[variant]);
        }
        const r = (ratios[stack] ??= { throughput: [], p50: [] });
        r.throughput.push(measured.lib!.throughput / measured.raw!.throughput);
        r.p50.push(measured.lib!.p50 / measured.raw!.p50);
      } finally {
        await commands.close();
      }
    }
  }
  const round = (n: number) => Math.round(n * 1000) / 1000;
  const result = Object.fromEntries(
    Object.entries(ratios).map(([stack, r]) => [
      stack,
      { throughput: round(median(r.throughput)), p50: round(median(r.p50)) },
    ]),
  );
  for (const [stack, r] of Object.entries(result)) {
    console.log(
      `${stack.padEnd(10)} lib/raw at ${CALLERS} callers: tx/s ${r.throughput}, p50 ${r.p50}`,
    );
  }
  return result;
}

async function main(): Promise<void> {
  if (COUNT) installQueryCounter();
  admin = new Pool({ connectionString: DATABASE_URL, max: 2 });
  await setUp(Math.max(...COUNTS, 8) * ROWS_PER_CALLER);
  if (INTERLEAVE > 0) {
    try {
      await interleavedMode(INTERLEAVE);
    } finally {
      await admin.query(`DROP SCHEMA "${SCHEMA}" CASCADE`);
      await admin.end();
    }
    return;
  }
  console.log(
    `write bench: callers ${COUNTS.join(', ')} (headline ${CALLERS}), ${SECONDS}s per variant (sweep ${SWEEP_SECONDS}s), ${RUNS} runs, pool <= ${POOL_MAX}, schema ${SCHEMA}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const figures: CallerFigures[] = [];
  let stackRatios: Record<string, { throughput: number; p50: number }> | undefined;
  try {
    if (env.BENCH_STACKS !== 'only') await warmUpAll(CALLERS);
    for (const callers of env.BENCH_STACKS === 'only' ? [] : COUNTS) {
      const seconds = callers === CALLERS ? SECONDS : SWEEP_SECONDS;
      const results: Record<string, Result[]> = Object.fromEntries(NAMES.map((n) => [n, []]));
      for (let run = 0; run < RUNS; run++) {
        // Rotate the order each run so no variant always runs first or last.
        const order = NAMES.map((_, i) => NAMES[(i + run) % NAMES.length]!);
        for (const name of order) results[name]!.push(await runOnce(name, callers, seconds, run));
      }
      figures.push({ callers, pool: Math.min(callers, POOL_MAX), results });
    }
    if (env.BENCH_STACKS !== 'off') stackRatios = await stackPhases();
  } finally {
    await admin.query(`DROP SCHEMA "${SCHEMA}" CASCADE`);
    await admin.end();
  }
  const summary =
    figures.length > 0
      ? summarise(figures, CALLERS, RUNS, median, console.log)
      : { bench: 'write' };
  console.log(JSON.stringify({ ...summary, stack_ratios: stackRatios }));
}

main().catch((error: unknown) => {
  new Logger('write.bench').error(
    error instanceof Error ? (error.stack ?? error.message) : String(error),
  );
  process.exit(1);
});
