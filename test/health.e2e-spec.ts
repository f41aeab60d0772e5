import { startPrivateKafka, waitFor, type PrivateKafka } from '@test/support';
import { SampleSystem, type AppProcess } from '../scripts/sample-system';

/**
 * `/health` of the three apps follows the broker. The broker here is a private one of
 * this file (stopping the shared broker would break every other test running in parallel).
 */
describe('sample order system: /health when the broker goes away and comes back (e2e)', () => {
  let kafka: PrivateKafka;
  let system: SampleSystem;
  let apps: AppProcess[];

  beforeAll(async () => {
    kafka = await startPrivateKafka();
    system = await SampleSystem.create({
      prefix: 'e2e_health',
      brokers: kafka.brokers,
      relay: 'both',
    });
    await system.start();
    apps = [system.orders, system.shipping, system.relay!];
  }, 240_000);

  afterAll(async () => {
    // The topics go with the private broker's data: no need to delete them one by one.
    await system?.teardown({ deleteTopics: false });
    await kafka?.destroy();
  }, 120_000);

  it('Given the broker is up, then every app answers /health 200 with its indicators up', async () => {
    for (const app of apps) {
      const answer = await app.health();
      expect({ app: app.name, status: answer.status }).toEqual({ app: app.name, status: 200 });
      expect(answer.body).toMatchObject({ status: 'ok' });
    }
    expect((await system.shipping.health()).body).toMatchObject({
      details: { database: { status: 'up' }, inbox: { status: 'up' }, relay: { status: 'up' } },
    });
  });

  it('Given the broker is stopped, then every app answers 503, and after it returns they answer 200 again and orders flow', async () => {
    await kafka.stop();
    for (const app of apps) {
      const down = await app.waitForHealth(503, 60_000);
      expect(down.body).toMatchObject({ status: 'error' });
    }
    expect((await system.orders.health()).body).toMatchObject({
      error: { relay: { status: 'down', broker: 'down' } },
    });
    // Writes do not need the broker: the order is recorded with its event.
    const { body: order } = await system.http.createOrder('offline-customer');
    expect((await system.http.confirm(order.id)).status).toBe(200);

    await kafka.start();
    for (const app of apps) await app.waitForHealth(200, 90_000);

    const shipment = await waitFor(
      'the order confirmed while the broker was down to be shipped',
      async () => {
        const answer = await system.http.shipmentOf(order.id);
        return answer.status === 200 ? answer.body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\n${system.outputs()}`);
    });
    expect(shipment.status).toBe('created');
  });
});
