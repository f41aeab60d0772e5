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
import { ConsoleLogger, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RelayModule, type RelayModuleOptions, type RelayPublisher } from '@nest-outbox/relay';
import { KafkaPublisher } from '../src/publisher/kafka.publisher';
import { NullPublisher } from './null.publisher';
import { RecordingPublisher } from './recording.publisher';
import { withTestHooks, type RelayStage, type TestHooks } from './test-hooks';

function faultHooks(): TestHooks {
  const fault = process.env.RELAY_FAULT as RelayStage | undefined;
  if (!fault) return {};
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

async function main(): Promise<void> {
  const options = JSON.parse(process.env.RELAY_TEST_OPTIONS ?? '{}') as RelayModuleOptions;
  @Module({
    imports: [RelayModule.forRoot({ ...options, publisher: publisher(options) })],
    providers: [StopMarker],
  })
  class RelayChildModule {}
  // A testing module, so that the fault hooks can replace the relay's classes.
  const builder = Test.createTestingModule({ imports: [RelayChildModule] }).setLogger(
    new ConsoleLogger({ logLevels: ['warn', 'error'] }),
  );
  const app = await withTestHooks(builder, faultHooks()).compile();
  app.enableShutdownHooks();
  await app.init();
  process.stdout.write('RELAY READY\n');
}

void main();
