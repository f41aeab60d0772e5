import { randomBytes } from 'node:crypto';
import { SampleSystem } from '../scripts/sample-system';

/** A value planted in a request: it must come back in no answer and in no log line. */
const plant = (label: string) => `PLANT-${label}-${randomBytes(4).toString('hex')}`;

/** One hostile request and the field its 400 must name. */
interface Case {
  readonly name: string;
  readonly app: 'orders' | 'shipping';
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** A JSON value, or the raw text of the body when a string. */
  readonly body?: unknown;
  readonly field: string;
  /** Texts that must appear neither in the answer nor in the apps' logs. */
  readonly planted: readonly string[];
}

interface RawAnswer {
  readonly status: number;
  readonly text: string;
}

const VALID_ORDER = {
  customerId: 'validation-customer',
  amountCents: 1999,
  currency: 'EUR',
  shippingAddress: '1 Sample Street, 75001 Paris',
};

/**
 * The sample APIs against hostile input, per class of the issue: integers beyond the
 * column's range, NUL characters, dates out of PostgreSQL's range, malformed uuids,
 * unknown fields, wrong types. Each is answered 400 naming the field, writes nothing, and
 * its planted value appears neither in the answer nor in the apps' logs. Errors the
 * database raises answer a bare 500 and log class, code and route, never the values.
 */
describe('sample APIs: hostile input answered 400 naming the field, nothing written, no value logged (e2e)', () => {
  let system: SampleSystem;
  let orderId: string;
  const allPlanted: string[] = [];

  beforeAll(async () => {
    system = await SampleSystem.create({ prefix: 'e2e_api' });
    await system.start();
    const created = await system.http.createOrder('validation-customer');
    expect(created.status).toBe(201);
    orderId = created.body.id;
  }, 180_000);

  afterAll(async () => {
    await system?.teardown();
  }, 60_000);

  async function send(app: Case['app'], method: string, path: string, body?: unknown) {
    const base = app === 'orders' ? system.orders.url : system.shipping.url;
    const response = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: response.status, text: await response.text() } satisfies RawAnswer;
  }

  /** Row counts of every table a request could write to, in both services. */
  async function footprint(): Promise<Record<string, number>> {
    const { ordersSchema: o, shippingSchema: s } = system.names;
    const { rows } = await system.db.query<Record<string, number>>(
      `SELECT (SELECT count(*)::int FROM "${o}".orders) AS orders,
              (SELECT count(*)::int FROM "${o}".orders WHERE version > 1) AS changed_orders,
              (SELECT count(*)::int FROM "${o}".outbox) AS order_events,
              (SELECT count(*)::int FROM "${s}".shipments) AS shipments,
              (SELECT count(*)::int FROM "${s}".outbox) AS shipment_events`,
    );
    return rows[0]!;
  }

  function cases(): Case[] {
    const nul = plant('nul');
    const reason = plant('reason');
    const extraKey = plant('key');
    const extraValue = plant('value');
    const badId = plant('uuid');
    const lookupId = plant('lookup');
    const nested = plant('nested');
    const notJson = plant('notjson');
    const surrogate = plant('surrogate');
    return [
      // Integers beyond the column's range (int4).
      {
        name: 'amountCents 2147483648 (int4 max + 1)',
        ...post('/orders', { ...VALID_ORDER, amountCents: 2147483648 }),
        field: 'amountCents',
        planted: ['2147483648'],
      },
      {
        name: 'amountCents 1e21 (beyond any integer column)',
        ...post(
          '/orders',
          `{"customerId":"c","amountCents":1000000000000000000000,"currency":"EUR","shippingAddress":"a"}`,
        ),
        field: 'amountCents',
        planted: ['1000000000000000000000', '1e+21'],
      },
      // NUL characters in strings.
      {
        name: 'a NUL in customerId',
        ...post('/orders', { ...VALID_ORDER, customerId: `${nul}\u0000x` }),
        field: 'customerId',
        planted: [nul],
      },
      {
        name: 'a NUL in the cancel reason',
        ...post(`/orders/${'{id}'}/cancel`, { reason: `${reason}\u0000` }),
        field: 'reason',
        planted: [reason],
      },
      {
        name: 'an unpaired surrogate in shippingAddress (jsonb refuses it)',
        ...post(
          '/orders',
          `{"customerId":"c","amountCents":5,"currency":"EUR","shippingAddress":"${surrogate}\\ud800"}`,
        ),
        field: 'shippingAddress',
        planted: [surrogate],
      },
      // Dates out of PostgreSQL's range in query parameters.
      {
        name: 'from before PostgreSQL timestamptz range',
        ...get('/reconciliation?from=-271821-04-20T00:00:00Z'),
        field: 'from',
        planted: ['271821'],
      },
      {
        name: 'to beyond what a Date holds',
        ...get('/reconciliation?to=%2B275760-09-14T00:00:00Z'),
        field: 'to',
        planted: ['275760-09-14'],
      },
      // Malformed uuids.
      { name: 'a malformed order id', ...get(`/orders/${badId}`), field: 'id', planted: [badId] },
      {
        name: 'a malformed order id to confirm',
        ...post(`/orders/${badId}x/confirm`),
        field: 'id',
        planted: [badId],
      },
      {
        name: 'a malformed order id of a shipment',
        app: 'shipping',
        ...get(`/shipments/by-order/${badId}y`),
        field: 'orderId',
        planted: [badId],
      },
      {
        name: 'a malformed id in a lookup',
        app: 'shipping',
        ...post('/shipments/lookup', { orderIds: [lookupId] }),
        field: 'orderIds',
        planted: [lookupId],
      },
      // Unknown or extra fields.
      {
        name: 'fields a client may not set (status, version) and an unknown one',
        ...post('/orders', {
          ...VALID_ORDER,
          status: 'confirmed',
          version: 7,
          [extraKey]: extraValue,
        }),
        field: 'status',
        planted: [extraValue],
      },
      {
        name: 'an unknown query parameter',
        ...get(`/reconciliation?${extraKey}=${extraValue}`),
        field: extraKey,
        planted: [extraValue],
      },
      // Wrong types.
      {
        name: 'amountCents as a string',
        ...post('/orders', { ...VALID_ORDER, amountCents: '1999' }),
        field: 'amountCents',
        planted: [],
      },
      {
        name: 'customerId as an object',
        ...post('/orders', { ...VALID_ORDER, customerId: { nested } }),
        field: 'customerId',
        planted: [nested],
      },
      {
        name: 'orderIds as a string',
        app: 'shipping',
        ...post('/shipments/lookup', { orderIds: lookupId }),
        field: 'orderIds',
        planted: [lookupId],
      },
      {
        name: 'a JSON array as the body',
        ...post('/orders', [VALID_ORDER]),
        field: 'body',
        planted: [],
      },
      {
        name: 'a body that is not JSON',
        ...post('/orders', `{"customerId": ${notJson}`),
        field: 'body',
        planted: [notJson],
      },
      {
        name: 'a body nested 10,000 levels deep',
        ...post('/orders', `{"customerId":${'['.repeat(10_000)}${']'.repeat(10_000)}}`),
        field: 'customerId',
        planted: [],
      },
    ].map((c) => ({ app: 'orders', ...c }) as Case);
  }

  it('Given each class of hostile input, then each request is answered 400 naming its field, without its value, and writes nothing', async () => {
    const before = await footprint();
    const answers: { name: string; status: number; fields: unknown; echoed: string[] }[] = [];
    const hostile = cases();
    for (const c of hostile) {
      allPlanted.push(...c.planted);
      const answer = await send(c.app, c.method, c.path.replace('{id}', orderId), c.body);
      const body = JSON.parse(answer.text) as { fields?: unknown };
      answers.push({
        name: c.name,
        status: answer.status,
        fields: Array.isArray(body.fields) && body.fields.includes(c.field) ? c.field : body.fields,
        echoed: c.planted.filter((p) => answer.text.includes(p)),
      });
    }
    expect(answers).toEqual(
      hostile.map((c) => ({ name: c.name, status: 400, fields: c.field, echoed: [] })),
    );
    expect(await footprint()).toEqual(before);
    expect((await system.http.order(orderId)).body).toMatchObject({
      status: 'pending',
      version: 1,
    });
  });

  it('Given a database error that echoes the value (a CHECK violation), then the answer is a bare 500 and the log names class, code and route only', async () => {
    const value = plant('check');
    allPlanted.push(value);
    const table = `"${system.names.ordersSchema}".orders`;
    await system.db.query(
      `ALTER TABLE ${table} ADD CONSTRAINT no_plant CHECK (customer_id NOT LIKE 'PLANT-check-%')`,
    );
    try {
      const answer = await send('orders', 'POST', '/orders', { ...VALID_ORDER, customerId: value });
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.text)).toEqual({
        statusCode: 500,
        error: 'Internal Server Error',
        message: 'Internal server error',
      });
      await system.orders.waitForOutput('500 on POST /orders: QueryFailedError code=23514', 10_000);
      await system.orders.waitForOutput('query failed: DatabaseError code=23514', 10_000);
    } finally {
      await system.db.query(`ALTER TABLE ${table} DROP CONSTRAINT no_plant`);
    }
  });

  it('Given a failing read in the shipping API, then it answers a bare 500 and logs class, code and route only', async () => {
    const table = `"${system.names.shippingSchema}".shipments`;
    await system.db.query(`ALTER TABLE ${table} RENAME COLUMN customer_id TO customer_id_gone`);
    try {
      const answer = await send('shipping', 'GET', `/shipments/by-order/${orderId}`);
      expect(answer.status).toBe(500);
      await system.shipping.waitForOutput(
        '500 on GET /shipments/by-order/:orderId: QueryFailedError code=42703',
        10_000,
      );
    } finally {
      await system.db.query(`ALTER TABLE ${table} RENAME COLUMN customer_id_gone TO customer_id`);
    }
  });

  it('Given all of the above, then no planted value appears in either app log', () => {
    // The 500 lines waited for above were printed after every earlier request's lines.
    const logs = { orders: system.orders.output(), shipping: system.shipping.output() };
    expect(allPlanted.length).toBeGreaterThan(10);
    const leaks = Object.entries(logs).flatMap(([app, log]) =>
      allPlanted.filter((p) => log.includes(p)).map((p) => `${app}: ${p}`),
    );
    expect(leaks).toEqual([]);
  });
});

function post(path: string, body?: unknown) {
  return { method: 'POST' as const, path, body };
}

function get(path: string) {
  return { method: 'GET' as const, path };
}
