import { Test } from '@nestjs/testing';
import { HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { RelayHealthIndicator } from '@nest-outbox/relay/health';
import { SampleHealthController, SERVICE_HEALTH_CHECKS } from './sample-health.controller';

const up = (key: string) => Promise.resolve({ [key]: { status: 'up' } });

/** `/health` over fake indicators that answer `up` under their key, so the order is visible. */
async function checksOf(options: { relay: boolean; serviceChecks?: string[] }) {
  const moduleRef = await Test.createTestingModule({
    controllers: [SampleHealthController],
    providers: [
      {
        provide: HealthCheckService,
        useValue: { check: (fns: (() => Promise<object>)[]) => Promise.all(fns.map((f) => f())) },
      },
      { provide: TypeOrmHealthIndicator, useValue: { pingCheck: up } },
      ...(options.relay ? [{ provide: RelayHealthIndicator, useValue: { isHealthy: up } }] : []),
      ...(options.serviceChecks
        ? [
            {
              provide: SERVICE_HEALTH_CHECKS,
              useValue: options.serviceChecks.map((key) => () => up(key)),
            },
          ]
        : []),
    ],
  }).compile();
  return moduleRef.get(SampleHealthController).check();
}

describe('SampleHealthController (unit, fake indicators)', () => {
  it('Given an embedded relay and no service checks, then /health checks the database and the relay', async () => {
    expect(await checksOf({ relay: true })).toEqual([
      { database: { status: 'up' } },
      { relay: { status: 'up' } },
    ]);
  });

  it('Given service checks, then /health runs them between the database and the relay', async () => {
    expect(await checksOf({ relay: true, serviceChecks: ['inbox'] })).toEqual([
      { database: { status: 'up' } },
      { inbox: { status: 'up' } },
      { relay: { status: 'up' } },
    ]);
  });

  it('Given the relay runs elsewhere, then /health does not check it', async () => {
    expect(await checksOf({ relay: false, serviceChecks: ['inbox'] })).toEqual([
      { database: { status: 'up' } },
      { inbox: { status: 'up' } },
    ]);
  });
});
