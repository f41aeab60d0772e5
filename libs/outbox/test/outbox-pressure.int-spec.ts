import { Injectable } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { createTestSchema, type TestSchema } from '@test/support';
import { Registry } from 'prom-client';
import {
  InvalidTransitionError,
  OutboxBackPressureError,
  OutboxPressureService,
  OutboxService,
  OutboxTransactional,
} from '@nest-outbox/outbox';
import { pressureRowSql } from '@nest-outbox/core/internal';
import { createOutboxApp, createTables } from './outbox-test-app';

let db: TestSchema;
let schema: string;

@Injectable()
class Commands {
  constructor(
    private readonly host: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly outbox: OutboxService,
  ) {}

  private async place(id: string, events: number): Promise<void> {
    await this.host.tx.query(`INSERT INTO "${schema}".orders (id, status) VALUES ($1, 'new')`, [
      id,
    ]);
    for (let i = 0; i < events; i++) {
      await this.outbox.record({
        eventType: i === 0 ? 'order.placed' : 'order.noted',
        aggregateType: 'order',
        aggregateId: id,
        aggregateVersion: i + 1,
        payload: { id },
      });
    }
  }

  @OutboxTransactional()
  critical(id: string, events = 1): Promise<void> {
    return this.place(id, events);
  }

  @OutboxTransactional({ critical: false })
  optional(id: string): Promise<void> {
    return this.place(id, 1);
  }

  @OutboxTransactional()
  async refuse(id: string): Promise<void> {
    await this.outbox.transition({ table: `${schema}.orders`, id, from: 'gone', to: 'new' });
  }
}

async function rows(table: string): Promise<number> {
  const { rows: r } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM "${schema}".${table}`,
  );
  return r[0]!.n;
}

async function value(registry: Registry, name: string): Promise<string> {
  return registry.getSingleMetricAsString(`nest_outbox_outbox_${name}`);
}

beforeAll(async () => {
  db = await createTestSchema('outbox_pressure');
  schema = db.name;
  await createTables(db.pool, schema);
});

afterAll(async () => {
  await db?.drop();
});

/** Publishes a pressure row with the relay's own statement: `state`, fresh for `freshMs`. */
async function publish(state: string, freshMs: number, reasons: string[] = []): Promise<void> {
  const figures = { pressure: { state, reasons, sampledAt: new Date().toISOString() } };
  const sql = pressureRowSql('RelayModule', schema, 'outbox').write;
  await db.pool.query(sql, ['relay-test', freshMs, JSON.stringify(figures), 0]);
}

describe('OutboxModule metrics and back-pressure (real PostgreSQL)', () => {
  let app: TestingModule;
  const registry = new Registry();

  beforeAll(async () => {
    // No relay here: the test publishes the pressure row as a relay does.
    app = await createOutboxApp(
      { metrics: { registry }, pressure: true, schema },
      { providers: [Commands] },
    );
  });

  afterAll(async () => {
    await app?.close();
  });

  it('Given committed and refused commands, then events by type, rows per flush, transaction outcomes and refused transitions are counted', async () => {
    const commands = app.get(Commands);
    await commands.critical('m-1', 3);
    await expect(commands.refuse('m-missing')).rejects.toBeInstanceOf(InvalidTransitionError);
    expect(await value(registry, 'events_recorded_total')).toMatch(
      /events_recorded_total\{event_type="order\.placed"\} 1\n.*event_type="order\.noted"\} 2/,
    );
    expect(await value(registry, 'flush_rows')).toMatch(/flush_rows_count 1$/m);
    expect(await value(registry, 'flush_rows')).toMatch(/flush_rows_sum 3$/m);
    expect(await value(registry, 'transitions_refused_total')).toMatch(/_total 1$/m);
    const tx = await value(registry, 'transaction_duration_seconds');
    expect(tx).toMatch(/_count\{outcome="committed"\} 1$/m);
    expect(tx).toMatch(/_count\{outcome="rolled_back"\} 1$/m);
  });

  it('Given no pressure table, or no row in it, then the state reads unknown and commands pass', async () => {
    const pressure = app.get(OutboxPressureService);
    expect(await pressure.refresh()).toMatchObject({ state: 'unknown' });
    await app.get(Commands).optional('u-1');
    await db.pool.query(pressureRowSql('RelayModule', schema, 'outbox').create);
    expect(await pressure.refresh()).toMatchObject({
      state: 'unknown',
      reasons: ['no relay has published the pressure of this outbox'],
    });
    await app.get(Commands).optional('u-2');
  });

  it('Given a fresh critical row, then a non-critical command is refused before any write while a critical one commits; once it falls back the command runs again', async () => {
    const commands = app.get(Commands);
    const pressure = app.get(OutboxPressureService);
    await publish('critical', 60_000, ['backlog 5 >= 4.5']);
    expect(await pressure.refresh()).toMatchObject({ state: 'critical' });

    const [orders, events] = [await rows('orders'), await rows('outbox')];
    const refused = await commands.optional('m-4').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OutboxBackPressureError);
    // Retry after the relay's pause: half the row's freshness.
    expect(refused).toMatchObject({ command: 'Commands.optional', retryAfterSeconds: 30 });
    expect((refused as Error).message).toContain('backlog 5 >= 4.5');
    expect([await rows('orders'), await rows('outbox')]).toEqual([orders, events]);
    expect(await value(registry, 'back_pressure_refused_total')).toMatch(
      /\{command="Commands\.optional"\} 1$/m,
    );

    await commands.critical('m-5');
    expect(await rows('outbox')).toBe(events + 1);

    await publish('ok', 60_000);
    expect(await pressure.refresh()).toMatchObject({ state: 'ok' });
    await commands.optional('m-4');
    expect(await rows('orders')).toBe(orders + 2);
  });

  it('Given a critical row past its freshness (its relay stopped), then it reads unknown, not critical, and commands pass', async () => {
    const pressure = app.get(OutboxPressureService);
    await publish('critical', -1, ['backlog 5 >= 4.5']);
    const stale = await pressure.refresh();
    expect(stale).toMatchObject({ state: 'unknown', reasons: [expect.stringMatching(/^stale/)] });
    expect(stale).not.toHaveProperty('backlog');
    await app.get(Commands).optional('s-1');
  });

  it('Given a critical row of an older relay (no staleAfterMs) still fresh by its own far freshness, then it reads unknown with its sampling time, and commands pass', async () => {
    const pressure = app.get(OutboxPressureService);
    const figures = { pressure: { state: 'critical', reasons: ['backlog 5 >= 4.5'] } };
    await db.pool.query(
      `UPDATE "${schema}".outbox_pressure SET sampled_at = now() - interval '23 minutes',
              fresh_until = now() + interval '23 minutes', figures = $1`,
      [JSON.stringify(figures)],
    );
    const stale = await pressure.refresh();
    expect(stale).toMatchObject({
      state: 'unknown',
      reasons: [expect.stringMatching(/^stale: figures 13\d\d s old/)],
      sampledAt: expect.any(String),
    });
    await app.get(Commands).optional('s-2');
  });
});
