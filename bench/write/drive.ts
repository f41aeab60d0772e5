import { loadavg } from 'node:os';
import type { Command } from './raw-commands';
import { ROWS_PER_CALLER } from './write-bench.sql';

/** One measured run of one variant. */
export interface Result {
  ops: number;
  seconds: number;
  throughput: number;
  /** Latency percentiles of one command, ms. */
  p50: number;
  p99: number;
  /** CPU time of this Node process per command (user + system), microseconds. */
  cpuUs: number;
  /** CPU time of the variant's PostgreSQL backends per command, microseconds. */
  pgCpuUs: number;
  /** 1-minute load average before and after the run. */
  loadBefore: number;
  loadAfter: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : NaN;
}

/**
 * Runs `callers` concurrent callers for `seconds`; caller c flips orders
 * [c * ROWS_PER_CALLER, (c + 1) * ROWS_PER_CALLER) between pending and confirmed, starting
 * from `states` (true = confirmed), which it updates.
 */
export async function drive(
  command: Command,
  seconds: number,
  states: boolean[],
  callers: number,
  backendCpu: () => number = () => NaN,
): Promise<Result> {
  const latencies: number[] = [];
  const loadBefore = loadavg()[0]!;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const cpuBefore = process.cpuUsage();
  const pgBefore = backendCpu();
  const caller = async (c: number) => {
    for (let i = 0; performance.now() < deadline; i++) {
      const id = c * ROWS_PER_CALLER + (i % ROWS_PER_CALLER);
      const confirmed = states[id]!;
      const t0 = performance.now();
      await command(id, confirmed ? 'confirmed' : 'pending', confirmed ? 'pending' : 'confirmed');
      latencies.push(performance.now() - t0);
      states[id] = !confirmed;
    }
  };
  await Promise.all(Array.from({ length: callers }, (_, c) => caller(c)));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const pgCpu = backendCpu() - pgBefore;
  const sorted = Float64Array.from(latencies).sort();
  return {
    ops: latencies.length,
    seconds: elapsed,
    throughput: latencies.length / elapsed,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    cpuUs: (cpu.user + cpu.system) / latencies.length,
    pgCpuUs: pgCpu / latencies.length,
    loadBefore,
    loadAfter: loadavg()[0]!,
  };
}

export const median = (values: number[]): number => {
  const s = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
