/** What a `watchHealth` saw between its start and `stop()`. */
export interface HealthWatchReport {
  readonly probes: number;
  /** Slowest answer, in ms. */
  readonly slowestMs: number;
  /** Probes that failed: not 200, or no answer within the limit (`url: reason (when)`). */
  readonly failures: readonly string[];
}

/**
 * Polls each `/health` URL in turn until stopped, each probe bounded by `limitMs`: a
 * process whose event loop stalls, or whose dependencies break, shows up as a failure.
 */
export function watchHealth(
  urls: readonly string[],
  options: { limitMs?: number; intervalMs?: number } = {},
): { stop(): Promise<HealthWatchReport> } {
  const limitMs = options.limitMs ?? 1000;
  const intervalMs = options.intervalMs ?? 200;
  const failures: string[] = [];
  const startedAt = performance.now();
  let probes = 0;
  let slowestMs = 0;
  let stopped = false;
  const probe = async (url: string) => {
    const started = performance.now();
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(limitMs) });
      await response.arrayBuffer();
      if (response.status !== 200) failures.push(`${url}: status ${response.status}`);
      // An answer that came, but late, is a failure too.
      if (performance.now() - started > limitMs) failures.push(`${url}: answered late`);
    } catch (error) {
      const tookMs = Math.round(performance.now() - started);
      const atS = ((started - startedAt) / 1000).toFixed(1);
      failures.push(`${url}: ${(error as Error).name} after ${tookMs} ms (probe at +${atS} s)`);
    }
    probes += 1;
    slowestMs = Math.max(slowestMs, performance.now() - started);
  };
  const loop = (async () => {
    while (!stopped) {
      for (const url of urls) await probe(url);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { probes, slowestMs: Math.round(slowestMs), failures };
    },
  };
}
