import {
  consumeUntil,
  startPrivateKafka,
  uniqueTopic,
  waitFor,
  type PrivateKafka,
} from '@test/support';
import { logLevel } from 'kafkajs';
import { RelayHealthIndicator } from '../src/health/relay.health-indicator';
import { checkDelivery, useRelayFixture } from './relay-test.fixture';

describe('Broker stopped for longer than the backoff cap, then restarted (private Kafka + real PostgreSQL)', () => {
  let kafka: PrivateKafka;
  const topic = uniqueTopic('relay-down');

  beforeAll(async () => {
    kafka = await startPrivateKafka();
  }, 120_000);
  // Between the broker's hooks (jest runs them in declaration order): the broker is up
  // before the fixture makes its topics, and its relays are closed before the broker goes.
  const fixture = useRelayFixture('relay_down', { topics: [topic], brokers: () => kafka.brokers });
  afterAll(async () => {
    await kafka?.destroy();
  });

  it('Given a broker stopped for longer than the backoff cap, when it comes back, then the relay has backed off without a hot loop, reported health down then up, and lost nothing', async () => {
    const { scene } = fixture;
    const { schema, producer } = scene;
    await producer.writeMany(100, 5, 20);
    const relay = await scene.start({
      kafka: {
        clientId: 'relay-down',
        brokers: kafka.brokers,
        logLevel: logLevel.NOTHING,
        connectionTimeout: 500,
        requestTimeout: 1000,
      },
      routing: { defaultTopic: topic },
      tuning: {
        leaseMs: 4000,
        publishTimeoutMs: 1500,
        retry: { baseDelayMs: 100, maxDelayMs: 800, maxAttempts: 1000 },
      },
    });
    const health = relay.get(RelayHealthIndicator);
    await waitFor('first drain', async () => (await scene.pending()) === 0);
    expect((await health.isHealthy('relay')).relay.status).toBe('up');

    await kafka.stop();
    const stoppedAt = Date.now();
    await producer.writeMany(50, 5, 10);
    const down = await waitFor('health down', async () => {
      const result = await health.isHealthy('relay', { brokerTimeoutMs: 1000 });
      // Health answers from the latest figures: down at once, the new rows once sampled.
      return result.relay.status === 'down' && result.relay.pending === 50 ? result : undefined;
    });
    expect(down.relay).toMatchObject({ broker: 'down', running: true, pending: 50 });
    // Stay down well past the backoff cap, then count attempts: backoff, not a hot loop.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, 5000 - (Date.now() - stoppedAt))),
    );
    const { rows } = await schema.pool.query<{ attempts: number; max: number }>(
      `SELECT sum(attempts)::int AS attempts, max(attempts)::int AS max FROM "${schema.name}".outbox WHERE published_at IS NULL`,
    );
    const elapsed = Date.now() - stoppedAt;
    expect(rows[0]!.max).toBeGreaterThan(1); // it did retry
    expect(rows[0]!.max).toBeLessThanOrEqual(Math.ceil(elapsed / 400) + 3); // at the cap, >= 400 ms apart
    expect(rows[0]!.attempts).toBeLessThanOrEqual(5 * (Math.ceil(elapsed / 400) + 3)); // only heads are attempted

    await kafka.start();
    await waitFor('drain after restart', async () => (await scene.pending()) === 0, {
      timeoutMs: 60_000,
    });
    await waitFor(
      'health up again',
      async () => (await health.isHealthy('relay')).relay.status === 'up',
    );
    const records = await consumeUntil(
      [topic],
      (r) => new Set(r.map((x) => x.headers.event_id)).size >= 150,
      {
        brokers: kafka.brokers,
        timeoutMs: 60_000,
      },
    );
    const report = checkDelivery(records, producer.written);
    expect(report.missing).toEqual([]);
    expect(report.orderViolations).toEqual([]);
  });
});
