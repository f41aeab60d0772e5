import type { TestingModule } from '@nestjs/testing';
import type { ConsumedRecord, KafkaCluster } from '@test/support';
import { logLevel, type KafkaConfig } from 'kafkajs';
import type { RelayModuleOptions } from '@nest-outbox/relay';
import { RelayHealthIndicator } from '../../../libs/relay/src/health/relay.health-indicator';
import { KafkaPublisher } from '../../../libs/relay/src/publisher/kafka.publisher';
import { checkDelivery, type RelayScene } from '../../../libs/relay/test/relay-test.fixture';
import { RecordingPublisher } from '../../../libs/relay/test/recording.publisher';
import { TopicReader } from '../../../scripts/chaos/topic-reader';
import { HealthLog } from './health-log';
import { explainMissing } from './read-back.diagnosis';
import { readToEnd } from './read-to-end';

/** A relay of `scene` publishing to the cluster through a recording publisher. */
export async function startClusterRelay(
  scene: RelayScene,
  cluster: KafkaCluster,
  topic: string,
  overrides: Partial<RelayModuleOptions> = {},
): Promise<{ relay: TestingModule; recording: RecordingPublisher; health: HealthLog }> {
  const kafka: KafkaConfig = {
    clientId: 'faults-relay',
    brokers: cluster.brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1000,
    requestTimeout: 5000,
  };
  const recording = new RecordingPublisher(new KafkaPublisher(kafka));
  const relay = await scene.start({
    kafka,
    routing: { defaultTopic: topic },
    ...overrides,
    tuning: {
      publisher: recording,
      batchSize: 500,
      leaseMs: 20_000,
      publishTimeoutMs: 8000,
      retry: { baseDelayMs: 200, maxDelayMs: 2000 },
      unhealthyAfterMs: 2000,
      statsIntervalMs: 250,
      ...overrides.tuning,
    },
  });
  const indicator = relay.get(RelayHealthIndicator);
  const health = new HealthLog(async () => {
    const result = await indicator.isHealthy('relay', { brokerTimeoutMs: 1000 });
    return result.relay.status;
  }).start();
  return { relay, recording, health };
}

/** The partition of `topic` with the most records, and its leader. */
export async function busiestLeader(
  cluster: KafkaCluster,
  topic: string,
  except: number[] = [],
): Promise<number> {
  const admin = cluster.kafka().admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    const states = await cluster.partitions(topic);
    const ranked = ends
      .map((e) => ({
        high: Number(e.high),
        leader: states.find((s) => s.partition === e.partition)?.leader,
      }))
      .filter((e) => e.leader !== undefined && !except.includes(e.leader))
      .sort((a, b) => b.high - a.high);
    return ranked[0]!.leader!;
  } finally {
    await admin.disconnect();
  }
}

/** What an independent reader found in the topic, against what the scene wrote. */
export interface ReadBack {
  readonly records: ConsumedRecord[];
  /** Events not in the topic, each with what explains it (see `explainMissing`). */
  readonly missing: string[];
  readonly orderViolations: string[];
  readonly duplicates: string[];
  /** Duplicates whose event was in only one publish call of the relay (none may be). */
  readonly unexplained: string[];
}

/**
 * Reads the whole topic, every partition to its end offset, with a reader of its own that is
 * replaced when it stalls (`readToEnd`), until every written event is there or 120 s passed;
 * then checks I1 (all present), I3 (per key, first occurrences in version order) and explains
 * each duplicate: its event must have been in two or more of the relay's publish calls (a
 * failed or unacknowledged send, sent again). Each record is counted once, however often a
 * replaced or rejoining consumer read it.
 */
export async function readBack(
  scene: RelayScene,
  cluster: KafkaCluster,
  topic: string,
  recording: RecordingPublisher,
): Promise<ReadBack> {
  const expected = scene.producer.written;
  const reader = new TopicReader(cluster.brokers, [topic]);
  const records = () =>
    [...reader.partitions(topic).values()].flat().map(
      (r): ConsumedRecord => ({
        topic,
        partition: r.partition,
        offset: String(r.offset),
        key: r.key,
        value: null,
        timestamp: '',
        headers: { event_id: r.eventId, aggregate_version: String(r.version) },
      }),
    );
  try {
    await reader.start();
    const allThere = () => {
      const ids = new Set(records().map((r) => r.headers.event_id));
      return expected.every((e) => ids.has(e.eventId));
    };
    // Past the deadline the check below names each missing event with its explanation.
    await readToEnd(reader, cluster, topic, { enough: allThere, timeoutMs: 120_000 }).catch(
      (error: Error) => process.stdout.write(`[faults] read-back: ${error.message}\n`),
    );
    const read = records();
    const report = checkDelivery(read, expected);
    const sends = new Map<string, number>();
    for (const attempt of recording.attempts)
      for (const id of attempt.eventIds) sends.set(id, (sends.get(id) ?? 0) + 1);
    const unexplained = report.duplicates.filter((id) => (sends.get(id) ?? 0) < 2);
    const missing = await explainMissing(report.missing, scene, cluster, topic, reader, recording);
    return { records: read, ...report, missing, unexplained };
  } finally {
    await reader.close();
  }
}
