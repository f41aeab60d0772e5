import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logLevel, Kafka, type ITopicConfig } from 'kafkajs';
import { REPO_ROOT } from './env';
import { freePorts } from './free-port';
import { KafkaNodeProcess, kafkaClusterId, kafkaJvm } from './kafka-node';
import { waitFor } from './poll';

/** One node of a `KafkaCluster` (broker and controller in one JVM). */
export interface ClusterNode {
  readonly id: number;
  readonly port: number;
  readonly running: boolean;
  /** Starts it again (same ports, same data) and waits until it serves. */
  start(): Promise<void>;
  /** SIGTERM, a clean shutdown (the controller moves its leaderships first). */
  stop(): Promise<void>;
  /** SIGKILL: its leaderships move only after the session timeout. */
  kill(): Promise<void>;
  output(): string;
}

/** A partition's leader and in-sync replicas, as the cluster reports them. */
export interface PartitionState {
  readonly partition: number;
  readonly leader: number;
  readonly isr: readonly number[];
}

/**
 * A local three-node KRaft cluster for fault tests: every node broker + controller, topics with
 * replication factor 3 and `min.insync.replicas` 2 (scripts/kafka/cluster-server.properties),
 * the same jars as scripts/stack.sh, a small heap per JVM.
 */
export interface KafkaCluster {
  readonly brokers: string[];
  readonly nodes: readonly ClusterNode[];
  node(id: number): ClusterNode;
  /** A kafkajs client of the whole cluster (quiet). */
  kafka(clientId?: string): Kafka;
  /** Creates topics (replication factor 3 unless given) and waits for their leaders. */
  createTopics(topics: ITopicConfig[]): Promise<void>;
  /** Leader and ISR of each partition of `topic`, from fresh metadata. */
  partitions(topic: string): Promise<PartitionState[]>;
  /** Waits until every partition of `topic` has a live leader and `isr` in-sync replicas. */
  waitInSync(topic: string, isr?: number, timeoutMs?: number): Promise<PartitionState[]>;
  /** Stops every node and removes the data. */
  destroy(): Promise<void>;
}

/** Options of `startKafkaCluster`. */
export interface KafkaClusterOptions {
  /** @default 3 */
  readonly nodes?: number;
  /** Heap of each JVM. @default 256 */
  readonly heapMb?: number;
}

/** Properties of node `id` from the cluster template. */
export function clusterNodeProperties(
  id: number,
  port: number,
  controllerPort: number,
  voters: string,
  logDir: string,
): string {
  return readFileSync(join(REPO_ROOT, 'scripts/kafka/cluster-server.properties'), 'utf8')
    .replace(/@NODE_ID@/g, String(id))
    .replace(/@PORT@/g, String(port))
    .replace(/@CONTROLLER_PORT@/g, String(controllerPort))
    .replace(/@VOTERS@/g, voters)
    .replace(/@LOG_DIR@/g, logDir);
}

/** Starts the cluster on free ports and waits until every broker is registered. */
export async function startKafkaCluster(options: KafkaClusterOptions = {}): Promise<KafkaCluster> {
  const count = options.nodes ?? 3;
  const jvm = kafkaJvm(options.heapMb ?? 256);
  const dir = mkdtempSync(join(tmpdir(), 'nest-outbox-cluster-'));
  const ids = Array.from({ length: count }, (_, i) => i + 1);
  const ports: { port: number; controller: number }[] = [];
  const free = await freePorts(ids.length * 2);
  for (const [i] of ids.entries()) ports.push({ port: free[2 * i]!, controller: free[2 * i + 1]! });
  const voters = ids.map((id, i) => `${id}@127.0.0.1:${ports[i]!.controller}`).join(',');
  const clusterId = kafkaClusterId(jvm);
  const processes = ids.map((id, i) => {
    const nodeDir = join(dir, `node-${id}`);
    mkdirSync(nodeDir, { recursive: true });
    const { port, controller } = ports[i]!;
    const props = clusterNodeProperties(id, port, controller, voters, join(nodeDir, 'data'));
    return KafkaNodeProcess.format(port, join(nodeDir, 'server.properties'), props, jvm, clusterId);
  });
  const brokers = processes.map((p) => `127.0.0.1:${p.port}`);
  const kafka = (clientId = 'nest-outbox-cluster-test') =>
    new Kafka({
      clientId,
      brokers,
      logLevel: logLevel.NOTHING,
      connectionTimeout: 1000,
      requestTimeout: 5000,
      retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
    });
  const nodes: ClusterNode[] = processes.map((p, i) => ({
    id: ids[i]!,
    port: p.port,
    get running() {
      return p.running;
    },
    start: () => p.start(),
    stop: () => p.stop(),
    kill: () => p.kill(),
    output: () => p.output(),
  }));

  // The controllers need a quorum before any node finishes starting: start all, then wait.
  await Promise.all(processes.map((p) => p.start(false)));
  await Promise.all(processes.map((p) => p.waitStarted(180_000)));
  const withAdmin = async <T>(fn: (admin: ReturnType<Kafka['admin']>) => Promise<T>) => {
    const admin = kafka().admin();
    await admin.connect();
    try {
      return await fn(admin);
    } finally {
      await admin.disconnect();
    }
  };
  await waitFor(
    `${count} brokers registered`,
    () => withAdmin(async (a) => (await a.describeCluster()).brokers.length === count),
    { timeoutMs: 60_000, intervalMs: 500 },
  );

  const partitions = (topic: string) =>
    withAdmin(async (admin) => {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      return (topics[0]?.partitions ?? [])
        .map((p) => ({ partition: p.partitionId, leader: p.leader, isr: p.isr }))
        .sort((a, b) => a.partition - b.partition);
    });

  return {
    brokers,
    nodes,
    node(id) {
      const node = nodes.find((n) => n.id === id);
      if (!node) throw new Error(`no node ${id} in the cluster`);
      return node;
    },
    kafka,
    createTopics: (topics) =>
      withAdmin(async (admin) => {
        await admin.createTopics({
          waitForLeaders: true,
          topics: topics.map((t) => ({ replicationFactor: count, ...t })),
        });
      }),
    partitions,
    waitInSync(topic, isr = count, timeoutMs = 90_000) {
      const live = () => new Set(nodes.filter((n) => n.running).map((n) => n.id));
      return waitFor(
        `every partition of ${topic} led by a live node with ${isr} in-sync replicas`,
        async () => {
          const states = await partitions(topic);
          const up = live();
          return states.length > 0 && states.every((s) => up.has(s.leader) && s.isr.length >= isr)
            ? states
            : undefined;
        },
        { timeoutMs, intervalMs: 500 },
      );
    },
    async destroy() {
      await Promise.all(processes.map((p) => p.kill()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
