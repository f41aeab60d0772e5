import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  KAFKA_BROKERS,
  waitFor,
  type PgFaultProxy,
  type PrivatePostgres,
} from '@test/support';
import { ChaosProcess } from '../../../scripts/chaos/chaos-process';
import { ENTRIES, SampleHttpClient } from '../../../scripts/sample-system';
import { crashTolerantPool, retrying } from './private-scene';

/** What the in-doubt create found. */
export interface InDoubtCreateReport {
  /** The status of the attempt whose COMMIT the database died on. */
  readonly firstStatus: number;
  /** Whether that attempt's order had committed when the database died. */
  readonly committedBeforeCrash: boolean;
  readonly retryStatus: number;
  /** The order ids every 201 of the key answered. */
  readonly answeredIds: string[];
  /** The orders of the test's customer in the database. */
  readonly orderIds: string[];
}

/**
 * The order service (no relay) on the private PostgreSQL behind the fault proxy. A create with
 * an Idempotency-Key reaches its COMMIT; the proxy holds the answer back until the order is
 * visible from another connection (committed), then the database dies: the client sees an
 * error for an order that exists. The client retries with the same key until answered.
 */
export async function runInDoubtCreate(
  pg: PrivatePostgres,
  proxy: PgFaultProxy,
): Promise<InDoubtCreateReport> {
  const schema = 'faults_idem';
  const customer = `in-doubt-${Date.now()}`;
  const port = await freePort();
  const app = new ChaosProcess(
    'order-service',
    ENTRIES.orders,
    {
      DATABASE_URL: proxy.url(),
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      KAFKA_CREATE_TOPICS: 'false',
      PORT: String(port),
      ORDERS_SCHEMA: schema,
      ORDER_EVENTS_TOPIC: 'faults-idem-unused',
      RELAY_EMBEDDED: 'false',
      RECONCILE_INTERVAL_MS: '0',
      SHIPPING_URL: 'http://127.0.0.1:9',
    },
    port,
    mkdtempSync(join(tmpdir(), 'faults-idem-')),
  );
  const db = crashTolerantPool(pg.url, 2);
  const http = new SampleHttpClient(app.url, 'http://127.0.0.1:9');
  const ordersOf = async () =>
    (
      await db.query<{ id: string }>(
        `SELECT id::text FROM ${schema}.orders WHERE customer_id = $1`,
        [customer],
      )
    ).rows.map((r) => r.id);
  try {
    app.start();
    await app.waitHealthy(180_000);
    let committedBeforeCrash = false;
    // The create's own COMMIT: the one sent on the connection that stored the answer (another
    // connection's COMMIT, a start-up or background transaction, must not fire it).
    const fired = proxy.armOnce(
      'COMMIT',
      async () => {
        committedBeforeCrash = await waitFor('the order committed', async () =>
          (await ordersOf()).length === 1 ? true : undefined,
        );
        pg.crash();
      },
      { after: 'SET status = $3::int' },
    );
    const key = `in-doubt-${customer}`;
    const first = await http.createOrder(customer, 1999, key).catch(() => ({ status: 0 }));
    await fired;
    pg.start();
    const answeredIds: string[] = [];
    const retry = await waitFor(
      'the retry to be answered',
      async () => {
        const answer = await http.createOrder(customer, 1999, key).catch(() => undefined);
        return answer && answer.status !== 503 ? answer : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    if (retry.status === 201) answeredIds.push(retry.body.id);
    const again = await http.createOrder(customer, 1999, key);
    if (again.status === 201) answeredIds.push(again.body.id);
    return {
      firstStatus: first.status,
      committedBeforeCrash,
      retryStatus: retry.status,
      answeredIds,
      orderIds: await retrying(ordersOf),
    };
  } finally {
    await app.stop(5000);
    app.close();
    await db.end().catch(() => undefined);
  }
}
