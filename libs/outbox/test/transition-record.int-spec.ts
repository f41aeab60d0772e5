import { Injectable } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { createTestSchema, waitFor, type TestSchema } from '@test/support';
import {
  InvalidTransitionError,
  NoActiveTransactionError,
  PayloadSerializationError,
  OutboxService,
  OutboxTransactional,
  type RecordedEvent,
} from '@nest-outbox/outbox';
import { OUTBOX_WAKEUP, type OutboxWakeup } from '@nest-outbox/core/internal';
import { CommitGate, latch, type Latch } from './commit-gate';
import { createOutboxApp, createTables, dataSourceOf } from './outbox-test-app';

type Host = TransactionHost<TransactionalAdapterTypeOrm>;
let db: TestSchema;
let gate: CommitGate;

interface Move {
  order: string;
  aggregate: string;
  label: string;
  from?: string | string[];
  to?: string;
  /** Other columns the transition sets. */
  set?: Record<string, unknown>;
  /** Hold the transaction before its COMMIT. */
  hold?: (reached: Promise<void>, release: () => void) => void;
  /** The backend pid of the transaction, known before its statements run. */
  pid?: (pid: number) => void;
  /** Two-call form only: opened before the buffered event is flushed. */
  beforeFlush?: Promise<void>;
}

@Injectable()
class Mover {
  constructor(
    private readonly host: TransactionHost,
    private readonly outbox: OutboxService,
  ) {}

  private async begin(move: Move) {
    const tx = (this.host as Host).tx;
    gate.label(tx.queryRunner!, move.label);
    if (move.hold) {
      const { reached, release } = gate.hold(tx.queryRunner!);
      move.hold(reached, release);
    }
    const [{ pid }] = await tx.query<[{ pid: number }]>('SELECT pg_backend_pid() AS pid');
    move.pid?.(pid);
  }

  private spec(move: Move) {
    const from = move.from ?? 'pending';
    const to = move.to ?? 'confirmed';
    return { table: `${db.name}.orders`, id: move.order, from, to, set: move.set };
  }

  private event(move: Move) {
    return {
      eventType: `moved.${move.label}`,
      aggregateType: 'order',
      aggregateId: move.aggregate,
      payload: { by: move.label },
    };
  }

  /** The single-statement form. */
  @OutboxTransactional()
  async single(move: Move): Promise<RecordedEvent> {
    await this.begin(move);
    return this.outbox.transitionAndRecord(this.spec(move), this.event(move));
  }

  /** The two-call form (transition, then record; the event is flushed at the end). */
  @OutboxTransactional()
  async twoCalls(move: Move): Promise<void> {
    await this.begin(move);
    const aggregateVersion = await this.outbox.transition(this.spec(move));
    await this.outbox.record({ ...this.event(move), aggregateVersion });
    await move.beforeFlush;
  }

  /** Counts what is sent to PostgreSQL during the single statement. */
  @OutboxTransactional()
  async countedSingle(move: Move): Promise<number> {
    const pg = (
      (this.host as Host).tx.queryRunner as unknown as {
        databaseConnection: { query: (...args: unknown[]) => unknown };
      }
    ).databaseConnection;
    const query = pg.query;
    let sent = 0;
    pg.query = function (this: unknown, ...args: unknown[]) {
      sent++;
      return query.apply(this, args);
    };
    try {
      await this.outbox.transitionAndRecord(this.spec(move), this.event(move));
    } finally {
      pg.query = query;
    }
    return sent;
  }

  /** Refused, caught, and the transaction commits anyway. */
  @OutboxTransactional()
  async refusedButCommitted(move: Move): Promise<unknown> {
    return this.outbox
      .transitionAndRecord(this.spec(move), this.event(move))
      .catch((error: unknown) => error);
  }

  /** Both forms of writing, then a failure that rolls the transaction back. */
  @OutboxTransactional()
  async thenFail(move: Move): Promise<void> {
    await this.outbox.transitionAndRecord(this.spec(move), this.event(move));
    throw new Error('the command failed after its transition');
  }

  /** An event recorded (buffered) first, then a transition with its event. */
  @OutboxTransactional()
  async recordThenSingle(move: Move): Promise<string[]> {
    const first = await this.outbox.record({
      ...this.event({ ...move, label: `${move.label}-first` }),
      aggregateVersion: 0,
    });
    const second = await this.outbox.transitionAndRecord(this.spec(move), this.event(move));
    return [first.eventId, second.eventId];
  }
}

let app: TestingModule;
let mover: Mover;

async function order(id: string) {
  const { rows } = await db.pool.query(
    `SELECT status, version::int AS version FROM "${db.name}".orders WHERE id = $1`,
    [id],
  );
  return rows[0] as { status: string; version: number };
}

async function eventsOf(aggregateId: string) {
  const { rows } = await db.pool.query(
    `SELECT event_id, event_type, aggregate_version::int AS version FROM "${db.name}".outbox
      WHERE aggregate_id = $1 ORDER BY id`,
    [aggregateId],
  );
  return rows as { event_id: string; event_type: string; version: number }[];
}

async function waitingOn(pid: number, event: 'advisory' | 'transactionid' | 'tuple') {
  const { rows } = await db.pool.query(
    `SELECT wait_event FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
    [pid],
  );
  return (rows as { wait_event: string }[]).some((r) => r.wait_event === event);
}

/** Starts `run` with a hold before its commit and waits until it is held there. */
async function heldBeforeCommit<T>(run: (move: Move) => Promise<T>, move: Move) {
  let held: { reached: Promise<void>; release: () => void } | undefined;
  const done = run({ ...move, hold: (reached, release) => (held = { reached, release }) });
  await waitFor(`${move.label} to be held before its commit`, () => held !== undefined);
  await held!.reached;
  return { done, release: held!.release };
}

beforeAll(async () => {
  db = await createTestSchema('outbox_transition_record');
  await createTables(db.pool, db.name);
  await db.pool.query(
    `INSERT INTO "${db.name}".orders (id, status, version)
     SELECT 'o-' || g, 'pending', 0 FROM generate_series(1, 12) g`,
  );
  await db.pool.query(
    `UPDATE "${db.name}".orders SET status = 'shipped', version = 7 WHERE id = 'o-3'`,
  );
  app = await createOutboxApp(
    { schema: db.name, tuning: { notifyChannel: false } },
    { providers: [Mover] },
  );
  mover = app.get(Mover);
  gate = new CommitGate(dataSourceOf(app));
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('transitionAndRecord: the transition and its event in one statement', () => {
  it('Given a pending order, then the order is transitioned and its event recorded with the new version, in one round trip', async () => {
    const event = await mover.single({ order: 'o-1', aggregate: 'o-1', label: 'confirm' });

    expect(event).toMatchObject({ aggregateId: 'o-1', aggregateVersion: 1 });
    expect(await order('o-1')).toEqual({ status: 'confirmed', version: 1 });
    expect(await eventsOf('o-1')).toEqual([
      { event_id: event.eventId, event_type: 'moved.confirm', version: 1 },
    ]);
    const sent = await mover.countedSingle({
      order: 'o-1',
      aggregate: 'o-1',
      label: 'ship',
      from: 'confirmed',
      to: 'shipped',
    });
    expect(sent).toBe(1);
    expect((await eventsOf('o-1')).map((e) => e.version)).toEqual([1, 2]);
  });

  it('Given other columns to set and several accepted states, then they are set by the same statement and the event follows', async () => {
    const event = await mover.single({
      order: 'o-11',
      aggregate: 'o-11',
      label: 'noted',
      from: ['draft', 'pending'],
      set: { note: 'set with its event' },
    });
    const { rows } = await db.pool.query(
      `SELECT status, version::int AS version, note FROM "${db.name}".orders WHERE id = 'o-11'`,
    );
    expect(rows).toEqual([{ status: 'confirmed', version: 1, note: 'set with its event' }]);
    expect(await eventsOf('o-11')).toEqual([
      { event_id: event.eventId, event_type: 'moved.noted', version: 1 },
    ]);
  });

  it('Given an order not in the expected state, then InvalidTransitionError and nothing is written, even when the caller commits', async () => {
    const error = await mover.refusedButCommitted({ order: 'o-3', aggregate: 'o-3', label: 'x' });
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error).toMatchObject({ id: 'o-3', from: ['pending'], to: 'confirmed' });
    await expect(
      mover.single({ order: 'missing', aggregate: 'missing', label: 'x' }),
    ).rejects.toThrow(InvalidTransitionError);
    expect(await order('o-3')).toEqual({ status: 'shipped', version: 7 });
    expect(await eventsOf('o-3')).toEqual([]);
    expect(await eventsOf('missing')).toEqual([]);
  });

  it('Given an event that cannot be serialized, then its error is thrown before any SQL and the order is unchanged', async () => {
    const outbox = app.get(OutboxService);
    await expect(
      outbox.transaction(() =>
        outbox.transitionAndRecord(
          { table: `${db.name}.orders`, id: 'o-12', from: 'pending', to: 'confirmed' },
          { eventType: 'x', aggregateType: 'order', aggregateId: 'o-12', payload: { n: 1n } },
        ),
      ),
    ).rejects.toThrow(PayloadSerializationError);
    expect(await order('o-12')).toEqual({ status: 'pending', version: 0 });
    expect(await eventsOf('o-12')).toEqual([]);
  });

  it('Given the surrounding transaction rolls back, then both the transition and the event are gone', async () => {
    await expect(mover.thenFail({ order: 'o-4', aggregate: 'o-4', label: 'x' })).rejects.toThrow(
      'the command failed after its transition',
    );
    expect(await order('o-4')).toEqual({ status: 'pending', version: 0 });
    expect(await eventsOf('o-4')).toEqual([]);
  });

  it('Given no active transaction, then NoActiveTransactionError and no SQL', async () => {
    const outbox = app.get(OutboxService);
    await expect(
      outbox.transitionAndRecord(
        { table: `${db.name}.orders`, id: 'o-5', from: 'pending', to: 'confirmed' },
        { eventType: 'x', aggregateType: 'order', aggregateId: 'o-5', payload: {} },
      ),
    ).rejects.toThrow(NoActiveTransactionError);
    expect(await order('o-5')).toEqual({ status: 'pending', version: 0 });
  });

  it('Given two writers of one aggregate (different rows), then the second waits on the aggregate lock and events follow commit order', async () => {
    const a = await heldBeforeCommit((m) => mover.single(m), {
      order: 'o-6',
      aggregate: 'acc-1',
      label: 'A',
    });
    let bPid = 0;
    const b = mover.single({
      order: 'o-7',
      aggregate: 'acc-1',
      label: 'B',
      pid: (p) => (bPid = p),
    });
    await waitFor(
      'B to wait on the aggregate lock',
      async () => bPid > 0 && waitingOn(bPid, 'advisory'),
      {
        timeoutMs: 10_000,
      },
    );
    expect(await order('o-7')).toEqual({ status: 'pending', version: 0 });

    a.release();
    const [eventA, eventB] = await Promise.all([a.done, b]);
    expect(gate.commits.filter((l) => l === 'A' || l === 'B')).toEqual(['A', 'B']);
    expect((await eventsOf('acc-1')).map((e) => e.event_id)).toEqual([
      eventA.eventId,
      eventB.eventId,
    ]);
  });

  it('Given a two-call writer holding the row, then a single-statement writer of that row waits for it without deadlock and records after it', async () => {
    // A: transition (row lock), then its event flushed at the end (aggregate lock). B takes
    // the same locks in the same order; taking the aggregate lock first would deadlock.
    const flushA: Latch = latch();
    let aPid = 0;
    const a = mover.twoCalls({
      order: 'o-8',
      aggregate: 'o-8',
      label: 'A2',
      pid: (p) => (aPid = p),
      beforeFlush: flushA.promise,
    });
    await waitFor('A to have transitioned (it holds the row)', async () => {
      const { rows } = await db.pool.query(
        `SELECT 1 FROM pg_locks WHERE pid = $1 AND locktype = 'transactionid' AND granted`,
        [aPid],
      );
      return rows.length > 0;
    });
    let bPid = 0;
    const b = mover.single({
      order: 'o-8',
      aggregate: 'o-8',
      label: 'B2',
      from: ['pending', 'confirmed'],
      to: 'shipped',
      pid: (p) => (bPid = p),
    });
    await waitFor(
      'B to wait on the row',
      async () => bPid > 0 && waitingOn(bPid, 'transactionid'),
      {
        timeoutMs: 10_000,
      },
    );
    flushA.open();
    const [, eventB] = await Promise.all([a, b]);

    expect(eventB.aggregateVersion).toBe(2);
    expect(await order('o-8')).toEqual({ status: 'shipped', version: 2 });
    expect((await eventsOf('o-8')).map((e) => [e.event_type, e.version])).toEqual([
      ['moved.A2', 1],
      ['moved.B2', 2],
    ]);
  });

  it('Given events recorded earlier in the same call, then they are written first and keep their order', async () => {
    const [first, second] = await mover.recordThenSingle({
      order: 'o-9',
      aggregate: 'o-9',
      label: 'r',
    });
    expect((await eventsOf('o-9')).map((e) => e.event_id)).toEqual([first, second]);
  });

  it('Given a committed single-statement call, then the in-process relay is woken after the commit', async () => {
    const wakeup = app.get<OutboxWakeup>(OUTBOX_WAKEUP);
    let wakes = 0;
    const unsubscribe = wakeup.subscribe(() => wakes++);
    try {
      const held = await heldBeforeCommit((m) => mover.single(m), {
        order: 'o-10',
        aggregate: 'o-10',
        label: 'W',
      });
      expect(wakes).toBe(0);
      held.release();
      await held.done;
      expect(wakes).toBe(1);
    } finally {
      unsubscribe();
    }
  });

  it('Given a plain nestjs-cls transaction, then the statement runs in it and the relay is woken after its commit', async () => {
    const host = app.get(TransactionHost);
    const outbox = app.get(OutboxService);
    let wakes = 0;
    const unsubscribe = app.get<OutboxWakeup>(OUTBOX_WAKEUP).subscribe(() => wakes++);
    try {
      await host.withTransaction(async () => {
        await outbox.transitionAndRecord(
          { table: `${db.name}.orders`, id: 'o-2', from: 'pending', to: 'confirmed' },
          { eventType: 'plain', aggregateType: 'order', aggregateId: 'o-2', payload: {} },
        );
        expect(wakes).toBe(0);
      });
      expect(wakes).toBe(1);
    } finally {
      unsubscribe();
    }
    expect(await order('o-2')).toEqual({ status: 'confirmed', version: 1 });
    expect((await eventsOf('o-2')).map((e) => e.event_type)).toEqual(['plain']);
  });
});
