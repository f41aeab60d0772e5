import {
  KAFKA_BROKERS,
  PgFaultProxy,
  createTopics,
  spawnTs,
  testKafka,
  uniqueTopic,
  waitFor,
  type PrivatePostgres,
  type TsChild,
} from '@test/support';
import { effectsDdl } from '../../../libs/inbox/test/inbox-test.app';
import { eventRecord } from '../../../libs/inbox/test/inbox-test.records';
import { crashTolerantPool, retrying } from './private-scene';

/** What the inbox crash found. */
export interface InboxCrashReport {
  crashes: number;
  missingEffects: string[];
  doubleEffects: string[];
  uncommittedPartitions: number[];
}

/**
 * An inbox consumer (libs/inbox/test/inbox-consumer.entry.ts) on the private PostgreSQL
 * through a fault proxy of its own: twice, the database dies the moment the consumer sends
 * the COMMIT of an inbox transaction (effect + inbox row), its answer never arriving; the
 * second time it stays down 12 s, longer than the handler's retries take. After
 * each restart the consumer goes on; at the end each event has exactly one effect and the
 * group committed every offset.
 */
export async function runInboxCommitCrash(pg: PrivatePostgres): Promise<InboxCrashReport> {
  const schema = 'faults_pg_inbox';
  const topic = uniqueTopic('faults-pg-inbox');
  const groupId = uniqueTopic('faults-pg-inbox-g');
  // Retried: the shared broker can time a creation out on a loaded machine.
  await retrying(() => createTopics([{ topic, numPartitions: 3 }]));
  const db = crashTolerantPool(pg.url, 2);
  await retrying(() => db.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`));
  await db.query(effectsDdl(schema));
  const proxy = await PgFaultProxy.start(pg.port);
  const kafka = testKafka();
  const producer = kafka.producer();
  const admin = kafka.admin();
  await Promise.all([producer.connect(), admin.connect()]);
  let consumer: TsChild | undefined;
  const ids: string[] = [];
  const produce = async (count: number) => {
    const records = Array.from({ length: count }, (_, i) =>
      eventRecord({ aggregateId: `inbox-${i % 40}` }),
    );
    ids.push(...records.map((r) => r.eventId));
    await producer.send({
      topic,
      messages: records.map(({ key, value, headers }) => ({ key, value, headers })),
    });
  };
  let crashes = 0;
  let fired = false;
  const arm = () => void proxy.armOnce('COMMIT', () => pg.crash()).then(() => (fired = true));
  const crashAtCommit = async (downMs: number) => {
    // A deadline, not a hang: a consumer that never commits again fails here, by name.
    await waitFor('a COMMIT of the consumer to crash the database at', () => fired, {
      timeoutMs: 240_000,
      intervalMs: 200,
    }).finally(() => {
      fired = false;
    });
    crashes += 1;
    await new Promise((resolve) => setTimeout(resolve, downMs));
    pg.start();
  };
  try {
    consumer = spawnTs('libs/inbox/test/inbox-consumer.entry.ts', {
      DATABASE_URL: proxy.url(),
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      INBOX_SCHEMA: schema,
      INBOX_TOPIC: topic,
      INBOX_GROUP: groupId,
    });
    await consumer.waitForOutput('INBOX_READY', 180_000);
    // Armed once the consumer runs: the next COMMIT on its connections is an inbox transaction's.
    arm();
    await produce(200);
    await crashAtCommit(1000);
    // Down longer than the inbox's 5 attempts take (about 3 s): an outage must not use them up
    // and dead-letter the events in flight (found by the chaos run, seed 13200 round 3).
    arm();
    await produce(200);
    await crashAtCommit(12_000);
    await produce(200);
    let behind: number[] = [];
    await waitFor(
      'every offset committed',
      async () => {
        const ends = await admin.fetchTopicOffsets(topic);
        const [group] = await admin.fetchOffsets({ groupId, topics: [topic] });
        const committed = new Map((group?.partitions ?? []).map((p) => [p.partition, p.offset]));
        behind = ends.filter((e) => committed.get(e.partition) !== e.high).map((e) => e.partition);
        return behind.length === 0;
      },
      { timeoutMs: 180_000, intervalMs: 1000 },
    ).catch(() => undefined);
    const { rows } = await retrying(() =>
      db.query<{ event_id: string; n: string }>(
        `SELECT event_id::text, count(*) AS n FROM ${schema}.effects GROUP BY event_id`,
      ),
    );
    const effects = new Map(rows.map((r) => [r.event_id, Number(r.n)]));
    return {
      crashes,
      missingEffects: ids.filter((id) => !effects.has(id)),
      doubleEffects: [...effects].filter(([, n]) => n > 1).map(([id, n]) => `${id} x${n}`),
      uncommittedPartitions: behind,
    };
  } finally {
    await consumer?.kill();
    proxy.disarm();
    await proxy.close();
    await Promise.all([producer.disconnect(), admin.disconnect()]).catch(() => undefined);
    await db.end().catch(() => undefined);
  }
}
