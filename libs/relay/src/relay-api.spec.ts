import { Inject, Injectable, Module, Optional } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { InvalidOptionsError, RenamedOptionError } from '@nest-outbox/core';
import type { Registry } from 'prom-client';
import type { RelayModuleOptions } from './options/relay-options.interface';
import { resolveRelayOptions } from './options/relay-options.resolver';
import { RELAY_METRICS_REGISTRY } from './relay.constants';
import { RelayModule } from './relay.module';

const base: RelayModuleOptions = {
  connection: 'postgres://postgres@127.0.0.1:5432/postgres',
  kafka: { brokers: ['127.0.0.1:9092'] },
  routing: { defaultTopic: 'events' },
};

describe('RelayModule unified options', () => {
  it('reads retry.maxAttempts, retry.baseDelayMs and retry.maxDelayMs', () => {
    const o = resolveRelayOptions({
      ...base,
      tuning: { retry: { maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 800 } },
    });
    expect(o).toMatchObject({ maxAttempts: 4, backoff: { baseMs: 50, capMs: 800 } });
  });

  it.each<[object, string, RegExp]>([
    [
      { backoff: { baseMs: 100 } },
      'backoff',
      /renamed to "tuning.retry" \(baseMs -> baseDelayMs, capMs -> maxDelayMs/,
    ],
    [{ maxAttempts: 3 }, 'maxAttempts', /renamed to "tuning\.retry\.maxAttempts"/],
    [{ maxOldestAgeMs: 1 }, 'maxOldestAgeMs', /renamed to "tuning\.unhealthyAfterMs"/],
    [{ retention: { publishedMs: 1 } }, 'retention.publishedMs', /renamed to "retention\.keepMs"/],
    [{ tuning: { schema: 'app' } }, 'tuning.schema', /renamed to "schema"/],
    ...`table producer compression synchronousCommit batchSize runLimit
      maxRequestBytes leaseMs publishTimeoutMs retry crashLoopThreshold polling listen
      classifyError shutdownTimeoutMs statsIntervalMs tableStatsIntervalMs installSchema
      verifySchema autoStart relayId publisher`
      .split(/\s+/)
      .map((name): [object, string, RegExp] => [
        { [name]: 1 },
        name,
        new RegExp(`renamed to "tuning\\.${name}"`),
      ]),
  ])(
    'refuses the old option %p with a RenamedOptionError naming the new one',
    (patch, option, message) => {
      const raw = { ...base, ...patch } as RelayModuleOptions;
      expect(() => resolveRelayOptions(raw)).toThrow(RenamedOptionError);
      expect(() => resolveRelayOptions(raw)).toThrow(InvalidOptionsError);
      expect(() => resolveRelayOptions(raw)).toThrow(message);
      try {
        resolveRelayOptions(raw);
      } catch (error) {
        expect(error).toMatchObject({ option, module: 'RelayModule' });
      }
    },
  );

  it('with metrics: false, provides no registry to scrape', async () => {
    const ref = await Test.createTestingModule({
      imports: [RelayModule.forRoot({ ...base, metrics: false })],
    }).compile();
    expect(ref.get<Registry | undefined>(RELAY_METRICS_REGISTRY)).toBeUndefined();
  });

  @Injectable()
  class RegistryProbe {
    constructor(@Optional() @Inject(RELAY_METRICS_REGISTRY) readonly registry?: Registry) {}
  }

  /** Does not import the relay: sees its exports only when the relay is global. */
  @Module({ providers: [RegistryProbe], exports: [RegistryProbe] })
  class ProbeModule {}

  it.each([
    [true, true],
    [false, false],
    [undefined, true],
  ])(
    'with isGlobal: %p, a module that does not import the relay sees its exports: %p',
    async (isGlobal, visible) => {
      const ref = await Test.createTestingModule({
        imports: [ProbeModule, RelayModule.forRoot({ ...base, isGlobal })],
      }).compile();
      expect(ref.get(RegistryProbe).registry !== undefined).toBe(visible);
    },
  );

  it('takes isGlobal in forRootAsync too, without passing it to the options factory', async () => {
    let seen: unknown;
    const ref = await Test.createTestingModule({
      imports: [
        ProbeModule,
        RelayModule.forRootAsync({
          isGlobal: true,
          useFactory: () => {
            seen = base;
            return base;
          },
        }),
      ],
    }).compile();
    expect(seen).toBe(base);
    expect(ref.get(RegistryProbe).registry).toBeDefined();
  });
});
