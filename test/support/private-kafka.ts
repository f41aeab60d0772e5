import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './env';
import { freePorts } from './free-port';
import { KafkaNodeProcess, kafkaClusterId, kafkaJvm } from './kafka-node';

/**
 * A Kafka broker of one test file's own, for tests that stop and restart the broker:
 * stopping the shared broker would break every other file running in parallel.
 * Same jars as scripts/stack.sh (fetched once into .cache/kafka/libs), own ports, own data.
 */
export interface PrivateKafka {
  readonly brokers: string[];
  /** Stops the broker (SIGTERM, then SIGKILL after 20 s) and waits until the port closes. */
  stop(): Promise<void>;
  /** SIGKILLs the broker and waits until the port closes. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data, and waits until it serves requests. */
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  destroy(): Promise<void>;
}

/** Starts a single-node KRaft broker (broker + controller) on free ports. */
export async function startPrivateKafka(options: { heapMb?: number } = {}): Promise<PrivateKafka> {
  const jvm = kafkaJvm(options.heapMb ?? 512);
  const dir = mkdtempSync(join(tmpdir(), 'nest-outbox-kafka-'));
  const [port, controllerPort] = (await freePorts(2)) as [number, number];
  const props = readFileSync(join(REPO_ROOT, 'scripts/kafka/server.properties'), 'utf8')
    .replace(/@LOG_DIR@/g, join(dir, 'data'))
    .replace(/9092/g, String(port))
    .replace(/9093/g, String(controllerPort));
  const node = KafkaNodeProcess.format(
    port,
    join(dir, 'server.properties'),
    props,
    jvm,
    kafkaClusterId(jvm),
  );
  await node.start();
  return {
    brokers: [`127.0.0.1:${port}`],
    start: () => node.start(),
    stop: () => node.stop(),
    kill: () => node.kill(),
    async destroy() {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
