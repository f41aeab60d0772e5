import { Controller, Get, Optional } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
  type HealthIndicatorFunction,
} from '@nestjs/terminus';
import { InboxHealthIndicator } from '@nest-outbox/inbox';
import { RelayHealthIndicator } from '@nest-outbox/relay';

/**
 * `GET /health`: 200 when the database, the inbox's Kafka consumer and the embedded relay
 * (which probes the broker) are up, 503 otherwise.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly inbox: InboxHealthIndicator,
    @Optional() private readonly relay?: RelayHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    const checks: HealthIndicatorFunction[] = [
      () => this.db.pingCheck('database', { timeout: 2000 }),
      () => this.inbox.isHealthy('inbox'),
    ];
    const relay = this.relay;
    if (relay) checks.push(() => relay.isHealthy('relay', { brokerTimeoutMs: 2000 }));
    return this.health.check(checks);
  }
}
