import {
  consumeUntil,
  startPrivateKafka,
  uniqueTopic,
  waitFor,
  type PrivateKafka,
} from '@test/support';
import type { TestingModule } from '@nestjs/testing';
import type { KafkaConfig } from 'kafkajs';
import type { Registry } from 'prom-client';
import { PublishTimeoutError } from '../src/errors/publish-timeout.error';
import { KafkaPublisher } from '../src/publisher/kafka.publisher';
import { RELAY_METRICS_REGISTRY } from '../src/relay.constants';
import { RecordingPublisher, type PublishAttempt } from './recording.publisher';
import type { RelayModuleOptions } from '../src/options/relay-options.interface';
import { TestProducer, checkDelivery, useRelayFixture } from './relay-test.fixture';
import { StallProxy } from './stall-proxy.fixture';

interface RowState {
  id: string;
  attempts: number;
  last_error: string | null;
  published_at: Date | null;
  lease_expires_at: Date | null;
  kafka_offset: string | null;
}

describe('Publish timeout and graceful shutdown against a stalled or stopped broker (private Kafka behind a TCP proxy + real PostgreSQL)', () => {
  let kafka: PrivateKafka;
  let proxy: StallProxy;
  let kafkaConfig: KafkaConfig;
  const topic = uniqueTopic('relay-abort');

  beforeAll(async () => {
    kafka = await startPrivateKafka();
    const [host, port] = kafka.brokers[0]!.split(':');
    await (proxy = new StallProxy({ host: host!, port: Number(port) })).start();
    kafkaConfig = proxy.kafkaConfig('relay-abort');
  }, 120_000);
  // Between the broker's hooks (jest runs them in declaration order): the broker is up
  // before the fixture makes its topics, and its relays are closed before the broker goes.
  const fixture = useRelayFixture('relay_abort', { topics: [topic], brokers: () => kafka.brokers });
  afterAll(async () => {
    await proxy?.stop();
    await kafka?.destroy();
  });

  async function rows(ids: string[]): Promise<RowState[]> {
    const { schema } = fixture.scene;
    const { rows: found } = await schema.pool.query<RowState>(
      `SELECT id::text, attempts, last_error, published_at, lease_expires_at, kafka_offset::text
         FROM "${schema.name}".outbox WHERE event_id = ANY($1::uuid[]) ORDER BY id`,
      [ids],
    );
    return found;
  }

  async function relay(
    overrides: Partial<RelayModuleOptions>,
  ): Promise<{ app: TestingModule; publisher: RecordingPublisher }> {
    const publisher = new RecordingPublisher(new KafkaPublisher(kafkaConfig));
    const app = await fixture.scene.start({
      routing: { defaultTopic: topic },
      ...overrides,
      tuning: {
        publisher,
        retry: { baseDelayMs: 200, maxDelayMs: 500, maxAttempts: 1000 },
        ...overrides.tuning,
      },
    });
    return { app, publisher };
  }

  const close = (app: TestingModule) => fixture.scene.stop(app);

  const failedAfter = (publisher: RecordingPublisher, at: number) =>
    publisher.attempts.find((a) => a.start >= at && a.end !== undefined && a.error !== undefined);

  it('Given a stalled broker, when a publish exceeds the publish timeout, then it is aborted, its connection abandoned, a transient retry counted without a mark, and the events are delivered once un-stalled', async () => {
    const { schema } = fixture.scene;
    const producer = new TestProducer(schema.pool, schema.name); // this test's events only
    const { app, publisher } = await relay({
      tuning: { relayId: 'timeout', leaseMs: 6000, publishTimeoutMs: 1500 },
    });
    const warm = await producer.write([{ aggregateId: 'warm' }, { aggregateId: 'warm' }]);
    await waitFor('warm-up drain through the proxy', async () =>
      (await rows(warm)).every((r) => r.published_at !== null),
    );

    proxy.stall();
    const stalledAt = Date.now();
    const stalled = await producer.write(
      Array.from({ length: 6 }, (_, i) => ({ aggregateId: `stalled-${i % 2}` })),
    );
    const first: PublishAttempt = await waitFor(
      'a timed-out publish',
      () => failedAfter(publisher, stalledAt),
      { timeoutMs: 15_000 },
    );
    // It ends at the timeout, not at kafkajs' requestTimeout (30 s).
    expect(first.end! - first.start).toBeGreaterThanOrEqual(1400);
    expect(first.end! - first.start).toBeLessThan(30_000);
    expect(first.error).toBeInstanceOf(PublishTimeoutError);
    // The producer's in-flight request is abandoned: its connection closes (seen by the proxy).
    await waitFor(
      'the relay to close the connections of the aborted publish',
      () => proxy.openSince(first.end!).length === 0,
      { intervalMs: 20 },
    );
    const closed = proxy.connections.filter(
      (c) => c.openedAt <= first.start && c.closedAt !== undefined && c.closedAt >= first.start,
    );
    expect(closed.length).toBeGreaterThan(0);
    expect(Math.max(...closed.map((c) => c.closedAt!))).toBeLessThan(first.end! + 1000);

    // Not marked: returned for retry as a transient error, counted as an attempt.
    const state = await waitFor('the failure to be recorded', async () => {
      const found = await rows(stalled);
      return found.some((r) => r.attempts >= 1) ? found : undefined;
    });
    expect(state.every((r) => r.published_at === null)).toBe(true);
    expect(state.filter((r) => r.attempts >= 1).map((r) => r.last_error)).toEqual(
      expect.arrayContaining([expect.stringMatching(/timed? ?out|timeout/i)]),
    );
    const registry = app.get<Registry>(RELAY_METRICS_REGISTRY);
    const retried = (await registry.getSingleMetric('nest_outbox_relay_retried_total')!.get())
      .values;
    expect(retried.find((v) => v.labels.kind === 'transient')?.value ?? 0).toBeGreaterThanOrEqual(
      1,
    );
    // A second timed-out attempt (the retry) behaves the same: still nothing marked.
    const second = await waitFor(
      'a second timed-out publish',
      () => failedAfter(publisher, first.end! + 1),
      { timeoutMs: 15_000 },
    );
    expect(second.end! - second.start).toBeLessThan(1500 + 500);
    expect((await rows(stalled)).every((r) => r.published_at === null)).toBe(true);

    proxy.unstall();
    await waitFor(
      'drain after un-stall',
      async () => (await rows(stalled)).every((r) => r.published_at !== null),
      { timeoutMs: 30_000 },
    );
    expect((await rows(stalled)).every((r) => r.kafka_offset !== null)).toBe(true);
    const records = await consumeUntil(
      [topic],
      (r) => stalled.every((id) => r.some((x) => x.headers.event_id === id)),
      { brokers: kafka.brokers, timeoutMs: 30_000 },
    );
    const report = checkDelivery(
      records,
      producer.written.filter((w) => stalled.includes(w.eventId) || warm.includes(w.eventId)),
    );
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    // The abandoned requests never reached the broker late (their bytes died with the socket).
    expect(report.duplicates).toEqual([]);
    await close(app);
  }, 90_000);

  it('Given a publish hanging on a stalled broker, when the app closes, then close() completes at its shutdown deadline without waiting for the publish, and the leases are released at once for the next relay', async () => {
    const { schema } = fixture.scene;
    const producer = new TestProducer(schema.pool, schema.name); // this test's events only
    const shutdownTimeoutMs = 1000;
    // A lease and a publish timeout too long to wait out: close() and the next relay's drain
    // can finish only through the shutdown deadline and the leases handed back.
    const leaseMs = 600_000;
    const publishTimeoutMs = 60_000;
    const { app, publisher } = await relay({
      tuning: { relayId: 'stuck', leaseMs, publishTimeoutMs, shutdownTimeoutMs },
    });
    await waitFor('producer connected', async () => {
      const ids = await producer.write([{ aggregateId: 'warm2' }]);
      await waitFor('warm', async () => (await rows(ids))[0]?.published_at != null);
      return true;
    });
    proxy.stall();
    const stalledAt = Date.now();
    const ids = await producer.write(
      Array.from({ length: 20 }, (_, i) => ({ aggregateId: `stuck-${i % 4}` })),
    );
    await waitFor('a publish hanging on the stalled broker', () =>
      publisher.attempts.some(
        (a) => a.start >= stalledAt && a.end === undefined && a.eventIds.length > 0,
      ),
    );
    const leased = await rows(ids);
    expect(leased.some((r) => r.lease_expires_at !== null)).toBe(true);

    const closing = Date.now();
    await close(app);
    const took = Date.now() - closing;
    expect(took).toBeLessThan(publishTimeoutMs);
    // No row is left leased by the stopped relay, and its connections are closed.
    const after = await rows(ids);
    expect(after.filter((r) => r.lease_expires_at !== null)).toEqual([]);
    expect(after.every((r) => r.published_at === null)).toBe(true);
    expect(proxy.openSince(closing + took).filter((c) => c.openedAt >= stalledAt - 5000)).toEqual(
      [],
    );

    proxy.unstall();
    const next = await relay({ tuning: { relayId: 'next', leaseMs, publishTimeoutMs: 3000 } });
    await waitFor('the next relay to drain', async () => (await fixture.scene.pending()) === 0, {
      timeoutMs: 120_000,
    });
    const records = await consumeUntil(
      [topic],
      (r) => ids.every((id) => r.some((x) => x.headers.event_id === id)),
      { brokers: kafka.brokers, timeoutMs: 30_000 },
    );
    const report = checkDelivery(
      records,
      producer.written.filter((w) => ids.includes(w.eventId)),
    );
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
    await close(next.app);
  }, 240_000);

  it('Given a stopped broker, when the app closes, then close() completes at its shutdown deadline without waiting for the publish, and leaves no lease behind', async () => {
    const { schema } = fixture.scene;
    const producer = new TestProducer(schema.pool, schema.name); // this test's events only
    const shutdownTimeoutMs = 1000;
    const { app, publisher } = await relay({
      tuning: { relayId: 'down', leaseMs: 600_000, publishTimeoutMs: 60_000, shutdownTimeoutMs },
    });
    await kafka.stop();
    const stoppedAt = Date.now();
    const ids = await producer.write(
      Array.from({ length: 10 }, (_, i) => ({ aggregateId: `down-${i % 2}` })),
    );
    await waitFor('a publish against the stopped broker', () =>
      publisher.attempts.some((a) => a.start >= stoppedAt),
    );
    const closing = Date.now();
    await close(app);
    expect(Date.now() - closing).toBeLessThan(60_000); // not the publish timeout
    const after = await rows(ids);
    expect(after.filter((r) => r.lease_expires_at !== null)).toEqual([]);
    expect(after.every((r) => r.published_at === null)).toBe(true);
  }, 240_000);
});
