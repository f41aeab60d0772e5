import { Injectable } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { Client, type Notification } from 'pg';
import { DATABASE_URL, createTestSchema, waitFor, type TestSchema } from '@test/support';
import { OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { createOutboxApp, createTables } from '../../test/outbox-test-app';

let db: TestSchema;
const channel = `outbox_notify_conn_${Math.random().toString(36).slice(2, 8)}`;

@Injectable()
class Recorder {
  constructor(private readonly outbox: OutboxService) {}

  @OutboxTransactional()
  async write(id: string): Promise<void> {
    await this.outbox.record({
      eventType: 'noted',
      aggregateType: 'note',
      aggregateId: id,
      aggregateVersion: 1,
      payload: {},
    });
  }
}

let app: TestingModule;
let listener: Client;
const received: Notification[] = [];

/** Backends whose last statement was a NOTIFY on this test's channel. */
async function notifyBackends(): Promise<number[]> {
  const { rows } = await db.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE query LIKE $1`,
    [`NOTIFY "${channel}"%`],
  );
  return rows.map((r) => r.pid);
}

beforeAll(async () => {
  db = await createTestSchema('outbox_notify_conn');
  await createTables(db.pool, db.name);
  listener = new Client({ connectionString: DATABASE_URL });
  await listener.connect();
  listener.on('notification', (n) => received.push(n));
  await listener.query(`LISTEN ${channel}`);
  app = await createOutboxApp(
    { schema: db.name, notifyChannel: channel, notifyCoalesceMs: 0 },
    { providers: [Recorder] },
  );
});

afterAll(async () => {
  await app?.close();
  await listener?.end();
  await db?.drop();
});

describe('the notify connection', () => {
  it('Given its connection was terminated by the server, then a later commit is notified over a new connection', async () => {
    await app.get(Recorder).write('before');
    await waitFor('the first notification', () => received.length >= 1);
    const [first] = await notifyBackends();
    expect(first).toBeDefined();
    await db.pool.query('SELECT pg_terminate_backend($1)', [first]);
    await waitFor(
      'the old backend to be gone',
      async () => !(await notifyBackends()).includes(first!),
    );

    received.length = 0;
    // The send that meets the broken connection may be lost (relays poll); the next opens another.
    await waitFor(
      'a notification after the termination',
      async () => {
        await app.get(Recorder).write('after');
        return received.length > 0;
      },
      { timeoutMs: 10_000 },
    );
    const now = await notifyBackends();
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(first);
    expect(received[0]).toMatchObject({ channel, payload: `${db.name}.outbox` });
  });

  it('Given the application closes, then its notify connection is closed too', async () => {
    await app.get(Recorder).write('last');
    await waitFor('a notify connection', async () => (await notifyBackends()).length === 1);
    await app.close();
    await waitFor('no notify connection left', async () => (await notifyBackends()).length === 0);
  });
});
