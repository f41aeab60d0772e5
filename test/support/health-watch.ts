import { readFileSync } from 'node:fs';

/** What a `watchHealth` saw between its start and `stop()`. */
export interface HealthWatchReport {
  readonly probes: number;
  /** Slowest answer, in ms. */
  readonly slowestMs: number;
  /** Probes that failed: not 200, or no answer within the limit (`url: reason (when)`). */
  readonly failures: readonly string[];
  /** With `pids`: the most CPU time, in ms, a watched process spent during one probe. */
  readonly busiestMs?: number;
}

/** CPU time (user + system) a process has used, in ms; undefined where /proc cannot say. */
export function cpuTimeMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of proc(5), in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** Longest wait for an answer when probes are judged by the process's own CPU time. */
const NO_ANSWER_MS = 60_000;

/**
 * Polls each `/health` URL in turn until stopped, each probe bounded by `limitMs`: a
 * process whose event loop stalls, or whose dependencies break, shows up as a failure.
 *
 * With `pids` (the process behind each URL, same order), the bound is the process's own
 * progress rather than the wall clock: a probe fails when the process spent `limitMs` of CPU
 * time without answering (a stalled event loop burns CPU; a busy machine only delays it), or
 * gave no answer at all within a minute.
 */
export function watchHealth(
  urls: readonly string[],
  options: { limitMs?: number; intervalMs?: number; pids?: readonly (number | undefined)[] } = {},
): { stop(): Promise<HealthWatchReport> } {
  const limitMs = options.limitMs ?? 1000;
  const intervalMs = options.intervalMs ?? 200;
  const failures: string[] = [];
  const startedAt = performance.now();
  let probes = 0;
  let slowestMs = 0;
  let busiestMs = 0;
  let stopped = false;
  const probe = async (url: string, pid: number | undefined) => {
    const started = performance.now();
    const cpuAtStart = pid === undefined ? undefined : cpuTimeMs(pid);
    const cpuSpent = () => (cpuAtStart === undefined ? 0 : (cpuTimeMs(pid!) ?? 0) - cpuAtStart);
    const abort = new AbortController();
    const watch =
      cpuAtStart === undefined
        ? setTimeout(() => abort.abort(new DOMException('no answer', 'TimeoutError')), limitMs)
        : setInterval(() => {
            if (cpuSpent() >= limitMs || performance.now() - started > NO_ANSWER_MS)
              abort.abort(new DOMException('no answer', 'TimeoutError'));
          }, 50);
    try {
      const response = await fetch(url, { signal: abort.signal });
      await response.arrayBuffer();
      if (response.status !== 200) failures.push(`${url}: status ${response.status}`);
      // An answer that came, but late, is a failure too.
      const late = cpuAtStart === undefined ? performance.now() - started : cpuSpent();
      if (late > limitMs) failures.push(`${url}: answered late`);
    } catch (error) {
      const tookMs = Math.round(performance.now() - started);
      const atS = ((started - startedAt) / 1000).toFixed(1);
      const cpu = cpuAtStart === undefined ? '' : `, ${Math.round(cpuSpent())} ms of its CPU`;
      failures.push(
        `${url}: ${(error as Error).name} after ${tookMs} ms${cpu} (probe at +${atS} s)`,
      );
    } finally {
      clearTimeout(watch);
      clearInterval(watch);
    }
    probes += 1;
    slowestMs = Math.max(slowestMs, performance.now() - started);
    busiestMs = Math.max(busiestMs, cpuSpent());
  };
  const loop = (async () => {
    while (!stopped) {
      for (const [i, url] of urls.entries()) await probe(url, options.pids?.[i]);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      const busiest = options.pids ? { busiestMs: Math.round(busiestMs) } : {};
      return { probes, slowestMs: Math.round(slowestMs), failures, ...busiest };
    },
  };
}
