import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** VmRSS of `pid` in MB; 0 once the process is gone. */
export function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** User + system CPU seconds `pid` has used so far; 0 once the process is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime is the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU seconds this process has used so far (user + system). */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** CPU seconds this process has used so far, user and system (kernel) apart. */
export function ownCpuSplit(): { user: number; system: number } {
  const { user, system } = process.cpuUsage();
  return { user: user / 1e6, system: system / 1e6 };
}

/** The 1-minute load average, for the "load before -> after" note of every measured phase. */
export function load1(): number {
  return loadavg()[0]!;
}

/** `load 0.42 -> 1.10`. */
export function loadNote(before: number, after = load1()): string {
  return `load ${before.toFixed(2)} -> ${after.toFixed(2)}`;
}

/** The median (the upper one of an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
