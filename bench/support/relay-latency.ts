import { NestFactory } from '@nestjs/core';
import { logLevel } from 'kafkajs';
import type { RelayModuleOptions, RelayTuningOptions } from '@nest-outbox/relay';
import { BenchCommands, RelayBenchAppModule } from '../relay-bench.app';
import type { BenchOutbox } from './bench-outbox';
import { RssSampler } from './rss-sampler';
import { writeSteadily } from './steady-writer';

/** Steady-load latency of the relay embedded in a writer app. */
export interface Latency {
  /** Commit (the decorated command resolved) to published_at (set right after the ack). */
  readonly p50: number;
  readonly p99: number;
  /** created_at (the writer's transaction start) to published_at, for comparison. */
  readonly createdP50: number;
  readonly createdP99: number;
  readonly n: number;
  /** Peak RSS of this process (writer app, embedded relay and harness), MB. */
  readonly appRssMb: number;
}

/** What the steady load is made of. */
export interface SteadyLoad {
  readonly databaseUrl: string;
  readonly brokers: string[];
  readonly topic: string;
  readonly rate: number;
  readonly seconds: number;
  readonly aggregates: number;
  readonly relay: Pick<RelayTuningOptions, 'batchSize'>;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * `rate` events/s for `seconds`, written by @OutboxTransactional() commands, relay in the
 * same app (in-memory wake-up): commit-to-broker-ack latency, from the command's resolution
 * (after COMMIT) to published_at (set right after the ack).
 */
export async function steadyLatency(outbox: BenchOutbox, load: SteadyLoad): Promise<Latency> {
  const { pool, schema } = outbox;
  await outbox.reset();
  await pool.query(`DROP TABLE IF EXISTS "${schema}".items`);
  await pool.query(
    `CREATE TABLE "${schema}".items (id int PRIMARY KEY, version bigint NOT NULL DEFAULT 0)`,
  );
  await pool.query(
    `INSERT INTO "${schema}".items (id) SELECT g FROM generate_series(0, ${load.aggregates - 1}) g`,
  );
  const relay: RelayModuleOptions = {
    connection: load.databaseUrl,
    kafka: { clientId: 'bench-latency', brokers: load.brokers, logLevel: logLevel.NOTHING },
    routing: { defaultTopic: load.topic },
    retention: false,
    schema,
    tuning: { ...load.relay, polling: { minMs: 10, maxMs: 200 }, listen: false },
  };
  const app = await NestFactory.createApplicationContext(
    RelayBenchAppModule.register(load.databaseUrl, schema, relay),
    { logger: ['error'] },
  );
  await app.init();
  const rss = new RssSampler(() => [process.pid]);
  try {
    const commands = app.get(BenchCommands);
    const committedAt = await writeSteadily((id, events) => commands.touch(schema, id, events), {
      ...load,
      eventsPerCommand: 1,
      workers: 8,
      until: Date.now() + load.seconds * 1000,
    });
    await outbox.drainedAt(60_000);
    const { rows } = await pool.query<{ event_id: string; published: number; created: number }>(
      `SELECT event_id, extract(epoch FROM published_at) * 1000 AS published,
              extract(epoch FROM published_at - created_at) * 1000 AS created
         FROM ${outbox.table}`,
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
      appRssMb: rss.stop(),
    };
  } finally {
    rss.stop();
    await app.close();
  }
}
