import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTs } from '@test/support';
import type { HeldWriterJob, HeldWriterResult } from './held-writer.main';
import type { SteadyWrite } from './steady-writer';

/** bench:held's writer: `processes` processes that share the rate, the loops and the aggregates. */
export interface HeldWrite extends Omit<SteadyWrite, 'until'> {
  readonly processes: number;
}

/**
 * Runs the writer processes (started now; they warm up until `edges[0]`, write until the last
 * edge); resolves with every event's commit time by id and, per phase, the largest event loop
 * delay p99 of the processes.
 */
export async function writeInProcesses(
  databaseUrl: string,
  schema: string,
  edges: number[],
  { processes, ...write }: HeldWrite,
): Promise<{ committedAt: Map<string, number>; lagP99Ms: number[] }> {
  const jobs = Array.from(
    { length: processes },
    (_, index): HeldWriterJob => ({
      databaseUrl,
      schema,
      index,
      processes,
      edges,
      rate: write.rate / processes,
      eventsPerCommand: write.eventsPerCommand,
      workers: Math.ceil(write.workers / processes),
      aggregates: Math.floor(write.aggregates / processes),
      out: join(tmpdir(), `held-writer-${process.pid}-${index}.json`),
    }),
  );
  const children = jobs.map((job) =>
    spawnTs('bench/support/held-writer.main.ts', { HELD_WRITER: JSON.stringify(job) }),
  );
  // Listened to at once: a process may exit while the loop below waits for another one.
  const exits = children.map((child) => once(child.process, 'exit') as Promise<[number | null]>);
  try {
    const committedAt = new Map<string, number>();
    const lagP99Ms = edges.slice(1).map(() => 0);
    for (const [i, child] of children.entries()) {
      const [code] = await exits[i]!;
      if (code !== 0) throw new Error(`writer process ${i} exited ${code}:\n${child.output()}`);
      const result = JSON.parse(readFileSync(jobs[i]!.out, 'utf8')) as HeldWriterResult;
      for (const [id, at] of result.committedAt) committedAt.set(id, at);
      result.lagP99Ms.forEach((ms, phase) => (lagP99Ms[phase] = Math.max(lagP99Ms[phase]!, ms)));
    }
    return { committedAt, lagP99Ms };
  } finally {
    await Promise.all(children.map((child) => child.kill()));
    for (const job of jobs) rmSync(job.out, { force: true });
  }
}
