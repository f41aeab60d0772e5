import { startPrivateKafka, waitFor, type PrivateKafka } from '@test/support';
import { SampleSystem } from '../scripts/sample-system';

/**
 * Issue 10 item 5: the shipping service (an inbox consumer) started while its broker is down
 * stays up, answers /health 503, and connects with backoff once the broker is back. The
 * broker is a private one of this file, stopped before the service starts.
 */
describe('shipping service started while the broker is down (e2e)', () => {
  let kafka: PrivateKafka;
  let system: SampleSystem;

  beforeAll(async () => {
    kafka = await startPrivateKafka();
    system = await SampleSystem.create({ prefix: 'e2e_startdown', brokers: kafka.brokers });
    await kafka.stop();
  }, 240_000);

  afterAll(async () => {
    await system?.teardown({ deleteTopics: false });
    await kafka?.destroy();
  }, 120_000);

  it('Given no broker, then it stays up with /health 503; when the broker starts, the consumer connects and applies an order event', async () => {
    await system.shipping.start({ STARTUP_RETRY_MS: '5000' }, 120_000, 503);
    const down = await system.shipping.health();
    expect(down.body).toMatchObject({ details: { inbox: { status: 'down' } } });
    // Still up after several failed connection attempts (the old start-up exited here).
    await system.shipping.waitForOutput(/Kafka consumer start failed[^\n]*retrying in/, 60_000);
    await system.shipping.waitForOutput(/(Kafka consumer start failed[\s\S]*){2}/, 60_000);
    expect(system.shipping.running).toBe(true);
    expect((await system.shipping.health()).status).toBe(503);

    await kafka.start();
    await system.shipping.waitForHealth(200, 120_000);
    await system.orders.start();
    const order = await system.http.createOrder('after-broker-start');
    expect(order.status).toBe(201);
    expect((await system.http.confirm(order.body.id)).status).toBe(200);
    await waitFor(
      'the shipment of the confirmed order',
      async () => (await system.http.shipmentOf(order.body.id)).status === 200,
      { timeoutMs: 90_000, intervalMs: 500 },
    );
    expect(system.shipping.output()).not.toContain('KafkaJSNonRetriableError');
  }, 300_000);
});
