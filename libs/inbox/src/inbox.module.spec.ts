import { Global, Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { getTransactionHostToken, TransactionHost } from '@nestjs-cls/transactional';
import { InvalidOptionsError, RenamedOptionError } from '@nest-outbox/core';
import { Registry } from 'prom-client';
import { InboxConsumerRegistry } from './consumer/inbox-consumer.registry';
import { InboxPipeline } from './pipeline/inbox.pipeline';
import { INBOX_METRICS_REGISTRY, INBOX_OPTIONS, INBOX_TRANSACTION_HOST } from './inbox.constants';
import { InboxModule } from './inbox.module';
import type { InboxModuleOptions } from './options/inbox-options.interface';
import type { ResolvedInboxOptions } from './options/inbox-options.resolver';

/**
 * A TransactionHost stand-in whose queries find every table (the start-up check passes): its
 * `tx` has a pg client's shape, which the inbox's SqlExecutor recognises.
 */
const fakeHost = (name: string) => ({
  name,
  tx: { query: () => Promise.resolve({ rows: [] }), release: () => undefined },
});

/** Stands in for the application's ClsModule: a default and a named TransactionHost. */
@Global()
@Module({
  providers: [
    { provide: TransactionHost, useValue: fakeHost('default') },
    { provide: getTransactionHostToken('reporting'), useValue: fakeHost('reporting') },
  ],
  exports: [TransactionHost, getTransactionHostToken('reporting')],
})
class FakeTransactionsModule {}

const options: InboxModuleOptions = {
  kafka: { brokers: ['127.0.0.1:9092'] },
  retry: { maxAttempts: 7, baseDelayMs: 50, maxDelayMs: 500 },
  retention: { keepMs: Infinity },
  schema: 'shipping',
  tuning: {
    table: 'processed',
    rejectedTable: 'refused',
    versionsTable: 'versions',
  },
};

@Injectable()
class InboxConfig {
  createInboxOptions(): InboxModuleOptions {
    return options;
  }
}

@Module({ providers: [InboxConfig], exports: [InboxConfig] })
class ConfigModule {}

async function resolved(imports: unknown[]) {
  const moduleRef = await Test.createTestingModule({
    imports: [FakeTransactionsModule, ...(imports as [])],
  }).compile();
  await moduleRef.init();
  const result = {
    options: moduleRef.get<ResolvedInboxOptions>(INBOX_OPTIONS),
    registry: moduleRef.get<Registry>(INBOX_METRICS_REGISTRY),
    host: moduleRef.get<{ name: string }>(INBOX_TRANSACTION_HOST),
  };
  await moduleRef.close();
  return result;
}

describe('InboxModule registration', () => {
  it('forRoot applies the documented defaults', async () => {
    const {
      options: o,
      registry,
      host,
    } = await resolved([InboxModule.forRoot({ kafka: { brokers: ['b:9092'] } })]);
    expect(o.tables.inbox).toBe('"public"."inbox"');
    expect(o.tables.rejected).toBe('"public"."inbox_rejected"');
    expect(o.tables.versions).toBe('"public"."inbox_aggregate_versions"');
    expect(o).toMatchObject({
      installSchema: false,
      verifySchema: true,
      connectionName: undefined,
    });
    expect(o.defaults).toMatchObject({
      maxAttempts: 5,
      baseDelayMs: 200,
      maxDelayMs: 10_000,
      onExhausted: 'dead-letter',
      versionCheck: 'off',
      maxMessageBytes: 1_048_576,
    });
    expect(o.retention).toMatchObject({
      keepMs: 14 * 86_400_000,
      replayWindowMs: 86_400_000,
      onTooShort: 'refuse',
    });
    expect(host.name).toBe('default');
    expect(registry).toBeInstanceOf(Registry);
    expect(
      await registry.getSingleMetric('nest_outbox_inbox_events_applied_total')?.get(),
    ).toBeDefined();
  });

  it('forRoot reads every option back', async () => {
    const { options: o } = await resolved([InboxModule.forRoot(options)]);
    expect(o.tables).toMatchObject({
      inbox: '"shipping"."processed"',
      rejected: '"shipping"."refused"',
      versions: '"shipping"."versions"',
    });
    expect(o.defaults).toMatchObject({ maxAttempts: 7, baseDelayMs: 50, maxDelayMs: 500 });
  });

  it.each([
    ['useFactory', { useFactory: () => options }],
    ['useClass', { useClass: InboxConfig }],
    ['useExisting', { imports: [ConfigModule], useExisting: InboxConfig }],
  ])('forRootAsync with %s reads the options back', async (_name, async) => {
    const { options: o } = await resolved([InboxModule.forRootAsync(async as never)]);
    expect(o.tables.inbox).toBe('"shipping"."processed"');
    expect(o.defaults.maxAttempts).toBe(7);
  });

  it('writes through the TransactionHost of connectionName, given to forRoot or forRootAsync', async () => {
    const sync = await resolved([InboxModule.forRoot({ ...options, connectionName: 'reporting' })]);
    expect(sync.host.name).toBe('reporting');
    expect(sync.options.connectionName).toBe('reporting');
    const async = await resolved([
      InboxModule.forRootAsync({ connectionName: 'reporting', useFactory: () => options }),
    ]);
    expect(async.host.name).toBe('reporting');
  });

  it('refuses a connectionName that names no TransactionHost, saying how to register one', async () => {
    const attempt = resolved([
      InboxModule.forRootAsync({ connectionName: 'nowhere', useFactory: () => options }),
    ]);
    await expect(attempt).rejects.toThrow(
      /option "connectionName" \("nowhere"\) names no TransactionHost/,
    );
  });

  it('registers its metrics on the registry given, under the prefix given', async () => {
    const registry = new Registry();
    const { registry: exposed } = await resolved([
      InboxModule.forRoot({ ...options, metrics: { registry, prefix: 'shipping_' } }),
    ]);
    expect(exposed).toBe(registry);
    expect(registry.getSingleMetric('shipping_events_applied_total')).toBeDefined();
    expect(registry.getSingleMetric('nest_outbox_inbox_events_applied_total')).toBeUndefined();
  });

  it('exports no registry with metrics: false', async () => {
    const { registry } = await resolved([InboxModule.forRoot({ ...options, metrics: false })]);
    expect(registry).toBeUndefined();
  });

  it('two applications in one process get separate metric registries', async () => {
    const a = await resolved([InboxModule.forRoot(options)]);
    const b = await resolved([InboxModule.forRoot(options)]);
    expect(a.registry).not.toBe(b.registry);
  });

  it('is global by default, and with isGlobal: false serves only the modules that import it', async () => {
    @Injectable()
    class Resumer {
      constructor(@Inject(InboxConsumerRegistry) readonly registry: InboxConsumerRegistry) {}
    }
    @Module({ providers: [Resumer] })
    class FeatureModule {}
    const compile = (inbox: unknown) =>
      Test.createTestingModule({ imports: [FakeTransactionsModule, inbox as never, FeatureModule] })
        .compile()
        .then((ref) => ref.close());
    await expect(compile(InboxModule.forRoot(options))).resolves.toBeUndefined();
    await expect(compile(InboxModule.forRoot({ ...options, isGlobal: false }))).rejects.toThrow(
      /InboxConsumerRegistry/,
    );
    const local = await Test.createTestingModule({
      imports: [FakeTransactionsModule, InboxModule.forRoot({ ...options, isGlobal: false })],
    }).compile();
    expect(local.get(InboxPipeline)).toBeInstanceOf(InboxPipeline);
    await local.close();
  });

  it.each([
    [{ tables: { schema: 'app' } }, /option "tables" was renamed to "tuning" \(tables.inbox is/],
    [{ createSchema: true }, /option "createSchema" was renamed to "tuning.installSchema"/],
    [
      { retry: { initialDelayMs: 10 } },
      /option "retry.initialDelayMs" was renamed to "retry.baseDelayMs"/,
    ],
    [{ tuning: { schema: 'app' } }, /option "tuning.schema" was renamed to "schema"/],
    [{ maxMessageBytes: 10 }, /option "maxMessageBytes" was renamed to "tuning.maxMessageBytes"/],
    [
      { retention: { inboxRetentionMs: 10 } },
      /option "retention.inboxRetentionMs" was renamed to "retention.keepMs"/,
    ],
    [
      { retention: { prune: false } },
      /option "retention.prune" was renamed to "retention.keepMs" \(prune: false is keepMs: Infinity\)/,
    ],
  ])('refuses an option under its old name, naming the new one (%#)', (old, message) => {
    const attempt = () => InboxModule.forRoot({ ...options, ...(old as object) });
    expect(attempt).toThrow(RenamedOptionError);
    expect(attempt).toThrow(message);
  });

  it.each([
    [{ kafka: { brokers: [] } }, /kafka.brokers" is required/],
    [{ ...options, schema: 'Bad Schema' }, /option "schema" must be a lower-case SQL identifier/],
    [
      { ...options, tuning: { rejectedTable: 'x-y' } },
      /"tuning.rejectedTable" must be a lower-case SQL identifier/,
    ],
    [{ ...options, retry: { maxAttempts: 0 } }, /retry.maxAttempts" must be a positive integer/],
    [
      { ...options, retry: { baseDelayMs: 500, maxDelayMs: 100 } },
      /retry.maxDelayMs" \(100\) must be >= retry.baseDelayMs \(500\)/,
    ],
    [{ ...options, onExhausted: 'skip' }, /onExhausted" must be one of "dead-letter", "pause"/],
    [
      { ...options, tuning: { installSchema: 'yes' } },
      /tuning.installSchema" must be true or false/,
    ],
    [{ ...options, metrics: { prefix: 'bad prefix' } }, /metrics.prefix" must match/],
    [{ ...options, retention: { keepMs: -1 } }, /retention.keepMs" must be a duration/],
  ])(
    'refuses invalid options with a message that says how to fix them: at forRoot, and at start-up with forRootAsync (%#)',
    async (bad, message) => {
      expect(() => InboxModule.forRoot(bad as InboxModuleOptions)).toThrow(InvalidOptionsError);
      expect(() => InboxModule.forRoot(bad as InboxModuleOptions)).toThrow(message);
      const attempt = resolved([InboxModule.forRootAsync({ useFactory: () => bad as never })]);
      await expect(attempt).rejects.toThrow(message);
    },
  );
});
