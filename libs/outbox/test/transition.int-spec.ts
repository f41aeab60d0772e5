import { Injectable } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { createTestSchema, waitFor, type TestSchema } from '@test/support';
import { InvalidOptionsError } from '@nest-outbox/core';
import { InvalidTransitionError, OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { CommitGate } from './commit-gate';
import { createOutboxApp, createTables, dataSourceOf } from './outbox-test-app';

type Host = TransactionHost<TransactionalAdapterTypeOrm>;
let db: TestSchema;
let gate: CommitGate;

@Injectable()
class ConfirmOrder {
  constructor(
    private readonly host: TransactionHost,
    private readonly outbox: OutboxService,
  ) {}

  /** The command of the issue: conditional transition, then its event with the new version. */
  @OutboxTransactional()
  async confirm(orderId: string, hooks: { pid?: (pid: number) => void; hold?: boolean } = {}) {
    const tx = (this.host as Host).tx;
    if (hooks.pid) {
      const [{ pid }] = await tx.query<[{ pid: number }]>('SELECT pg_backend_pid() AS pid');
      hooks.pid(pid);
    }
    const version = await this.outbox.transition({
      table: `${db.name}.orders`,
      id: orderId,
      from: 'pending',
      to: 'confirmed',
      set: { note: 'confirmed by test' },
    });
    if (hooks.hold) held = gate.hold(tx.queryRunner!);
    await this.outbox.record({
      eventType: 'order.confirmed',
      aggregateType: 'order',
      aggregateId: orderId,
      aggregateVersion: version,
      payload: { orderId },
    });
    return version;
  }
}

let held: { reached: Promise<void>; release: () => void } | undefined;
let app: TestingModule;
let orders: ConfirmOrder;

async function state(orderId: string) {
  const order = await db.pool.query(
    `SELECT status, version::int AS version, note FROM "${db.name}".orders WHERE id = $1`,
    [orderId],
  );
  const events = await db.pool.query(
    `SELECT aggregate_version::int AS version FROM "${db.name}".outbox WHERE aggregate_id = $1`,
    [orderId],
  );
  return { order: order.rows[0] as unknown, events: events.rows as { version: number }[] };
}

beforeAll(async () => {
  db = await createTestSchema('outbox_transition');
  await createTables(db.pool, db.name);
  await db.pool.query(
    `INSERT INTO "${db.name}".orders (id, status, version) VALUES ('o-1', 'pending', 4), ('o-2', 'pending', 0), ('o-3', 'shipped', 7)`,
  );
  app = await createOutboxApp(
    { schema: db.name, tuning: { notifyChannel: false } },
    { providers: [ConfirmOrder] },
  );
  orders = app.get(ConfirmOrder);
  gate = new CommitGate(dataSourceOf(app));
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('conditional transitions', () => {
  it('Given two concurrent confirm commands on one order, then exactly one succeeds and exactly one event exists, with the new version', async () => {
    const first = orders.confirm('o-1', { hold: true });
    await waitFor('the first confirm to be held before commit', () => held !== undefined);
    await held!.reached;
    let secondPid = 0;
    const second = orders.confirm('o-1', { pid: (pid) => (secondPid = pid) });
    // The second command's UPDATE waits for the first's row lock: they really overlap.
    await waitFor(
      'the second confirm to wait for the row lock',
      async () =>
        (
          await db.pool.query(
            `SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
            [secondPid],
          )
        ).rowCount === 1,
      { timeoutMs: 10_000 },
    );
    held!.release();
    const results = await Promise.allSettled([first, second]);

    expect(results[0]).toEqual({ status: 'fulfilled', value: 5 });
    expect(results[1].status).toBe('rejected');
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(InvalidTransitionError);
    expect(await state('o-1')).toEqual({
      order: { status: 'confirmed', version: 5, note: 'confirmed by test' },
      events: [{ version: 5 }],
    });
  });

  it('Given an order not in the expected state, then InvalidTransitionError, no change and no event', async () => {
    await expect(orders.confirm('o-3')).rejects.toThrow(InvalidTransitionError);
    await expect(orders.confirm('missing')).rejects.toThrow(/matched no row/);
    expect(await state('o-3')).toEqual({
      order: { status: 'shipped', version: 7, note: null },
      events: [],
    });
  });

  it('Given many concurrent confirms of one order, then one event exists whatever the interleaving', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => orders.confirm('o-2')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(
      results.every((r) => r.status === 'fulfilled' || r.reason instanceof InvalidTransitionError),
    ).toBe(true);
    expect((await state('o-2')).events).toEqual([{ version: 1 }]);
  });

  it('Given a table or column name that is not a plain identifier, then it is refused before any SQL runs', async () => {
    const outbox = app.get(OutboxService);
    await expect(
      outbox.transaction(() =>
        outbox.transition({ table: 'orders; drop table x', id: 1, from: 'a', to: 'b' }),
      ),
    ).rejects.toThrow(InvalidOptionsError);
    await expect(
      outbox.transaction(() =>
        outbox.transition({ table: 'orders', id: 1, from: 'a', to: 'b', set: { 'a=1--': 2 } }),
      ),
    ).rejects.toThrow(InvalidOptionsError);
  });
});
