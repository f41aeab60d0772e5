import { Controller, Get, Inject, Optional } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
  type HealthIndicatorFunction,
} from '@nestjs/terminus';
import { OutboxPressureService } from '@nest-outbox/outbox';
import { RelayHealthIndicator } from '@nest-outbox/relay/health';

/**
 * DI token of a service's own health checks (a `HealthIndicatorFunction[]`), run by
 * `SampleHealthController` between the database's check and the relay's. Optional.
 */
export const SERVICE_HEALTH_CHECKS = Symbol('sample:service-health-checks');

/**
 * `GET /health`: 200 when the database, the service's own checks (`SERVICE_HEALTH_CHECKS`)
 * and the embedded relay (which probes the broker; not checked when the relay runs
 * elsewhere) are up, 503 otherwise. With the outbox's `pressure` option, `details.pressure`
 * shows the state the relay published (`ok`, `warn`, `critical`, or `unknown` when none is
 * fresh) and the forecast; always `up`.
 */
@Controller('health')
export class SampleHealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    @Optional() private readonly relay?: RelayHealthIndicator,
    @Optional()
    @Inject(SERVICE_HEALTH_CHECKS)
    private readonly serviceChecks: readonly HealthIndicatorFunction[] = [],
    @Optional() private readonly pressure?: OutboxPressureService,
  ) {}

  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    const checks: HealthIndicatorFunction[] = [
      () => this.db.pingCheck('database', { timeout: 2000 }),
      ...this.serviceChecks,
    ];
    const relay = this.relay;
    if (relay) checks.push(() => relay.isHealthy('relay', { brokerTimeoutMs: 2000 }));
    const pressure = this.pressure;
    // Shown, never down: a critical state refuses non-critical commands, it is not an outage.
    if (pressure?.enabled) checks.push(() => ({ pressure: { status: 'up', ...pressure.latest } }));
    return this.health.check(checks);
  }
}
