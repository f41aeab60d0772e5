import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, waitFor } from '@test/support';

/**
 * One sample app run as a child process by the chaos run: its output goes to a log file (the
 * last lines are kept for reports), an exit the run did not cause is recorded (a process that
 * must survive a database or broker restart and died is a finding), and it can be SIGKILLed,
 * signalled and started again on the same port.
 */
export class ChaosProcess {
  private child: ChildProcess | undefined;
  private expected = false;
  private tail = '';
  private readonly log: WriteStream;
  /** Exits nobody asked for, with the last output. */
  readonly unexpectedExits: string[] = [];
  starts = 0;

  constructor(
    readonly name: string,
    private readonly entry: string,
    private readonly env: Record<string, string>,
    readonly port: number,
    logDir: string,
  ) {
    this.log = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns it (no wait); a running process is left alone. */
  start(): void {
    if (this.running) return;
    this.expected = false;
    this.starts += 1;
    this.log.write(`\n===== start ${this.starts} at ${new Date().toISOString()} =====\n`);
    // The apps run compiled (dist/, built by `npm run build`); a .ts entry through ts-node.
    const args = this.entry.endsWith('.ts')
      ? ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register', this.entry]
      : [this.entry];
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        TS_NODE_PROJECT: `${REPO_ROOT}/tsconfig.json`,
        KAFKAJS_NO_PARTITIONER_WARNING: '1',
        NO_COLOR: '1',
        ...this.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const onData = (d: Buffer) => {
      this.log.write(d);
      this.tail = (this.tail + d.toString()).slice(-6000);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code, signal) => {
      if (this.child !== child || this.expected) return;
      this.unexpectedExits.push(
        `${this.name} exited by itself (code ${code}, signal ${signal}):\n${this.tail.slice(-2500)}`,
      );
    });
    this.child = child;
  }

  /**
   * Resolves once `/health` answers 200 (`anyAnswer`: answers at all), failing at once if it
   * exited.
   */
  async waitHealthy(timeoutMs = 600_000, anyAnswer = false): Promise<void> {
    await waitFor(
      `${this.name} /health ${anyAnswer ? 'to answer' : '200'}`,
      async () => {
        if (!this.running) throw new Error(`${this.name} is not running`);
        const r = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(3000) }).catch(
          () => undefined,
        );
        return anyAnswer ? r !== undefined : r?.status === 200;
      },
      { timeoutMs, intervalMs: 300 },
    ).catch((error: unknown) => {
      throw new Error(
        `${(error as Error).message}\n--- ${this.name} ---\n${this.tail.slice(-2500)}`,
      );
    });
  }

  /** SIGKILL (a crash) and wait for the exit. */
  async kill(): Promise<void> {
    await this.end('SIGKILL');
  }

  /** SIGTERM (graceful), SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    await this.end('SIGTERM', graceMs);
  }

  /** Sends a signal without expecting an exit (fault seams armed by a signal). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child?.kill(signal);
  }

  /** An exit the seam causes on purpose (SIGUSR2-armed kill) is not a finding. */
  expectExit(): void {
    this.expected = true;
  }

  outputTail(): string {
    return this.tail;
  }

  private async end(signal: NodeJS.Signals, graceMs = 0): Promise<void> {
    const child = this.child;
    this.expected = true;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    const timer = graceMs ? setTimeout(() => child.kill('SIGKILL'), graceMs) : undefined;
    await exited;
    clearTimeout(timer);
  }

  close(): void {
    this.log.end();
  }
}
