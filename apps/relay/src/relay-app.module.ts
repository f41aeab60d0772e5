import { Controller, Get, Header, Inject, Module, type DynamicModule } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { RELAY_METRICS_REGISTRY, RelayModule, type RelayModuleOptions } from '@nest-outbox/relay';
import { RelayConsoleModule, type RelayConsoleAuth } from '@nest-outbox/relay-console';
import { RelayHealthIndicator } from '@nest-outbox/relay/health';
import type { Registry } from 'prom-client';

/** `/health` (terminus) and `/metrics` (prom-client) of the standalone relay. */
@Controller()
export class RelayHttpController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly relay: RelayHealthIndicator,
    @Inject(RELAY_METRICS_REGISTRY) private readonly registry: Registry,
  ) {}

  @Get('health')
  @HealthCheck()
  check() {
    return this.health.check([() => this.relay.isHealthy('relay')]);
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4')
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * The standalone relay process: the RelayModule plus health and metrics endpoints, and the
 * operator console (`RelayConsoleModule`) unless `operatorConsole` is false.
 */
@Module({})
export class RelayAppModule {
  static register(
    options: RelayModuleOptions,
    operatorConsole: { auth: RelayConsoleAuth | undefined } | false = false,
  ): DynamicModule {
    const relay = RelayModule.forRoot(options);
    return {
      module: RelayAppModule,
      imports: [
        TerminusModule,
        relay,
        ...(operatorConsole
          ? [RelayConsoleModule.register({ relay, auth: operatorConsole.auth })]
          : []),
      ],
      controllers: [RelayHttpController],
      providers: [RelayHealthIndicator],
    };
  }
}
