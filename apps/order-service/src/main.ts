import 'reflect-metadata';

// kafkajs 2 prints a partitioner notice at every producer start; the default one is what we want.
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ensureSchema } from './database/ensure-schema';
import { ensureTopics } from './kafka/topic.bootstrap';
import { loadOrderServiceConfig } from './order-service.config';
import { OrderServiceModule } from './order-service.module';

/** Starts the order service (see `OrderServiceConfig` for the environment it reads). */
async function bootstrap(): Promise<void> {
  const config = loadOrderServiceConfig();
  await ensureSchema(config.databaseUrl, config.schema);
  if (config.createTopics) {
    await ensureTopics(config.kafkaBrokers, [config.orderEventsTopic], config.topicPartitions);
  }
  const app = await NestFactory.create(OrderServiceModule.forRoot(config), {
    logger: ['log', 'warn', 'error'],
  });
  app.enableShutdownHooks();
  await app.listen(config.port, '0.0.0.0');
  new Logger('OrderService').log(
    `listening on :${config.port} (schema ${config.schema}, topic ${config.orderEventsTopic}, ` +
      `relay ${config.relayEmbedded ? 'embedded' : 'external'})`,
  );
}

bootstrap().catch((error: unknown) => {
  new Logger('OrderService').error(`start-up failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
