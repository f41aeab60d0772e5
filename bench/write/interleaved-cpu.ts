import type { Command } from './raw-commands';
import { ROWS_PER_CALLER } from './write-bench.sql';
import { median } from './drive';

/**
 * Node CPU per command, measured the way that survives a busy machine best: one caller,
 * the variants interleaved command by command (lib_without, lib_with, ..., then again), the
 * process's CPU time (`process.cpuUsage`) read around each command. Every variant then
 * runs under the same machine conditions, whatever other work comes and goes. Variant i
 * flips its own orders [i * ROWS_PER_CALLER, i * ROWS_PER_CALLER + 10).
 * Returns, per variant, the median over `blocks` blocks of the mean CPU per command (us).
 */
export async function interleavedCpu(
  variants: readonly (readonly [string, Command])[],
  commands: number,
  states: boolean[],
  blocks = 5,
): Promise<Record<string, number>> {
  const perBlock = Math.max(1, Math.floor(commands / blocks));
  const sums = variants.map(() => [] as number[]);
  for (let block = -1; block < blocks; block++) {
    // Block -1 warms up and is not counted.
    const cpu = variants.map(() => 0);
    for (let i = 0; i < perBlock; i++) {
      for (const [v, [, command]] of variants.entries()) {
        const id = v * ROWS_PER_CALLER + (i % 10);
        const confirmed = states[id]!;
        const before = process.cpuUsage();
        await command(id, confirmed ? 'confirmed' : 'pending', confirmed ? 'pending' : 'confirmed');
        const used = process.cpuUsage(before);
        states[id] = !confirmed;
        cpu[v]! += used.user + used.system;
      }
    }
    if (block >= 0) cpu.forEach((total, v) => sums[v]!.push(total / perBlock));
  }
  return Object.fromEntries(variants.map(([name], v) => [name, median(sums[v]!)]));
}
