import { readFileSync } from 'node:fs';
import type { Pool } from 'pg';

/** CPU time a process has run, in ns, from Linux's /proc/<pid>/schedstat (NaN elsewhere). */
function cpuNs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ', 1)[0]);
  } catch {
    return NaN;
  }
}

/**
 * CPU spent by the PostgreSQL backends serving one variant (found by their
 * application_name), read from /proc: PostgreSQL runs on this machine. Returns a function
 * that gives the CPU microseconds spent since, by the backends alive at the start.
 */
export async function backendCpuSince(admin: Pool, applicationName: string): Promise<() => number> {
  const { rows } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
    [applicationName],
  );
  const start = rows.map((r) => ({ pid: r.pid, ns: cpuNs(r.pid) }));
  return () => start.reduce((sum, { pid, ns }) => sum + (cpuNs(pid) - ns) / 1000, 0);
}
