import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnJs, spawnTs, type TsChild } from '../../test/support/child-process';
import { REPO_ROOT } from '../../test/support/env';
import { waitFor } from '../../test/support/poll';

/** The answer of an app's `/health`. */
export interface HealthAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * One sample app run as a real child process from its compiled JavaScript (`npm run build`
 * writes it to dist/; the Jest global setup and `npm run demo` build first), restartable: `kill()` is a
 * SIGKILL (no shutdown hook runs), `start()` spawns a new incarnation on the same port.
 */
export class AppProcess {
  private child: TsChild | undefined;
  private readonly previousOutput: string[] = [];

  constructor(
    readonly name: string,
    private readonly entry: string,
    readonly port: number,
    private readonly env: Record<string, string>,
    /** Environment variable the app reads its HTTP port from. */
    private readonly portVariable = 'PORT',
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The current incarnation's process id (undefined before the first start). */
  get pid(): number | undefined {
    return this.child?.process.pid;
  }

  /** True while the current incarnation has not exited. */
  get running(): boolean {
    const p = this.child?.process;
    return !!p && p.exitCode === null && p.signalCode === null;
  }

  /** Spawns the app and waits until its `/health` answers `status` (fails fast if it exits). */
  async start(
    extraEnv: Record<string, string> = {},
    timeoutMs = 90_000,
    status = 200,
  ): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    if (this.child) this.previousOutput.push(this.child.output());
    if (!existsSync(join(REPO_ROOT, this.entry))) {
      throw new Error(`${this.name}: ${this.entry} does not exist; run npm run build`);
    }
    // A .ts entry (a test's wrapper, which then loads the compiled app) runs through ts-node.
    const spawn = this.entry.endsWith('.ts') ? spawnTs : spawnJs;
    this.child = spawn(this.entry, {
      ...this.env,
      ...extraEnv,
      [this.portVariable]: String(this.port),
    });
    await this.waitForHealth(status, timeoutMs);
  }

  /** Polls `/health` until it answers `status` (fails at once when the process exited). */
  async waitForHealth(status: number, timeoutMs = 60_000): Promise<HealthAnswer> {
    const exited = Symbol('exited');
    const outcome = await waitFor(
      `${this.name} /health to answer ${status}`,
      async () => {
        if (!this.running) return exited;
        const answer = await this.health().catch(() => undefined);
        return answer?.status === status ? answer : undefined;
      },
      { timeoutMs, intervalMs: 250 },
    ).catch((error: unknown) => {
      throw new Error(
        `${(error as Error).message}\n--- ${this.name} (health check lines left out) ---\n${this.outputTail()}`,
      );
    });
    if (outcome === exited) {
      throw new Error(
        `${this.name} exited before /health answered ${status}:\n${this.outputTail()}`,
      );
    }
    return outcome;
  }

  async health(): Promise<HealthAnswer> {
    const response = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(8000) });
    return { status: response.status, body: await response.json().catch(() => null) };
  }

  /** SIGKILL: like a crash or an OOM kill. */
  async kill(): Promise<void> {
    await this.child?.kill();
  }

  /** Sends a signal to the current incarnation (for fault seams armed by a signal). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child?.process.kill(signal);
  }

  /** SIGTERM, graceful shutdown (SIGKILL after the timeout). */
  async stop(timeoutMs = 20_000): Promise<void> {
    await this.child?.stop(timeoutMs);
  }

  /** Everything every incarnation printed. */
  /**
   * What a failure shows of the output: every consumer crash line (kafkajs' own and the
   * inbox's), then the last 4,000 characters without the health check's own failure lines.
   */
  outputTail(): string {
    const lines = this.output().split('\n');
    const crashes = lines.filter((line) =>
      /consumer crashed|Crash: |Restarting the consumer/.test(line),
    );
    const rest = lines
      .filter((line) => !line.includes('Health Check has failed'))
      .join('\n')
      .slice(-4000);
    return crashes.length ? `${crashes.slice(-20).join('\n')}\n...\n${rest}` : rest;
  }

  output(): string {
    return [...this.previousOutput, this.child?.output() ?? ''].join('\n--- restart ---\n');
  }

  /** Waits until the current incarnation printed `text`. */
  waitForOutput(text: string | RegExp, timeoutMs?: number): Promise<void> {
    if (!this.child) throw new Error(`${this.name} was never started`);
    return this.child.waitForOutput(text, timeoutMs);
  }
}
