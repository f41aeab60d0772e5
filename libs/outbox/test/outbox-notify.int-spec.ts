import { Injectable } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { Client, type Notification } from 'pg';
import { DATABASE_URL, createTestSchema, waitFor, type TestSchema } from '@test/support';
import { OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { CommitGate } from './commit-gate';
import { createOutboxApp, createTables, dataSourceOf } from './outbox-test-app';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

let db: TestSchema;
let gate: CommitGate;
const channel = `outbox_notify_${Math.random().toString(36).slice(2, 8)}`;

@Injectable()
class Recorder {
  constructor(
    private readonly outbox: OutboxService,
    private readonly host: TransactionHost,
  ) {}

  @OutboxTransactional()
  async write(id: string, hold?: (h: ReturnType<CommitGate['hold']>) => void): Promise<void> {
    if (hold) {
      hold(gate.hold((this.host as TransactionHost<TransactionalAdapterTypeOrm>).tx.queryRunner!));
    }
    await this.outbox.record({
      eventType: 'noted',
      aggregateType: 'note',
      aggregateId: id,
      aggregateVersion: 1,
      payload: {},
    });
  }

  @OutboxTransactional()
  async nothing(): Promise<void> {}
}

let app: TestingModule;
let listener: Client;
const received: Notification[] = [];

beforeAll(async () => {
  db = await createTestSchema('outbox_notify');
  await createTables(db.pool, db.name);
  listener = new Client({ connectionString: DATABASE_URL });
  await listener.connect();
  listener.on('notification', (n) => received.push(n));
  await listener.query(`LISTEN ${channel}`);
  app = await createOutboxApp(
    { schema: db.name, tuning: { notifyChannel: channel, notifyCoalesceMs: 50 } },
    { providers: [Recorder] },
  );
  gate = new CommitGate(dataSourceOf(app));
});

afterAll(async () => {
  await app?.close();
  await listener?.end();
  await db?.drop();
});

describe('cross-process wake-up', () => {
  it('Given a committed decorated transaction, then one notification with "schema.table" arrives, only after the commit', async () => {
    let held: ReturnType<CommitGate['hold']> | undefined;
    const write = app.get(Recorder).write('n-1', (h) => (held = h));
    await waitFor('the transaction to be held before commit', () => held !== undefined);
    await held!.reached;
    // A sentinel sent from another session after the hold: if the writer had notified
    // before committing (or the hint came early), its notification would precede it.
    await db.pool.query('SELECT pg_notify($1, $2)', [channel, 'sentinel']);
    await waitFor('the sentinel', () => received.some((n) => n.payload === 'sentinel'));
    expect(received.map((n) => n.payload)).toEqual(['sentinel']);
    held!.release();
    await write;
    await waitFor('the outbox notification', () => received.length >= 2);
    expect(received[1]).toMatchObject({ channel, payload: `${db.name}.outbox` });
  });

  it('Given a burst of 60 concurrent writers, then notifications are coalesced to at most one per interval', async () => {
    received.length = 0;
    const started = Date.now();
    const recorder = app.get(Recorder);
    await Promise.all(Array.from({ length: 60 }, (_, i) => recorder.write(`burst-${i}`)));
    const elapsed = Date.now() - started;
    await waitFor('at least one notification', () => received.length >= 1);
    // The trailing notification of the burst comes at most one interval after the last commit.
    await db.pool.query('SELECT pg_sleep(0.12)');
    await db.pool.query('SELECT pg_notify($1, $2)', [channel, 'end']);
    await waitFor('the end marker', () => received.some((n) => n.payload === 'end'));
    const fromOutbox = received.filter((n) => n.payload === `${db.name}.outbox`).length;
    expect(fromOutbox).toBeGreaterThanOrEqual(1);
    expect(fromOutbox).toBeLessThanOrEqual(Math.ceil(elapsed / 50) + 2);
    expect(fromOutbox).toBeLessThan(60);
  });

  it('Given a decorated transaction that recorded nothing, then no notification is sent', async () => {
    received.length = 0;
    await db.pool.query('SELECT pg_sleep(0.06)'); // let the previous interval pass
    await app.get(Recorder).nothing();
    await db.pool.query('SELECT pg_notify($1, $2)', [channel, 'marker']);
    await waitFor('the marker', () => received.some((n) => n.payload === 'marker'));
    expect(received.map((n) => n.payload)).toEqual(['marker']);
  });
});

/** Backends whose last statement was a NOTIFY on this file's channel. */
async function notifyBackends(): Promise<number[]> {
  const { rows } = await db.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE query LIKE $1`,
    [`NOTIFY "${channel}"%`],
  );
  return rows.map((r) => r.pid);
}

describe('the notify connection', () => {
  it('Given its connection was terminated by the server, then a later commit is notified over a new connection', async () => {
    await app.get(Recorder).write('before-kill');
    await waitFor('a notify connection', async () => (await notifyBackends()).length === 1);
    const [first] = await notifyBackends();
    await db.pool.query('SELECT pg_terminate_backend($1)', [first]);
    await waitFor('the old backend to be gone', async () => (await notifyBackends()).length === 0);

    received.length = 0;
    // The send that meets the broken connection may be lost (relays poll); the next opens another.
    await waitFor(
      'a notification after the termination',
      async () => {
        await app.get(Recorder).write('after-kill');
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
