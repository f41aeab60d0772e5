import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { waitFor } from './shared/poll.js';

/**
 * The README's app on another stack (readme-prisma, readme-drizzle), built from the blocks of
 * the README and docs/STACKS.md, its tables created by the docs' migration commands before this
 * runs, started as a user starts it (`node dist/main.js`) and driven from outside: HTTP, SQL.
 * Its names (topic, group, database) are this run's own; run-matrix.ts put them in place of the
 * docs' ones.
 */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this app with npm run test:consumers`);
  return value;
}

const topic = required('CONSUMER_TOPIC');
// Nest appends '-server' to the group id the README gives.
const group = `${required('CONSUMER_GROUP')}-server`;
const migrations = required('MIGRATIONS_TABLE');
/** Where the docs put the suite's tables on this stack. */
const suite = required('SUITE_SCHEMA');
const databaseUrl = required('DATABASE_URL');
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
db.on('error', () => undefined); // an idle connection closed by the server: the next query reconnects
let child: ChildProcess | undefined;
let exited: Promise<number | string | null> | undefined;
let base = '';

const count = async (sql: string, params: unknown[] = []) =>
  Number((await db.query<{ n: string }>(sql, params)).rows[0]?.n);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(),
      );
    });
  });
}

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ['dist/main.js'], {
    env: { ...process.env, KAFKAJS_NO_PARTITIONER_WARNING: undefined, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const proc = child;
  exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal)));
});

after(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited;
  await db.end();
  const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.deleteGroups([group]).catch(() => undefined);
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
});

test("the docs' migrations created the tables, each recorded once; drizzle-kit push (when shown) left them", async () => {
  // The app's own migration and the suite's custom one.
  assert.equal(await count(`SELECT count(*) AS n FROM ${migrations}`), 2);
  const { rows } = await db.query<{ missing: string }>(
    `SELECT t AS missing FROM unnest($1::text[]) t WHERE to_regclass(t) IS NULL`,
    [
      [
        'app.orders',
        'app.shipments',
        ...['outbox', 'outbox_idempotency', 'inbox'].map((t) => `${suite}.${t}`),
      ],
    ],
  );
  assert.deepEqual(rows, []);
});

test('/health answers 200 once the consumer joined', async () => {
  const answer = await waitFor('/health to answer 200', async () => {
    const response = await fetch(`${base}/health`).catch(() => undefined);
    return response?.status === 200 ? ((await response.json()) as { info: object }) : undefined;
  });
  assert.deepEqual(Object.keys(answer.info).sort(), ['inbox', 'relay']);
});

test('each command records one event, which the relay publishes and the handler applies once', async () => {
  const ids = Array.from({ length: 5 }, () => randomUUID());
  const post = (path: string) => fetch(`${base}${path}`, { method: 'POST' });
  for (const id of ids) {
    assert.equal((await post(`/orders/${id}`)).status, 201);
    assert.equal((await post(`/orders/${id}/confirm`)).status, 200);
  }
  const again = await post(`/orders/${ids[0]}/confirm`);
  assert.equal(again.status, 409);
  assert.equal(((await again.json()) as { error: string }).error, 'invalid_transition');
  // One event per order; the shipment names that event: it came through Kafka, once.
  await waitFor('a shipment for each order', async () =>
    (await count(`SELECT count(*) AS n FROM app.shipments`)) === ids.length ? true : undefined,
  );
  const { rows } = await db.query<{ id: string; events: string; shipped: boolean }>(
    `SELECT o.id, count(e.*) AS events, bool_and(s.event_id = e.event_id) AS shipped
       FROM app.orders o
       LEFT JOIN ${suite}.outbox e ON e.aggregate_id = o.id::text
       LEFT JOIN app.shipments s ON s.order_id = o.id
      GROUP BY o.id ORDER BY o.id`,
  );
  assert.deepEqual(
    rows,
    [...ids].sort().map((id) => ({ id, events: '1', shipped: true })),
  );
  assert.equal(await count(`SELECT count(*) AS n FROM ${suite}.inbox`), ids.length);
});

test('SIGTERM: the app closes its modules (the ORM client included) and exits', async () => {
  child?.kill('SIGTERM');
  assert.ok([0, 'SIGTERM'].includes((await exited) ?? -1), 'exits after closing');
});
