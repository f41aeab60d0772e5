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
import { createOutboxApp, createTables } from '../../test/outbox-test-app';

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

describe('OutboxModule metrics and back-pressure (real PostgreSQL)', () => {
  let app: TestingModule;
  const registry = new Registry();

  beforeAll(async () => {
    app = await createOutboxApp(
      {
        metrics: { registry },
        // No relay here: the backlog only grows. 90 % of 5 events is critical; the forecast
        // (a steep start from an empty table) is left out of this test.
        pressure: {
          maxBacklog: 5,
          intervalMs: 60_000,
          warnForecastSeconds: 0,
          criticalForecastSeconds: 0,
        },
        tuning: { schema },
      },
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

  it('Given the backlog reaches the critical share of its budget, then a non-critical command is refused before any write while a critical one commits', async () => {
    const commands = app.get(Commands);
    const pressure = app.get(OutboxPressureService);
    expect((await pressure.refresh())?.state).toBe('warn'); // 3 of 5: half the budget
    await commands.optional('m-2'); // not critical yet: runs
    await commands.critical('m-3');
    expect(await pressure.refresh()).toMatchObject({ state: 'critical', backlog: 5 });
    expect(await value(registry, 'pressure_level')).toMatch(/pressure_level 2$/m);

    const [orders, events] = [await rows('orders'), await rows('outbox')];
    const refused = await commands.optional('m-4').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OutboxBackPressureError);
    expect(refused).toMatchObject({ command: 'Commands.optional', retryAfterSeconds: 60 });
    expect([await rows('orders'), await rows('outbox')]).toEqual([orders, events]);
    expect(await value(registry, 'back_pressure_refused_total')).toMatch(
      /\{command="Commands\.optional"\} 1$/m,
    );

    await commands.critical('m-5');
    expect(await rows('outbox')).toBe(events + 1);

    // The relay catches up: the state falls back and the command runs again.
    await db.pool.query(`UPDATE "${schema}".outbox SET published_at = now()`);
    expect((await pressure.refresh())?.state).toBe('ok');
    await commands.optional('m-4');
    expect(await rows('orders')).toBe(orders + 2);
  });
});

describe('OutboxModule back-pressure and parked events (real PostgreSQL)', () => {
  let app: TestingModule;

  beforeAll(async () => {
    await db.pool.query(`DELETE FROM "${schema}".outbox`);
    app = await createOutboxApp(
      {
        pressure: {
          maxBacklog: 1000,
          maxOldestAgeMs: 60_000,
          intervalMs: 60_000,
          warnForecastSeconds: 0,
          criticalForecastSeconds: 0,
        },
        tuning: { schema },
      },
      { providers: [Commands] },
    );
  });

  afterAll(async () => {
    await app?.close();
  });

  const age = (aggregateId: string) =>
    db.pool.query(
      `UPDATE "${schema}".outbox SET created_at = now() - interval '10 minutes' WHERE aggregate_id = $1`,
      [aggregateId],
    );

  it('Given old events held back behind a parked event of their aggregate, then they do not age the backlog: one poisoned aggregate does not refuse every command', async () => {
    const commands = app.get(Commands);
    const pressure = app.get(OutboxPressureService);
    await commands.critical('poisoned-1', 3);
    await age('poisoned-1');
    await db.pool.query(
      `UPDATE "${schema}".outbox SET parked_at = now(), parked_reason = 'permanent: test'
        WHERE id = (SELECT min(id) FROM "${schema}".outbox WHERE aggregate_id = 'poisoned-1')`,
    );
    await commands.critical('fresh-1');
    const held = await pressure.refresh();
    expect(held?.state).toBe('ok');
    expect(held?.oldestAgeMs).toBeLessThan(60_000);
    await commands.optional('fresh-2'); // not refused

    // An old event that is not held back still ages the backlog.
    await age('fresh-1');
    const stale = await pressure.refresh();
    expect(stale?.state).toBe('critical');
    expect(stale?.reasons.join(' ')).toMatch(/^oldest age \d+ ms >= \d+ ms/);
  });
});
