/**
 * One writer process of bench:held (`spawnTs` with `HELD_WRITER`, a JSON `HeldWriterJob`): its
 * share of the rate over its share of the aggregates until the last phase ends, then `out`
 * holds its event loop delay p99 per phase and each event's commit time by id.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { NestFactory } from '@nestjs/core';
import { BenchCommands, RelayBenchAppModule } from '../relay-bench.app';
import { writeSteadily, type SteadyWrite } from './steady-writer';

export interface HeldWriterJob extends Omit<SteadyWrite, 'until'> {
  readonly databaseUrl: string;
  readonly schema: string;
  /** This process writes aggregates `index`, `index + processes`, ... */
  readonly index: number;
  readonly processes: number;
  /** The phases' edges (epoch ms); the process writes until the last one. */
  readonly edges: number[];
  readonly out: string;
}

/** What a writer process leaves in `out`. */
export interface HeldWriterResult {
  /** Its event loop delay p99 per phase: its commit times are late by as much. */
  readonly lagP99Ms: number[];
  readonly committedAt: [string, number][];
}

async function main(): Promise<void> {
  const job = JSON.parse(process.env.HELD_WRITER!) as HeldWriterJob;
  const app = await NestFactory.createApplicationContext(
    RelayBenchAppModule.register(job.databaseUrl, job.schema, false, job.workers),
    { logger: ['error'] },
  );
  await app.init();
  const commands = app.get(BenchCommands);
  const lag = monitorEventLoopDelay();
  const lagP99Ms: number[] = [];
  const edges = (async () => {
    for (const edge of job.edges) {
      await new Promise((resolve) => setTimeout(resolve, edge - Date.now()));
      if (edge !== job.edges[0]) lagP99Ms.push(Math.round(lag.percentile(99) / 1e6));
      lag.reset();
      lag.enable();
    }
  })();
  const committedAt = await writeSteadily(
    (i, events) => commands.touch(job.schema, i * job.processes + job.index, events),
    { ...job, until: job.edges[job.edges.length - 1]! },
  );
  await edges;
  await app.close();
  const result: HeldWriterResult = { lagP99Ms, committedAt: [...committedAt] };
  writeFileSync(job.out, JSON.stringify(result));
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
