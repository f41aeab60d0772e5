import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './env';
import { freePort } from './free-port';
import { waitFor } from './poll';

/**
 * A Kafka broker of one test file's own, for tests that stop and restart the broker:
 * stopping the shared broker would break every other file running in parallel.
 * Same jars as scripts/stack.sh (fetched once into .cache/kafka/libs), own ports, own data.
 */
export interface PrivateKafka {
  readonly brokers: string[];
  /** Stops the broker (SIGTERM, then SIGKILL after 20 s) and waits until the port closes. */
  stop(): Promise<void>;
  /** Starts it again on the same ports and data, and waits until it serves requests. */
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  destroy(): Promise<void>;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startPrivateKafka(): Promise<PrivateKafka> {
  const libs = join(REPO_ROOT, '.cache/kafka/libs');
  if (!existsSync(join(libs, '.complete'))) {
    throw new Error(
      `no Kafka jars in ${libs}: run "bash scripts/stack.sh fetch-kafka" (needs Java 17+ and Maven)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'nest-outbox-kafka-'));
  const [port, controllerPort] = [await freePort(), await freePort()];
  const props = readFileSync(join(REPO_ROOT, 'scripts/kafka/server.properties'), 'utf8')
    .replace(/@LOG_DIR@/g, join(dir, 'data'))
    .replace(/9092/g, String(port))
    .replace(/9093/g, String(controllerPort));
  const propsFile = join(dir, 'server.properties');
  writeFileSync(propsFile, props);
  const jvm = [
    '-cp',
    `${libs}/*`,
    '-Xms128m',
    '-Xmx512m',
    `-Dlog4j2.configurationFile=${REPO_ROOT}/scripts/kafka/log4j2.yaml`,
  ];
  const cluster = execFileSync('java', [...jvm, 'kafka.tools.StorageTool', 'random-uuid'])
    .toString()
    .trim();
  execFileSync(
    'java',
    [...jvm, 'kafka.tools.StorageTool', 'format', '-t', cluster, '-c', propsFile],
    { stdio: 'ignore' },
  );

  let child: ChildProcess | undefined;
  let output = '';
  const start = async () => {
    output = '';
    child = spawn('java', [...jvm, 'kafka.Kafka', propsFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    await waitFor(
      `private Kafka on port ${port}`,
      async () => output.includes('Kafka Server started') && (await portOpen(port)),
      {
        timeoutMs: 90_000,
        intervalMs: 200,
      },
    );
  };
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
    await waitFor(`port ${port} to close`, async () => !(await portOpen(port)), {
      timeoutMs: 30_000,
    });
  };
  await start();
  return {
    brokers: [`127.0.0.1:${port}`],
    start,
    stop,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
