import {
  Controller,
  Get,
  Inject,
  Optional,
  type ExistingProvider,
  type FactoryProvider,
  type ModuleMetadata,
} from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  TerminusModule,
  type HealthCheckResult,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import { InboxHealthIndicator } from '@nest-outbox/inbox/health';
import { RelayHealthIndicator } from '@nest-outbox/relay/health';

/** Pings the app's own database: a terminus indicator of its stack, e.g. `TypeOrmHealthIndicator`. */
export interface DatabasePing {
  pingCheck(key: string): PromiseLike<HealthIndicatorResult>;
}

/** How the app provides its `DatabasePing`: an existing indicator, or a factory. */
export type DatabasePingProvider =
  | Omit<ExistingProvider<DatabasePing>, 'provide'>
  | Omit<FactoryProvider<DatabasePing>, 'provide'>;

const DATABASE_PING = Symbol('DATABASE_PING');

/**
 * `GET /health` through terminus: the embedded relay (which also checks its own database pool),
 * the inbox consumer and, where terminus has an indicator for the app's stack, the database.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly relay: RelayHealthIndicator,
    private readonly inbox: InboxHealthIndicator,
    @Optional() @Inject(DATABASE_PING) private readonly db?: DatabasePing,
  ) {}

  @Get()
  @HealthCheck()
  check(): Promise<HealthCheckResult> {
    const db = this.db;
    return this.health.check([
      ...(db ? [() => db.pingCheck('database')] : []),
      () => this.relay.isHealthy('relay', { brokerTimeoutMs: 5000 }),
      () => this.inbox.isHealthy('inbox'),
    ]);
  }
}

/** What an app with terminus adds to its `AppModule.register()`. */
export function healthParts(
  database?: DatabasePingProvider,
): Pick<ModuleMetadata, 'imports' | 'controllers' | 'providers'> {
  return {
    imports: [TerminusModule],
    controllers: [HealthController],
    providers: [
      RelayHealthIndicator,
      InboxHealthIndicator,
      ...(database ? [{ provide: DATABASE_PING, ...database }] : []),
    ],
  };
}
