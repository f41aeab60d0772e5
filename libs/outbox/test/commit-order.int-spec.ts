import { Injectable } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { createTestSchema, waitFor, type TestSchema } from '@test/support';
import { OutboxService, OutboxTransactional } from '@nest-outbox/outbox';
import { CommitGate, latch } from './commit-gate';
import { createOutboxApp, createTables, dataSourceOf } from './outbox-test-app';

type Host = TransactionHost<TransactionalAdapterTypeOrm>;

interface Step {
  label: string;
  aggregates: string[];
  /** Opened once the events are recorded (the flush waits for it). */
  beforeFlush?: Promise<void>;
  holdCommit?: boolean;
  onRecorded?: (eventIds: string[], pid: number) => void;
  onHeld?: (reached: Promise<void>, release: () => void) => void;
}

let gate: CommitGate;

@Injectable()
class Writer {
  constructor(
    private readonly host: TransactionHost,
    private readonly outbox: OutboxService,
  ) {}

  /** Records one event per aggregate; takes no lock on any business row. */
  @OutboxTransactional()
  async write(step: Step): Promise<void> {
    const tx = (this.host as Host).tx;
    gate.label(tx.queryRunner!, step.label);
    if (step.holdCommit) {
      const { reached, release } = gate.hold(tx.queryRunner!);
      step.onHeld?.(reached, release);
    }
    const [{ pid }] = await tx.query<[{ pid: number }]>('SELECT pg_backend_pid() AS pid');
    const ids: string[] = [];
    for (const aggregateId of step.aggregates) {
      const event = await this.outbox.record({
        eventType: `written.${step.label}`,
        aggregateType: 'account',
        aggregateId,
        aggregateVersion: 1,
        payload: { by: step.label },
      });
      ids.push(event.eventId);
    }
    step.onRecorded?.(ids, pid);
    await step.beforeFlush;
  }
}

let db: TestSchema;
let app: TestingModule;
let writer: Writer;

async function waitingOnAdvisoryLock(pid: number): Promise<boolean> {
  const { rows } = await db.pool.query(
    `SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
    [pid],
  );
  return rows.length === 1;
}

async function eventsOf(aggregateId: string): Promise<{ event_type: string; event_id: string }[]> {
  const { rows } = await db.pool.query(
    `SELECT event_type, event_id FROM "${db.name}".outbox WHERE aggregate_id = $1 ORDER BY id`,
    [aggregateId],
  );
  return rows as { event_type: string; event_id: string }[];
}

beforeAll(async () => {
  db = await createTestSchema('outbox_order');
  await createTables(db.pool, db.name);
  app = await createOutboxApp(
    { schema: db.name, tuning: { notifyChannel: false } },
    { providers: [Writer] },
  );
  writer = app.get(Writer);
  gate = new CommitGate(dataSourceOf(app));
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('commit order per aggregate', () => {
  it('Given two transactions on one aggregate whose commits interleave, then outbox order equals commit order, not record order', async () => {
    const bFlush = latch();
    let bIds: string[] = [];
    let bPid = 0;
    // B records first (its UUIDv7 event id is the older one) but does not flush yet.
    const b = writer.write({
      label: 'B',
      aggregates: ['acc-1'],
      beforeFlush: bFlush.promise,
      onRecorded: (ids, pid) => ((bIds = ids), (bPid = pid)),
    });
    await waitFor('B to record', () => bIds.length > 0);

    // A records, flushes (takes the aggregate's lock, gets its row id) and is held before COMMIT.
    let aIds: string[] = [];
    let aHeld!: Promise<void>;
    let releaseA!: () => void;
    const a = writer.write({
      label: 'A',
      aggregates: ['acc-1'],
      holdCommit: true,
      onRecorded: (ids) => (aIds = ids),
      onHeld: (reached, release) => ((aHeld = reached), (releaseA = release)),
    });
    await waitFor('A to be held before its commit', () => aHeld !== undefined);
    await aHeld;

    // B flushes now: its INSERT must wait for A's lock instead of taking a row id.
    bFlush.open();
    await waitFor('B to wait on the aggregate lock', () => waitingOnAdvisoryLock(bPid), {
      timeoutMs: 10_000,
    });
    expect(gate.commits).toEqual([]);

    releaseA();
    await Promise.all([a, b]);
    expect(gate.commits).toEqual(['A', 'B']);
    const events = await eventsOf('acc-1');
    expect(events.map((e) => e.event_type)).toEqual(['written.A', 'written.B']);
    expect(events.map((e) => e.event_id)).toEqual([aIds[0], bIds[0]]);
    expect(bIds[0]! < aIds[0]!).toBe(true);
  });

  it('Given a transaction held before commit on one aggregate, then writers of other aggregates are not blocked', async () => {
    let held!: Promise<void>;
    let release!: () => void;
    const a = writer.write({
      label: 'held',
      aggregates: ['acc-2'],
      holdCommit: true,
      onHeld: (reached, rel) => ((held = reached), (release = rel)),
    });
    await waitFor('the first writer to be held', () => held !== undefined);
    await held;
    await writer.write({ label: 'other', aggregates: ['acc-3'] });
    expect(gate.commits.slice(-1)).toEqual(['other']);
    release();
    await a;
    expect(gate.commits.slice(-2)).toEqual(['other', 'held']);
  });

  it('Given many concurrent transactions that each record for two aggregates in opposite orders, then none deadlocks and each aggregate sees whole transactions in the order the server committed them', async () => {
    const runs = Array.from({ length: 24 }, (_, i) =>
      writer.write({
        label: `t${i}`,
        aggregates: i % 2 === 0 ? ['pair-x', 'pair-y'] : ['pair-y', 'pair-x'],
      }),
    );
    const results = await Promise.allSettled(runs);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    // The server's commit order: the gate sends these COMMITs one at a time.
    const commitOrder = gate.commits.filter((label) => /^t\d+$/.test(label));
    expect(commitOrder).toHaveLength(24);
    const x = (await eventsOf('pair-x')).map((e) => e.event_type.replace('written.', ''));
    const y = (await eventsOf('pair-y')).map((e) => e.event_type.replace('written.', ''));
    expect(x).toEqual(commitOrder);
    expect(y).toEqual(commitOrder);
  });
});
