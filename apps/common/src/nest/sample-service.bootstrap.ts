import { Logger, type INestApplication } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { OutboxHttpExceptionFilter } from '@nest-outbox/outbox';
import type { SampleServiceConfig } from '../config/sample-service.config';
import { ensureSchema } from '../database/ensure-schema';
import { ValueFreeExceptionFilter } from '../http/value-free-exception.filter';
import { ensureTopics } from '../kafka/topic.bootstrap';
import { RequestValidationPipe } from '../validation/request-validation.pipe';
import { retryStartup } from './startup-retry';

/**
 * What a service needs before Nest starts: its schema (TypeORM puts its migrations table
 * there) and, unless `KAFKA_CREATE_TOPICS=false`, the topics it reads or writes. Retried
 * while PostgreSQL or Kafka does not answer (`retryStartup`).
 */
export async function prepareSchemaAndTopics(
  config: SampleServiceConfig,
  topics: readonly string[],
): Promise<void> {
  await retryStartup('schema preparation', () => ensureSchema(config.databaseUrl, config.schema));
  if (config.createTopics) {
    await retryStartup('topic preparation', () =>
      ensureTopics(config.kafkaBrokers, topics, config.topicPartitions),
    );
  }
}

/**
 * Creates and starts a Nest application, again while PostgreSQL or Kafka does not answer
 * (`retryStartup`): a failed attempt's application is closed before the next one.
 */
export function startSampleApp<T extends INestApplication>(
  create: () => Promise<T>,
  start: (app: T) => Promise<void>,
): Promise<T> {
  return retryStartup('start-up', async () => {
    const app = await create();
    try {
      await start(app);
      return app;
    } catch (error) {
      await app.close().catch(() => undefined);
      throw error;
    }
  });
}

/** Runs a service's `bootstrap`; a failed start-up is logged and exits the process with 1. */
export function runSampleService(name: string, bootstrap: () => Promise<void>): void {
  bootstrap().catch((error: unknown) => {
    new Logger(name).error(`start-up failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  });
}

/**
 * The HTTP conventions of every sample app, applied before `listen()`: requests validated
 * the Nest way (`RequestValidationPipe`: class-validator DTOs, whitelist, 400 naming the
 * fields), errors answered and logged without values (`ValueFreeExceptionFilter`), and the
 * outbox's errors and PostgreSQL unavailable answered the HTTP way (`OutboxHttpExceptionFilter`,
 * tried first for the outbox's errors; the other filter hands it the database's).
 * Global to the HTTP app only: a hybrid app's microservices do not inherit them.
 */
export function configureSampleHttp(app: INestApplication): void {
  app.useGlobalPipes(new RequestValidationPipe());
  const { httpAdapter } = app.get(HttpAdapterHost);
  const outbox = new OutboxHttpExceptionFilter(httpAdapter);
  app.useGlobalFilters(new ValueFreeExceptionFilter(httpAdapter, outbox), outbox);
}
