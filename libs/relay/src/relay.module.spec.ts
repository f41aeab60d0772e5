import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { InvalidOptionsError } from '@nest-outbox/core';
import { Registry } from 'prom-client';
import type { RelayModuleOptions } from './options/relay-options.interface';
import { resolveRelayOptions, type ResolvedRelayOptions } from './options/relay-options.resolver';
import { RELAY_METRICS_REGISTRY, RELAY_OPTIONS } from './relay.constants';
import { RelayModule } from './relay.module';

const base: RelayModuleOptions = {
  connection: 'postgres://postgres@127.0.0.1:5432/postgres',
  kafka: { brokers: ['127.0.0.1:9092'] },
  routing: { defaultTopic: 'events' },
};

describe('RelayModule options', () => {
  it('applies the documented defaults when only the required options are given', () => {
    const o = resolveRelayOptions(base);
    expect(o).toMatchObject({
      schema: 'public',
      table: 'outbox',
      qualifiedTable: '"public"."outbox"',
      batchSize: 1000,
      compression: 'none',
      synchronousCommit: false,
      leaseMs: 30_000,
      publishTimeoutMs: 10_000,
      maxAttempts: 10,
      crashLoopThreshold: 3,
      listenChannel: 'nest_outbox',
      backoff: { baseMs: 500, capMs: 30_000 },
      retention: { mode: 'delete', batchSize: 1000 },
      installSchema: false,
      verifySchema: true,
      metrics: { registry: undefined, prefix: 'nest_outbox_relay_' },
    });
  });

  it('refuses a publish timeout that is not shorter than the lease, saying how to fix it', () => {
    expect(() =>
      resolveRelayOptions({ ...base, tuning: { leaseMs: 5000, publishTimeoutMs: 5000 } }),
    ).toThrow(InvalidOptionsError);
    expect(() =>
      resolveRelayOptions({ ...base, tuning: { leaseMs: 5000, publishTimeoutMs: 6000 } }),
    ).toThrow(
      /option "tuning.publishTimeoutMs" \(6000 ms\) must be shorter than tuning.leaseMs \(5000 ms\).*lower tuning.publishTimeoutMs or raise tuning.leaseMs/,
    );
  });

  it.each([
    'order:orders',
    'order=orders;payment=payments',
    'order=',
    '=orders',
    'order=bad topic!',
  ])('refuses the topic mapping %p with the expected syntax in the message', (routes) => {
    expect(() => resolveRelayOptions({ ...base, routing: { routes } })).toThrow(
      InvalidOptionsError,
    );
    expect(() => resolveRelayOptions({ ...base, routing: { routes } })).toThrow(/routing\.routes/);
  });

  it('routes an event by its own topic first, then by its aggregate type, then to the default', () => {
    const { router } = resolveRelayOptions({
      ...base,
      routing: { defaultTopic: 'd', routes: 'order=orders, payment=payments' },
    });
    expect(router.topicFor('order', null)).toBe('orders');
    expect(router.topicFor('order', 'own')).toBe('own');
    expect(router.topicFor('other', null)).toBe('d');
    expect(
      resolveRelayOptions({ ...base, routing: {} }).router.topicFor('x', null),
    ).toBeUndefined();
  });

  it.each([
    [{ schema: 'Bad' }, /option "schema" must be/],
    [{ connection: '' }, /option "connection" is required/],
    [{ tuning: { batchSize: 0 } }, /option "tuning.batchSize" must be a positive integer/],
    [
      { tuning: { retry: { baseDelayMs: 1000, maxDelayMs: 10 } } },
      /option "tuning.retry.maxDelayMs" \(10\) must be >= tuning.retry.baseDelayMs/,
    ],
    [
      { tuning: { retry: { maxAttempts: 0 } } },
      /option "tuning.retry.maxAttempts" must be a positive integer/,
    ],
    [{ kafka: undefined }, /option "kafka" is required/],
    [
      { tuning: { recordEncoder: 'relay' } },
      /option "tuning.recordEncoder" was removed: .*delete the option/,
    ],
    [{ recordEncoder: 'kafkajs' }, /option "recordEncoder" was removed/],
    [
      { tuning: { compression: 'lz4' } },
      /option "tuning.compression" must be one of "none", "gzip", "snappy"/,
    ],
    [{ metrics: { prefix: 'relay-' } }, /option "metrics.prefix" must match/],
    [{ tuning: { verifySchema: 1 } }, /option "tuning.verifySchema" must be true or false/],
    [
      { tuning: { polling: { minMs: 500, maxMs: 100 } } },
      /option "tuning.polling.maxMs" \(100\) must be >= tuning.polling.minMs/,
    ],
    [
      { retention: { mode: 'truncate' } },
      /option "retention.mode" must be one of "delete", "archive"/,
    ],
    [{ tuning: { autoStart: 'yes' } }, /option "tuning.autoStart" must be true or false/],
  ] as [Partial<RelayModuleOptions>, RegExp][])(
    'refuses %p with an error naming the option and the fix',
    (patch, message) => {
      expect(() => resolveRelayOptions({ ...base, ...patch })).toThrow(message);
    },
  );
});

describe('RelayModule registration', () => {
  const read = async (imports: unknown[]) => {
    const ref = await Test.createTestingModule({ imports: imports as never[] }).compile();
    const options = ref.get<ResolvedRelayOptions>(RELAY_OPTIONS);
    const registry = ref.get<Registry>(RELAY_METRICS_REGISTRY);
    return { options, registry, ref };
  };

  it('reads the options back from forRoot and creates a metrics registry of its own (not the global one)', async () => {
    const { options, registry } = await read([
      RelayModule.forRoot({ ...base, tuning: { batchSize: 7 } }),
    ]);
    expect(options.batchSize).toBe(7);
    expect(registry).toBeInstanceOf(Registry);
    expect(registry.getSingleMetric('nest_outbox_relay_published_total')).toBeDefined();
  });

  it('uses the metrics registry given by option to forRoot', async () => {
    const mine = new Registry();
    const { registry } = await read([
      RelayModule.forRoot({ ...base, metrics: { registry: mine } }),
    ]);
    expect(registry).toBe(mine);
  });

  const SETTINGS = Symbol('settings');

  @Module({
    providers: [{ provide: SETTINGS, useValue: { table: 'events' } }],
    exports: [SETTINGS],
  })
  class SettingsModule {}

  it('reads the options back from forRootAsync with a useFactory that injects a provider of an imported module', async () => {
    const { options } = await read([
      RelayModule.forRootAsync({
        imports: [SettingsModule],
        inject: [SETTINGS],
        useFactory: (settings: { table: string }) => ({
          ...base,
          tuning: { table: settings.table },
        }),
      }),
    ]);
    expect(options.table).toBe('events');
  });

  @Injectable()
  class RelayConfig {
    constructor(@Inject(SETTINGS) private readonly settings: { table: string }) {}

    createRelayOptions(): RelayModuleOptions {
      return { ...base, schema: 'app', tuning: { table: this.settings.table } };
    }
  }

  @Module({ imports: [SettingsModule], providers: [RelayConfig], exports: [RelayConfig] })
  class ConfigModule {}

  it('reads the options back from forRootAsync with useClass', async () => {
    const { options } = await read([
      RelayModule.forRootAsync({ imports: [SettingsModule], useClass: RelayConfig }),
    ]);
    expect(options).toMatchObject({ schema: 'app', table: 'events' });
  });

  it('reads the options back from forRootAsync with useExisting', async () => {
    const { options } = await read([
      RelayModule.forRootAsync({ imports: [ConfigModule], useExisting: RelayConfig }),
    ]);
    expect(options).toMatchObject({ schema: 'app', table: 'events' });
  });

  it('refuses inconsistent options when the module is created', async () => {
    await expect(
      Test.createTestingModule({
        imports: [
          RelayModule.forRoot({ ...base, tuning: { leaseMs: 100, publishTimeoutMs: 200 } }),
        ],
      }).compile(),
    ).rejects.toThrow(/publishTimeoutMs/);
  });
});
