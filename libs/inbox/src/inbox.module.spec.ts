import { Global, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TransactionHost } from '@nestjs-cls/transactional';
import { InvalidOptionsError } from '@nest-outbox/core';
import { Registry } from 'prom-client';
import { INBOX_METRICS_REGISTRY, INBOX_OPTIONS } from './inbox.constants';
import { InboxModule } from './inbox.module';
import type { InboxModuleOptions } from './options/inbox-options.interface';
import type { ResolvedInboxOptions } from './options/inbox-options.resolver';

/** Stands in for the application's ClsModule: the module only needs the TransactionHost token here. */
@Global()
@Module({ providers: [{ provide: TransactionHost, useValue: {} }], exports: [TransactionHost] })
class FakeTransactionsModule {}

const options: InboxModuleOptions = {
  kafka: { brokers: ['127.0.0.1:9092'] },
  tables: { schema: 'shipping', inbox: 'processed' },
  retry: { maxAttempts: 7 },
  retention: { prune: false },
};

@Injectable()
class InboxConfig {
  createInboxOptions(): InboxModuleOptions {
    return options;
  }
}

@Module({ providers: [InboxConfig], exports: [InboxConfig] })
class ConfigModule {}

async function resolved(
  imports: unknown[],
): Promise<{ options: ResolvedInboxOptions; registry: Registry }> {
  const moduleRef = await Test.createTestingModule({
    imports: [FakeTransactionsModule, ...(imports as [])],
  }).compile();
  await moduleRef.init();
  const result = {
    options: moduleRef.get<ResolvedInboxOptions>(INBOX_OPTIONS),
    registry: moduleRef.get<Registry>(INBOX_METRICS_REGISTRY),
  };
  await moduleRef.close();
  return result;
}

describe('InboxModule registration', () => {
  it('forRoot applies the documented defaults', async () => {
    const { options: o, registry } = await resolved([
      InboxModule.forRoot({ kafka: { brokers: ['b:9092'] }, retention: { prune: false } }),
    ]);
    expect(o.tables.inbox).toBe('"public"."inbox"');
    expect(o.tables.rejected).toBe('"public"."inbox_rejected"');
    expect(o.defaults).toMatchObject({
      maxAttempts: 5,
      onExhausted: 'dead-letter',
      versionCheck: 'off',
      maxMessageBytes: 1_048_576,
    });
    expect(o.retention).toMatchObject({
      inboxRetentionMs: 14 * 86_400_000,
      replayWindowMs: 86_400_000,
      onTooShort: 'refuse',
    });
    expect(registry).toBeInstanceOf(Registry);
    expect(await registry.getSingleMetric('inbox_events_applied_total')?.get()).toBeDefined();
  });

  it('forRoot reads every option back', async () => {
    const { options: o } = await resolved([InboxModule.forRoot(options)]);
    expect(o.tables.inbox).toBe('"shipping"."processed"');
    expect(o.defaults.maxAttempts).toBe(7);
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

  it('two applications in one process get separate metric registries', async () => {
    const a = await resolved([InboxModule.forRoot(options)]);
    const b = await resolved([InboxModule.forRoot(options)]);
    expect(a.registry).not.toBe(b.registry);
  });

  it.each([
    [{ kafka: { brokers: [] } }, /kafka.brokers" is required/],
    [
      { ...options, tables: { schema: 'Bad Schema' } },
      /tables.schema" must be a lower-case SQL identifier/,
    ],
    [{ ...options, retry: { maxAttempts: 0 } }, /retry.maxAttempts" must be a positive integer/],
    [{ ...options, onExhausted: 'skip' }, /onExhausted" must be one of "dead-letter", "pause"/],
    [
      { ...options, retention: { inboxRetentionMs: -1 } },
      /retention.inboxRetentionMs" must be a duration/,
    ],
  ])(
    'refuses invalid options at start-up with a message that says how to fix them (%#)',
    async (bad, message) => {
      const attempt = resolved([InboxModule.forRoot(bad as InboxModuleOptions)]);
      await expect(attempt).rejects.toThrow(InvalidOptionsError);
      await expect(resolved([InboxModule.forRoot(bad as InboxModuleOptions)])).rejects.toThrow(
        message,
      );
    },
  );
});
