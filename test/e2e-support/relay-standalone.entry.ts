/**
 * Stand-in for `apps/relay` (the standalone relay process) until it lands: a Nest HTTP app
 * with the RelayModule on one outbox table, `/health` (terminus + relay indicator) and
 * `/metrics`. Environment: DATABASE_URL, KAFKA_BROKERS, OUTBOX_SCHEMA, OUTBOX_TABLE,
 * RELAY_ROUTES ("order=orders,..."), RELAY_LEASE_MS, PORT.
 *
 * Test-only fault seam: `RELAY_KILL_AFTER_SEND_BATCH=N` SIGKILLs the process right after
 * the N-th batch was acknowledged by the broker and before it is marked published, so that
 * batch is published again by the next relay (the at-least-once case the inbox absorbs).
 */
import 'reflect-metadata';
import { Controller, Get, Header, Inject, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { RELAY_METRICS_REGISTRY, RelayHealthIndicator, RelayModule } from '@nest-outbox/relay';
import type { Registry } from 'prom-client';

process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
const env = process.env;
const killAfter = Number(env.RELAY_KILL_AFTER_SEND_BATCH ?? 0);
let sentBatches = 0;

@Controller()
class RelayHttpController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly relay: RelayHealthIndicator,
    @Inject(RELAY_METRICS_REGISTRY) private readonly registry: Registry,
  ) {}

  @Get('health')
  @HealthCheck()
  check() {
    return this.health.check([() => this.relay.isHealthy('relay', { brokerTimeoutMs: 2000 })]);
  }

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}

const leaseMs = Number(env.RELAY_LEASE_MS ?? 5000);

@Module({
  imports: [
    TerminusModule,
    RelayModule.forRoot({
      connection: env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      schema: env.OUTBOX_SCHEMA ?? 'public',
      table: env.OUTBOX_TABLE ?? 'outbox',
      kafka: {
        clientId: 'standalone-relay',
        brokers: (env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
      },
      routing: { routes: env.RELAY_ROUTES ?? '' },
      leaseMs,
      publishTimeoutMs: Math.floor(leaseMs / 2),
      backoff: { baseMs: 200, capMs: 5000 },
      batchSize: Number(env.RELAY_BATCH_SIZE ?? 200),
      statsIntervalMs: 1000,
      hooks:
        killAfter > 0
          ? {
              onStage(stage) {
                if (stage === 'after-send' && ++sentBatches >= killAfter) {
                  process.kill(process.pid, 'SIGKILL');
                }
              },
            }
          : undefined,
    }),
  ],
  controllers: [RelayHttpController],
})
class StandaloneRelayModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(StandaloneRelayModule, { logger: ['log', 'warn', 'error'] });
  app.enableShutdownHooks();
  await app.listen(Number(env.PORT ?? 3002), '0.0.0.0');
  new Logger('Relay').log(`standalone relay listening on :${env.PORT ?? 3002}`);
}

main().catch((error: unknown) => {
  new Logger('Relay').error(`start-up failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
