import 'reflect-metadata';

// kafkajs 2 prints a partitioner notice at every producer start; the default one is what we want.
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  configureSampleHttp,
  prepareSchemaAndTopics,
  runSampleService,
  sampleLogger,
  startSampleApp,
} from '../../common/src';
import { loadOrderServiceConfig } from './order-service.config';
import { OrderServiceModule } from './order-service.module';

/** Starts the order service (see `OrderServiceConfig` for the environment it reads). */
async function bootstrap(): Promise<void> {
  const config = loadOrderServiceConfig();
  await prepareSchemaAndTopics(config, [config.orderEventsTopic]);
  await startSampleApp(
    () =>
      NestFactory.create(OrderServiceModule.forRoot(config), {
        logger: sampleLogger(),
        abortOnError: false,
      }),
    async (app) => {
      configureSampleHttp(app);
      app.enableShutdownHooks();
      await app.listen(config.port, '0.0.0.0');
    },
  );
  new Logger('OrderService').log(
    `listening on :${config.port} (schema ${config.schema}, topic ${config.orderEventsTopic}, ` +
      `relay ${config.relayEmbedded ? 'embedded' : 'external'})`,
  );
}

runSampleService('OrderService', bootstrap);
