import 'reflect-metadata';

// kafkajs 2 prints a partitioner notice at every producer start; the default one is what we want.
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';

import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ServerKafka, type MicroserviceOptions } from '@nestjs/microservices';
import { InboxConsumerRegistry } from '@nest-outbox/inbox';
import type { Consumer } from 'kafkajs';
import {
  configureSampleHttp,
  prepareSchemaAndTopics,
  runSampleService,
  sampleLogger,
  startSampleApp,
} from '../../common/src';
import { loadShippingServiceConfig } from './shipping-service.config';
import { ShippingServiceModule } from './shipping-service.module';

/** Starts the shipping service: HTTP and the Kafka consumer of the order events (hybrid). */
async function bootstrap(): Promise<void> {
  const config = loadShippingServiceConfig();
  await prepareSchemaAndTopics(config, [config.orderEventsTopic, config.shipmentEventsTopic]);
  // Retried while PostgreSQL or Kafka does not answer (`startSampleApp`): a consumer started
  // during a broker outage must come up when the broker is back, not exit.
  await startSampleApp(
    async () => {
      const app = await NestFactory.create(ShippingServiceModule.forRoot(config), {
        logger: sampleLogger(),
        abortOnError: false,
      });
      configureSampleHttp(app);
      return app;
    },
    async (app) => {
      // The server is ours (not `transport: Transport.KAFKA`) so that the inbox can run its
      // consumer again after a crash kafkajs does not restart.
      const server = new ServerKafka({
        postfixId: '',
        client: { clientId: 'shipping-service', brokers: config.kafkaBrokers },
        consumer: {
          groupId: config.consumerGroup,
          allowAutoTopicCreation: false,
          sessionTimeout: config.consumerSessionTimeoutMs,
          heartbeatInterval: Math.min(3000, Math.floor(config.consumerSessionTimeoutMs / 5)),
        },
        subscribe: { fromBeginning: true },
        // The inbox commits offsets itself, after each effect's PostgreSQL commit.
        run: { autoCommit: false, partitionsConsumedConcurrently: config.consumerConcurrency },
      });
      app.connectMicroservice<MicroserviceOptions>({ strategy: server });
      app.enableShutdownHooks();
      await app.startAllMicroservices();
      const [, consumer] = server.unwrap<[unknown, Consumer]>();
      app.get(InboxConsumerRegistry).attach(consumer, () => server.bindEvents(consumer));
      await app.listen(config.port, '0.0.0.0');
    },
  );
  new Logger('ShippingService').log(
    `listening on :${config.port} (schema ${config.schema}, group ${config.consumerGroup}, ` +
      `reads ${config.orderEventsTopic}, writes ${config.shipmentEventsTopic})`,
  );
}

runSampleService('ShippingService', bootstrap);
