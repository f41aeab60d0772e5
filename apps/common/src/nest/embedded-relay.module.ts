import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { RelayModule } from '@nest-outbox/relay';
import { parseConsoleTokens, RelayConsoleModule } from '@nest-outbox/relay-console';
import { RelayHealthIndicator } from '@nest-outbox/relay/health';
import type { SampleServiceConfig } from '../config/sample-service.config';

/** What differs between the services' embedded relays. */
export interface EmbeddedRelayOptions {
  /** The outbox table in the service's schema. */
  readonly table: string;
  /** Kafka client id of the relay's producer. */
  readonly clientId: string;
  /** `aggregate_type` -> topic. */
  readonly routes: Record<string, string>;
}

/** Holds the embedded relay and its health indicator (`@nest-outbox/relay/health`). */
@Module({})
class EmbeddedRelayModule {}

/**
 * The relay publishing the service's own outbox from inside the service (woken in memory
 * after each commit), with its own small pool and the service's lease; exports the relay's
 * providers and its terminus indicator.
 */
export function embeddedRelayModule(
  config: SampleServiceConfig,
  options: EmbeddedRelayOptions,
): DynamicModule {
  const relay = RelayModule.forRoot({
    connection: { connectionString: config.databaseUrl, max: 3 },
    kafka: { clientId: options.clientId, brokers: config.kafkaBrokers },
    routing: { routes: options.routes },
    pressure: {
      maxBacklog: config.pressure.maxBacklog,
      maxOldestAgeMs: config.pressure.maxOldestAgeMs,
      windowMs: config.pressure.windowMs,
    },
    schema: config.schema,
    tuning: {
      table: options.table,
      leaseMs: config.relayLeaseMs,
      publishTimeoutMs: Math.floor(config.relayLeaseMs / 2),
      retry: { baseDelayMs: 200, maxDelayMs: 5000 },
      statsIntervalMs: config.pressure.intervalMs,
    },
  });
  // The operator console, by option; it refuses to start without tokens (ConsoleAccessError).
  const operatorConsole = config.operatorConsole
    ? [
        RelayConsoleModule.register({
          relay,
          auth: { bearer: { tokens: parseConsoleTokens(config.operatorConsoleTokens) } },
        }),
      ]
    : [];
  return {
    module: EmbeddedRelayModule,
    imports: [TerminusModule, relay, ...operatorConsole],
    providers: [RelayHealthIndicator],
    exports: [relay, RelayHealthIndicator],
  };
}
