import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from './env';
import { waitFor } from './poll';

/** Where scripts/stack.sh caches the Kafka jars (fetched once by Maven). */
export const KAFKA_LIBS = join(REPO_ROOT, '.cache/kafka/libs');

/** True when something accepts TCP connections on 127.0.0.1:`port`. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** JVM arguments of a test broker: the cached jars, a heap of `heapMb`, the repo's log config. */
export function kafkaJvm(heapMb: number): string[] {
  if (!existsSync(join(KAFKA_LIBS, '.complete'))) {
    throw new Error(
      `no Kafka jars in ${KAFKA_LIBS}: run "bash scripts/stack.sh fetch-kafka" (needs Java 17+ and Maven)`,
    );
  }
  return [
    '-cp',
    `${KAFKA_LIBS}/*`,
    `-Xms${Math.min(64, heapMb)}m`,
    `-Xmx${heapMb}m`,
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-Xss512k',
    `-Dlog4j2.configurationFile=${REPO_ROOT}/scripts/kafka/log4j2.yaml`,
  ];
}

/** A new KRaft cluster id (kafka.tools.StorageTool random-uuid). */
export function kafkaClusterId(jvm: string[]): string {
  return execFileSync('java', [...jvm, 'kafka.tools.StorageTool', 'random-uuid'])
    .toString()
    .trim();
}

/**
 * One Kafka JVM (KRaft) on its own properties file: formats its storage once, then starts,
 * stops (SIGTERM), or kills (SIGKILL) it on the same ports and data, as often as a test wants.
 */
export class KafkaNodeProcess {
  private child: ChildProcess | undefined;
  private out = '';

  constructor(
    readonly port: number,
    private readonly propsFile: string,
    private readonly jvm: string[],
  ) {}

  /**
   * Writes the properties and formats the storage with `clusterId`; `formatArgs` go to the
   * storage tool too (e.g. `--add-scram` users, which KRaft takes at format time).
   */
  static format(
    port: number,
    propsFile: string,
    props: string,
    jvm: string[],
    clusterId: string,
    formatArgs: string[] = [],
  ): KafkaNodeProcess {
    writeFileSync(propsFile, props);
    execFileSync(
      'java',
      [
        ...jvm,
        'kafka.tools.StorageTool',
        'format',
        '-t',
        clusterId,
        '-c',
        propsFile,
        ...formatArgs,
      ],
      { stdio: 'ignore' },
    );
    return new KafkaNodeProcess(port, propsFile, jvm);
  }

  /** True while the JVM runs. */
  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the current JVM printed (its log is WARN and up, plus start-up lines). */
  output(): string {
    return this.out;
  }

  /** Spawns the JVM; with `wait`, resolves once it says it started and its port accepts. */
  async start(wait = true, timeoutMs = 600_000): Promise<void> {
    // Still starting (an earlier start gave up waiting on a starved machine): wait for it.
    if (this.running) {
      if (wait) await this.waitStarted(timeoutMs);
      return;
    }
    this.out = '';
    const child = spawn('java', [...this.jvm, 'kafka.Kafka', this.propsFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout.on('data', (d: Buffer) => (this.out = (this.out + d.toString()).slice(-20_000)));
    child.stderr.on('data', (d: Buffer) => (this.out = (this.out + d.toString()).slice(-20_000)));
    if (wait) await this.waitStarted(timeoutMs);
  }

  /** Resolves once the JVM said "Kafka Server started" and its port accepts connections. */
  async waitStarted(timeoutMs = 600_000): Promise<void> {
    await waitFor(
      `Kafka on port ${this.port}`,
      async () => {
        if (!this.running)
          throw new Error(`Kafka on ${this.port} exited:\n${this.out.slice(-3000)}`);
        return this.out.includes('Kafka Server started') && (await portOpen(this.port));
      },
      { timeoutMs, intervalMs: 200 },
    ).catch((error: unknown) => {
      throw new Error(
        `${(error as Error).message}\n--- Kafka output ---\n${this.out.slice(-3000)}`,
      );
    });
  }

  /** SIGTERM (a clean shutdown), SIGKILL after `graceMs`; resolves once the port closed. */
  stop(graceMs = 20_000): Promise<void> {
    return this.end('SIGTERM', graceMs);
  }

  /** SIGKILL: the broker dies as in a crash or an OOM kill. */
  kill(): Promise<void> {
    return this.end('SIGKILL', 0);
  }

  private async end(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    const running = this.child;
    if (running && running.exitCode === null && running.signalCode === null) {
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill(signal);
      const timer = graceMs > 0 ? setTimeout(() => running.kill('SIGKILL'), graceMs) : undefined;
      await exited;
      clearTimeout(timer);
    }
    await waitFor(`port ${this.port} to close`, async () => !(await portOpen(this.port)), {
      timeoutMs: 30_000,
    });
  }
}
