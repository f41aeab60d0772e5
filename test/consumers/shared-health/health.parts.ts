import { Controller, Get } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  TerminusModule,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
} from '@nestjs/terminus';
import { InboxHealthIndicator } from '@nest-outbox/inbox/health';
import { RelayHealthIndicator } from '@nest-outbox/relay/health';
import type { AppExtras } from '../shared/app.module.js';

/** `GET /health` through terminus: the database, the embedded relay and the inbox consumer. */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly relay: RelayHealthIndicator,
    private readonly inbox: InboxHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    return this.health.check([
      () => this.db.pingCheck('database'),
      () => this.relay.isHealthy('relay', { brokerTimeoutMs: 5000 }),
      () => this.inbox.isHealthy('inbox'),
    ]);
  }
}

/** What an app with terminus adds to `AppModule.register()`. */
export const healthParts: AppExtras = {
  imports: [TerminusModule],
  controllers: [HealthController],
  providers: [RelayHealthIndicator, InboxHealthIndicator],
};
