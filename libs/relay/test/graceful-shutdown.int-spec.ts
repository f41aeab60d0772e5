import { KAFKA_BROKERS, consumeUntil, uniqueTopic, waitFor } from '@test/support';
import { logLevel } from 'kafkajs';
import { KafkaPublisher } from '../src/publisher/kafka.publisher';
import { RecordingPublisher } from './recording.publisher';
import {
  TestProducer,
  checkDelivery,
  useRelayFixture,
  type TestRelayOptions,
} from './relay-test.fixture';

interface LeaseRow {
  id: string;
  lease_owner: string | null;
  lease_expires_at: Date | null;
}

describe('Graceful shutdown of a relay (real PostgreSQL + Kafka)', () => {
  const topic = uniqueTopic('relay-shutdown');
  const fixture = useRelayFixture('relay_shutdown', { topics: [topic] });

  /** A failed test must not leave its relays running into the next one. */
  beforeEach(async () => {
    await fixture.scene.stopAll();
    await fixture.scene.schema.pool.query(`DELETE FROM "${fixture.scene.schema.name}".outbox`);
  });

  /** Unpublished rows whose lease is still running. */
  async function stillLeased(): Promise<LeaseRow[]> {
    const { schema } = fixture.scene;
    const { rows } = await schema.pool.query<LeaseRow>(
      `SELECT id::text, lease_owner, lease_expires_at FROM "${schema.name}".outbox
        WHERE published_at IS NULL AND skipped_at IS NULL
          AND lease_expires_at IS NOT NULL AND lease_expires_at > now()`,
    );
    return rows;
  }

  /** A relay whose every request takes `delayMs` more (a slow broker), recording its publishes. */
  async function slowRelay(relayId: string, delayMs: number, overrides: Partial<TestRelayOptions>) {
    const publisher = new RecordingPublisher(
      new KafkaPublisher({ clientId: relayId, brokers: KAFKA_BROKERS, logLevel: logLevel.NOTHING }),
    );
    publisher.delayMs = delayMs;
    const app = await fixture.scene.start({
      routing: { defaultTopic: topic },
      ...overrides,
      tuning: { relayId, publisher, ...overrides.tuning },
    });
    return { app, publisher };
  }

  it('Given a relay process mid-drain, when it gets SIGTERM, then it stops within its deadline, leaves no row leased, and a second relay finishes the drain well before the lease would expire, nothing lost, order per key intact', async () => {
    const { scene } = fixture;
    const { schema } = scene;
    const producer = new TestProducer(schema.pool, schema.name); // this test's events only
    await producer.writeMany(600, 20, 100, 'term');
    // Far longer than the drain may take: the second relay can finish only if the rows were
    // handed back, never by waiting for their leases to expire.
    const leaseMs = 600_000;
    const shutdownTimeoutMs = 500;
    const child = await scene.spawn(
      {
        routing: { defaultTopic: topic },
        tuning: {
          relayId: 'sigterm-child',
          batchSize: 100,
          leaseMs,
          publishTimeoutMs: 2000,
          shutdownTimeoutMs,
          // About 5 records per request and 100 ms per request: a batch takes about 2 s.
          maxRequestBytes: 2000,
        },
      },
      { RELAY_PUBLISH_DELAY_MS: '100' },
    );
    await waitFor('the child to be mid-drain', async () => (await scene.pending()) <= 570, {
      timeoutMs: 30_000,
      intervalMs: 20,
    });
    const leasedBefore = await stillLeased();
    expect(leasedBefore.length).toBeGreaterThan(0);

    const code = await child.stop(10_000);
    expect(child.process.signalCode).not.toBe('SIGKILL');
    expect(code === 0 || child.process.signalCode === 'SIGTERM').toBe(true);
    expect(child.output()).toContain('RELAY STOPPED SIGTERM'); // Nest's shutdown ran to its end
    // The in-flight batch outlived the deadline and was cancelled (the abandon path ran).
    expect(child.output()).toMatch(
      /still running after \d+ ms \(shutdown deadline 500 ms\): cancelling it/,
    );

    // Nothing left leased: every claimed, unfinished row was handed back.
    expect(await stillLeased()).toEqual([]);
    const { rows: handedBack } = await schema.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema.name}".outbox
        WHERE published_at IS NULL AND lease_owner LIKE 'sigterm-child:%'`,
    );
    expect(handedBack[0]!.n).toBeGreaterThan(0); // it really was mid-batch
    const left = await scene.pending();
    expect(left).toBeGreaterThan(0);

    const next = await scene.start({
      routing: { defaultTopic: topic },
      tuning: { relayId: 'after-sigterm', leaseMs },
    });
    await waitFor(
      'the second relay to finish the drain',
      async () => (await scene.pending()) === 0,
      { timeoutMs: 120_000 },
    );
    const records = await consumeUntil(
      [topic],
      (r) => new Set(r.map((x) => x.headers.event_id)).size >= 600,
      { timeoutMs: 30_000 },
    );
    const report = checkDelivery(records, producer.written);
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    await scene.stop(next);
  }, 240_000);

  it('Given a relay in the middle of a batch, when the app closes with time left before the deadline, then it finishes the batch being sent, hands back the batch claimed ahead unsent, claims nothing more and leaves no lease', async () => {
    const { scene } = fixture;
    const { schema } = scene;
    const producer = new TestProducer(schema.pool, schema.name); // this test's events only
    await producer.writeMany(200, 5, 100, 'finish');
    const written = producer.written.map((w) => w.eventId);
    const claims: string[][] = [];
    const { app, publisher } = await slowRelay('finisher', 100, {
      hooks: {
        onStage(stage, eventIds) {
          if (stage !== 'after-claim') return;
          claims.push([...eventIds]);
        },
      },
      tuning: {
        batchSize: 50,
        maxRequestBytes: 2000,
        leaseMs: 20_000,
        publishTimeoutMs: 3000,
        shutdownTimeoutMs: 10_000,
      },
    });
    await waitFor('the first batch in flight', () => publisher.attempts.length >= 2, {
      intervalMs: 10,
    });
    const closing = Date.now();
    await scene.stop(app);
    const took = Date.now() - closing;
    expect(took).toBeLessThan(10_000);
    const firstClaim = claims[0]!;
    const claimsAtClose = claims.length;
    expect(claimsAtClose).toBeLessThanOrEqual(2); // the batch being sent, and one claimed ahead
    const { rows } = await schema.pool.query<{ event_id: string; published: boolean }>(
      `SELECT event_id::text, published_at IS NOT NULL AS published FROM "${schema.name}".outbox
        WHERE event_id = ANY($1::uuid[])`,
      [written],
    );
    const published = rows.filter((r) => r.published).map((r) => r.event_id);
    expect(published.sort()).toEqual([...firstClaim].sort()); // the batch was finished, nothing more
    expect(await stillLeased()).toEqual([]);
    // The batch claimed ahead (not started) went back at once: unpublished and unleased.
    const { rows: ahead } = await schema.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema.name}".outbox
        WHERE event_id = ANY($1::uuid[]) AND (published_at IS NOT NULL OR lease_expires_at IS NOT NULL)`,
      [claims[1] ?? []],
    );
    expect(ahead[0]!.n).toBe(0);
    expect(claims.length).toBe(claimsAtClose);
    expect(publisher.attempts.every((a) => firstClaim.includes(a.eventIds[0]!))).toBe(true);
    expect(publisher.attempts.every((a) => a.error === undefined)).toBe(true);

    const next = await scene.start({
      routing: { defaultTopic: topic },
      tuning: { relayId: 'finish-next' },
    });
    await waitFor('drain', async () => (await scene.pending()) === 0);
    await scene.stop(next);
  }, 60_000);

  it('Given a slow broker, when a batch needs several requests, then no publish starts with less lease left than the publish timeout, the rest is handed back and delivered later', async () => {
    const { scene } = fixture;
    const { schema } = scene;
    const producer = new TestProducer(schema.pool, schema.name); // this test's events only
    const ids = await producer.write(
      Array.from({ length: 8 }, () => ({ aggregateId: 'lease-left' })),
    );
    const leaseMs = 5000;
    const publishTimeoutMs = 2000;
    const claimedAt: number[] = [];
    const { app, publisher } = await slowRelay('lease-left', 1200, {
      hooks: {
        onStage(stage) {
          if (stage === 'after-claim') claimedAt.push(Date.now());
        },
      },
      tuning: {
        batchSize: 8,
        maxRequestBytes: 400, // one record per request
        leaseMs,
        publishTimeoutMs,
      },
    });
    await waitFor(
      'drain',
      async () => {
        const { rows } = await schema.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${schema.name}".outbox
            WHERE event_id = ANY($1::uuid[]) AND published_at IS NULL`,
          [ids],
        );
        return rows[0]!.n === 0;
      },
      { timeoutMs: 40_000 },
    );
    await scene.stop(app);
    // The lease deadline of a batch is at most its after-claim time + leaseMs.
    for (const attempt of publisher.attempts) {
      const claim = Math.max(...claimedAt.filter((t) => t <= attempt.start));
      expect(claim + leaseMs - attempt.start).toBeGreaterThanOrEqual(publishTimeoutMs);
    }
    // 1.2 s per request with 5 s of lease and a 2 s timeout: 3 requests per claim, then hand back.
    expect(claimedAt.length).toBeGreaterThanOrEqual(3);
    expect(publisher.attempts.length).toBe(8);
    expect(publisher.attempts.every((a) => a.error === undefined)).toBe(true);
    const records = await consumeUntil(
      [topic],
      (r) => ids.every((id) => r.some((x) => x.headers.event_id === id)),
      { timeoutMs: 30_000 },
    );
    const report = checkDelivery(
      records.filter((r) => r.key === 'lease-left'),
      producer.written,
    );
    expect(report.orderViolations).toEqual([]);
    expect(report.duplicates).toEqual([]);
  }, 60_000);
});
