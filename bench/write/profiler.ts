import { writeFileSync, mkdirSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

/**
 * CPU profile of one measured phase (BENCH_PROFILE=<dir>): the V8 profiler over the
 * inspector protocol, so each variant and run gets its own .cpuprofile without start-up
 * and warm-up noise. Summarise one with bench/write/cpu-profile-summary.ts.
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
  }

  /** Stops and writes `<dir>/<name>.cpuprofile`; returns its path. */
  async stop(name: string): Promise<string> {
    const { profile } = (await this.post('Profiler.stop')) as { profile: unknown };
    const path = join(this.dir, `${name}.cpuprofile`);
    writeFileSync(path, JSON.stringify(profile));
    return path;
  }
}
