/**
 * Test entry: a relay in a real child process for the graceful-shutdown test, configured by
 * env like apps/relay plus RELAY_SHUTDOWN_TIMEOUT_MS, RELAY_MAX_REQUEST_BYTES and
 * RELAY_PUBLISH_DELAY_MS (each publish waits that long, abortably, before going to Kafka: a
 * slow broker). Stops gracefully on SIGTERM (Nest shutdown hooks) and prints "RELAY STOPPED".
 */
import 'reflect-metadata';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { KafkaPublisher, RelayModule } from '@nest-outbox/relay';
import { relayOptionsFromEnv } from '../../../apps/relay/src/relay-env.config';
import { RecordingPublisher } from './recording.publisher';

/** In the root module: its shutdown hook runs after the relay's (Nest goes from the leaves up). */
@Injectable()
class StopMarker implements OnApplicationShutdown {
  onApplicationShutdown(signal?: string): void {
    process.stdout.write(`RELAY STOPPED ${signal ?? ''}\n`);
  }
}

class ShutdownChildModule {}

const num = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);

async function main(): Promise<void> {
  const options = relayOptionsFromEnv();
  const publisher = new RecordingPublisher(new KafkaPublisher(options.kafka!));
  publisher.delayMs = num('RELAY_PUBLISH_DELAY_MS') ?? 0;
  const relay = RelayModule.forRoot({
    ...options,
    publisher,
    shutdownTimeoutMs: num('RELAY_SHUTDOWN_TIMEOUT_MS'),
    maxRequestBytes: num('RELAY_MAX_REQUEST_BYTES'),
  });
  const app = await NestFactory.createApplicationContext(
    { module: ShutdownChildModule, imports: [relay], providers: [StopMarker] },
    { logger: ['warn', 'error'] },
  );
  app.enableShutdownHooks();
  await app.init();
  process.stdout.write('RELAY READY\n');
}

void main();
