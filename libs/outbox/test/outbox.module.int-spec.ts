import { Global, Injectable, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Test } from '@nestjs/testing';
import { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsModule } from 'nestjs-cls';
import { InvalidOptionsError } from '@nest-outbox/core';
import {
  OUTBOX_WAKEUP,
  OutboxWakeup,
  sqlExecutorOf,
  type SqlExecutor,
} from '@nest-outbox/core/internal';
import { createTestSchema, type TestSchema } from '@test/support';
import {
  OutboxModule,
  OutboxService,
  OutboxTableNotFoundError,
  type OutboxModuleOptions,
  type ResolvedOutboxOptions,
} from '@nest-outbox/outbox';
import { createOutboxApp, createTables, persistenceImports } from './outbox-test-app';
import { OUTBOX_OPTIONS } from '../src/outbox.constants';

let db: TestSchema;

/** Stands in for the transactional plugin where no SQL runs (option validation only). */
@Global()
@Module({
  providers: [{ provide: TransactionHost, useValue: {} }],
  exports: [TransactionHost],
})
class FakeTransactionHostModule {}

@Injectable()
class OutboxConfig {
  readonly table = 'events_async';
}

@Module({ providers: [OutboxConfig], exports: [OutboxConfig] })
class ConfigModule {}

@Injectable()
class OutboxOptionsFactory {
  createOutboxOptions(): OutboxModuleOptions {
    return { schema: db.name, tuning: { table: 'events_class', notifyCoalesceMs: 20 } };
  }
}

@Module({ providers: [OutboxOptionsFactory], exports: [OutboxOptionsFactory] })
class FactoryModule {}

/** Starts an app with this outbox module, records one event, returns the options read back. */
async function startAndRecord(
  outboxModule: ReturnType<typeof OutboxModule.forRoot>,
): Promise<ResolvedOutboxOptions> {
  const app = await createOutboxApp(outboxModule);
  const aggregateId = `p-${Math.random().toString(36).slice(2)}`;
  try {
    const outbox = app.get(OutboxService);
    expect(app.get(OUTBOX_WAKEUP)).toBeInstanceOf(OutboxWakeup);
    await outbox.transaction(() =>
      outbox.record({
        eventType: 'probe',
        aggregateType: 'probe',
        aggregateId,
        aggregateVersion: 1,
        payload: {},
      }),
    );
    const options = app.get<ResolvedOutboxOptions>(OUTBOX_OPTIONS);
    expect(outbox.options).toBe(options);
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM ${options.qualifiedTable} WHERE aggregate_id = $1`,
      [aggregateId],
    );
    expect(rows).toEqual([{ n: 1 }]);
    return options;
  } finally {
    await app.close();
  }
}

beforeAll(async () => {
  db = await createTestSchema('outbox_module');
  for (const table of ['outbox', 'events_full', 'events_factory', 'events_class', 'events_async']) {
    await createTables(db.pool, db.name, table);
  }
  await createTables(db.pool, 'public');
});

afterAll(async () => {
  await db.pool.query('DROP TABLE IF EXISTS public.outbox, public.orders');
  await db?.drop();
});

describe('OutboxModule registration', () => {
  it('Given forRoot() with no options, then the defaults apply (public.outbox, channel nest_outbox, 1 MB, 5 ms)', async () => {
    const options = await startAndRecord(OutboxModule.forRoot());
    expect(options).toMatchObject({
      schema: 'public',
      table: 'outbox',
      qualifiedTable: '"public"."outbox"',
      maxPayloadBytes: 1_000_000,
      notifyChannel: 'nest_outbox',
      notifyCoalesceMs: 5,
      installSchema: false,
      verifySchema: true,
      metrics: { registry: undefined, prefix: 'nest_outbox_outbox_' },
      pressure: false,
      connectionName: undefined,
    });
  });

  it('Given forRoot() with every option, then each is read back and the executor is used', async () => {
    const traceContext = () => undefined;
    const scope = () => 'tenant';
    let executed = 0;
    const sqlExecutor = (tx: unknown): SqlExecutor => {
      const inner = sqlExecutorOf(tx);
      return { query: (text, values, name) => (executed++, inner.query(text, values, name)) };
    };
    const options = await startAndRecord(
      OutboxModule.forRoot({
        metrics: false,
        pressure: true,
        schema: db.name,
        idempotency: { scope, retentionMs: 5000 },
        tuning: {
          table: 'events_full',
          maxPayloadBytes: 2048,
          notifyChannel: false,
          notifyCoalesceMs: 0,
          traceContext,
          installSchema: false,
          verifySchema: true,
          sqlExecutor,
        },
      }),
    );
    expect(executed).toBeGreaterThan(0);
    expect(options).toEqual({
      schema: db.name,
      table: 'events_full',
      qualifiedTable: `"${db.name}"."events_full"`,
      maxPayloadBytes: 2048,
      notifyChannel: false,
      notifyCoalesceMs: 0,
      traceContext,
      installSchema: false,
      verifySchema: true,
      metrics: false,
      pressure: true,
      idempotency: { scope, retentionMs: 5000, table: `"${db.name}"."events_full_idempotency"` },
      sqlExecutor,
      connectionName: undefined,
    });
  });

  it('Given forRootAsync({ useFactory, inject, imports }), then the factory options apply', async () => {
    const options = await startAndRecord(
      OutboxModule.forRootAsync({
        imports: [ConfigModule],
        inject: [OutboxConfig],
        useFactory: async (config: OutboxConfig) => {
          await Promise.resolve();
          return {
            schema: db.name,
            tuning: { table: config.table, notifyChannel: 'custom_channel' },
          };
        },
      }),
    );
    expect(options).toMatchObject({ table: 'events_async', notifyChannel: 'custom_channel' });
  });

  it('Given forRootAsync({ useClass }), then the class builds the options', async () => {
    const options = await startAndRecord(
      OutboxModule.forRootAsync({ useClass: OutboxOptionsFactory }),
    );
    expect(options).toMatchObject({ table: 'events_class', notifyCoalesceMs: 20 });
  });

  it('Given forRootAsync({ useExisting }), then the existing provider builds the options', async () => {
    const options = await startAndRecord(
      OutboxModule.forRootAsync({ imports: [FactoryModule], useExisting: OutboxOptionsFactory }),
    );
    expect(options).toMatchObject({ table: 'events_class' });
  });

  it("Given a named connection, then the outbox writes through that connection's TransactionHost", async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ...persistenceImports('secondary'),
        OutboxModule.forRoot({
          connectionName: 'secondary',
          schema: db.name,
          tuning: { table: 'events_full' },
        }),
      ],
    }).compile();
    await moduleRef.init();
    try {
      const outbox = moduleRef.get(OutboxService);
      expect(outbox.options.connectionName).toBe('secondary');
      const host = moduleRef.get<TransactionHost<TransactionalAdapterTypeOrm>>(
        Symbol.for('TransactionHost_secondary'),
      );
      await outbox.transaction(async () => {
        expect(host.isTransactionActive()).toBe(true);
        await outbox.record({
          eventType: 'named',
          aggregateType: 'x',
          aggregateId: 'n',
          aggregateVersion: 1,
          payload: 1,
        });
      });
    } finally {
      await moduleRef.close();
    }
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM "${db.name}".events_full WHERE event_type = 'named'`,
    );
    expect(rows).toEqual([{ n: 1 }]);
  });
});

describe('OutboxModule start-up validation', () => {
  it.each<[string, OutboxModuleOptions, RegExp]>([
    [
      'a table name with SQL in it',
      { tuning: { table: 'outbox; drop table users' } },
      /option "tuning.table"/,
    ],
    ['an upper-case schema', { schema: 'App' }, /option "schema" must be/],
    ['a quoted identifier', { tuning: { table: 'out"box' } }, /option "tuning.table"/],
    ['a too long name', { tuning: { table: 'x'.repeat(64) } }, /option "tuning.table"/],
    [
      'a notify channel with spaces',
      { tuning: { notifyChannel: 'my channel' } },
      /option "tuning.notifyChannel"/,
    ],
    ['a zero payload limit', { tuning: { maxPayloadBytes: 0 } }, /option "tuning.maxPayloadBytes"/],
    [
      'a negative coalesce interval',
      { tuning: { notifyCoalesceMs: -1 } },
      /option "tuning.notifyCoalesceMs"/,
    ],
    ['a metric prefix with a dash', { metrics: { prefix: 'my-app_' } }, /option "metrics.prefix"/],
    ['a registry that is not one', { metrics: { registry: {} as never } }, /"metrics.registry"/],
    [
      'pressure thresholds (the relay sets them now)',
      { pressure: { maxBacklog: 10 } as never },
      /option "pressure" must be true or false: .*RelayModule's pressure option/,
    ],
    [
      'a non-boolean verifySchema',
      { tuning: { verifySchema: 'yes' as never } },
      /option "tuning.verifySchema"/,
    ],
  ])(
    'Given %s, then the module refuses it with InvalidOptionsError naming the option',
    (_c, options, message) => {
      expect(() => OutboxModule.forRoot(options)).toThrow(InvalidOptionsError);
      expect(() => OutboxModule.forRoot(options)).toThrow(message);
    },
  );

  it('Given forRootAsync whose factory returns an invalid identifier, then start-up fails with InvalidOptionsError', async () => {
    await expect(
      Test.createTestingModule({
        imports: [
          FakeTransactionHostModule,
          ClsModule.forRoot({ global: true }),
          OutboxModule.forRootAsync({ useFactory: () => ({ schema: 'bad-schema' }) }),
        ],
      }).compile(),
    ).rejects.toThrow(/OutboxModule: option "schema" must be a lower-case SQL identifier/);
  });

  it('Given a table that does not exist, then start-up fails with OutboxTableNotFoundError naming the fix', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ...persistenceImports(),
        OutboxModule.forRoot({ schema: db.name, tuning: { table: 'nope' } }),
      ],
    }).compile();
    const failure = await moduleRef.init().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(OutboxTableNotFoundError);
    expect((failure as Error).message).toMatch(/npx nest-outbox migrate/);
    // A failed init() leaves close() rejecting too: release the connection pool directly.
    await moduleRef.get(DataSource).destroy();
  });

  it('Given no nestjs-cls transactional plugin, then start-up fails with an error saying how to register it', async () => {
    await expect(
      Test.createTestingModule({
        imports: [ClsModule.forRoot({ global: true }), OutboxModule.forRoot()],
      }).compile(),
    ).rejects.toThrow(/ClsPluginTransactional/);
  });
});
