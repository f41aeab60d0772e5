import {
  createTestSchema,
  spawnTs,
  uniqueTopic,
  waitFor,
  type KafkaCluster,
  type TsChild,
} from '@test/support';
import { Partitioners } from 'kafkajs';
import type { Pool } from 'pg';
import { effectsDdl } from '../../../libs/inbox/test/inbox-test.app';
import { eventRecord } from '../../../libs/inbox/test/inbox-test.records';
import { OffsetSampler } from '../../../scripts/chaos/offset-sampler';
import { TopicReader } from '../../../scripts/chaos/topic-reader';
import { busiestLeader } from './cluster-relay';
import { retrying } from './private-scene';
import { readToEnd } from './read-to-end';

/** What the churn found. */
export interface ChurnReport {
  events: number;
  resent: number;
  /** Sends resolved without an ack for some partition of the request (sent again). */
  unackedSends: number;
  samples: number;
  checked: number;
  faults: string[];
  offsetViolations: string[];
  missingEffects: string[];
  doubleEffects: string[];
  unconsumedPartitions: number[];
}

const ENTRY = 'libs/inbox/test/inbox-consumer.entry.ts';
const PARTITIONS = 6;

/**
 * Each event without an effect, with what explains it: where the outside reader found it in
 * the topic (or that it did not), and the inbox row or rejected row the consumers left for it.
 */
async function explainMissing(
  missing: string[],
  reader: TopicReader,
  topic: string,
  db: { pool: Pool; name: string },
): Promise<string[]> {
  if (missing.length === 0) return [];
  const where = new Map<string, string>();
  for (const [partition, records] of reader.partitions(topic))
    for (const r of records) where.set(r.eventId, `${partition}/${r.offset}`);
  const rows = async (table: string, column: string) =>
    new Map(
      (
        await db.pool.query<{ id: string; v: string }>(
          `SELECT event_id::text AS id, ${column}::text AS v FROM "${db.name}".${table} WHERE event_id::text = ANY($1::text[])`,
          [missing],
        )
      ).rows.map((r) => [r.id, r.v]),
    );
  const inbox = await rows('inbox', 'kafka_offset');
  const rejected = await rows('inbox_rejected', 'reason_code');
  return missing.map(
    (id) =>
      `${id} (topic: ${where.get(id) ?? 'not read'}; inbox row: ${inbox.get(id) ?? 'none'}; ` +
      `rejected: ${rejected.get(id) ?? 'no'})`,
  );
}

/**
 * Three inbox consumer processes (libs/inbox/test/inbox-consumer.entry.ts) in one group on a
 * 6-partition topic of the cluster, while 3,000 events (and 5% resent copies) are produced:
 * consumers SIGKILLed and restarted in turn, leaders killed between them. Offsets and effects
 * are sampled every second (`OffsetSampler`: I5); at the end, effects are counted per event.
 */
export async function runConsumerChurn(cluster: KafkaCluster): Promise<ChurnReport> {
  const topic = uniqueTopic('faults-churn');
  const groupId = uniqueTopic('faults-churn-g');
  await cluster.createTopics([{ topic, numPartitions: PARTITIONS }]);
  const db = await createTestSchema('faults_churn');
  await db.pool.query(effectsDdl(db.name));
  const env = {
    INBOX_SCHEMA: db.name,
    INBOX_TOPIC: topic,
    INBOX_GROUP: groupId,
    KAFKA_BROKERS: cluster.brokers.join(','),
  };
  const children: TsChild[] = [];
  const startConsumer = async (i: number) => {
    const child = spawnTs(ENTRY, env);
    children[i] = child;
    await child.waitForOutput('INBOX_READY', 180_000);
  };
  const reader = new TopicReader(cluster.brokers, [topic]);
  const sampler = new OffsetSampler(cluster.brokers, db.pool, reader, {
    groupId,
    topic,
    appliedSql: `SELECT DISTINCT event_id::text FROM "${db.name}".effects WHERE event_id = ANY($1::uuid[])`,
  });
  // Not idempotent: a send that failed while a leader was down is sent again (below), and an
  // idempotent producer refuses that with OUT_OF_ORDER_SEQUENCE_NUMBER; copies are absorbed.
  const producer = cluster
    .kafka('faults-churn-producer')
    .producer({ idempotent: false, createPartitioner: Partitioners.DefaultPartitioner });
  // The partition of each record, as the producer's partitioner picks it (by key).
  const partitionOf = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: PARTITIONS }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [],
    isr: [],
  }));
  const report: ChurnReport = {
    events: 0,
    resent: 0,
    unackedSends: 0,
    samples: 0,
    checked: 0,
    faults: [],
    offsetViolations: [],
    missingEffects: [],
    doubleEffects: [],
    unconsumedPartitions: [],
  };
  const ids: string[] = [];
  try {
    for (let i = 0; i < 3; i++) await startConsumer(i);
    await reader.start();
    sampler.start();
    await producer.connect();
    const produce = (async () => {
      for (let batch = 0; batch < 30; batch++) {
        const records = Array.from({ length: 100 }, (_, j) =>
          eventRecord({ aggregateId: `churn-${(batch * 100 + j) % 300}` }),
        );
        const resent = records.filter((_, j) => j % 20 === 0);
        ids.push(...records.map((r) => r.eventId));
        report.events += records.length;
        report.resent += resent.length;
        const messages = [...records, ...resent].map(({ key, value, headers }) => ({
          key,
          value,
          headers,
        }));
        const partitions = new Set(
          messages.map((message) => partitionOf({ topic, partitionMetadata, message })),
        );
        // Sent again while a leader is down longer than kafkajs' retries (a loaded machine
        // moves leaders slowly), or when the send resolved without an ack for a partition of
        // the request (kafkajs 2.2.4 never sends a partition whose leader moved, during its own
        // retries, to a broker that had already answered; the relay refuses such a send too:
        // UnacknowledgedPartitionError): a copy sent twice is one more duplicate to absorb.
        await retrying(async () => {
          const acks = await producer.send({ topic, acks: -1, messages });
          const acked = new Set(
            acks
              .filter((a) => a.errorCode === 0 && Number(a.baseOffset) >= 0)
              .map((a) => a.partition),
          );
          const unacked = [...partitions].filter((p) => !acked.has(p));
          if (unacked.length > 0) {
            report.unackedSends += 1;
            throw new Error(`send resolved without an ack for partition(s) ${unacked.join(', ')}`);
          }
        }, 180_000);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    // FAULTS_LONG=1: each restarted consumer is waited for before the next fault.
    const long = process.env.FAULTS_LONG === '1';
    const killed: number[] = [];
    for (let round = 0; round < 3; round++) {
      await children[round]!.kill();
      report.faults.push(`consumer ${round + 1} SIGKILL`);
      if (long) await startConsumer(round);
      else children[round] = spawnTs(ENTRY, env);
      if (round === 2) break;
      const leader = await busiestLeader(cluster, topic, killed);
      killed.push(leader);
      await cluster.node(leader).kill();
      report.faults.push(`leader node ${leader} SIGKILL`);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await cluster.node(leader).start();
      // Back in sync before the next fault: two nodes out would leave too few replicas.
      await cluster.waitInSync(topic, 3);
    }
    await produce;
    const admin = cluster.kafka().admin();
    await admin.connect();
    try {
      await waitFor(
        'every partition consumed and committed to its end',
        async () => {
          const ends = await admin.fetchTopicOffsets(topic);
          const [group] = await admin.fetchOffsets({ groupId, topics: [topic] });
          const committed = new Map((group?.partitions ?? []).map((p) => [p.partition, p.offset]));
          const behind = ends
            .filter((e) => committed.get(e.partition) !== e.high)
            .map((e) => e.partition);
          report.unconsumedPartitions = behind;
          return behind.length === 0 && ends.every((e) => Number(e.high) > 0);
        },
        { timeoutMs: 240_000, intervalMs: 1000 },
      ).catch(() => undefined);
    } finally {
      await admin.disconnect();
    }
    // At the end of every partition (a count short of `expected` is left to the per-event
    // effect checks below, which name any event missing from the topic).
    const expected = report.events + report.resent;
    await readToEnd(reader, cluster, topic).catch((error: Error) => {
      throw new Error(`${error.message}; ${expected} records expected`);
    });
    await sampler.sample();
    const { rows } = await db.pool.query<{ event_id: string; n: string }>(
      `SELECT event_id::text, count(*) AS n FROM "${db.name}".effects GROUP BY event_id`,
    );
    const effects = new Map(rows.map((r) => [r.event_id, Number(r.n)]));
    report.missingEffects = await explainMissing(
      ids.filter((id) => !effects.has(id)),
      reader,
      topic,
      db,
    );
    report.doubleEffects = [...effects].filter(([, n]) => n > 1).map(([id, n]) => `${id} x${n}`);
    report.offsetViolations = sampler.violations;
    report.samples = sampler.samples;
    report.checked = sampler.checked;
    return report;
  } finally {
    await sampler.stop();
    await reader.close();
    await producer.disconnect().catch(() => undefined);
    for (const child of children) await child?.kill();
    await db.drop().catch(() => undefined);
  }
}
