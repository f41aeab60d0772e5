import type { TestingModule } from '@nestjs/testing';
import { createTestSchema, type TestSchema } from '@test/support';
import { OutboxService } from '@nest-outbox/outbox';
import { recordedEvents } from '@nest-outbox/outbox/testing';
import { createOutboxApp, createTables } from './outbox-test-app';

let db: TestSchema;
let app: TestingModule;
let outbox: OutboxService;
const event = (type: string) => ({
  eventType: type,
  aggregateType: 'order',
  aggregateId: 'o-1',
  aggregateVersion: 1,
  payload: { type },
});

beforeAll(async () => {
  db = await createTestSchema('recorded_events');
  await createTables(db.pool, db.name);
  await db.pool.query(`INSERT INTO "${db.name}".orders (id, status) VALUES ('o-1', 'pending')`);
  app = await createOutboxApp({
    metrics: false,
    schema: db.name,
    tuning: { notifyChannel: false },
  });
  outbox = app.get(OutboxService);
});

afterAll(async () => {
  await app?.close();
  await db?.drop();
});

describe('recordedEvents', () => {
  it('Given a command recording two events, then it returns both in order, as committed', async () => {
    const spec = { table: `${db.name}.orders`, id: 'o-1', from: 'pending', to: 'confirmed' };
    const events = await recordedEvents(outbox, () =>
      outbox.transaction(async () => {
        await outbox.record(event('order.noted'));
        await outbox.transitionAndRecord(spec, event('order.confirmed'));
      }),
    );
    expect(events.map((e) => [e.eventType, e.aggregateVersion])).toEqual([
      ['order.noted', 1],
      ['order.confirmed', 1],
    ]);
    const { rows } = await db.pool.query<{ event_id: string }>(
      `SELECT event_id::text FROM "${db.name}".outbox ORDER BY id`,
    );
    expect(rows.map((r) => r.event_id)).toEqual(events.map((e) => e.eventId));
  });

  it('Given a failing command, then it rejects with its error and the service is restored', async () => {
    const failure = new Error('refused');
    await expect(
      recordedEvents(outbox, () =>
        outbox.transaction(async () => {
          await outbox.record(event('order.lost'));
          throw failure;
        }),
      ),
    ).rejects.toBe(failure);
    expect(Object.keys(outbox)).not.toContain('record');
    expect(Object.keys(outbox)).not.toContain('transitionAndRecord');
  });
});
