import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { runSampleService, sampleLogger, startSampleApp } from '../../common/src';
import { RelayAppModule } from './relay-app.module';
import { relayConsoleFromEnv } from './relay-console.config';
import {
  relayHttpHostFromEnv,
  relayHttpPortFromEnv,
  relayOptionsFromEnv,
} from './relay-env.config';

/**
 * Standalone relay: `node -r ts-node/register -r tsconfig-paths/register apps/relay/src/main.ts`.
 * Configured by environment (see relay-env.config.ts); RELAY_HTTP_HOST (default 127.0.0.1) and RELAY_HTTP_PORT (default 3100,
 * 0 = no HTTP) serves /health, /metrics and the operator console at /operator (see
 * relay-console.config.ts: it needs RELAY_CONSOLE_TOKENS or mTLS, or RELAY_CONSOLE=off).
 * SIGTERM/SIGINT shut down gracefully.
 */
async function bootstrap(): Promise<void> {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
  const port = relayHttpPortFromEnv();
  const host = relayHttpHostFromEnv();
  // Without HTTP there is no console to guard.
  const operatorConsole = port > 0 ? relayConsoleFromEnv() : ({ enabled: false } as const);
  // Retried for about a minute while PostgreSQL (the schema check) or Kafka does not answer.
  await startSampleApp(
    () =>
      NestFactory.create(
        RelayAppModule.register(
          relayOptionsFromEnv(),
          operatorConsole.enabled && { auth: operatorConsole.auth },
        ),
        {
          logger: sampleLogger(),
          abortOnError: false,
          httpsOptions: operatorConsole.enabled ? operatorConsole.https : undefined,
        },
      ),
    async (app) => {
      app.enableShutdownHooks();
      if (port > 0) await app.listen(port, host);
      else await app.init();
    },
  );
  const scheme = operatorConsole.enabled && operatorConsole.https ? 'https' : 'http';
  Logger.log(`relay ready${port > 0 ? ` on ${scheme}://${host}:${port}` : ''}`, 'RelayMain');
}

runSampleService('RelayMain', bootstrap);
