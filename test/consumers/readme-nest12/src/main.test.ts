import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { Kafka, logLevel, type IHeaders } from 'kafkajs';
import pg from 'pg';
import { waitFor } from './shared/poll.js';

/**
 * The README's app, built from its code blocks, run as a user runs it (`node dist/main.js`)
 * and driven from outside: HTTP, SQL and Kafka. Its names (topic, group, database) are this
 * run's own; run-matrix.ts put them in place of the README's.
 */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this app with npm run test:consumers`);
  return value;
}

const topic = required('CONSUMER_TOPIC');
// Nest appends '-server' to the group id the README gives.
const group = `${required('CONSUMER_GROUP')}-server`;
const database = required('CONSUMER_SCHEMA');
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const appUrl = new URL(serverUrl);
appUrl.pathname = `/${database}`;

const server = new pg.Pool({ connectionString: serverUrl, max: 1 });
const db = new pg.Pool({ connectionString: appUrl.toString(), max: 2 });
// An idle connection closed by the server (another run's administration on the shared
// PostgreSQL) is not this app's failure: the pools connect again on their next query.
for (const pool of [server, db]) pool.on('error', () => undefined);
const kafka = new Kafka({ clientId: `${database}-check`, brokers, logLevel: logLevel.NOTHING });
const orderId = randomUUID();
let child: ChildProcess | undefined;
let member: ChildProcess | undefined;
let exited: Promise<number | string | null> | undefined;
let base = '';
/** What the app wrote to stdout and stderr (echoed as well). */
let output = '';
interface StoredRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: IHeaders;
}
let published: StoredRecord | undefined;

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

/**
 * A member of the app's group that stops answering, as a consumer that crashed a moment ago:
 * the app's consumer cannot join until it leaves. It leaves on SIGCONT + SIGTERM.
 */
async function stalledMember(): Promise<ChildProcess> {
  const script = `const { Kafka, logLevel } = require('kafkajs');
const c = new Kafka({ brokers: process.env.BROKERS.split(','), logLevel: logLevel.NOTHING })
  .consumer({ groupId: process.env.GROUP, sessionTimeout: 120000, rebalanceTimeout: 120000 });
c.on(c.events.GROUP_JOIN, () => console.log('JOINED'));
process.on('SIGTERM', () => c.disconnect().finally(() => process.exit(0)));
c.connect().then(() => c.subscribe({ topic: process.env.TOPIC }))
  .then(() => c.run({ autoCommit: false, eachMessage: async () => {} }));`;
  const proc = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, BROKERS: brokers.join(','), GROUP: group, TOPIC: topic },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    proc.stdout.on('data', (d: Buffer) => d.toString().includes('JOINED') && resolve());
    proc.once('exit', () => reject(new Error('the stalled member exited before joining')));
  });
  proc.kill('SIGSTOP');
  return proc;
}

/** Starts the built app as a user does (`node dist/main.js`), echoing what it prints. */
function start(port: number): void {
  child = spawn(process.execPath, ['dist/main.js'], {
    env: {
      ...process.env,
      // The app names its partitioners: kafkajs has nothing to warn about.
      KAFKAJS_NO_PARTITIONER_WARNING: undefined,
      DATABASE_URL: appUrl.toString(),
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = child;
  for (const [from, to] of [
    [proc.stdout, process.stdout],
    [proc.stderr, process.stderr],
  ] as const) {
    from?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      to.write(chunk);
    });
  }
  exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve(code ?? signal)));
}

let port = 0;
before(async () => {
  await server.query(`CREATE DATABASE "${database}"`);
  member = await stalledMember();
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  start(port);
});

after(async () => {
  member?.kill('SIGKILL');
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited;
  await db.end();
  await server.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await server.end();
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteGroups([group, `${database}-check`]).catch(() => undefined);
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
});

test('while its consumer waits to join the group, HTTP serves and /health says the inbox is joining', async () => {
  const answer = await waitFor('/health to report the inbox joining', async () => {
    const response = await fetch(`${base}/health`).catch(() => undefined);
    if (response?.status !== 503) return undefined;
    const body = (await response.json()) as { error?: { inbox?: { message?: string } } };
    return body.error?.inbox?.message === 'joining its consumer group' ? body : undefined;
  });
  assert.equal(answer.error?.inbox?.message, 'joining its consumer group');
  // The application serves meanwhile: a command commits.
  const other = randomUUID();
  assert.equal((await fetch(`${base}/orders/${other}`, { method: 'POST' })).status, 201);
  // The stalled member leaves: the app's consumer joins.
  member?.kill('SIGTERM');
  member?.kill('SIGCONT');
});

test('/health answers 200 on the quiet topic, before any record', async () => {
  const answer = await waitFor('/health to answer 200', async () => {
    const response = await fetch(`${base}/health`);
    return response.status === 200 ? ((await response.json()) as { info: object }) : undefined;
  });
  assert.deepEqual(Object.keys(answer.info).sort(), ['inbox', 'relay']);
  assert.equal(await count(`SELECT count(*) AS n FROM app.inbox`), 0);
  assert.ok(!output.includes('default partitioner'), 'kafkajs warned about its partitioner');
});

test('the decorated command commits; confirming again answers 409 and records nothing', async () => {
  assert.equal((await fetch(`${base}/orders/${orderId}`, { method: 'POST' })).status, 201);
  const confirm = () => fetch(`${base}/orders/${orderId}/confirm`, { method: 'POST' });
  assert.equal((await confirm()).status, 200);
  const again = await confirm();
  assert.equal(again.status, 409);
  assert.equal(((await again.json()) as { error: string }).error, 'invalid_transition');
  const { rows } = await db.query(`SELECT status, version FROM app.orders WHERE id = $1`, [
    orderId,
  ]);
  assert.deepEqual(rows, [{ status: 'confirmed', version: 2 }]);
  assert.equal(
    await count(`SELECT count(*) AS n FROM app.outbox WHERE aggregate_id = $1`, [orderId]),
    1,
  );
});

test('placing an order with an existing id answers 409 conflict, and neither the answer nor the log shows the id', async () => {
  const id = randomUUID();
  const place = () => fetch(`${base}/orders/${id}`, { method: 'POST' });
  assert.equal((await place()).status, 201);
  const again = await place();
  assert.equal(again.status, 409);
  const body = await again.text();
  assert.equal((JSON.parse(body) as { error: string }).error, 'conflict');
  assert.ok(!body.includes(id), body);
  await waitFor('the warning line', async () =>
    output.includes('unique violation') ? true : undefined,
  );
  assert.ok(!output.includes(id), 'the log shows the id');
});

test('the relay publishes the event to the topic', async () => {
  const consumer = kafka.consumer({ groupId: `${database}-check` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let first: StoredRecord | undefined;
  await consumer.run({
    autoCommit: false,
    eachMessage: ({ message }) => {
      first ??= { key: message.key, value: message.value, headers: message.headers ?? {} };
      return Promise.resolve();
    },
  });
  const record = await waitFor<StoredRecord>('the record on the topic', () =>
    Promise.resolve(first),
  );
  published = record;
  await consumer.disconnect();
  assert.equal(record.key?.toString(), orderId);
  assert.equal(record.headers.event_type?.toString(), 'order.confirmed');
});

test('the handler applies the event once', async () => {
  await waitFor('the shipment', async () =>
    (await count(`SELECT count(*) AS n FROM app.shipments WHERE order_id = $1`, [orderId])) === 1
      ? true
      : undefined,
  );
  const eventId = published?.headers.event_id?.toString();
  const { rows } = await db.query(`SELECT event_id FROM app.shipments`);
  assert.deepEqual(rows, [{ event_id: eventId }]);
});

test('a redelivered copy is absorbed and the group commits past it', async () => {
  assert.ok(published, 'needs the published record');
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: [published] });
  await producer.disconnect();
  const admin = kafka.admin();
  await admin.connect();
  await waitFor('the group to commit past the copy', async () => {
    const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    const committed = offsets?.partitions.reduce(
      (sum, p) => sum + Math.max(0, Number(p.offset)),
      0,
    );
    return committed === 2 ? true : undefined;
  }).finally(() => admin.disconnect());
  assert.equal(await count(`SELECT count(*) AS n FROM app.shipments`), 1);
  assert.equal(await count(`SELECT count(*) AS n FROM app.inbox`), 1);
});

/** Writes `records` with a Java kafka-clients producer: one batch on partition 0, compressed. */
function javaProduce(compression: string, records: object[]): Promise<void> {
  const tool = JSON.parse(required('KAFKA_TOOL')) as string[];
  const args = ['produce', '--brokers', brokers.join(','), '--topic', topic];
  return new Promise((resolve, reject) => {
    const java = execFile('java', [...tool, ...args, '--compression', compression], (error) =>
      error ? reject(error) : resolve(),
    );
    java.stdin?.end(records.map((r) => JSON.stringify(r)).join('\n'));
  });
}

test('a batch compressed with each codec by a Java producer is applied, one shipment per event', async () => {
  assert.ok(published, 'needs the published record');
  const template = published;
  const headers = Object.fromEntries(
    Object.entries(template.headers).map(([name, value]) => [name, String(value)]),
  );
  const payload = JSON.parse(String(template.value)) as Record<string, unknown>;
  const ids: string[] = [];
  for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) {
    const records = [randomUUID(), randomUUID()].map((id) => {
      ids.push(id);
      return {
        key: id,
        value: JSON.stringify({ ...payload, orderId: id }),
        headers: { ...headers, event_id: randomUUID(), aggregate_id: id },
        partition: 0,
      };
    });
    await javaProduce(codec, records);
  }
  await waitFor('a shipment for each event', async () =>
    (await count(`SELECT count(*) AS n FROM app.shipments WHERE order_id = ANY($1)`, [ids])) ===
    ids.length
      ? true
      : undefined,
  );
  assert.equal(await count(`SELECT count(*) AS n FROM app.inbox_rejected`), 0);
});

/** What /health says of the inbox: 'up', or the reason it is down. */
async function inboxHealth(): Promise<string | undefined> {
  const response = await fetch(`${base}/health`).catch(() => undefined);
  if (!response) return undefined;
  const body = (await response.json()) as {
    info?: { inbox?: object };
    error?: { inbox?: { message?: string } };
  };
  return body.info?.inbox ? 'up' : body.error?.inbox?.message;
}

/**
 * Clients that place and confirm new orders, `workers` at a time, until `stop()`; an answer that
 * never came (the app killed, not up yet) is retried with a new order after a short pause.
 */
function traffic(workers: number) {
  let running = true;
  const answered = { confirmed: 0, failed: 0 };
  const post = (path: string) =>
    fetch(`${base}${path}`, { method: 'POST' }).then(
      (r) => r.status,
      () => 0,
    );
  const client = async () => {
    while (running) {
      const id = randomUUID();
      const ok =
        (await post(`/orders/${id}`)) === 201 && (await post(`/orders/${id}/confirm`)) === 200;
      if (ok) answered.confirmed += 1;
      else {
        answered.failed += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  const done = Promise.all(Array.from({ length: workers }, client));
  return {
    answered,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

test("killed under concurrent commands and restarted, the app serves while its consumer waits out the dead member's session; each confirmed order has one event and one shipment", async (t) => {
  const load = traffic(4);
  t.after(() => load.stop()); // also when an assertion fails: the clients must not outlive it
  await waitFor('commands under way', async () =>
    load.answered.confirmed >= 20 ? true : undefined,
  );
  // The app's consumer is the group's one member when it dies (under heavy load a member can
  // be between sessions): its session stays open after the kill.
  const admin = kafka.admin();
  await admin.connect();
  await waitFor('the app to be the one member of a stable group', async () => {
    const [described] = (await admin.describeGroups([group])).groups;
    return described?.state === 'Stable' && described.members.length === 1 ? true : undefined;
  }).finally(() => admin.disconnect());
  child?.kill('SIGKILL');
  await exited;
  const before = load.answered.confirmed;
  const started = Date.now();
  start(port);
  await waitFor('the first 2xx after the restart', async () =>
    load.answered.confirmed > before ? true : undefined,
  );
  const firstAnswer = Date.now() - started;
  // The killed member's session (kafkajs' default, 30 s) is still open: the consumer has not
  // joined, yet commands commit.
  assert.equal(await inboxHealth(), 'joining its consumer group');
  await waitFor('the consumer to join', async () =>
    (await inboxHealth()) === 'up' ? true : undefined,
  );
  await load.stop();
  console.log(
    `restart after SIGKILL: first 2xx ${firstAnswer} ms after start, consumer joined after ${Date.now() - started} ms; ${load.answered.confirmed} confirmed, ${load.answered.failed} unanswered`,
  );
  // Whatever the kill interrupted: one event per confirmed order, none for the others...
  const events = await db.query<{ status: string; events: string }>(
    `SELECT o.status, count(e.*) AS events FROM app.orders o
       LEFT JOIN app.outbox e ON e.aggregate_id = o.id::text
      GROUP BY o.id, o.status HAVING count(e.*) <> CASE o.status WHEN 'confirmed' THEN 1 ELSE 0 END`,
  );
  assert.deepEqual(events.rows, []);
  // ...and the relay and the consumer carry each to exactly one shipment.
  await waitFor('a shipment for each confirmed order', async () =>
    (await count(
      `SELECT count(*) AS n FROM app.orders o LEFT JOIN app.shipments s ON s.order_id = o.id
        WHERE o.status = 'confirmed' AND s.order_id IS NULL`,
    )) === 0
      ? true
      : undefined,
  );
  assert.equal(
    await count(
      `SELECT count(*) AS n FROM app.shipments s JOIN app.orders o ON o.id = s.order_id
        WHERE o.status <> 'confirmed'`,
    ),
    0,
  );
});

test('SIGTERM stops the app cleanly and its consumer leaves the group at once', async () => {
  child?.kill('SIGTERM');
  // Nest closes the app, then raises the signal again.
  assert.ok([0, 'SIGTERM'].includes((await exited) ?? -1), 'exits after closing');
  const admin = kafka.admin();
  await admin.connect();
  // Without enableShutdownHooks() the member stays until its session times out (30 s).
  await waitFor(
    'the group to be empty',
    async () => {
      const { groups } = await admin.describeGroups([group]);
      return groups[0]?.state === 'Empty' ? true : undefined;
    },
    15_000,
  ).finally(() => admin.disconnect());
});
