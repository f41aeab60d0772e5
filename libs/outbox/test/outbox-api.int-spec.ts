import { Inject, Injectable, Module, Optional } from '@nestjs/common';
import { InvalidOptionsError, RenamedOptionError } from '@nest-outbox/core';
import { OUTBOX_WAKEUP, type OutboxWakeup } from '@nest-outbox/core/internal';
import { OutboxModule, OutboxService } from '@nest-outbox/outbox';
import { createTestSchema, type TestSchema } from '@test/support';
import { createOutboxApp } from './outbox-test-app';

let db: TestSchema;

beforeAll(async () => {
  db = await createTestSchema('api_outbox');
});

afterAll(async () => {
  await db?.drop();
});

@Injectable()
class WakeupProbe {
  constructor(@Optional() @Inject(OUTBOX_WAKEUP) readonly wakeup?: OutboxWakeup) {}
}

/** A module that does not import the outbox: it sees the wake-up only if the outbox is global. */
@Module({ providers: [WakeupProbe], exports: [WakeupProbe] })
class ProbeModule {}

describe('OutboxModule public options (installSchema, verifySchema, isGlobal, renamed options)', () => {
  it('Given installSchema: true and no table, when the app starts, then the table is created and an event can be recorded', async () => {
    const app = await createOutboxApp({
      schema: db.name,
      tuning: { table: 'installed', installSchema: true },
    });
    try {
      const outbox = app.get(OutboxService);
      await outbox.transaction(() =>
        outbox.record({
          eventType: 'probe',
          aggregateType: 'probe',
          aggregateId: 'a-1',
          aggregateVersion: 1,
          payload: {},
        }),
      );
    } finally {
      await app.close();
    }
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM "${db.name}".installed`);
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('Given two apps starting together with installSchema: true, then both start (the DDL is serialised)', async () => {
    const apps = await Promise.all(
      [1, 2].map(() =>
        createOutboxApp({ schema: db.name, tuning: { table: 'raced', installSchema: true } }),
      ),
    );
    await Promise.all(apps.map((app) => app.close()));
    const { rows } = await db.pool.query(`SELECT to_regclass($1) IS NOT NULL AS ok`, [
      `"${db.name}".raced`,
    ]);
    expect(rows).toEqual([{ ok: true }]);
  });

  it('Given verifySchema: false and no table, then the app starts (the table may come later)', async () => {
    const app = await createOutboxApp({
      schema: db.name,
      tuning: { table: 'later', verifySchema: false },
    });
    await app.close();
  });

  it.each([
    [true, true],
    [false, false],
  ])(
    'Given isGlobal: %p, then a module that does not import the outbox sees its wake-up: %p',
    async (isGlobal, visible) => {
      const app = await createOutboxApp(
        OutboxModule.forRoot({ isGlobal, schema: db.name, tuning: { table: 'installed' } }),
        { imports: [ProbeModule] },
      );
      try {
        expect(app.get(WakeupProbe).wakeup !== undefined).toBe(visible);
      } finally {
        await app.close();
      }
    },
  );

  it('Given the old option verifyTableOnStartup, then start-up fails with RenamedOptionError naming tuning.verifySchema', () => {
    const old = { verifyTableOnStartup: false } as never;
    expect(() => OutboxModule.forRoot(old)).toThrow(RenamedOptionError);
    expect(() => OutboxModule.forRoot(old)).toThrow(InvalidOptionsError);
    expect(() => OutboxModule.forRoot(old)).toThrow(
      /OutboxModule: option "verifyTableOnStartup" was renamed to "tuning.verifySchema"/,
    );
  });
});
