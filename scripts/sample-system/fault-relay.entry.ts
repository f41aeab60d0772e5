/**
 * The standalone relay of `apps/relay` (same module, same environment) with a fault for the
 * crash scenarios (the crash-recovery e2e test, the chaos run and the demo), put on by the
 * relay's test hooks (libs/relay/test/test-hooks.ts), so it runs from source through ts-node:
 * `RELAY_KILL_AFTER_SEND_BATCH=N` SIGKILLs the process right after the broker
 * acknowledged its N-th batch and before that batch is marked published, so the next relay
 * publishes it again (the at-least-once case the consumer's inbox must absorb).
 * `SIGUSR2` arms the same kill for the next acknowledged batch (the demo's "midway").
 */
import 'reflect-metadata';
import { ConsoleLogger, Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { sampleLogger, startSampleApp } from '../../apps/common/src';
import { RelayAppModule } from '../../apps/relay/src/relay-app.module';
import { relayHttpPortFromEnv, relayOptionsFromEnv } from '../../apps/relay/src/relay-env.config';
import { withTestHooks } from '../../libs/relay/test/test-hooks';

async function main(): Promise<void> {
  process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
  const killAfter = Number(process.env.RELAY_KILL_AFTER_SEND_BATCH ?? 0);
  let sent = 0;
  let armed = false;
  process.on('SIGUSR2', () => (armed = true));
  const hooks = {
    onStage(stage: string) {
      if (stage !== 'after-send') return;
      sent += 1;
      if (armed || (killAfter > 0 && sent >= killAfter)) {
        process.kill(process.pid, 'SIGKILL');
      }
    },
  };
  const port = relayHttpPortFromEnv();
  // Retried for about a minute while PostgreSQL or Kafka does not answer (as apps/relay).
  await startSampleApp(
    async () => {
      const logger = sampleLogger();
      const builder = Test.createTestingModule({
        imports: [RelayAppModule.register(relayOptionsFromEnv())],
      }).setLogger(Array.isArray(logger) ? new ConsoleLogger({ logLevels: logger }) : logger);
      const moduleRef = await withTestHooks(builder, hooks).compile();
      return moduleRef.createNestApplication({ logger, abortOnError: false });
    },
    async (app) => {
      // Not SIGUSR2 (Nest's default list has it): that one arms the fault seam.
      app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
      await app.listen(port, '127.0.0.1');
    },
  );
  new Logger('FaultRelay').log(
    `relay ready on :${port} (kill after send batch ${killAfter || 'never'})`,
  );
}

main().catch((error: unknown) => {
  new Logger('FaultRelay').error(`start-up failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
