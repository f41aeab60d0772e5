import { startPrivateKafka, waitFor, type PrivateKafka } from '@test/support';
import { SampleSystem } from '../scripts/sample-system';

interface PressureDetails {
  readonly state: string;
  readonly forecastSeconds: number | null;
  readonly reasons: readonly string[];
}

/**
 * Back-pressure end to end: the order service's embedded relay publishes the state (PRESSURE_*
 * budgets made small) and its outbox reads it: the broker of this file (a private one) goes away, the outbox's oldest event ages
 * until the state turns critical; new orders (non-critical) are then refused with 503 and
 * `Retry-After` before anything is written, while confirmations (critical) still commit;
 * once the broker returns the relay drains and the state goes back to ok.
 */
describe('sample order system: back-pressure when the broker goes away (e2e)', () => {
  let kafka: PrivateKafka;
  let system: SampleSystem;

  const pressure = async (): Promise<PressureDetails | undefined> => {
    const body = (await system.orders.health()).body as {
      details?: { pressure?: PressureDetails };
    };
    return body.details?.pressure;
  };
  const waitForState = (state: string, timeoutMs: number) =>
    waitFor(
      `the order service's pressure state to be ${state}`,
      async () => {
        const details = await pressure();
        return details?.state === state ? details : undefined;
      },
      { timeoutMs, intervalMs: 250 },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\n${system.outputs()}`);
    });
  const count = async (table: string) => {
    const { rows } = await system.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${system.names.ordersSchema}"."${table}"`,
    );
    return Number(rows[0]!.n);
  };

  beforeAll(async () => {
    kafka = await startPrivateKafka();
    system = await SampleSystem.create({
      prefix: 'e2e_pressure',
      brokers: kafka.brokers,
      relay: 'embedded',
      ordersEnv: {
        PRESSURE_MAX_OLDEST_AGE_MS: '8000',
        PRESSURE_INTERVAL_MS: '250',
        PRESSURE_WINDOW_MS: '3000',
      },
    });
    await system.start();
  }, 240_000);

  afterAll(async () => {
    await system?.teardown({ deleteTopics: false });
    await kafka?.destroy();
  }, 120_000);

  it('Given the broker is up, then the state is ok and a new order is accepted', async () => {
    await waitForState('ok', 30_000);
    expect((await system.http.createOrder('steady-customer')).status).toBe(201);
  });

  it('Given the broker is stopped until the state is critical, then new orders get 503 + Retry-After and write nothing, confirmations commit, and after the broker returns the state recovers', async () => {
    const { body: first } = await system.http.createOrder('before-outage');
    const { body: second } = await system.http.createOrder('before-outage-2');
    await kafka.stop();
    // A critical command while the broker is down: its event waits in the outbox and ages.
    expect((await system.http.confirm(first.id)).status).toBe(200);
    const critical = await waitForState('critical', 60_000);
    expect(critical.reasons.length).toBeGreaterThan(0);

    const [orders, events] = [await count('orders'), await count('outbox')];
    const refused = await fetch(`${system.orders.url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        customerId: 'during-outage',
        amountCents: 500,
        currency: 'EUR',
        shippingAddress: 'during-outage, 1 Sample Street, 75001 Paris',
      }),
    });
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ error: 'back_pressure', retryable: true });
    expect([await count('orders'), await count('outbox')]).toEqual([orders, events]);

    // Critical commands are never refused.
    expect((await system.http.confirm(second.id)).status).toBe(200);
    expect(await count('outbox')).toBe(events + 1);
    const metrics = await system.http.metrics(system.orders.url);
    expect(metrics).toMatch(/^nest_outbox_relay_pressure_level 2$/m);
    expect(metrics).toMatch(
      /^nest_outbox_outbox_back_pressure_refused_total\{command="OrdersService\.create"\} 1$/m,
    );

    await kafka.start();
    await waitForState('ok', 120_000);
    expect((await system.http.createOrder('after-outage')).status).toBe(201);
    expect(await system.http.metrics(system.orders.url)).toMatch(
      /^nest_outbox_relay_pressure_level 0$/m,
    );
  });
});
