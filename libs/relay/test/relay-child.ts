/**
 * Test entry: a relay in a real child process, configured by env like apps/relay, plus
 * RELAY_FAULT=after-claim|before-send|after-send|during-mark (SIGKILL itself at that stage of batch
 * number RELAY_FAULT_BATCH, default 1, optionally only when RELAY_FAULT_EVENT is in it),
 * and RELAY_PUBLISHER=null.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { RelayModule, NullPublisher, type RelayHooks, type RelayStage } from '@nest-outbox/relay';
import { relayOptionsFromEnv } from '../../../apps/relay/src/relay-env.config';

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

async function main(): Promise<void> {
  const options = relayOptionsFromEnv();
  const app = await NestFactory.createApplicationContext(
    RelayModule.forRoot({
      ...options,
      hooks: faultHooks(),
      publisher: process.env.RELAY_PUBLISHER === 'null' ? new NullPublisher() : undefined,
    }),
    { logger: ['warn', 'error'] },
  );
  app.enableShutdownHooks();
  await app.init();
  process.stdout.write('RELAY READY\n');
}

void main();
