import { waitFor } from '@test/support';
import {
  outboxFigures,
  runOrderWorkload,
  SampleSystem,
  shippingFigures,
  type Answer,
  type HealthAnswer,
} from '../scripts/sample-system';

/**
 * How long the dead member holds its partitions (kafkajs' default is 30 s): longer than the
 * restart takes even on a loaded machine, so that the join is still pending at the first 2xx.
 */
const SESSION_TIMEOUT_MS = 45_000;
const JOINING = {
  status: 503,
  body: { error: { inbox: { message: 'joining its consumer group' } } },
};

/** Polls `call` until it answers 2xx; resolves with the answer and when it came. */
const firstSuccess = <T>(what: string, call: () => Promise<Answer<T>>) =>
  waitFor(
    what,
    async () => {
      const answer = await call().catch(() => undefined);
      return answer && answer.status < 300 ? { answer, at: Date.now() } : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );

/**
 * A crash of both services (SIGKILL: no shutdown hook, the consumer never leaves its group),
 * then an immediate restart while the broker still holds the dead member's session: the
 * shipping service answers HTTP and the order service takes commands while the consumer is
 * still joining (`/health` says so), and once it joined every confirmed order has exactly one
 * event and one shipment. The times are printed, not asserted (they depend on the machine).
 */
describe('sample order system: restart after SIGKILL, HTTP before the consumer joins (e2e)', () => {
  let system: SampleSystem;

  beforeAll(async () => {
    system = await SampleSystem.create({
      prefix: 'e2e_restart',
      shippingEnv: { CONSUMER_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS) },
    });
    await system.start();
  }, 180_000);

  afterAll(async () => {
    await system?.teardown();
  }, 60_000);

  const confirmedOrders = async () => {
    const { ordersSchema: o, shippingSchema: s } = system.names;
    const { rows } = await system.db.query<{ id: string; events: number; effects: number }>(
      `SELECT o.id,
              (SELECT count(*)::int FROM "${o}".outbox e
                WHERE e.aggregate_id = o.id::text AND e.event_type = 'order.confirmed') AS events,
              (SELECT count(*)::int FROM "${s}".shipments m WHERE m.order_id = o.id) AS effects
         FROM "${o}".orders o WHERE o.confirmed_at IS NOT NULL ORDER BY o.id`,
    );
    return rows;
  };

  it('Given orders flowing, when both services are SIGKILLed and restarted at once, then HTTP answers 2xx while /health reports the inbox joining, and after the join each confirmed order has one event and one shipment', async () => {
    const { ordersSchema, shippingSchema } = system.names;
    const before = await runOrderWorkload(system.http, { orders: 12, concurrency: 3 });
    expect(before.errors).toBe(0);
    // The consumer is a member of its group, with every event applied, when it dies.
    await waitFor('the shipping service to apply every order event', async () => {
      const { recorded } = await outboxFigures(system.db, ordersSchema);
      return (await shippingFigures(system.db, shippingSchema)).inboxRows === recorded;
    });
    const shipped = (await confirmedOrders())[0]!.id;

    await Promise.all([system.orders.kill(), system.shipping.kill()]);
    const restartedAt = Date.now();
    // `start` spawns at once; the shipping service's resolves at its first /health 503.
    const restarts = Promise.all([
      system.orders.start(),
      system.shipping.start({}, 90_000, JOINING.status),
    ]);
    const [read, command] = await Promise.all([
      firstSuccess('a shipment read on the restarted shipping service', () =>
        system.http.shipmentOf(shipped),
      ),
      firstSuccess('an order created on the restarted order service', () =>
        system.http.createOrder('after-restart'),
      ),
    ]);
    expect((await system.http.confirm(command.answer.body.id)).status).toBe(200);
    // Both answered, and a command committed, before the consumer's group join completed.
    const health: HealthAnswer = await system.shipping.health();
    expect(health).toMatchObject(JOINING);
    await restarts;

    const joined = await system.shipping.waitForHealth(200, 90_000);
    const joinedAt = Date.now();
    expect(joined.body).toMatchObject({ details: { inbox: { status: 'up' } } });
    console.log(
      `restart after SIGKILL (session timeout ${SESSION_TIMEOUT_MS} ms): first 2xx of the ` +
        `shipping service after ${read.at - restartedAt} ms, first order command after ` +
        `${command.at - restartedAt} ms, consumer group joined after ${joinedAt - restartedAt} ms`,
    );

    const after = await runOrderWorkload(system.http, { orders: 6, concurrency: 3 });
    expect(after.errors).toBe(0);
    const confirmed = await waitFor(
      'every confirmed order to be shipped',
      async () => {
        const rows = await confirmedOrders();
        return rows.every((r) => r.effects > 0) ? rows : undefined;
      },
      { timeoutMs: 60_000 },
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\n${system.outputs()}`);
    });
    expect(confirmed.length).toBe(before.confirmed + 1 + after.confirmed);
    expect(confirmed.filter((r) => r.events !== 1 || r.effects !== 1)).toEqual([]);
    expect(await shippingFigures(system.db, shippingSchema)).toMatchObject({
      ordersWithSeveralCreatedEvents: 0,
      rejected: 0,
    });
  }, 240_000);
});
