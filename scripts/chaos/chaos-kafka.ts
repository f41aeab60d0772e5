import {
  startKafkaCluster,
  startPrivateKafka,
  type KafkaCluster,
  type PrivateKafka,
} from '@test/support';
import type { ITopicConfig } from 'kafkajs';
import { Kafka, logLevel } from 'kafkajs';
import type { SeededRandom } from './seeded-random';

/** The chaos run's Kafka: a single private broker or a three-node cluster, and its fault. */
export interface ChaosKafka {
  readonly brokers: string[];
  readonly kind: 'single' | 'cluster';
  createTopics(topics: ITopicConfig[]): Promise<void>;
  /**
   * Takes a broker down (single: SIGTERM or SIGKILL; cluster: SIGKILL of the leader of most
   * of `topic`'s partitions) and returns what it did and how to bring it back.
   */
  fault(rng: SeededRandom, topic: string): Promise<{ what: string; heal: () => Promise<void> }>;
  /** Starts whatever is down and waits until it serves. */
  healAll(): Promise<void>;
  destroy(): Promise<void>;
}

function quietKafka(brokers: string[]): Kafka {
  return new Kafka({
    clientId: 'chaos-admin',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2000 },
  });
}

async function single(): Promise<ChaosKafka> {
  const kafka: PrivateKafka = await startPrivateKafka({ heapMb: 384 });
  let down = false;
  return {
    brokers: kafka.brokers,
    kind: 'single',
    async createTopics(topics) {
      const admin = quietKafka(kafka.brokers).admin();
      await admin.connect();
      try {
        await admin.createTopics({ waitForLeaders: true, topics });
      } finally {
        await admin.disconnect();
      }
    },
    async fault(rng) {
      const hard = rng.chance(0.5);
      down = true;
      await (hard ? kafka.kill() : kafka.stop());
      return {
        what: `broker ${hard ? 'SIGKILL' : 'stop'}`,
        heal: async () => {
          await kafka.start();
          down = false;
        },
      };
    },
    async healAll() {
      if (down) await kafka.start();
      down = false;
    },
    destroy: () => kafka.destroy(),
  };
}

async function cluster(): Promise<ChaosKafka> {
  const c: KafkaCluster = await startKafkaCluster();
  return {
    brokers: c.brokers,
    kind: 'cluster',
    createTopics: (topics) => c.createTopics(topics),
    async fault(rng, topic) {
      const states = await c.partitions(topic).catch(() => []);
      const led = new Map<number, number>();
      for (const s of states) led.set(s.leader, (led.get(s.leader) ?? 0) + 1);
      const live = c.nodes.filter((n) => n.running);
      // Never take the last in-sync majority down: one node at a time.
      if (live.length < c.nodes.length)
        return { what: 'leader kill skipped (a node is down)', heal: () => Promise.resolve() };
      const busiest = [...led].sort((a, b) => b[1] - a[1])[0]?.[0] ?? rng.pick(live).id;
      const node = c.node(busiest);
      await node.kill();
      return {
        what: `leader kill (node ${node.id}, led ${led.get(node.id) ?? 0} partitions)`,
        heal: () => node.start(),
      };
    },
    async healAll() {
      for (const node of c.nodes) if (!node.running) await node.start();
    },
    destroy: () => c.destroy(),
  };
}

/** Starts the run's Kafka. */
export function startChaosKafka(kind: 'single' | 'cluster'): Promise<ChaosKafka> {
  return kind === 'cluster' ? cluster() : single();
}
