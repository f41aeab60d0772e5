/**
 * Write-path benchmark (issue 2, section 6): what the outbox costs a command, compared
 * with what PostgreSQL itself charges for writing the event row.
 *
 *   npm run bench:write            (BENCH_SECONDS=20 BENCH_RUNS=2 BENCH_CALLERS=32 by default)
 *
 * Four variants, alternated (order rotated each run), each for BENCH_SECONDS with
 * BENCH_CALLERS concurrent callers, after a short warm-up:
 * - lib_without: a Nest service method under @Transactional() (nestjs-cls + TypeORM) running
 *   the conditional UPDATE ... RETURNING version through TransactionHost.tx;
 * - lib_with:    the same method under @OutboxTransactional(), same UPDATE, plus
 *   outbox.record() of one event (flushed at the end, in the same transaction);
 * - raw_without: plain `pg`: BEGIN; the same UPDATE; COMMIT;
 * - raw_with:    plain `pg`: BEGIN; the same UPDATE; INSERT of an outbox row of the same
 *   shape; COMMIT.
 * The outbox notifies on a channel named after the run's schema (no relay listens), every
 * BENCH_NOTIFY_MS (default: the module's 5 ms); BENCH_NOTIFY=off disables it.
 * Prints p50/p99 latency and throughput per variant and run, medians, and as the last
 * line one JSON object with the with/without ratios (medians of the per-run ratios).
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Injectable, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { ClsPluginTransactional, Transactional, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsModule } from 'nestjs-cls';
import { Pool } from 'pg';
import { uuidv7 } from '@nest-outbox/core';
import {
  OutboxModule,
  OutboxService,
  OutboxTransactional,
  outboxSchemaSql,
} from '@nest-outbox/outbox';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const CALLERS = Number(process.env.BENCH_CALLERS ?? 32);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const ROWS_PER_CALLER = 50;
const SCHEMA = `bench_write_${randomBytes(3).toString('hex')}`;
const PAYLOAD = {
  orderId: 0,
  status: 'confirmed',
  amount: 1234,
  currency: 'EUR',
  note: 'x'.repeat(64),
};

type Host = TransactionHost<TransactionalAdapterTypeOrm>;
type Command = (id: number, from: string, to: string) => Promise<void>;
const UPDATE = `UPDATE "${SCHEMA}".orders SET status = $2, version = version + 1 WHERE id = $1 AND status = $3 RETURNING version`;
const INSERT = `INSERT INTO "${SCHEMA}".outbox (event_id, event_type, schema_version, aggregate_type, aggregate_id, aggregate_version, occurred_at, payload, headers, topic) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;

function versionOf(rows: { version: string }[]): number {
  const version = rows[0]?.version;
  if (version === undefined) throw new Error('transition matched no row');
  return Number(version);
}

/** TypeORM returns `[rows, rowCount]` for an UPDATE. */
async function typeormUpdate(host: TransactionHost, id: number, from: string, to: string) {
  const [rows] = await (host as Host).tx.query<[{ version: string }[], number]>(UPDATE, [
    id,
    to,
    from,
  ]);
  return versionOf(rows);
}

@Injectable()
class BenchCommands {
  constructor(
    private readonly host: TransactionHost,
    private readonly outbox: OutboxService,
  ) {}

  @Transactional()
  async withoutOutbox(id: number, from: string, to: string): Promise<void> {
    await typeormUpdate(this.host, id, from, to);
  }

  @OutboxTransactional()
  async withOutbox(id: number, from: string, to: string): Promise<void> {
    const version = await typeormUpdate(this.host, id, from, to);
    await this.outbox.record({
      eventType: `order.${to}`,
      aggregateType: 'order',
      aggregateId: String(id),
      aggregateVersion: version,
      payload: { ...PAYLOAD, orderId: id, status: to },
    });
  }
}

@Module({
  imports: [
    TypeOrmModule.forRoot({ type: 'postgres', url: DATABASE_URL, extra: { max: CALLERS } }),
    ClsModule.forRoot({
      global: true,
      plugins: [
        new ClsPluginTransactional({
          imports: [TypeOrmModule],
          adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: getDataSourceToken() }),
        }),
      ],
    }),
    OutboxModule.forRoot({
      schema: SCHEMA,
      table: 'outbox',
      // A channel of its own: relays of other runs listening on the default channel would
      // otherwise wake up on every notification and load the database during the run.
      notifyChannel: process.env.BENCH_NOTIFY === 'off' ? false : SCHEMA,
      notifyCoalesceMs: process.env.BENCH_NOTIFY_MS
        ? Number(process.env.BENCH_NOTIFY_MS)
        : undefined,
    }),
  ],
  providers: [BenchCommands],
})
class BenchModule {}

function rawCommand(pool: Pool, withEvent: boolean): Command {
  return async (id, from, to) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ version: string }>(UPDATE, [id, to, from]);
      const version = versionOf(rows);
      if (withEvent) {
        await client.query(INSERT, [
          uuidv7(),
          `order.${to}`,
          1,
          'order',
          String(id),
          version,
          new Date().toISOString(),
          JSON.stringify({ ...PAYLOAD, orderId: id, status: to }),
          '{}',
          null,
        ]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
}

interface Result {
  ops: number;
  /** CPU time of this Node process per operation (user + system), microseconds. */
  cpuUs: number;
  seconds: number;
  p50: number;
  p99: number;
  throughput: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : NaN;
}

/** Each caller owns ROWS_PER_CALLER orders and flips them pending <-> confirmed. */
async function drive(command: Command, seconds: number): Promise<Result> {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const caller = async (c: number) => {
    const states = new Array<boolean>(ROWS_PER_CALLER).fill(false);
    const current = await statesOf(c);
    current.forEach((confirmed, i) => (states[i] = confirmed));
    for (let i = 0; performance.now() < deadline; i++) {
      const slot = i % ROWS_PER_CALLER;
      const confirmed = states[slot]!;
      const t0 = performance.now();
      await command(
        c * ROWS_PER_CALLER + slot,
        confirmed ? 'confirmed' : 'pending',
        confirmed ? 'pending' : 'confirmed',
      );
      latencies.push(performance.now() - t0);
      states[slot] = !confirmed;
    }
  };
  await Promise.all(Array.from({ length: CALLERS }, (_, c) => caller(c)));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = Float64Array.from(latencies).sort();
  return {
    ops: latencies.length,
    cpuUs: (cpu.user + cpu.system) / latencies.length,
    seconds: elapsed,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    throughput: latencies.length / elapsed,
  };
}

let admin: Pool;
async function statesOf(caller: number): Promise<boolean[]> {
  const { rows } = await admin.query<{ confirmed: boolean }>(
    `SELECT status = 'confirmed' AS confirmed FROM "${SCHEMA}".orders WHERE id >= $1 AND id < $2 ORDER BY id`,
    [caller * ROWS_PER_CALLER, (caller + 1) * ROWS_PER_CALLER],
  );
  return rows.map((r) => r.confirmed);
}

async function setUp(): Promise<void> {
  await admin.query(`CREATE SCHEMA "${SCHEMA}"`);
  for (const statement of outboxSchemaSql({ schema: SCHEMA, table: 'outbox' })) {
    await admin.query(statement);
  }
  await admin.query(
    `CREATE TABLE "${SCHEMA}".orders (id integer PRIMARY KEY, status text NOT NULL, version bigint NOT NULL DEFAULT 0)`,
  );
  await admin.query(
    `INSERT INTO "${SCHEMA}".orders (id, status) SELECT g, 'pending' FROM generate_series(0, $1) g`,
    [CALLERS * ROWS_PER_CALLER - 1],
  );
}

const median = (values: number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const fmt = (n: number, digits = 2) => n.toFixed(digits);

async function main(): Promise<void> {
  admin = new Pool({ connectionString: DATABASE_URL, max: 2 });
  await setUp();
  const app = await NestFactory.createApplicationContext(BenchModule, {
    logger: ['error', 'warn'],
  });
  const commands = app.get(BenchCommands);
  const variants: Record<string, () => Promise<{ command: Command; done?: () => Promise<void> }>> =
    {
      lib_without: () => Promise.resolve({ command: (...a) => commands.withoutOutbox(...a) }),
      lib_with: () => Promise.resolve({ command: (...a) => commands.withOutbox(...a) }),
      raw_without: () => rawVariant(false),
      raw_with: () => rawVariant(true),
    };
  const names = Object.keys(variants).filter(
    (n) => !process.env.BENCH_VARIANTS || process.env.BENCH_VARIANTS.split(',').includes(n),
  );
  const results: Record<string, Result[]> = Object.fromEntries(names.map((n) => [n, []]));
  console.log(
    `write bench: ${CALLERS} callers, ${SECONDS}s per variant, ${RUNS} runs, schema ${SCHEMA}, PostgreSQL ${DATABASE_URL.replace(/\/\/[^@]*@/, '//')}`,
  );
  try {
    for (let run = 0; run < RUNS; run++) {
      // Rotate the order each run so no variant always runs first or last.
      const order = names.map((_, i) => names[(i + run) % names.length]!);
      for (const name of order) {
        await admin.query(`TRUNCATE "${SCHEMA}".outbox`);
        await admin.query(`VACUUM ANALYZE "${SCHEMA}".orders`);
        const { command, done } = await variants[name]!();
        await drive(command, WARMUP_SECONDS);
        const result = await drive(command, SECONDS);
        await done?.();
        results[name]!.push(result);
        console.log(
          `run ${run + 1} ${name.padEnd(12)} ${fmt(result.throughput, 0).padStart(6)} tx/s  p50 ${fmt(result.p50)} ms  p99 ${fmt(result.p99)} ms  node CPU ${fmt(result.cpuUs, 0)} us/op  (${result.ops} ops)`,
        );
      }
    }
  } finally {
    await app.close();
    await admin.query(`DROP SCHEMA "${SCHEMA}" CASCADE`);
    await admin.end();
  }

  console.log('\nmedians over runs:');
  console.log('variant        tx/s     p50 ms   p99 ms');
  for (const name of names) {
    const r = results[name]!;
    console.log(
      `${name.padEnd(12)} ${fmt(median(r.map((x) => x.throughput)), 0).padStart(7)}  ${fmt(median(r.map((x) => x.p50))).padStart(7)}  ${fmt(median(r.map((x) => x.p99))).padStart(7)}`,
    );
  }
  const ratio = (a: string, b: string, key: 'throughput' | 'p50') =>
    median(results[a]!.map((x, i) => x[key] / results[b]![i]![key]));
  const summary = {
    bench: 'write',
    lib_throughput_ratio: Number(ratio('lib_with', 'lib_without', 'throughput').toFixed(3)),
    raw_throughput_ratio: Number(ratio('raw_with', 'raw_without', 'throughput').toFixed(3)),
    lib_p50_ratio: Number(ratio('lib_with', 'lib_without', 'p50').toFixed(3)),
    raw_p50_ratio: Number(ratio('raw_with', 'raw_without', 'p50').toFixed(3)),
    callers: CALLERS,
    runs: RUNS,
  };
  const meets =
    summary.lib_throughput_ratio >= 0.95 * summary.raw_throughput_ratio &&
    summary.lib_p50_ratio <= 1.05 * summary.raw_p50_ratio;
  console.log(
    `\ntarget (lib_throughput_ratio >= 0.95 * raw, lib_p50_ratio <= 1.05 * raw): ${meets ? 'met' : 'NOT met'}`,
  );
  console.log(JSON.stringify(summary));
}

function rawVariant(withEvent: boolean) {
  const pool = new Pool({ connectionString: DATABASE_URL, max: CALLERS });
  return Promise.resolve({ command: rawCommand(pool, withEvent), done: () => pool.end() });
}

main().catch((error: unknown) => {
  new Logger('write.bench').error(
    error instanceof Error ? (error.stack ?? error.message) : String(error),
  );
  process.exit(1);
});
