import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  consumeUntil,
  createTopics,
  freePort,
  KAFKA_BROKERS,
  uniqueTopic,
  waitFor,
  type PrivatePostgres,
} from '@test/support';
import { OrderLoad } from '../../../scripts/chaos/chaos-load';
import { ChaosProcess } from '../../../scripts/chaos/chaos-process';
import { SeededRandom } from '../../../scripts/chaos/seeded-random';
import { ENTRIES } from '../../../scripts/sample-system';
import { crashTolerantPool, retrying } from './private-scene';

/** What the burst found. */
export interface BurstReport {
  commands: number;
  applied: number;
  unavailable: number;
  lost: number;
  orders: number;
  unexpectedAnswers: string[];
  halfApplied: string[];
  confirmedMissingInKafka: string[];
  serviceExited: boolean;
}

/**
 * The order service (embedded relay) on the private PostgreSQL, 8 HTTP clients for 8 s of
 * commands through `@OutboxTransactional`; the database dies (immediate) 2.5 s in and comes
 * back 2 s later. Every answer must be 201/200/409 or the typed 503; afterwards each order's
 * events are versions 1..n (none half-applied) and each applied command's event is in Kafka.
 */
export async function runWriteBurst(pg: PrivatePostgres): Promise<BurstReport> {
  const schema = 'faults_burst';
  const topic = uniqueTopic('faults-burst');
  // Retried: the shared broker can time a creation out on a loaded machine.
  await retrying(() => createTopics([{ topic, numPartitions: 3 }]));
  const port = await freePort();
  const app = new ChaosProcess(
    'order-service',
    ENTRIES.orders,
    {
      DATABASE_URL: pg.url,
      KAFKA_BROKERS: KAFKA_BROKERS.join(','),
      KAFKA_CREATE_TOPICS: 'false',
      PORT: String(port),
      ORDERS_SCHEMA: schema,
      ORDER_EVENTS_TOPIC: topic,
      RELAY_EMBEDDED: 'true',
      RELAY_LEASE_MS: '4000',
      RECONCILE_INTERVAL_MS: '0',
      SHIPPING_URL: 'http://127.0.0.1:9',
    },
    port,
    mkdtempSync(join(tmpdir(), 'faults-burst-')),
  );
  const db = crashTolerantPool(pg.url, 2);
  try {
    app.start();
    await app.waitHealthy(180_000);
    const load = new OrderLoad(app.url);
    const crash = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 2500));
      pg.crash();
      await new Promise((resolve) => setTimeout(resolve, 2000));
      pg.start();
    })();
    const figures = await load.run(new SeededRandom(13), 8000, 8);
    await crash;
    await waitFor(
      'the outbox drained',
      async () =>
        Number(
          (
            await retrying(() =>
              db.query<{ n: string }>(
                `SELECT count(*) AS n FROM ${schema}.outbox WHERE published_at IS NULL`,
              ),
            )
          ).rows[0]!.n,
        ) === 0,
      { timeoutMs: 120_000 },
    );
    const half = await db.query<{ id: string }>(
      `SELECT o.id::text AS id FROM ${schema}.orders o
        WHERE (SELECT count(DISTINCT e.aggregate_version) FROM ${schema}.outbox e WHERE e.aggregate_id = o.id::text) <> o.version
           OR (SELECT count(*) FROM ${schema}.outbox e WHERE e.aggregate_id = o.id::text) <> o.version
       UNION ALL
       SELECT 'event without order ' || e.event_id::text FROM ${schema}.outbox e
         LEFT JOIN ${schema}.orders o ON o.id::text = e.aggregate_id WHERE o.id IS NULL`,
    );
    const events = await db.query<{ key: string; event_id: string }>(
      `SELECT aggregate_id || '/' || aggregate_version AS key, event_id::text FROM ${schema}.outbox`,
    );
    const orders = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.orders`);
    const byVersion = new Map(events.rows.map((r) => [r.key, r.event_id]));
    const wanted = new Set(events.rows.map((r) => r.event_id));
    const seen = new Set<string>();
    await consumeUntil(
      [topic],
      (all) => {
        const id = all[all.length - 1]?.headers.event_id;
        if (id) seen.add(id);
        return [...wanted].every((w) => seen.has(w));
      },
      { timeoutMs: 120_000 },
    );
    const confirmedMissingInKafka = load.applied
      .filter((c) => !seen.has(byVersion.get(`${c.orderId}/${c.version}`) ?? ''))
      .map((c) => `${c.eventType} ${c.orderId} v${c.version}`);
    return {
      commands: figures.commands,
      applied: figures.applied,
      unavailable: figures.unavailable,
      lost: figures.lostAnswers,
      orders: Number(orders.rows[0]!.n),
      unexpectedAnswers: load.violations,
      halfApplied: half.rows.map((r) => r.id),
      confirmedMissingInKafka,
      serviceExited: app.unexpectedExits.length > 0 || !app.running,
    };
  } finally {
    await app.stop(5000);
    app.close();
    await db.end().catch(() => undefined);
  }
}
