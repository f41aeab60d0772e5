import { Worker } from 'node:worker_threads';
import type { HealthWatchReport } from './health-watch';

/**
 * The probe loop of `watchHealthOffThread`, as plain JavaScript for a worker thread: the
 * same rules as `watchHealth` (a probe fails when not 200 or not answered within the limit).
 */
const PROBE_LOOP = `
const { parentPort, workerData } = require('node:worker_threads');
const { urls, limitMs, intervalMs } = workerData;
const failures = []; const startedAt = performance.now();
let probes = 0, slowestMs = 0, stopped = false;
parentPort.on('message', () => { stopped = true; });
(async () => {
  while (!stopped) {
    for (const url of urls) {
      const started = performance.now();
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(limitMs) });
        await response.arrayBuffer();
        if (response.status !== 200) failures.push(url + ': status ' + response.status);
        if (performance.now() - started > limitMs) failures.push(url + ': answered late');
      } catch (error) {
        const at = ((started - startedAt) / 1000).toFixed(1);
        failures.push(url + ': ' + error.name + ' after ' + Math.round(performance.now() - started) + ' ms (probe at +' + at + ' s)');
      }
      probes += 1; slowestMs = Math.max(slowestMs, performance.now() - started);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  parentPort.postMessage({ probes, slowestMs: Math.round(slowestMs), failures });
})();
`;

/**
 * `watchHealth` on a worker thread of its own: what it measures is the watched process,
 * not the test process's event loop (which a test blocks when it encodes large records).
 */
export function watchHealthOffThread(
  urls: readonly string[],
  options: { limitMs?: number; intervalMs?: number } = {},
): { stop(): Promise<HealthWatchReport> } {
  const worker = new Worker(PROBE_LOOP, {
    eval: true,
    workerData: { urls, limitMs: options.limitMs ?? 1000, intervalMs: options.intervalMs ?? 200 },
  });
  const report = new Promise<HealthWatchReport>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const result = await report;
      await worker.terminate();
      return result;
    },
  };
}
