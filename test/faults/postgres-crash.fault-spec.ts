import {
  acquireFaultSlot,
  consumeUntil,
  createTopics,
  KAFKA_BROKERS,
  PgFaultProxy,
  startPrivatePostgres,
  topicRecordCount,
  uniqueTopic,
  waitFor,
  type PrivatePostgres,
} from '@test/support';
import { RelayLoop } from '@nest-outbox/relay';
import { KafkaPublisher } from '../../libs/relay/src/publisher/kafka.publisher';
import { logLevel } from 'kafkajs';
import { checkDelivery, type RelayScene } from '../../libs/relay/test/relay-test.fixture';
import { RecordingPublisher } from '../../libs/relay/test/recording.publisher';
import { privateRelayScene, retrying } from './support/private-scene';
import { runWriteBurst } from './support/write-burst';
import { runInboxCommitCrash } from './support/inbox-commit-crash';
import { runInDoubtCreate } from './support/idempotent-create-crash';

/**
 * PostgreSQL crashes (`pg_ctl stop -m immediate`) on a private instance, at exact statements
 * (a proxy holds the answer back while the database dies): the relay mid-claim and mid-mark,
 * the inbox mid-commit, the order service during a write burst and as an order commits.
 */
describe('PostgreSQL crashes under the relay, the inbox and the writers (private instance, immediate stop)', () => {
  let pg: PrivatePostgres;
  let proxy: PgFaultProxy;
  let release: (() => void) | undefined;
  const scenes: RelayScene[] = [];

  beforeAll(async () => {
    release = await acquireFaultSlot();
    // A 10 s WAL writer delay: what the relay commits asynchronously is surely not on disk
    // when the database dies soon after (the case the README's claim is about).
    pg = await startPrivatePostgres({ settings: { wal_writer_delay: "'10s'" } });
    proxy = await PgFaultProxy.start(pg.port);
  }, 1_200_000);

  afterAll(async () => {
    for (const scene of scenes) await scene.close().catch(() => undefined);
    await proxy?.close();
    pg?.destroy();
    release?.();
  }, 120_000);

  /** Crashes the database when a client sends `pattern`, then starts it again. */
  const crashAt = async (pattern: string) => {
    const fired = proxy.armOnce(pattern, () => pg.crash());
    await fired;
    await new Promise((resolve) => setTimeout(resolve, 500));
    pg.start();
  };

  it('Given the relay with asynchronous bookkeeping (synchronousCommit: false), when PostgreSQL dies mid-claim and then mid-mark, then the relay survives, any mark the crash forgot is published again, and every event is in Kafka once or more, per key in order, none parked', async () => {
    const topic = uniqueTopic('faults-pg-relay');
    await retrying(() => createTopics([{ topic, numPartitions: 3 }]));
    const scene = await privateRelayScene(pg, 'faults_pg_relay', () => KAFKA_BROKERS);
    scenes.push(scene);
    const kafka = { clientId: 'faults-pg', brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING };
    const recording = new RecordingPublisher(new KafkaPublisher(kafka));
    // Mid-claim: the relay's first claim sends its advisory lock, the database dies before
    // answering (the events are written first: the crash must hit the claim, not the writer).
    await scene.producer.writeMany(2000, 100, 200, 'claim');
    const claimCrash = crashAt('pg_advisory_xact_lock(1852796276');
    const relay = await scene.start({
      connection: { connectionString: proxy.url(), max: 4 },
      kafka,
      routing: { defaultTopic: topic },
      tuning: {
        publisher: recording,
        batchSize: 200,
        retry: { baseDelayMs: 100, maxDelayMs: 1000 },
      },
    });
    await claimCrash;
    await waitFor(
      'drained after the claim crash',
      async () => (await retrying(() => scene.pending())) === 0,
      { timeoutMs: 240_000 },
    );

    // Mid-mark, right after earlier marks that only reached the WAL buffers (no writer in
    // between flushes them): the crash forgets those marks.
    // Counted before the write: the relay publishes while the writer writes (on a loaded
    // machine it can keep up with it), so a count taken after could never grow by 600 again.
    const loop = relay.get(RelayLoop);
    const marksBefore = loop.totals.published;
    await retrying(() => scene.producer.writeMany(2000, 100, 200, 'mark'));
    await waitFor('some marks of the new events', () => loop.totals.published > marksBefore + 600, {
      timeoutMs: 180_000,
      intervalMs: 5,
    });
    // The marks visible just before the crash, with the database's clock then: a mark the
    // crash forgot is one of these rows pending again, or marked again after that moment.
    const markedBefore = () =>
      scene.schema.pool.query<{ event_id: string; at: string }>(
        'SELECT event_id::text, clock_timestamp()::text AS at FROM faults_pg_relay.outbox WHERE published_at IS NOT NULL',
      );
    let before: { ids: string[]; at: string } | undefined;
    const fired = proxy.armOnce('SET published_at = now(), kafka_partition', async () => {
      const { rows } = await markedBefore();
      before = { ids: rows.map((r) => r.event_id), at: rows[0]?.at ?? '-infinity' };
      pg.crash();
    });
    // On a loaded machine the relay may have marked everything before the fault was armed:
    // more events keep marks coming until one meets the armed fault.
    let topUps = 0;
    await waitFor(
      'the mark crash',
      async () => {
        if (before) return true;
        if ((await scene.pending()) === 0) {
          await scene.producer.writeMany(200, 50, 200, `mark${++topUps}-`);
        }
        return false;
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    await fired;
    pg.start();
    await waitFor(
      'drained after the mark crash',
      async () => (await retrying(() => scene.pending())) === 0,
      {
        timeoutMs: 240_000,
      },
    );
    const { rows: after } = await retrying(() =>
      scene.schema.pool.query<{ event_id: string }>(
        `SELECT event_id::text FROM faults_pg_relay.outbox
          WHERE event_id = ANY($1::uuid[]) AND (published_at IS NULL OR published_at > $2::timestamptz)`,
        [before!.ids, before!.at],
      ),
    );
    const forgotten = after.map((r) => r.event_id);

    const expected = scene.producer.written;
    // The whole log, not only until every event was seen once: the copies a forgotten mark
    // caused come after the first ones, and they are what this test checks.
    const total = await retrying(() => topicRecordCount(topic));
    const records = await consumeUntil([topic], (all) => all.length >= total, {
      timeoutMs: 180_000,
    });
    const report = checkDelivery(records, expected);
    const { rows } = await retrying(() =>
      scene.schema.pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM faults_pg_relay.outbox WHERE parked_at IS NOT NULL`,
      ),
    );
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    expect(Number(rows[0]!.n)).toBe(0);
    // The claim of the README: marks the crash forgot (committed asynchronously, still in
    // PostgreSQL's WAL buffers) went out again; nothing was lost. How many it forgets is up to
    // timing: the WAL writer writes every full WAL page of asynchronous commits at once, so only
    // the last partial page can be lost (often none). Every forgotten mark must be a duplicate.
    // Each forgotten mark is exactly such a row: its event must be in the topic twice or more.
    const duplicated = new Set(report.duplicates);
    expect(forgotten.filter((id) => !duplicated.has(id))).toEqual([]);
    process.stdout.write(
      `[faults] PostgreSQL crash mid-claim and mid-mark: ${expected.length} events, ${records.length} records (${records.length - expected.length} republished over 2 crashes), ${report.duplicates.length} duplicates, ${forgotten.length} marks forgotten by the crash (synchronousCommit: false)\n`,
    );
  }, 600_000);

  it('Given a relay with synchronous marks whose mark is sent with its broker acks in, when the mark is lost and PostgreSQL dies right then and stays down, then once it answers again those events are marked without being published again: every event is in Kafka exactly once, per key in order, none parked', async () => {
    const topic = uniqueTopic('faults-pg-marks');
    await retrying(() => createTopics([{ topic, numPartitions: 3 }]));
    const scene = await privateRelayScene(pg, 'faults_pg_marks', () => KAFKA_BROKERS);
    scenes.push(scene);
    const kafka = {
      clientId: 'faults-pg-marks',
      brokers: KAFKA_BROKERS,
      logLevel: logLevel.NOTHING,
    };
    const recording = new RecordingPublisher(new KafkaPublisher(kafka));
    await scene.producer.writeMany(2000, 100, 200, 'mark');
    // The mark never reaches the database (the proxy drops it, then PostgreSQL dies): the rows
    // marked at the crash (read directly, not through the proxy) are all that is marked then.
    let marked: Set<string> | undefined;
    const fired = proxy.armOnce(
      'SET published_at = now(), kafka_partition',
      async () => {
        const { rows } = await scene.schema.pool.query<{ event_id: string }>(
          'SELECT event_id::text FROM faults_pg_marks.outbox WHERE published_at IS NOT NULL',
        );
        marked = new Set(rows.map((r) => r.event_id));
        pg.crash();
      },
      { forward: false },
    );
    // Synchronous marks: the crash forgets no committed mark, so any copy is the relay's doing.
    // A lease far longer than the outage: nobody else may take the rows meanwhile.
    await scene.start({
      connection: { connectionString: proxy.url(), max: 4 },
      kafka,
      routing: { defaultTopic: topic },
      tuning: {
        publisher: recording,
        batchSize: 100,
        synchronousCommit: true,
        leaseMs: 120_000,
        retry: { baseDelayMs: 100, maxDelayMs: 1000 },
      },
    });
    await fired;
    // The outage: long enough for the relay's claims and marks to fail a few times.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // Acknowledged by the broker, not marked when the database died: the batch whose mark was
    // dropped and any batch in flight then. Those are the marks an outage used to lose.
    const acked = recording.attempts.filter((a) => a.end !== undefined && !a.error);
    const inDoubt = acked.flatMap((a) => a.eventIds).filter((id) => !marked!.has(id));
    pg.start();
    await waitFor(
      'drained after the outage',
      async () => (await retrying(() => scene.pending())) === 0,
      {
        timeoutMs: 240_000,
      },
    );

    const total = await retrying(() => topicRecordCount(topic));
    const records = await consumeUntil([topic], (all) => all.length >= total, {
      timeoutMs: 180_000,
    });
    const report = checkDelivery(records, scene.producer.written);
    const { rows } = await retrying(() =>
      scene.schema.pool.query<{ n: string }>(
        'SELECT count(*) AS n FROM faults_pg_marks.outbox WHERE parked_at IS NOT NULL',
      ),
    );
    const again = new Set(report.duplicates);
    const inDoubtAgain = inDoubt.filter((id) => again.has(id));
    process.stdout.write(
      `[faults] PostgreSQL crash at the mark (synchronousCommit: true): 2000 events, ${records.length} records, ${inDoubt.length} acknowledged and unmarked at the crash, ${inDoubtAgain.length} of them published again, ${report.duplicates.length} duplicates in all\n`,
    );
    expect(inDoubt.length).toBeGreaterThan(0);
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    expect(Number(rows[0]!.n)).toBe(0);
    expect(inDoubtAgain).toEqual([]);
    expect(report.duplicates).toEqual([]);
  }, 600_000);

  it('Given an inbox consumer, when PostgreSQL dies mid-commit of its transaction, then after the restart every event has exactly one effect and the group has committed every offset', async () => {
    const report = await runInboxCommitCrash(pg);
    expect(report.missingEffects).toEqual([]);
    expect(report.doubleEffects).toEqual([]);
    expect(report.uncommittedPartitions).toEqual([]);
    expect(report.crashes).toBe(2);
  }, 600_000);

  it('Given the order service under a write burst through @OutboxTransactional, when PostgreSQL dies and comes back, then refused commands answer a typed retryable 503, none is half-applied, the service stays up, and every confirmed command has its event in Kafka', async () => {
    const report = await runWriteBurst(pg);
    expect(report.unexpectedAnswers).toEqual([]);
    expect(report.unavailable).toBeGreaterThan(0);
    expect(report.halfApplied).toEqual([]);
    expect(report.confirmedMissingInKafka).toEqual([]);
    expect(report.serviceExited).toBe(false);
    process.stdout.write(
      `[faults] write burst: ${report.commands} commands, ${report.applied} applied, ${report.unavailable} typed 503, ${report.lost} without answer, ${report.orders} orders checked\n`,
    );
  }, 600_000);

  it('Given POST /orders with an Idempotency-Key, when PostgreSQL dies as the order commits (committed, the client sees an error), then the retry with the same key answers that order and one order exists', async () => {
    const report = await runInDoubtCreate(pg, proxy);
    expect(report).toMatchObject({
      committedBeforeCrash: true,
      firstStatus: 503,
      retryStatus: 201,
    });
    expect(report.orderIds).toHaveLength(1);
    expect(report.answeredIds).toEqual([report.orderIds[0], report.orderIds[0]]);
  }, 600_000);
});
