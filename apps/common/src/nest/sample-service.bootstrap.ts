import { Logger } from '@nestjs/common';
import type { SampleServiceConfig } from '../config/sample-service.config';
import { ensureSchema } from '../database/ensure-schema';
import { ensureTopics } from '../kafka/topic.bootstrap';

/**
 * What a service needs before Nest starts: its schema (TypeORM puts its migrations table
 * there) and, unless `KAFKA_CREATE_TOPICS=false`, the topics it reads or writes.
 */
export async function prepareSchemaAndTopics(
  config: SampleServiceConfig,
  topics: readonly string[],
): Promise<void> {
  await ensureSchema(config.databaseUrl, config.schema);
  if (config.createTopics) await ensureTopics(config.kafkaBrokers, topics, config.topicPartitions);
}

/** Runs a service's `bootstrap`; a failed start-up is logged and exits the process with 1. */
export function runSampleService(name: string, bootstrap: () => Promise<void>): void {
  bootstrap().catch((error: unknown) => {
    new Logger(name).error(`start-up failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  });
}
