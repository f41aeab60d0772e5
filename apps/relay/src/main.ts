import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RelayAppModule } from './relay-app.module';
import { relayHttpPortFromEnv, relayOptionsFromEnv } from './relay-env.config';

/**
 * Standalone relay: `node -r ts-node/register -r tsconfig-paths/register apps/relay/src/main.ts`.
 * Configured by environment (see relay-env.config.ts); RELAY_HTTP_PORT (default 3100,
 * 0 = no HTTP) serves /health and /metrics. SIGTERM/SIGINT shut down gracefully.
 */
async function bootstrap(): Promise<void> {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
  const app = await NestFactory.create(RelayAppModule.register(relayOptionsFromEnv()), {
    logger: ['log', 'warn', 'error'],
  });
  app.enableShutdownHooks();
  const port = relayHttpPortFromEnv();
  if (port > 0) await app.listen(port, '127.0.0.1');
  else await app.init();
  Logger.log(`relay ready${port > 0 ? ` on http://127.0.0.1:${port}` : ''}`, 'RelayMain');
}

void bootstrap();
