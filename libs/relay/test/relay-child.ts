/**
 * Test entry: a relay in a real child process. Its options come whole from RELAY_TEST_OPTIONS
 * (JSON, as `RelayScene.options()` builds them), plus:
 * - RELAY_FAULT=after-claim|before-send|after-send|during-mark: SIGKILL itself at that stage of
 *   batch number RELAY_FAULT_BATCH (default 1), optionally only when RELAY_FAULT_EVENT is in it;
 * - RELAY_PUBLISHER=null: the null publisher;
 * - RELAY_PUBLISH_DELAY_MS: each publish waits that long (abortably) first, like a slow broker.
 * Prints "RELAY READY" once its loop runs and "RELAY STOPPED <signal>" after a graceful shutdown.
 */
import 'reflect-metadata';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RelayModule, type RelayModuleOptions, type RelayPublisher } from '@nest-outbox/relay';
import type { RelayHooks, RelayStage } from '../src/options/relay-options.interface';
import { KafkaPublisher } from '../src/publisher/kafka.publisher';
import { NullPublisher } from '../src/publisher/null.publisher';
import { RecordingPublisher } from './recording.publisher';

function faultHooks(): RelayHooks | undefined {
  const fault = process.env.RELAY_FAULT as RelayStage | undefined;
  if (!fault) return undefined;
  const batch = Number(process.env.RELAY_FAULT_BATCH ?? 1);
  let seen = 0;
  return {
    onStage(stage, eventIds) {
      if (stage !== fault) return;
      // RELAY_FAULT_EVENT: die only when this event is in the batch (a poison that kills the relay).
      if (process.env.RELAY_FAULT_EVENT && !eventIds.includes(process.env.RELAY_FAULT_EVENT))
        return;
      if (++seen < batch) return;
      process.stdout.write(`FAULT ${stage} ids=${eventIds.join(',')}\n`, () =>
        process.kill(process.pid, 'SIGKILL'),
      );
      return new Promise<void>(() => undefined); // never continue
    },
  };
}

function publisher(options: RelayModuleOptions): RelayPublisher | undefined {
  if (process.env.RELAY_PUBLISHER === 'null') return new NullPublisher();
  const delayMs = Number(process.env.RELAY_PUBLISH_DELAY_MS ?? 0);
  if (delayMs <= 0) return undefined;
  const recording = new RecordingPublisher(new KafkaPublisher(options.kafka!));
  recording.delayMs = delayMs;
  return recording;
}

/** In the root module: its shutdown hook runs after the relay's (Nest goes from the leaves up). */
@Injectable()
class StopMarker implements OnApplicationShutdown {
  onApplicationShutdown(signal?: string): void {
    process.stdout.write(`RELAY STOPPED ${signal ?? ''}\n`);
  }
}

class RelayChildModule {}

async function main(): Promise<void> {
  const options = JSON.parse(process.env.RELAY_TEST_OPTIONS ?? '{}') as RelayModuleOptions;
  const relay = RelayModule.forRoot({
    ...options,
    hooks: faultHooks(),
    tuning: { ...options.tuning, publisher: publisher(options) },
  });
  const app = await NestFactory.createApplicationContext(
    { module: RelayChildModule, imports: [relay], providers: [StopMarker] },
    { logger: ['warn', 'error'] },
  );
  app.enableShutdownHooks();
  await app.init();
  process.stdout.write('RELAY READY\n');
}

void main();
