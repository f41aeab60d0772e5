import { writeFileSync, mkdirSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

/** BENCH_HEAP=on: also sample allocations (objects later collected included). */
const HEAP = process.env.BENCH_HEAP === 'on';

/**
 * CPU profile of one measured phase (BENCH_PROFILE=<dir>): the V8 profiler over the
 * inspector protocol, so each variant and run gets its own .cpuprofile without start-up
 * and warm-up noise. Summarise one with bench/write/cpu-profile-summary.ts. With
 * BENCH_HEAP=on, a .heapprofile of the same phase too (every allocation sampled, objects
 * collected since included): summarise it with bench/write/heap-profile-summary.ts.
 */
export class PhaseProfiler {
  private readonly session = new Session();

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    this.session.connect();
  }

  private post(method: string, params?: object): Promise<unknown> {
    return new Promise((resolve, reject) =>
      this.session.post(method, params, (error, result) =>
        error ? reject(error) : resolve(result),
      ),
    );
  }

  async start(): Promise<void> {
    await this.post('Profiler.enable');
    await this.post('Profiler.setSamplingInterval', { interval: 200 });
    await this.post('Profiler.start');
    if (HEAP) {
      await this.post('HeapProfiler.enable');
      await this.post('HeapProfiler.startSampling', {
        samplingInterval: 8192,
        includeObjectsCollectedByMinorGC: true,
        includeObjectsCollectedByMajorGC: true,
      });
    }
  }

  /** Stops and writes `<dir>/<name>.cpuprofile` (and `.heapprofile`); returns the first's path. */
  async stop(name: string): Promise<string> {
    const { profile } = (await this.post('Profiler.stop')) as { profile: unknown };
    if (HEAP) {
      const { profile: heap } = (await this.post('HeapProfiler.stopSampling')) as {
        profile: unknown;
      };
      writeFileSync(join(this.dir, `${name}.heapprofile`), JSON.stringify(heap));
    }
    const path = join(this.dir, `${name}.cpuprofile`);
    writeFileSync(path, JSON.stringify(profile));
    return path;
  }
}
