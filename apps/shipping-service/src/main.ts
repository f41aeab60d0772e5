import 'reflect-metadata';

import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import { InboxKafkaServer } from '@nest-outbox/inbox';
import {
  configureSampleHttp,
  connectConsumerInBackground,
  ensureSchema,
  retryStartup,
  runSampleService,
  sampleLogger,
} from '../../common/src';
import { loadShippingServiceConfig } from './shipping-service.config';
import { ShippingServiceModule } from './shipping-service.module';

/** Starts the shipping service: HTTP and the Kafka consumer of the order events (hybrid). */
async function bootstrap(): Promise<void> {
  const config = loadShippingServiceConfig();
  // PostgreSQL first (retried for about a minute); Kafka is not waited for, see below.
  await retryStartup('schema preparation', () => ensureSchema(config.databaseUrl, config.schema));
  const app = await NestFactory.create(ShippingServiceModule.forRoot(config), {
    logger: sampleLogger(),
  });
  configureSampleHttp(app);
  // The inbox's own Kafka transport (every codec, capped header decoding); the server is ours so
  // that a failed start can close it before the next try.
  const server = new InboxKafkaServer({
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
  // HTTP first: /health answers (503 until the consumer runs) even while Kafka is down.
  await app.listen(config.port, '0.0.0.0');
  void connectConsumerInBackground(app, server, {
    brokers: config.kafkaBrokers,
    createTopics: config.createTopics ? [config.orderEventsTopic, config.shipmentEventsTopic] : [],
    topicPartitions: config.topicPartitions,
  });
  new Logger('ShippingService').log(
    `listening on :${config.port}, Kafka consumer starting (schema ${config.schema}, group ${config.consumerGroup}, ` +
      `reads ${config.orderEventsTopic}, writes ${config.shipmentEventsTopic})`,
  );
}

runSampleService('ShippingService', bootstrap);
