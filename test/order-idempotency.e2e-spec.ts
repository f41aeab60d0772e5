import { randomUUID } from 'node:crypto';
import { SampleSystem } from '../scripts/sample-system';

/**
 * The order commands with an `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header,
 * `@Idempotent()`), on the order service run as users run it: a retry gets the first answer,
 * never a second order nor a 409 for a cancel that happened.
 */
describe('sample order service: commands with an Idempotency-Key (e2e)', () => {
  let system: SampleSystem;

  beforeAll(async () => {
    system = await SampleSystem.create({ prefix: 'e2e_idem' });
    await system.orders.start();
  }, 180_000);

  afterAll(async () => {
    await system?.teardown();
  }, 60_000);

  /** Orders of `customerId` and their `order.created` events. */
  async function written(customerId: string): Promise<{ orders: number; created: number }> {
    const s = system.names.ordersSchema;
    const { rows } = await system.db.query<{ orders: number; created: number }>(
      `SELECT (SELECT count(*)::int FROM "${s}".orders WHERE customer_id = $1) AS orders,
              (SELECT count(*)::int FROM "${s}".outbox e JOIN "${s}".orders o ON o.id::text = e.aggregate_id
                WHERE o.customer_id = $1 AND e.event_type = 'order.created') AS created`,
      [customerId],
    );
    return rows[0]!;
  }

  const post = (key: string, body: object) =>
    fetch(`${system.orders.url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });

  it('Given an order created with a key and then confirmed, when the same request is sent again with that key, then it answers the first answer (201, pending) and writes nothing', async () => {
    const key = randomUUID();
    const first = await system.http.createOrder('idem-retry', 1999, key);
    expect(first.status).toBe(201);
    expect((await system.http.confirm(first.body.id)).status).toBe(200);

    const again = await system.http.createOrder('idem-retry', 1999, key);
    expect(again).toEqual(first);
    expect(again.body.status).toBe('pending');
    expect(await written('idem-retry')).toEqual({ orders: 1, created: 1 });
  });

  it('Given eight concurrent requests with one key, then each answers 201 with the same order, and one order and one event exist', async () => {
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => system.http.createOrder('idem-race', 1999, key)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await written('idem-race')).toEqual({ orders: 1, created: 1 });
  });

  it('Given a key already used, when it comes with a different body, then it answers 422 and writes nothing', async () => {
    const key = randomUUID();
    expect((await system.http.createOrder('idem-reuse', 1999, key)).status).toBe(201);
    const other = await system.http.createOrder('idem-reuse', 2999, key);
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ error: 'idempotency_key_reused' });
    expect(await written('idem-reuse')).toEqual({ orders: 1, created: 1 });
  });

  it('Given a key as a bare token or a quoted string, then both name the same key; an empty or over-long key answers 400 naming the header without echoing it', async () => {
    const body = {
      customerId: 'idem-forms',
      amountCents: 500,
      currency: 'EUR',
      shippingAddress: 'idem-forms, 1 Sample Street',
    };
    const key = `k-${randomUUID()}`;
    const bare = await post(key, body);
    const quoted = await post(`"${key}"`, body);
    expect([bare.status, quoted.status]).toEqual([201, 201]);
    expect(((await quoted.json()) as { id: string }).id).toBe(
      ((await bare.json()) as { id: string }).id,
    );
    const long = 'x'.repeat(256);
    for (const bad of ['""', long]) {
      const answer = await post(bad, body);
      const text = await answer.text();
      expect({
        status: answer.status,
        fields: (JSON.parse(text) as { fields: string[] }).fields,
      }).toEqual({ status: 400, fields: ['Idempotency-Key'] });
      expect(text).not.toContain(long);
    }
    expect(await written('idem-forms')).toEqual({ orders: 1, created: 1 });
  });

  it('Given a cancel answered with a key, when it is retried with that key after its answer was lost, then it answers the first 200 (not 409) and one order.cancelled exists', async () => {
    const { body: order } = await system.http.createOrder('idem-cancel');
    const cancel = async () => {
      const response = await fetch(`${system.orders.url}/orders/${order.id}/cancel`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `"${order.id}"` },
        body: JSON.stringify({ reason: 'customer request' }),
      });
      return { status: response.status, text: await response.text() };
    };
    const first = await cancel();
    expect(first.status).toBe(200);
    expect(await cancel()).toEqual(first);
    expect((await system.http.cancel(order.id)).status).toBe(409);
    const { rows } = await system.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${system.names.ordersSchema}".outbox WHERE aggregate_id = $1 AND event_type = 'order.cancelled'`,
      [order.id],
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('Given no key, then two identical requests place two orders (the key is opt-in)', async () => {
    await system.http.createOrder('idem-none');
    await system.http.createOrder('idem-none');
    expect(await written('idem-none')).toEqual({ orders: 2, created: 2 });
  });
});
